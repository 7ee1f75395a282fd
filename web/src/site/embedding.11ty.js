// /embedding/: how to place a live figure in another page: an <iframe> of /embed/<id>/, or
// the script + <mlsys-figure> element (web/src/runtime/embed.js). Generated from the figure
// list, with copyable snippets.
import { layout } from './_includes/layout.js';
import { esc } from '../../scripts/markdown.js';
import { embedListener } from './embed-listener.js';
import { EMBED_HEIGHT } from '../runtime/embed-height.js';

export const data = { permalink: '/embedding/index.html' };

const ORIGIN = 'https://YOUR-COURSE-SITE';

function snippet(id, label, code) {
  return `<div class="snippet"><p class="snippet-label">${label}</p>
<pre tabindex="0"><code id="${id}">${esc(code)}</code></pre>
<button type="button" class="fig-btn" data-copy="${id}">Copy</button></div>`;
}

export function render({ course }) {
  const first = course.figures[0];
  const rows = course.figuresByLesson.flatMap((l) => l.figures.map((f) => `<tr><td><code>${esc(f.id)}</code></td><td>${esc(f.title)}</td>` +
    `<td><a href="/embed/${esc(f.id)}/">/embed/${esc(f.id)}/</a></td><td><a href="/lessons/${esc(l.slug)}/">${esc(l.title)}</a></td></tr>`)).join('\n');
  const keys = first.params.map((p) => `<code>${esc(p.key)}</code>`).join(', ');
  const body = `<h1>Embedding figures in other pages</h1>
<p class="lead">Every figure of the course can live in another page, computing with the same engine. Replace
<code>${ORIGIN}</code> with the address of the course site. Each figure's <strong>Embed</strong> button gives both
snippets with its current settings filled in.</p>

<h2 id="iframe">1. An iframe</h2>
<p>The page <code>/embed/&lt;figure-id&gt;/</code> holds only the figure. Settings go in its hash, in the same form as
the course's permalinks: <code>#&lt;figure-id&gt;:key=value&amp;key=value</code>.</p>
${snippet('snip-iframe', 'Iframe', `<iframe src="${ORIGIN}/embed/${first.id}/#${first.id}:hardware=b200"\n  title="${first.title}" width="100%" height="${EMBED_HEIGHT}" loading="lazy" style="border:0"></iframe>`)}
<p>The height of ${EMBED_HEIGHT.toLocaleString("en-US")} px fits every figure in a column 720 px wide; the figure's own <strong>Embed</strong>
button gives its height. The embed page tells your page its height whenever it changes, as a message
<code>{type: 'mlsys-figure-height', id, height}</code> (<code>id</code>: the figure's, <code>height</code>: CSS pixels).
These lines in your page's script make each iframe of the course take its figure's height (on a phone a figure is
taller, as its controls stack):</p>
${snippet('snip-listener', 'Height listener', embedListener(ORIGIN))}
<p>Your page's Content-Security-Policy must allow the course in <code>frame-src</code>.</p>

<h2 id="script">2. A script and a custom element</h2>
<p>The module script defines the element <code>&lt;mlsys-figure&gt;</code>, which draws the figure in your page, in its own
shadow root: the course's styles stay inside it and your page's styles do not reach it; it is light or dark as your
page's <code>color-scheme</code> says (your readers' system setting where your page allows both or sets none). It loads the engine and the figure from the course site when it scrolls near the viewport.</p>
${snippet('snip-script', 'Script and element', `<script type="module" src="${ORIGIN}/assets/js/embed.js"></script>\n<mlsys-figure data-id="${first.id}" data-settings="hardware=b200&amp;dtype=fp8-e4m3"></mlsys-figure>`)}
<dl class="embed-attrs">
  <dt><code>data-id</code></dt><dd>The figure's id (table below). Required.</dd>
  <dt><code>data-settings</code></dt><dd>Its starting settings, <code>key=value</code> pairs joined by <code>&amp;</code>
  (for <code>${esc(first.id)}</code>: ${keys}).</dd>
  <dt>Your page's address</dt><dd>A hash <code>#&lt;figure-id&gt;:key=value&amp;…</code> on your page overrides
  <code>data-settings</code> for that figure, so your own permalinks work too.</dd>
</dl>
<p>Settings are checked against the engine's schema of each field: a value out of range or not among the choices is
ignored and named in a message inside the figure; nothing from an attribute or a URL is ever inserted as markup.</p>
<p>Your page's Content-Security-Policy must allow the course's origin in <code>script-src</code> (with
<code>'wasm-unsafe-eval'</code> for the engine), <code>style-src</code> and <code>connect-src</code>, for example:</p>
${snippet('snip-csp', 'Content-Security-Policy', `default-src 'self'; script-src 'self' ${ORIGIN} 'wasm-unsafe-eval'; style-src 'self' ${ORIGIN}; style-src-attr 'unsafe-inline'; connect-src 'self' ${ORIGIN}; frame-src ${ORIGIN}`)}
<p>The course's server must send <code>Access-Control-Allow-Origin</code> for the script to load (its own server does).</p>

<h2 id="figure-ids">Figure ids</h2>
<div class="table-scroll" tabindex="0"><table class="content">
<thead><tr><th scope="col">Id</th><th scope="col">Figure</th><th scope="col">Iframe page</th><th scope="col">Lesson</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>`;
  return layout({ title: 'Embedding figures · ML systems', description: 'Place a live figure of the course in another page: iframe, or script and custom element.', body, current: '/embedding/', search: false });
}
