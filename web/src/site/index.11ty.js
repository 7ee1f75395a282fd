// Home page: the course outline (modules, lessons, minutes, figures, level), what exists
// now, and the reading-progress line.
import { layout } from './_includes/layout.js';
import { esc } from '../../scripts/markdown.js';

export const data = { permalink: '/index.html' };

export function render({ course }) {
  const available = course.modules.flatMap((m) => m.lessons).filter((l) => l.available).map((l) => l.slug);
  const allSlugs = course.modules.flatMap((m) => m.lessons.map((l) => l.slug));
  const modules = course.modules.map((m, i) => {
    const rows = m.lessons.map((l) => {
      const meta = `${l.minutes} min · ${l.figures} figures · ${l.level}`;
      const track = l.track ? `<span class="track">Track ${String(l.track).padStart(2, '0')}</span>` : '';
      const name = l.available
        ? `<a href="/lessons/${esc(l.slug)}/">${esc(l.title)}</a>`
        : `<span class="planned">${esc(l.title)}</span> <span class="badge">in preparation</span>`;
      return `<li class="lesson-row" data-lesson-status="${esc(l.slug)}">${name} ${track}<span class="meta">${meta}</span></li>`;
    }).join('\n');
    const slugs = m.lessons.map((l) => l.slug).join(' ');
    return `<section class="module" aria-labelledby="m${i + 1}">
  <h2 id="m${i + 1}"><span class="num">${i + 1}.</span> ${esc(m.title)}</h2>
  <p class="module-progress" data-progress="${esc(slugs)}" data-total="${m.lessons.length}">0 of ${m.lessons.length} read</p>
  <ul class="lessons">
${rows}
  </ul>
</section>`;
  }).join('\n');
  const body = `<div class="hero">
  <h1>Where the time and the memory go</h1>
  <p class="lead">An interactive course on machine learning systems: from one GPU kernel to thousands of GPUs. Every figure is live and every number is computed in your browser by a C++ engine compiled to WebAssembly; no GPU needed.</p>
  <p class="progress-line"><span data-progress="${esc(allSlugs.join(' '))}" data-total="${course.totalLessons}">0 of ${course.totalLessons} read</span> · ${available.length} of ${course.totalLessons} lessons published</p>
  <p class="continue" data-continue hidden></p>
</div>
${modules}`;
  return layout({ title: 'ML systems: an interactive course', description: 'Where the time and the memory go when neural networks are trained and served.', body, bodyClass: 'home', current: '/' });
}
