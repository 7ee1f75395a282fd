// The course page (/), derived from content/course.yaml's `home:` block and the outline: its
// texts, checked so that a missing one fails the build with its name instead of printing
// "undefined", and the first written lesson in course order (where a new reader starts).
// Pure: no I/O.

const TEXTS = ['title', 'line', 'written', 'modules', 'unwritten', 'start.heading', 'start.first',
  'start.track.label', 'start.track.note', 'start.overview.label', 'start.overview.note', 'needs.heading'];

const at = (obj, key) => key.split('.').reduce((o, k) => (o && typeof o === 'object' ? o[k] : undefined), obj);

// home: course.yaml's `home:` block; modules: course.modules as content.js builds them (each
// lesson with `available`). Returns the block plus `first` (the first written lesson or null).
export function homePage(home, modules) {
  if (!home || typeof home !== 'object') throw new Error('content/course.yaml: the course page needs a "home:" block');
  for (const key of TEXTS) {
    const v = at(home, key);
    if (typeof v !== 'string' || !v.trim()) throw new Error(`content/course.yaml: home.${key} must be a non-empty text`);
  }
  for (const key of ['about', 'needs.items']) {
    const v = at(home, key);
    if (!Array.isArray(v) || !v.length || !v.every((p) => typeof p === 'string' && p.trim())) {
      throw new Error(`content/course.yaml: home.${key} must be a list of non-empty paragraphs`);
    }
  }
  const first = modules.flatMap((m) => m.lessons).find((l) => l.available) ?? null;
  return { ...home, first };
}
