// /concept-map/: lessons and outside topics as nodes, prerequisite edges from the lessons'
// front matter, laid out at build time (web/scripts/concept-map.js) into a static SVG whose
// lesson nodes are links; beside it, the same graph as a list.
import { layout } from './_includes/layout.js';
import { lessonIndex, lessonLink } from './_includes/links.js';
import { esc } from '../../scripts/markdown.js';

export const data = { permalink: '/concept-map/index.html' };

export function render({ course }) {
  const map = course.conceptMap;
  const index = lessonIndex(course.modules);
  const label = new Map(map.nodes.map((n) => [n.id, n]));
  const list = course.lessons.map((l) => {
    const from = map.edges.filter((e) => e.to === l.slug).map((e) => label.get(e.from));
    const items = from.map((n) => (n.kind === 'topic' ? `${esc(n.label)} <span class="badge">outside topic</span>` : lessonLink(index, n.id)));
    return `<li data-slug="${esc(l.slug)}"><a href="/lessons/${esc(l.slug)}/">${esc(l.title)}</a>: ${items.length ? items.join(' · ') : 'no prerequisites'}</li>`;
  }).join('\n');
  const body = `<h1>Concept map</h1>
<p class="lead">How the lessons build on each other and on topics from outside this course. An arrow points from what to know first to the lesson that needs it; select a lesson to open it.</p>
<ul class="cm-legend" aria-label="Legend">
  <li><svg width="28" height="16" aria-hidden="true"><rect class="cm-swatch-lesson" x="1" y="1" width="26" height="14" rx="4"/></svg> Lesson (a link)</li>
  <li><svg width="28" height="16" aria-hidden="true"><rect class="cm-swatch-planned" x="1" y="1" width="26" height="14" rx="4"/></svg> Lesson in preparation</li>
  <li><svg width="28" height="16" aria-hidden="true"><ellipse class="cm-swatch-topic" cx="14" cy="8" rx="13" ry="7"/></svg> Outside topic</li>
</ul>
<div class="cm-scroll" tabindex="0" role="region" aria-label="Concept map, scrollable">
${map.svg}
</div>
<h2 id="as-a-list">The same map as a list</h2>
<p>Each lesson with what it builds on.</p>
<ul class="cm-list">
${list}
</ul>`;
  return layout({ title: 'Concept map · ML systems', description: 'How the lessons connect to each other and to outside topics.', body, bodyClass: 'wide', current: '/concept-map/' });
}
