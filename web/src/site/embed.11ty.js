// /embed/<figure-id>/ : a page holding only that figure, for an <iframe>.
import { layout } from './_includes/layout.js';
import { esc, figureShell } from '../../scripts/markdown.js';

export const data = {
  pagination: { data: 'course.figures', size: 1, alias: 'figure' },
  permalink: ({ figure }) => `/embed/${figure.id}/index.html`,
};

export function render({ figure }) {
  const body = `<h1 class="sr-only">${esc(figure.title)}</h1>
${figureShell(figure.id, figure, ' data-level="2"')}
<p class="embed-credit"><a href="/" target="_blank" rel="noopener">From “ML systems, computed”: an interactive course</a></p>`;
  return layout({ title: `${figure.title} · ML systems figure`, description: figure.caption, body, bodyClass: 'embed', embed: true, figures: [figure.id] });
}
