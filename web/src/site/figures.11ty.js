// /figures/: every interactive figure of the course on one page, grouped by lesson. Each
// <mlsys-figure> starts only once it is visible (data-start, web/src/runtime/figure.js), so
// the page stays responsive however many figures it holds.
import { layout } from './_includes/layout.js';
import { esc, figureShell } from '../../scripts/markdown.js';

export const data = { permalink: '/figures/index.html' };

export function render({ course }) {
  const total = course.figuresByLesson.reduce((n, l) => n + l.figures.length, 0);
  const toc = course.figuresByLesson.map((l) => `<li><a href="#figs-${esc(l.slug)}">${esc(l.title)}</a> (${l.figures.length})</li>`).join('\n');
  const groups = course.figuresByLesson.map((l) => `<section class="fig-group" aria-labelledby="figs-${esc(l.slug)}">
  <h2 id="figs-${esc(l.slug)}">${esc(l.title)}</h2>
  <p class="meta"><a href="/lessons/${esc(l.slug)}/">Read the lesson</a> · ${l.figures.length} figures</p>
${l.figures.map((f) => figureShell(f.id, f, ' data-start="visible"')).join('\n')}
</section>`).join('\n');
  const body = `<h1>All interactive figures</h1>
<p class="lead">${total} live figures from ${course.figuresByLesson.length} lessons. Each one starts computing when it comes into view.</p>
<nav aria-label="Figures by lesson"><ul class="fig-toc">
${toc}
</ul></nav>
${groups}`;
  return layout({ title: 'All interactive figures · ML systems', description: 'Every interactive figure of the course on one page.', body, current: '/figures/' });
}
