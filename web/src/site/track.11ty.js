// /track/: the ML Systems track (shared/CURRICULUM.md "Three views", item 2): its header
// paragraph with the assumed background linked to the lessons that teach it (once written),
// its own 4 parts with their descriptions and 13 numbered rows ("minutes · figures · level"
// and the lesson's summary), then the track's own pages, each with its one-line description.
import { layout } from './_includes/layout.js';
import { lessonIndex, lessonLink } from './_includes/links.js';
import { esc } from '../../scripts/markdown.js';

export const data = { permalink: '/track/index.html' };

// The track's pages; the descriptions are quoted from CURRICULUM.md (Systems and scaling is
// the course's overview, linked here too).
export const TRACK_PAGES = [
  ['/recap/', 'Quick recap', 'The key takeaways of all lessons on one page'],
  ['/figures/', 'All interactive figures', 'Every figure of the track on one page'],
  ['/videos-and-books/', 'Videos and books', 'The best free courses'],
  ['/glossary/', 'Glossary', 'Every technical term of the track with a short definition'],
  ['/concept-map/', 'Concept map', 'How the lessons of this track connect to each other and to other tracks.'],
  ['/offline/', 'Keep for offline reading', 'Keeps every lesson page and figure of this track in this browser, so you can read it without internet.'],
  ['/systems-and-scaling/', 'Systems and scaling', 'The whole course on one page: the mental model, the core sequence and six equations with live calculators'],
];

// "a, b and c"
const joinList = (items) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

// track.audience holds "{assumes}" where the assumed topics go: a topic is a link to the
// course lesson that teaches it once that lesson is written, plain text before.
function header(track) {
  const audience = track.audience ?? '';
  if (!audience.includes('{assumes}')) throw new Error('content/course.yaml: track.audience must say where the assumed topics go ("{assumes}")');
  const assumes = track.assumes.map((a) => (a.available ? `<a href="/lessons/${esc(a.slug)}/" title="${esc(a.title)}">${esc(a.topic)}</a>` : esc(a.topic)));
  return audience.split('{assumes}').map(esc).join(joinList(assumes));
}

export function render({ course }) {
  const { track } = course;
  const index = lessonIndex(course.modules);
  const slugs = track.parts.flatMap((p) => p.lessons.map((l) => l.slug));
  const figures = track.parts.reduce((n, p) => n + p.lessons.reduce((k, l) => k + l.figures, 0), 0);
  const parts = track.parts.map((p, i) => `<section class="track-part" aria-labelledby="part-${i + 1}">
  <h2 id="part-${i + 1}"><span class="num">Part ${i + 1}.</span> ${esc(p.title)}</h2>
  <p class="track-part-desc">${esc(p.description)}</p>
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
  const pages = TRACK_PAGES.map(([href, name, desc]) => `    <li><a href="${href}">${esc(name)}</a> <span class="track-page-desc">${esc(desc)}</span></li>`).join('\n');
  const body = `<h1>${esc(track.title)}</h1>
<p class="lead track-intro">${header(track)}</p>
<p class="progress-line">${slugs.length} lessons in ${track.parts.length} parts · ${figures} interactive figures · <span data-progress="${esc(slugs.join(' '))}" data-total="${slugs.length}">0 of ${slugs.length} read</span></p>
${parts}
<section class="track-page-list" aria-labelledby="track-pages-heading">
  <h2 id="track-pages-heading">The track's pages</h2>
  <ul>
${pages}
  </ul>
</section>`;
  return layout({ title: `${track.title}: the track · Machine learning systems`, description: `${slugs.length} lessons in ${track.parts.length} parts on where the time and the memory go.`, body, current: '/track/' });
}
