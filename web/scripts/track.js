// The ML Systems track (/track/), derived from content/course.yaml and the lessons' front
// matter: its parts are the modules that hold track lessons, in course order; each row's
// description is the lesson's summary (or course.yaml's `description` until the lesson
// exists). Pure: no I/O.

export const pad2 = (n) => String(n).padStart(2, '0');

// course: the parsed course.yaml; lessons: Map slug -> front matter of existing lessons.
export function trackParts(course, lessons) {
  const parts = [];
  const numbers = new Set();
  for (const mod of course.modules) {
    const rows = mod.lessons.filter((l) => l.track !== undefined).map((l) => {
      if (!Number.isInteger(l.track) || l.track < 1) throw new Error(`content/course.yaml: ${l.slug}: track must be a positive whole number`);
      if (numbers.has(l.track)) throw new Error(`content/course.yaml: track number ${l.track} is used twice`);
      numbers.add(l.track);
      const lesson = lessons.get(l.slug);
      const description = lesson?.summary || l.description;
      if (!description) throw new Error(`content/course.yaml: track lesson ${l.slug} has neither a lesson summary nor a description`);
      return {
        number: pad2(l.track), slug: l.slug, title: l.title, minutes: l.minutes, figures: l.figures, level: l.level,
        meta: `${l.minutes} min · ${l.figures} figures · ${l.level}`, description, available: Boolean(lesson),
      };
    });
    if (rows.length) parts.push({ title: mod.title, lessons: rows.sort((a, b) => a.number.localeCompare(b.number)) });
  }
  const all = parts.flatMap((p) => p.lessons).map((l) => Number(l.number));
  const expected = all.map((_, i) => i + 1);
  if ([...all].sort((a, b) => a - b).join() !== expected.join()) {
    throw new Error(`content/course.yaml: track numbers must run 1..${all.length} without gaps (found ${[...all].sort((a, b) => a - b)})`);
  }
  return parts;
}

// The track's assumed background: [{topic, slug?, title?, available}] from course.yaml `track.assumes`.
export function trackAssumes(course, lessons, outline) {
  return (course.track?.assumes ?? []).map((a) => {
    if (!a.topic) throw new Error('content/course.yaml: every track.assumes entry needs a topic');
    if (a.lesson && !outline.has(a.lesson)) throw new Error(`content/course.yaml: track.assumes names unknown lesson "${a.lesson}"`);
    return { topic: a.topic, slug: a.lesson, title: a.lesson ? outline.get(a.lesson).title : undefined, available: Boolean(a.lesson && lessons.has(a.lesson)) };
  });
}
