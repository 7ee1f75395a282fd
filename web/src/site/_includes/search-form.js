// The search form of /search/ and /404.html: a plain GET form to /search/ (works without
// script); `live` marks the one runtime/search.js drives in place.
export function searchForm(id, { live = false } = {}) {
  return `<form class="search-form" role="search" aria-label="Search the course" action="/search/"${live ? ' data-search' : ''}>
  <label for="${id}">Search the lessons, the glossary and the figures</label>
  <div class="search-row">
    <input type="search" id="${id}" name="q" autocomplete="off" spellcheck="false" placeholder="e.g. arithmetic intensity">
    <button type="submit" class="fig-btn">Search</button>
  </div>
</form>`;
}
