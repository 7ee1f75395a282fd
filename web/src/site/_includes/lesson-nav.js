// A lesson page's navigation: its table of contents (built from the rendered lesson's
// headings, which markdown.js gives stable ids) and the previous/next links at its end.
// The links are in course order, which works without the page script; when the reader
// follows the track, web/src/runtime/lesson-nav.js swaps them for the track's order from the
// data-track-* attributes written here.
import { esc } from '../../../scripts/markdown.js';
import { pad2 } from '../../../scripts/track.js';

// A heading's text: no glossary tooltip, no KaTeX MathML copy, no tags.
function headingText(html) {
  return html.replace(/<span class="term-tip"[\s\S]*?<\/span>/g, '')
    .replace(/<span class="katex-mathml">[\s\S]*?<\/math><\/span>/g, '')
    .replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim();
}

// [{id, text, level: 2|3}] of the h2 and h3 headings of `html`, in order.
export function headings(html) {
  return [...html.matchAll(/<h([23]) id="([^"]+)"[^>]*>([\s\S]*?)<\/h\1>/g)]
    .map(([, level, id, inner]) => ({ id, text: headingText(inner), level: Number(level) }));
}

// The contents: h2s, each with its h3s nested (kept out of the search index, as the pager is). A <details>, closed: on phones it opens on
// demand; on wide screens the page script opens it as a sidebar (CSS hides its summary).
export function toc(list) {
  const items = [];
  for (const h of list) {
    const link = `<a href="#${esc(h.id)}">${esc(h.text)}</a>`;
    if (h.level === 3 && items.length) items[items.length - 1].subs.push(link);
    else items.push({ link, subs: [] });
  }
  const lis = items.map(({ link, subs }) => `<li>${link}${subs.length ? `<ol>${subs.map((s) => `<li>${s}</li>`).join('')}</ol>` : ''}</li>`).join('\n      ');
  return `<div class="toc-rail" data-pagefind-ignore>
  <details class="lesson-toc" data-lesson-toc>
    <summary>Contents</summary>
    <nav aria-label="Contents">
      <ol>
      ${lis}
      </ol>
    </nav>
  </details>
  </div>`;
}

// The lessons before and after `slug` in `order` (written lessons only), or undefined.
export function neighbours(order, slug) {
  const i = order.findIndex((l) => l.slug === slug);
  return i < 0 ? {} : { prev: order[i - 1], next: order[i + 1] };
}

function pagerLink(rel, l, meta) {
  if (!l) return '';
  return `<a class="pager-${rel}" rel="${rel}" href="/lessons/${esc(l.slug)}/">
      <span class="pager-dir">${rel === 'prev' ? '← Previous' : 'Next →'}</span>
      <span class="pager-title">${esc(l.title)}</span>
      <span class="pager-meta">${esc(meta)}</span>
    </a>`;
}

// The written track lessons in track order: [{slug, title, number}].
export function trackOrder(course) {
  return course.track.parts.flatMap((p) => p.lessons).filter((l) => l.available);
}

// data-track-{prev,next}="slug|title|Track NN of MM" for the page script, and the lesson's
// own place ("Track 04 of 13"); nothing for a lesson outside the track.
function trackData(lesson, course) {
  if (!lesson.track) return '';
  const total = course.track.parts.reduce((n, p) => n + p.lessons.length, 0);
  const { prev, next } = neighbours(trackOrder(course), lesson.slug);
  const value = (l) => `${l.slug}|${l.title}|Track ${l.number} of ${pad2(total)}`;
  return ` data-track-place="Track ${pad2(lesson.track)} of ${pad2(total)}"${prev ? ` data-track-prev="${esc(value(prev))}"` : ''}${next ? ` data-track-next="${esc(value(next))}"` : ''}`;
}

// Previous/next in course order (each with its module), and the track's order in data.
export function pager(lesson, course) {
  const { prev, next } = neighbours(course.lessons, lesson.slug);
  return `<nav class="lesson-pager" aria-label="Previous and next lesson" data-pagefind-ignore data-lesson-pager${trackData(lesson, course)}>
    <p class="pager-order" data-pager-order hidden></p>
    <div class="pager-links">
    ${pagerLink('prev', prev, prev?.module)}
    ${pagerLink('next', next, next?.module)}
    </div>
  </nav>`;
}
