// The glossary: every term with its definition, the lessons that use it, related terms.
import { layout } from './_includes/layout.js';
import { esc } from '../../scripts/markdown.js';

export const data = { permalink: '/glossary/index.html' };

export function render({ course }) {
  const terms = new Map(course.glossary.map((g) => [g.id, g]));
  const titles = new Map(course.lessons.map((l) => [l.slug, l.title]));
  const items = course.glossary.map((g) => {
    const used = g.lessons.map((s) => `<a href="/lessons/${esc(s)}/">${esc(titles.get(s) ?? s)}</a>`).join(', ');
    const related = g.related.map((r) => `<a href="#${esc(r)}">${esc(terms.get(r).term)}</a>`).join(', ');
    return `<div class="gloss-entry" id="${esc(g.id)}">
  <dt>${esc(g.term)}</dt>
  <dd><p>${esc(g.definition)}</p>
  <p class="gloss-meta">Used in: ${used}${related ? ` · Related: ${related}` : ''}</p></dd>
</div>`;
  }).join('\n');
  const body = `<h1>Glossary</h1>
<p>${course.glossary.length} terms, each defined in a sentence or two and linked to the lessons that use it.</p>
<dl class="glossary">
${items}
</dl>`;
  return layout({ title: 'Glossary · ML systems', description: 'Definitions of the technical terms used in the course.', body });
}
