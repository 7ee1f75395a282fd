// /_search-records.json: the glossary terms and figures as search records (url, content,
// meta). Read and removed by web/scripts/search-index.js; never shipped.
export const data = { permalink: '/_search-records.json' };

export function render({ course }) {
  const terms = course.glossary.map((g) => ({
    url: `/glossary/#${g.id}`,
    content: `${g.term}. ${g.definition}`,
    meta: { title: g.term, kind: 'Glossary term' },
  }));
  const figures = course.figuresByLesson.flatMap((l) => l.figures.map((f) => ({
    url: `/lessons/${l.slug}/#${f.id}`,
    content: `${f.title}. ${f.caption}`,
    meta: { title: f.title, kind: `Figure in “${l.title}”` },
  })));
  return JSON.stringify([...terms, ...figures]);
}
