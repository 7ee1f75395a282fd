// /search/: full-text search over the lessons, the glossary and the figures (Pagefind; the
// UI is web/src/runtime/search.js). Works offline once the course is kept for offline reading.
import { layout } from './_includes/layout.js';

export const data = { permalink: '/search/index.html' };

export function render() {
  const body = `<h1>Search</h1>
<form class="search-form" role="search" aria-label="Search the course" action="/search/" data-search>
  <label for="search-q">Search the lessons, the glossary and the figures</label>
  <div class="search-row">
    <input type="search" id="search-q" name="q" autocomplete="off" spellcheck="false" placeholder="e.g. arithmetic intensity">
    <button type="submit" class="fig-btn">Search</button>
  </div>
</form>
<p class="search-status" role="status" aria-live="polite">Type a word to search the lessons, the glossary and the figures.</p>
<ol class="search-results"></ol>`;
  return layout({ title: 'Search · ML systems', description: 'Search the lessons, the glossary and the figures of the course.', body, current: '/search/', search: false });
}
