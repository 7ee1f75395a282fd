// /track/: the ML Systems track: who it is for, what it assumes, its 4 parts and 13
// numbered lessons ("minutes · figures · level" as in course.yaml, with each lesson's
// one-paragraph description), and links to the track's own pages.
import { layout } from './_includes/layout.js';
import { lessonIndex, lessonLink } from './_includes/links.js';
import { esc } from '../../scripts/markdown.js';

export const data = { permalink: '/track/index.html' };

export function render({ course }) {
  const { track } = course;
  const index = lessonIndex(course.modules);
  const count = track.parts.reduce((n, p) => n + p.lessons.length, 0);
  const figures = track.parts.reduce((n, p) => n + p.lessons.reduce((k, l) => k + l.figures, 0), 0);
  const assumes = track.assumes.map((a) => (a.available ? `${esc(a.topic)} (see <a href="/lessons/${esc(a.slug)}/">${esc(a.title)}</a>)` : esc(a.topic)));
  const parts = track.parts.map((p, i) => `<section class="track-part" aria-labelledby="part-${i + 1}">
  <h2 id="part-${i + 1}"><span class="num">Part ${i + 1}.</span> ${esc(p.title)}</h2>
  <ol class="track-lessons">
${p.lessons.map((l) => `    <li class="track-row" data-slug="${esc(l.slug)}" data-lesson-status="${esc(l.slug)}">
      <span class="track-num" aria-hidden="true">${l.number}</span>
      <div class="track-body">
        <h3 class="track-title"><span class="sr-only">${l.number}. </span>${lessonLink(index, l.slug, l.title)}</h3>
        <p class="meta track-meta">${esc(l.meta)}</p>
        <p class="track-desc">${esc(l.description)}</p>
      </div>
    </li>`).join('\n')}
  </ol>
</section>`).join('\n');
  const body = `<h1>${esc(track.title ?? 'The ML Systems track')}</h1>
<p class="lead">${esc(track.audience ?? '')}</p>
<p><strong>It assumes:</strong> ${assumes.join(', ')}.</p>
<p class="progress-line">${count} lessons in ${track.parts.length} parts · ${figures} interactive figures · <span data-progress="${esc(track.parts.flatMap((p) => p.lessons.map((l) => l.slug)).join(' '))}" data-total="${count}">0 of ${count} read</span></p>
<nav class="track-pages" aria-label="The track's pages">
  <a href="/recap/">Quick recap</a>
  <a href="/figures/">All interactive figures</a>
  <a href="/videos-and-books/">Videos and books</a>
  <a href="/glossary/">Glossary</a>
  <a href="/concept-map/">Concept map</a>
  <a href="/systems-and-scaling/">Systems and scaling</a>
  <a href="/offline/">Keep for offline reading</a>
</nav>
${parts}`;
  return layout({ title: 'The ML Systems track · ML systems', description: 'Thirteen lessons in four parts on where the time and the memory go.', body, current: '/track/' });
}
