// content/resources.yaml: free courses, lectures and books, each with what it is good for
// and the lessons it complements. Checked here; the page is src/site/videos-and-books.11ty.js.
const KINDS = ['course', 'lectures', 'book', 'guide', 'article'];

// entries: the parsed YAML list; outline: Map slug -> course.yaml entry. Returns checked entries.
export function checkResources(entries, outline, where = 'content/resources.yaml') {
  if (!Array.isArray(entries) || entries.length === 0) throw new Error(`${where}: expected a non-empty list`);
  const urls = new Set();
  return entries.map((r, i) => {
    const at = `${where}: entry ${i + 1} (${r?.title ?? 'untitled'})`;
    for (const key of ['title', 'by', 'url', 'kind', 'good_for', 'lessons']) if (!r?.[key]) throw new Error(`${at} lacks "${key}"`);
    if (!/^https:\/\/[^\s"<>]+$/.test(r.url)) throw new Error(`${at}: url must be an https address`);
    if (urls.has(r.url)) throw new Error(`${at}: ${r.url} is listed twice`);
    urls.add(r.url);
    if (!KINDS.includes(r.kind)) throw new Error(`${at}: kind "${r.kind}" is not one of ${KINDS.join(', ')}`);
    if (!Array.isArray(r.lessons) || r.lessons.length === 0) throw new Error(`${at}: lessons must be a non-empty list of slugs`);
    for (const s of r.lessons) if (!outline.has(s)) throw new Error(`${at}: lesson "${s}" is not in content/course.yaml`);
    return { ...r };
  });
}
