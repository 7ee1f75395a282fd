// One page per lesson: /lessons/<slug>/.
import { layout } from './_includes/layout.js';
import { esc } from '../../scripts/markdown.js';
import { pad2 } from '../../scripts/track.js';
import { programBlock } from './programs.11ty.js';
import { headings, toc, pager } from './_includes/lesson-nav.js';

export const data = {
  pagination: { data: 'course.lessons', size: 1, alias: 'lesson' },
  permalink: ({ lesson }) => `/lessons/${lesson.slug}/index.html`,
};

function prerequisites(lesson, modules) {
  const available = new Set(modules.flatMap((m) => m.lessons).filter((l) => l.available).map((l) => l.slug));
  const titles = new Map(modules.flatMap((m) => m.lessons).map((l) => [l.slug, l.title]));
  const items = (lesson.prerequisites.lessons ?? []).map((slug) => (available.has(slug)
    ? `<a href="/lessons/${esc(slug)}/">${esc(titles.get(slug) ?? slug)}</a>`
    : `${esc(titles.get(slug) ?? slug)} (not written yet)`));
  items.push(...(lesson.prerequisites.topics ?? []).map(esc));
  return items.length ? `<p class="prereq"><strong>Before this lesson:</strong> ${items.join(' · ')}</p>` : '';
}

// The lesson's text in one <section class="part"> per h2 (and one for what comes before the
// first): a page opened at one of its figures lays out the other parts after that figure is
// drawn (web/src/runtime/head.js).
function parts(html) {
  return html.split(/(?=<h2[\s>])/).filter((part) => part.trim())
    .map((part) => `<section class="part">\n${part.trim()}\n</section>`).join('\n');
}

export function render({ lesson, course }) {
  const track = lesson.track ? `Track ${pad2(lesson.track)} · ` : '';
  const refs = lesson.references.map((r) => `<li>${r.url ? `<a href="${esc(r.url)}">${esc(r.text)}</a>` : esc(r.text)}</li>`).join('\n');
  const takeaways = lesson.takeaways.map((t) => `<li>${esc(t)}</li>`).join('\n');
  const body = `<article class="lesson">
  <p class="kicker">${track}${esc(lesson.module)}</p>
  <h1>${esc(lesson.title)}</h1>
  <p class="meta">${lesson.minutes} min · ${lesson.figures.length} figures · ${esc(lesson.level)}</p>
  ${prerequisites(lesson, course.modules)}
  ${toc([...headings(lesson.html), ...(lesson.program ? [{ id: 'run-it', text: 'Run it yourself', level: 2 }] : []),
    { id: 'takeaways', text: 'Key takeaways', level: 2 }, { id: 'references', text: 'References', level: 2 }])}
${parts(lesson.html)}
  ${lesson.program ? `<section class="run-it" aria-labelledby="run-it">
    <h2 id="run-it">Run it yourself</h2>
    <p>${esc(lesson.program.summary)} The program follows this lesson and prints its worked example; every number it prints is checked against the engine.</p>
    ${programBlock(lesson.program, 'run-it')}
  </section>` : ''}
  <section class="takeaways" aria-labelledby="takeaways">
    <h2 id="takeaways">Key takeaways</h2>
    <ul>${takeaways}</ul>
  </section>
  <p class="read-mark"><button type="button" class="fig-btn" data-mark-read="${esc(lesson.slug)}" aria-pressed="false">Mark as read</button>
  <span data-progress="${esc(course.modules.flatMap((m) => m.lessons.map((l) => l.slug)).join(' '))}" data-total="${course.totalLessons}"></span></p>
  <section class="references" aria-labelledby="references">
    <h2 id="references">References</h2>
    <ol>${refs}</ol>
  </section>
  ${pager(lesson, course)}
</article>`;
  return layout({ title: `${lesson.title} · ML systems`, description: lesson.summary, body, katex: true, bodyClass: 'lesson-page' });
}
