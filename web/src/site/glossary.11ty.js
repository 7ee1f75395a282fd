// The glossary: every term with its definition, the lessons that use it, related terms.
import { layout } from './_includes/layout.js';
import { esc } from '../../scripts/markdown.js';

export const data = { permalink: '/glossary/index.html' };

export function render({ course }) {
  const terms = new Map(course.glossary.map((g) => [g.id, g]));
  const titles = new Map(course.lessons.map((l) => [l.slug, l.title]));
  const order = course.lessons.map((l) => l.slug);
  const items = course.glossary.map((g) => {
    // "Used in" comes from the lessons' [text](g:term) links (web/scripts/content.js), in course order.
    const used = [...g.lessons].sort((a, b) => order.indexOf(a) - order.indexOf(b))
      .map((s) => `<a href="/lessons/${esc(s)}/">${esc(titles.get(s) ?? s)}</a>`).join(', ');
    const related = g.related.map((r) => `<a href="#${esc(r)}">${esc(terms.get(r).term)}</a>`).join(', ');
    return `<div class="gloss-entry" id="${esc(g.id)}" data-text="${esc(`${g.term} ${g.definition}`.toLowerCase())}">
  <dt>${esc(g.term)}</dt>
  <dd><p>${esc(g.definition)}</p>
  <p class="gloss-meta">Used in: ${used}${related ? ` · Related: ${related}` : ''}</p></dd>
</div>`;
  }).join('\n');
  const body = `<h1>Glossary</h1>
<p>${course.glossary.length} terms, each defined in a sentence or two and linked to the lessons that use it.</p>
<div class="gloss-filter" data-glossary-filter>
  <label for="gloss-filter-input">Filter terms</label>
  <input type="search" id="gloss-filter-input" autocomplete="off" spellcheck="false" placeholder="e.g. bandwidth">
  <p class="gloss-count" role="status" aria-live="polite">${course.glossary.length} of ${course.glossary.length} terms shown</p>
</div>
<dl class="glossary">
${items}
</dl>`;
  return layout({ title: 'Glossary · ML systems', description: 'Definitions of the technical terms used in the course.', body, current: '/glossary/' });
}
