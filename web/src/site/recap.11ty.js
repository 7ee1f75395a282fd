// /recap/: the key takeaways of every lesson on one page, in course order, linked to the lesson.
import { layout } from './_includes/layout.js';
import { esc } from '../../scripts/markdown.js';
import { pad2 } from '../../scripts/track.js';

export const data = { permalink: '/recap/index.html' };

export function render({ course }) {
  const sections = course.lessons.map((l) => `<section class="recap" data-slug="${esc(l.slug)}" aria-labelledby="recap-${esc(l.slug)}">
  <h2 id="recap-${esc(l.slug)}"><a href="/lessons/${esc(l.slug)}/">${esc(l.title)}</a></h2>
  <p class="meta">${l.track ? `Track ${pad2(l.track)} · ` : ''}${esc(l.module)} · ${l.minutes} min</p>
  <ul class="recap-takeaways">
${l.takeaways.map((t) => `    <li>${esc(t)}</li>`).join('\n')}
  </ul>
  <p class="recap-more"><a href="/lessons/${esc(l.slug)}/#takeaways">Takeaways in the lesson</a></p>
</section>`).join('\n');
  const body = `<h1>Quick recap</h1>
<p class="lead">The key takeaways of all ${course.lessons.length} published lessons on one page, in course order.</p>
${sections}`;
  return layout({ title: 'Quick recap · ML systems', description: 'The key takeaways of every lesson on one page.', body, current: '/recap/' });
}
