// Home page: the course (shared/CURRICULUM.md "Three views", item 1). Title, line, progress
// and a "Where to start" block first, so that a new reader sees a real lesson above the fold;
// then what the course is, what it needs, and the 7 modules with their lessons. Lessons not
// written yet keep their place but are one muted line each, never links; a module with none
// written is a single compact line. Texts come from course.yaml's `home:` block.
import { layout } from './_includes/layout.js';
import { esc } from '../../scripts/markdown.js';
import { pad2 } from '../../scripts/track.js';

export const data = { permalink: '/index.html' };

const meta = (l) => `${l.minutes} min · ${l.figures} figures · ${l.level}`;
const trackBadge = (l) => (l.track ? `<span class="track">Track ${pad2(l.track)}</span>` : '');

// A written lesson: its link (a direct child of the row: runtime/progress.js reads it for
// "continue"), then its Track badge and meta together (one line on phones too). An unwritten
// one: muted text that says so, also to a screen reader where the words are not shown
// (compact modules).
function row(l, home, compact) {
  if (l.available) {
    return `<li class="lesson-row" data-lesson-status="${esc(l.slug)}" data-available="true"><a href="/lessons/${esc(l.slug)}/">${esc(l.title)}</a> <span class="row-meta">${trackBadge(l)}<span class="meta">${meta(l)}</span></span></li>`;
  }
  const mark = compact ? `<span class="sr-only"> (${esc(home.unwritten)})</span>` : ` <span class="badge">${esc(home.unwritten)}</span>`;
  return `<li class="lesson-row unwritten" data-lesson-status="${esc(l.slug)}" data-available="false"><span class="planned">${esc(l.title)}</span>${mark}</li>`;
}

function moduleSection(m, i, home) {
  const compact = !m.lessons.some((l) => l.available);
  const id = `m${i + 1}`;
  // The module's own progress (hidden by runtime/progress.js where storage is blocked); none
  // for a module with nothing written yet.
  const progress = compact ? '' : `\n  <p class="module-progress" data-progress="${esc(m.lessons.map((l) => l.slug).join(' '))}" data-total="${m.lessons.length}">0 of ${m.lessons.length} read</p>`;
  const lead = compact ? `\n  <p class="unwritten-lead" id="${id}-lead">${m.lessons.length} lessons, ${esc(home.unwritten)}:</p>` : '';
  return `<section class="module${compact ? ' compact' : ''}" aria-labelledby="${id}">
  <h3 id="${id}"><span class="num">${i + 1}.</span> ${esc(m.title)}</h3>
  <p class="module-desc">${esc(m.description)}</p>${progress}${lead}
  <ul class="lessons"${compact ? ` aria-labelledby="${id}-lead"` : ''}>
${m.lessons.map((l) => `    ${row(l, home, compact)}`).join('\n')}
  </ul>
</section>`;
}

function start(home, course) {
  const { first, start: s } = home;
  const items = [];
  if (first) {
    const where = [first.track ? `Track ${pad2(first.track)}` : first.module, `${first.minutes} min`, first.level].join(' · ');
    items.push(`<li class="start-first"><span class="start-kind">${esc(s.first)}</span> <a href="/lessons/${esc(first.slug)}/">${esc(first.title)}</a> <span class="meta">${esc(where)}</span></li>`);
  }
  const count = course.track.parts.reduce((n, p) => n + p.lessons.length, 0);
  items.push(`<li><a href="/track/">${esc(s.track.label)}</a> <span class="meta">${count} lessons in ${course.track.parts.length} parts, ${esc(s.track.note)}</span></li>`);
  items.push(`<li><a href="/systems-and-scaling/">${esc(s.overview.label)}</a> <span class="meta">${esc(s.overview.note)}</span></li>`);
  return `<nav class="start" aria-labelledby="start-heading">
  <h2 id="start-heading">${esc(s.heading)}</h2>
  <p class="continue" data-continue hidden></p>
  <ul class="start-links">
    ${items.join('\n    ')}
  </ul>
</nav>`;
}

export function render({ course }) {
  const { home } = course;
  const lessons = course.modules.flatMap((m) => m.lessons);
  const written = lessons.filter((l) => l.available).length;
  const body = `<div class="hero">
  <h1>${esc(home.title)}</h1>
  <p class="lead">${esc(home.line)}</p>
  <p class="progress-line"><span data-progress="${esc(lessons.map((l) => l.slug).join(' '))}" data-total="${course.totalLessons}">0 of ${course.totalLessons} read</span> · ${written} of ${course.totalLessons} ${esc(home.written)}</p>
</div>
${start(home, course)}
<section class="about" aria-label="About the course">
${home.about.map((p) => `  <p>${esc(p)}</p>`).join('\n')}
</section>
<section class="needs" aria-labelledby="needs-heading">
  <h2 id="needs-heading">${esc(home.needs.heading)}</h2>
  <ul>
${home.needs.items.map((p) => `    <li>${esc(p)}</li>`).join('\n')}
  </ul>
</section>
<section class="modules" aria-labelledby="modules-heading">
<h2 id="modules-heading">${esc(home.modules)}</h2>
${course.modules.map((m, i) => moduleSection(m, i, home)).join('\n')}
</section>`;
  return layout({ title: `${home.title}: an interactive course`, description: home.line, body, bodyClass: 'home', current: '/' });
}
