// /offline/: "Keep for offline reading", explained; also the page a reader sees when offline
// on a page that was not kept (the service worker serves it, web/src/sw/sw.js).
import { layout, offlineBox } from './_includes/layout.js';

export const data = { permalink: '/offline/index.html' };

export function render() {
  const body = `<h1>Keep for offline reading</h1>
<p class="lead">The course works without a network once your browser has kept it: every lesson, figure, exercise,
the engine that computes them, the fonts and the search index.</p>
<p>If you came here without a network, the page you asked for has not been kept yet. Pages you have read are kept as
you read them; the button below keeps all of them at once (on a network).</p>
${offlineBox('offline-page')}
<h2 id="how">How it works</h2>
<ul>
  <li>The button downloads the file list of this version of the site and then every file on it, showing files and bytes
  as they arrive. The copy counts as complete only when every file is in.</li>
  <li>Your browser may ask whether the site may store data permanently; if it agrees, it will not remove the copy when it
  runs short of space.</li>
  <li>When the course is updated, your browser downloads the new version in the background (all of it, if you had kept
  the old one), tells you it is ready, and switches to it when you say so or the next time you open the course. The old
  copy is then deleted: pages and figures never mix two versions.</li>
</ul>`;
  return layout({ title: 'Keep for offline reading · ML systems', description: 'Keep every page and figure of the course for reading without a network.', body, current: '/offline/', search: false });
}
