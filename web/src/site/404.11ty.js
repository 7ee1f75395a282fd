// /404.html: the page for an address the site does not have. Named 404.html so that static
// hosts (GitHub Pages, Netlify, Cloudflare Pages) serve it for every unknown address; the
// local server does the same with status 404 (web/scripts/server.js), and the service worker
// serves it offline for an address that is not on the site's page list (web/src/sw/sw.js).
// Every link is absolute: the page is served at whatever depth the unknown address had.
import { layout } from './_includes/layout.js';
import { searchForm } from './_includes/search-form.js';

export const data = { permalink: '/404.html' };

export function render() {
  const body = `<h1>This page does not exist</h1>
<p class="lead">The address you followed is not a page of the course: it may have been mistyped, or the page was
renamed.</p>
${searchForm('notfound-q')}
<p>Or start from <a href="/">the course's list of lessons</a>, the <a href="/track/">track</a> or the
<a href="/glossary/">glossary</a>.</p>`;
  return layout({ title: 'Page not found · ML systems', description: 'This address is not a page of the course.', body, current: '/404.html', search: false });
}
