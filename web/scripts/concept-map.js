// The concept map's graph (/concept-map/): every lesson of content/course.yaml as a node
// (written or not), outside topics as nodes of their own, prerequisite edges from the written
// lessons' front matter and, for lessons not written yet, from content/concept-map.yaml.
// Laid out by concept-map-layout.js. Pure: no I/O.

// Lower case, no parenthesis, no leading "the ", other characters as single spaces: so
// "The transformer block" and "transformer block" are one name.
export const normalizeTopic = (topic) => String(topic).toLowerCase().replace(/\([^)]*\)/g, ' ')
  .replace(/[^a-z0-9]+/g, ' ').trim().replace(/^the /, '');

export const topicId = (topic) => `topic-${normalizeTopic(topic).replace(/ /g, '-')}`;

// Checks content/concept-map.yaml against the outline and returns its lookups:
// lessonOf (normalized name -> slug), canonical (normalized name -> label), planned.
function readMapData(data, outline) {
  const where = 'content/concept-map.yaml';
  const lessonOf = new Map();
  for (const [slug, names] of Object.entries(data?.taught_by ?? {})) {
    if (!outline.has(slug)) throw new Error(`${where}: taught_by names "${slug}", which is not a lesson of content/course.yaml`);
    for (const n of names) lessonOf.set(normalizeTopic(n), slug);
  }
  const canonical = new Map();
  for (const names of data?.same_topic ?? []) {
    for (const n of names) {
      const key = normalizeTopic(n);
      if (lessonOf.has(key)) throw new Error(`${where}: "${n}" is both an outside topic and taught by lesson ${lessonOf.get(key)}`);
      if (canonical.has(key)) throw new Error(`${where}: "${n}" is listed twice under same_topic`);
      canonical.set(key, String(names[0]));
    }
  }
  const planned = data?.planned ?? {};
  for (const slug of Object.keys(planned)) {
    if (!outline.has(slug)) throw new Error(`${where}: planned names "${slug}", which is not a lesson of content/course.yaml`);
  }
  return { lessonOf, canonical, planned };
}

// lessons: front matter of the written lessons; modules: course.yaml's modules (in order);
// data: content/concept-map.yaml. Returns {nodes, edges}: nodes [{id, kind: lesson|planned|topic,
// label, band (0 for outside topics, 1-7 the module), order (place in its band), href?}],
// edges [{from, to, implied}] between existing nodes, each pair once.
export function conceptGraph(lessons, modules, data = {}) {
  const outline = new Map(modules.flatMap((m) => m.lessons.map((l) => [l.slug, l])));
  const { lessonOf, canonical, planned } = readMapData(data, outline);
  const written = new Map(lessons.map((l) => [l.slug, l]));
  const nodes = new Map();
  modules.forEach((m, i) => m.lessons.forEach((l, order) => {
    nodes.set(l.slug, written.has(l.slug)
      ? { id: l.slug, kind: 'lesson', label: l.title, band: i + 1, order, href: `/lessons/${l.slug}/` }
      : { id: l.slug, kind: 'planned', label: l.title, band: i + 1, order });
  }));
  const edges = [];
  const seen = new Set();
  const edge = (from, to) => {
    if (!seen.has(`${from}>${to}`)) edges.push({ from, to });
    seen.add(`${from}>${to}`);
  };
  for (const slug of outline.keys()) {
    const fromYaml = !written.has(slug);
    const where = fromYaml ? `content/concept-map.yaml (planned ${slug})` : `content/lessons/${slug}.md`;
    if (!fromYaml && planned[slug]) {
      throw new Error(`content/concept-map.yaml: lesson "${slug}" is written now; remove its planned entry (its front matter lists its prerequisites)`);
    }
    const pre = fromYaml ? planned[slug] ?? {} : written.get(slug).prerequisites ?? {};
    for (const p of pre.lessons ?? []) {
      if (!outline.has(p)) throw new Error(`${where}: prerequisite lesson "${p}" is not in content/course.yaml`);
      if (p === slug) throw new Error(`${where}: a lesson cannot be its own prerequisite`);
      edge(p, slug);
    }
    for (const t of pre.topics ?? []) {
      const key = normalizeTopic(t);
      if (!key) throw new Error(`${where}: an empty prerequisite topic`);
      if (lessonOf.has(key)) {
        throw new Error(`${where}: topic "${t}" is taught by the lesson "${lessonOf.get(key)}"; list that lesson under prerequisites.lessons instead`);
      }
      const label = canonical.get(key) ?? String(t);
      const id = topicId(label);
      if (!nodes.has(id)) nodes.set(id, { id, kind: 'topic', label, band: 0 });
      edge(id, slug);
    }
  }
  // An edge implied by a longer path (roofline -> kernels -> profiling implies roofline ->
  // profiling) is kept but marked: the map draws only the others, the list shows them all.
  const next = new Map();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const reaches = (from, to, skip) => {
    const stack = (next.get(from) ?? []).filter((n) => n !== skip);
    const seenHere = new Set();
    while (stack.length) {
      const n = stack.pop();
      if (n === to) return true;
      if (seenHere.has(n)) continue;
      seenHere.add(n);
      stack.push(...(next.get(n) ?? []));
    }
    return false;
  };
  for (const e of edges) e.implied = reaches(e.from, e.to, e.to);
  // Outside topics in the order of first use, as they appear along the course.
  [...nodes.values()].filter((n) => n.kind === 'topic').forEach((n, i) => { n.order = i; });
  return { nodes: [...nodes.values()], edges };
}
