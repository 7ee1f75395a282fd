// The ML Systems track (/track/), derived from content/course.yaml and the lessons' front
// matter: its own parts (not the course's modules), each with its description; a lesson's
// track number is its place in the parts' lists; each row's description is the lesson's
// summary. Pure: no I/O.

export const pad2 = (n) => String(n).padStart(2, '0');

// course: the parsed course.yaml. Returns Map slug -> track number (1-based), checking that
// every slug is a lesson of the outline and appears once.
export function trackNumbers(course, outline) {
  const numbers = new Map();
  for (const part of course.track?.parts ?? []) {
    if (!part.title || !part.description || !Array.isArray(part.lessons) || !part.lessons.length) {
      throw new Error(`content/course.yaml: every track part needs a title, a description and a list of lessons (${JSON.stringify(part.title ?? part)})`);
    }
    for (const slug of part.lessons) {
      if (!outline.has(slug)) throw new Error(`content/course.yaml: track part "${part.title}" names unknown lesson "${slug}"`);
      if (numbers.has(slug)) throw new Error(`content/course.yaml: track lesson "${slug}" is listed twice`);
      numbers.set(slug, numbers.size + 1);
    }
  }
  return numbers;
}

// outline: Map slug -> course.yaml entry (with `track` set); lessons: Map slug -> front matter
// of existing lessons.
export function trackParts(course, lessons, outline) {
  return (course.track?.parts ?? []).map((part) => ({
    title: part.title,
    description: part.description,
    lessons: part.lessons.map((slug) => {
      const l = outline.get(slug);
      const lesson = lessons.get(slug);
      if (lesson && !lesson.summary) throw new Error(`content/lessons/${slug}.md: a track lesson needs a summary (its row on /track/)`);
      return {
        number: pad2(l.track), slug, title: l.title, minutes: l.minutes, figures: l.figures, level: l.level,
        meta: `${l.minutes} min · ${l.figures} figures · ${l.level}`, description: lesson?.summary ?? '', available: Boolean(lesson),
      };
    }),
  }));
}

// The track's assumed background: [{topic, slug?, title?, available}] from course.yaml `track.assumes`.
export function trackAssumes(course, lessons, outline) {
  return (course.track?.assumes ?? []).map((a) => {
    if (!a.topic) throw new Error('content/course.yaml: every track.assumes entry needs a topic');
    if (a.lesson && !outline.has(a.lesson)) throw new Error(`content/course.yaml: track.assumes names unknown lesson "${a.lesson}"`);
    return { topic: a.topic, slug: a.lesson, title: a.lesson ? outline.get(a.lesson).title : undefined, available: Boolean(a.lesson && lessons.has(a.lesson)) };
  });
}
