// /concept-map/: every lesson of the course and the outside topics as nodes, prerequisite
// edges, laid out at build time (web/scripts/concept-map-layout.js) into a static SVG in
// bands by module, whose written lessons are links; under it, the same graph as a list
// grouped by module (the keyboard and screen-reader equivalent, with every prerequisite).
import { layout } from './_includes/layout.js';
import { lessonIndex } from './_includes/links.js';
import { esc } from '../../scripts/markdown.js';

export const data = { permalink: '/concept-map/index.html' };

const name = (n) => (n.kind === 'topic' ? `${esc(n.label)} <span class="badge">outside topic</span>`
  : n.kind === 'planned' ? `${esc(n.label)} <span class="badge">not written yet</span>`
    : `<a href="${esc(n.href)}">${esc(n.label)}</a>`);

export function render({ course }) {
  const map = course.conceptMap;
  const index = lessonIndex(course.modules);
  const node = new Map(map.nodes.map((n) => [n.id, n]));
  const groups = course.modules.map((m, i) => {
    const items = m.lessons.map((l) => {
      const from = map.edges.filter((e) => e.to === l.slug).map((e) => name(node.get(e.from)));
      return `<li data-slug="${esc(l.slug)}">${name(node.get(l.slug))}: ${from.length ? from.join(' · ') : 'no prerequisites'}</li>`;
    }).join('\n');
    return `<h3>${i + 1} · ${esc(m.title)}</h3>\n<ul class="cm-list">\n${items}\n</ul>`;
  }).join('\n');
  const written = [...index.values()].filter((l) => l.available).length;
  const body = `<h1>Concept map</h1>
<p class="lead">How the lessons build on each other and on topics from outside this course, by module. An arrow points from what to know first to the lesson that needs it; select a lesson to open it. ${written} of the ${course.totalLessons} lessons are written.</p>
<ul class="cm-legend" aria-label="Legend">
  <li><svg width="28" height="16" aria-hidden="true"><rect class="cm-swatch-lesson" x="1" y="1" width="26" height="14" rx="4"/></svg> Lesson (a link)</li>
  <li><svg width="28" height="16" aria-hidden="true"><rect class="cm-swatch-planned" x="1" y="1" width="26" height="14" rx="4"/></svg> Not written yet (dashed)</li>
  <li><svg width="28" height="16" aria-hidden="true"><rect class="cm-swatch-topic" x="1" y="1" width="26" height="14" rx="7"/></svg> Outside topic (rounded)</li>
</ul>
<p class="cm-note-text">An arrow that another path already implies (A before B before C implies A before C) is left out of the drawing; the list below gives every prerequisite.</p>
<div class="cm-zoom" role="group" aria-label="Zoom the concept map" hidden>
  <button type="button" data-zoom="out" aria-label="Zoom out">−</button>
  <button type="button" data-zoom="reset">Actual size</button>
  <button type="button" data-zoom="in" aria-label="Zoom in">+</button>
</div>
<div class="cm-scroll" tabindex="0" role="region" aria-label="Concept map, scrollable">
${map.svg}
</div>
<h2 id="as-a-list">The same map as a list</h2>
<p>Every lesson of the course by module, with what it builds on.</p>
${groups}`;
  return layout({ title: 'Concept map · ML systems', description: 'How the lessons connect to each other and to outside topics.', body, bodyClass: 'wide', current: '/concept-map/' });
}
