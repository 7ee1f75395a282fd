// The Systems and scaling overview (content/systems-and-scaling.yaml): renders its Markdown
// and equations (KaTeX, at build time), checks its lesson slugs and calculators against the
// course and the engine, and computes each calculator's first result so the page shows real
// numbers before the engine loads in the browser.
import { renderTex } from './math.js';
import { formatOutput } from '../src/runtime/calc-format.js';

// doc: parsed YAML; md: a markdown-it with KaTeX; outline: Map slug -> course.yaml entry;
// engine: the WASM engine. Returns the page data; throws with the file and field on bad input.
export function buildOverview(doc, { md, outline, engine, where = 'content/systems-and-scaling.yaml' }) {
  for (const key of ['title', 'description', 'model', 'topics', 'fit', 'equations']) if (!doc?.[key]) throw new Error(`${where}: lacks "${key}"`);
  const checkLessons = (list, at) => {
    if (!Array.isArray(list) || !list.length) throw new Error(`${where}: ${at}: lessons must be a non-empty list`);
    for (const s of list) if (!outline.has(s)) throw new Error(`${where}: ${at}: lesson "${s}" is not in content/course.yaml`);
    return list;
  };
  const names = new Set(engine.list());
  const equations = doc.equations.map((e, i) => {
    const at = `equation ${i + 1} (${e.id ?? '?'})`;
    for (const key of ['id', 'title', 'tex', 'text', 'calc', 'inputs', 'outputs', 'lessons']) if (!e[key]) throw new Error(`${where}: ${at} lacks "${key}"`);
    const inputs = e.inputs.map((p) => (typeof p === 'string' ? { key: p } : p));
    let result = null;
    if (names.has(e.calc)) {
      const fields = new Set(engine.schema(e.calc).fields.map((f) => f.name));
      for (const p of inputs) if (!fields.has(p.key)) throw new Error(`${where}: ${at}: calculator ${e.calc} has no field "${p.key}"`);
      try {
        result = engine.calc(e.calc, e.values ?? {});
      } catch (err) {
        throw new Error(`${where}: ${at}: values rejected by ${e.calc}: ${err.message}`);
      }
      for (const o of e.outputs) {
        if (!(o.field in result)) throw new Error(`${where}: ${at}: ${e.calc} returns no "${o.field}"`);
        formatOutput(result[o.field], o); // throws on an unknown unit
      }
    } else {
      // Written against shared/API.md; the calculator lands with its lesson's engine code.
      console.warn(`${where}: ${at}: calculator "${e.calc}" is not in this engine build yet; its widget waits for it`);
    }
    return {
      ...e, inputs, values: e.values ?? {}, result,
      texHtml: renderTex(e.tex, { display: true, where: `${where}: ${at}` }),
      textHtml: md.renderInline(e.text),
      lessons: checkLessons(e.lessons, at),
    };
  });
  if (equations.length !== new Set(equations.map((e) => e.id)).size) throw new Error(`${where}: equation ids must be unique`);
  return {
    title: doc.title,
    description: doc.description,
    modelHtml: md.render(doc.model),
    fitHtml: md.render(doc.fit),
    topics: doc.topics.map((t, i) => ({ title: t.title, textHtml: md.renderInline(t.text), lessons: checkLessons(t.lessons, `topic ${i + 1}`) })),
    seeAlso: (doc.see_also ?? []).map((s, i) => ({ title: s.title, lessons: checkLessons(s.lessons, `see_also ${i + 1}`) })),
    equations,
  };
}
