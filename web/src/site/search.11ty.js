// /search/: full-text search over the lessons, the glossary and the figures (Pagefind; the
// UI is web/src/runtime/search.js). Works offline once the course is kept for offline reading.
import { layout } from './_includes/layout.js';
import { searchForm } from './_includes/search-form.js';

export const data = { permalink: '/search/index.html' };

export function render() {
  const body = `<h1>Search</h1>
${searchForm('search-q', { live: true })}
<p class="search-status" role="status" aria-live="polite">Type a word to search the lessons, the glossary and the figures.</p>
<ol class="search-results"></ol>`;
  return layout({ title: 'Search · ML systems', description: 'Search the lessons, the glossary and the figures of the course.', body, current: '/search/', search: false });
}
