// Small HTML pieces shared by the site pages: a lesson's link (or its title marked "in
// preparation" until it is written), and a list of such links.
import { esc } from '../../../scripts/markdown.js';

// modules: course.modules (each lesson has slug, title, available).
export function lessonIndex(modules) {
  return new Map(modules.flatMap((m) => m.lessons).map((l) => [l.slug, l]));
}

export function lessonLink(index, slug, text) {
  const l = index.get(slug);
  const label = esc(text ?? l?.title ?? slug);
  return l?.available ? `<a href="/lessons/${esc(slug)}/">${label}</a>` : `<span class="planned">${label}</span> <span class="badge">not written yet</span>`;
}

export function lessonLinks(index, slugs) {
  return slugs.map((s) => lessonLink(index, s)).join(' · ');
}
