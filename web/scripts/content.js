// Reads content/ (course outline, lessons, glossary), renders lessons with the engine's
// numbers, and checks the content: every figure, exercise and glossary term a lesson names
// exists; front matter agrees with the course outline; every defined term is used.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import yaml from 'js-yaml';
import { loadNodeEngine } from '../src/runtime/engine-node.js';
import { figureLoaders } from '../src/figures/index.js';
import { calculatorIndex } from './calculators.js';
import { createMarkdown, calcValues } from './markdown.js';
import { checkUnitsAfterCalc } from './calc-units.js';
import { trackNumbers, trackParts, trackAssumes } from './track.js';
import { loadPrograms } from './programs.js';
import { checkResources } from './resources.js';
import { conceptGraph } from './concept-map.js';
import { conceptMapSvg } from './concept-map-layout.js';
import { buildOverview } from './overview.js';
import { figureVocabulary, checkCaption, checkLessonProse } from './control-mentions.js';
import { homePage } from './home.js';

import { repoRoot } from './paths.js';

const contentDir = path.join(repoRoot, 'content');

function readYaml(file) {
  return yaml.load(fs.readFileSync(path.join(contentDir, file), 'utf8'));
}

function splitFrontMatter(text, where) {
  const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  if (!m) throw new Error(`${where}: missing front matter`);
  return { data: yaml.load(m[1]), body: m[2] };
}

async function loadFigures() {
  const figures = new Map();
  for (const id of Object.keys(figureLoaders)) {
    const file = path.join(repoRoot, 'web/src/figures', `${id}.js`);
    const mod = await import(pathToFileURL(file).href);
    const f = mod.default;
    if (f.id !== id) throw new Error(`${file}: id "${f.id}" does not match its file name`);
    for (const key of ['title', 'caption', 'params', 'data', 'draw']) {
      if (!f[key]) throw new Error(`${file}: figure lacks "${key}"`);
    }
    figures.set(id, f);
  }
  return figures;
}

const REQUIRED = ['slug', 'title', 'module', 'minutes', 'level', 'prerequisites', 'glossary', 'figures', 'takeaways', 'references'];

// The site build and Eleventy's data file share one read of the content.
let loaded = null;
export function loadContent() {
  loaded ??= readContent();
  return loaded;
}

// MLSYS_LESSONS=slug,slug reads and checks only those lessons (web/scripts/check-lessons.mjs, while
// writing one); the checks that need every lesson (each term and figure used somewhere) are skipped.
const only = process.env.MLSYS_LESSONS ? new Set(process.env.MLSYS_LESSONS.split(',')) : null;

async function readContent() {
  const { engine, raw } = await loadNodeEngine();
  const course = readYaml('course.yaml');
  // The glossary: every content/glossary/*.yaml file is a list of {id, term, definition, related}.
  const glossary = new Map();
  for (const file of fs.readdirSync(path.join(contentDir, 'glossary')).filter((f) => f.endsWith('.yaml')).sort()) {
    const where = `content/glossary/${file}`;
    for (const g of readYaml(`glossary/${file}`) ?? []) {
      if (!g.id || !g.term || !g.definition) throw new Error(`${where}: entry ${JSON.stringify(g)} lacks id, term or definition`);
      if (glossary.has(g.id)) throw new Error(`${where}: "${g.id}" is already defined in ${glossary.get(g.id).file}`);
      glossary.set(g.id, { ...g, related: g.related ?? [], lessons: [], file: where });
    }
  }
  for (const g of glossary.values()) {
    for (const r of g.related) if (!glossary.has(r)) throw new Error(`${g.file}: "${g.id}" relates to undefined "${r}"`);
  }

  const figures = await loadFigures();
  // Captions and lesson prose ask only for controls, options and samples their figures have
  // (control-mentions.js); every such problem is reported at once, after the lessons are read.
  const vocabs = new Map([...figures].map(([id, f]) => [id, figureVocabulary(f, engine)]));
  const mentionProblems = [...figures.values()].flatMap((f) => checkCaption(f, vocabs.get(f.id)));
  const exerciseIds = new Set(engine.exerciseIds());
  const outline = new Map();
  for (const mod of course.modules) {
    if (!mod.title || !mod.description) throw new Error(`content/course.yaml: every module needs a title and a description (${JSON.stringify(mod.title ?? mod)})`);
    for (const l of mod.lessons) {
      if (outline.has(l.slug)) throw new Error(`content/course.yaml: lesson "${l.slug}" is listed twice`);
      outline.set(l.slug, { ...l, module: mod.title });
    }
  }
  for (const [slug, n] of trackNumbers(course, outline)) outline.get(slug).track = n;

  const lessonDir = path.join(contentDir, 'lessons');
  const lessonFiles = fs.readdirSync(lessonDir).filter((f) => f.endsWith('.md') && (!only || only.has(f.slice(0, -3)))).sort();
  // No unit written after a {{calc}} that prints it, in the lessons and the YAML beside them.
  const yamlFiles = (dir) => fs.readdirSync(path.join(repoRoot, dir)).filter((f) => f.endsWith('.yaml')).map((f) => `${dir}/${f}`);
  checkUnitsAfterCalc(repoRoot, [...lessonFiles.map((f) => `content/lessons/${f}`), ...yamlFiles('content'), ...yamlFiles('content/glossary')]);
  const lessons = [];
  const usedFigureIds = new Set();
  for (const file of lessonFiles) {
    const where = `content/lessons/${file}`;
    const { data, body } = splitFrontMatter(fs.readFileSync(path.join(lessonDir, file), 'utf8'), where);
    for (const key of REQUIRED) if (data[key] === undefined) throw new Error(`${where}: front matter lacks "${key}"`);
    const planned = outline.get(data.slug);
    if (!planned) throw new Error(`${where}: slug "${data.slug}" is not in content/course.yaml`);
    if (`${data.slug}.md` !== file) throw new Error(`${where}: file name must be ${data.slug}.md`);
    for (const key of ['title', 'minutes', 'level', 'module']) {
      if (data[key] !== planned[key]) throw new Error(`${where}: ${key} "${data[key]}" differs from course.yaml ("${planned[key]}")`);
    }
    if (data.figures.length !== planned.figures) throw new Error(`${where}: ${data.figures.length} figures listed, course.yaml says ${planned.figures}`);
    const n = data.takeaways.length;
    if (n < 4 || n > 7) throw new Error(`${where}: ${n} takeaways; a lesson has 4 to 7`);

    // Takeaways and the summary quote the engine's numbers as the body does.
    data.takeaways = data.takeaways.map((t, i) => calcValues(t, engine, `${where} takeaway ${i + 1}`));
    if (data.summary) data.summary = calcValues(data.summary, engine, `${where} summary`);

    const ctx = { engine, figures, exerciseIds, glossary, usedFigures: [], usedExercises: [], usedTerms: new Set(), where };
    const md = createMarkdown(ctx);
    const source = calcValues(body, engine, where);
    mentionProblems.push(...checkLessonProse(source, (id) => vocabs.get(id) ?? { id, names: [], controls: [], options: [], samples: [] }, where));
    let html = md.render(source);
    // Wide display equations, code listings and tables scroll sideways on phones; the
    // scrollers must take keyboard focus.
    html = html.replaceAll('<p class="katex-block">', '<p class="katex-block" tabindex="0">').replaceAll('<pre>', '<pre tabindex="0">')
      .replaceAll('<table>', '<div class="table-scroll" tabindex="0"><table class="content">').replaceAll('</table>', '</table></div>');
    if (html.includes('katex-error')) throw new Error(`${where}: a formula does not render (KaTeX error)`);
    const same = (a, b) => [...a].sort().join() === [...b].sort().join();
    if (!same(ctx.usedFigures, data.figures)) throw new Error(`${where}: figures placed [${ctx.usedFigures}] differ from front matter [${data.figures}]`);
    if (ctx.usedExercises.length < 4) throw new Error(`${where}: ${ctx.usedExercises.length} exercises; a lesson has at least 4`);
    if (data.exercises && !same(ctx.usedExercises, data.exercises)) throw new Error(`${where}: exercises placed differ from front matter`);
    for (const t of data.glossary) {
      if (!glossary.has(t)) throw new Error(`${where}: front-matter glossary term "${t}" is not defined`);
      if (!ctx.usedTerms.has(t)) throw new Error(`${where}: glossary term "${t}" is introduced but never linked`);
    }
    for (const t of ctx.usedTerms) glossary.get(t).lessons.push(data.slug);
    for (const id of ctx.usedFigures) usedFigureIds.add(id);
    const words = body.replace(/\$\$[\s\S]*?\$\$/g, '').replace(/:::[^\n]*/g, '').split(/\s+/).filter((w) => /[A-Za-z]/.test(w)).length;
    lessons.push({ ...data, exercises: ctx.usedExercises, html, words, track: planned.track, summary: data.summary ?? '' });
  }

  if (mentionProblems.length) {
    throw new Error(`${mentionProblems.length} instructions name what their figure lacks:\n  ${mentionProblems.join('\n  ')}`);
  }

  for (const g of only ? [] : glossary.values()) {
    if (g.lessons.length === 0) throw new Error(`${g.file}: "${g.id}" is defined but no lesson links it`);
  }
  for (const id of only ? [] : figures.keys()) {
    if (!usedFigureIds.has(id)) throw new Error(`web/src/figures/${id}.js is not placed in any lesson`);
  }

  const programs = loadPrograms(outline);
  for (const l of lessons) {
    l.program = programs.get(l.slug);
    if (!l.program) throw new Error(`content/lessons/${l.slug}.md: a lesson ships its companion program, content/programs/${l.slug}.py (README: Adding to the course)`);
  }
  const existing = new Map(lessons.map((l) => [l.slug, l]));
  const modules = course.modules.map((m) => ({
    title: m.title,
    description: m.description,
    lessons: m.lessons.map((l) => ({ ...outline.get(l.slug), available: existing.has(l.slug) })),
  }));
  const figureList = [...figures.values()].map((f) => ({ id: f.id, title: f.title, caption: f.caption, params: f.params }));
  // The site pages beside the lessons, all generated from the content above (course order).
  const order = [...outline.keys()];
  const ordered = [...lessons].sort((a, b) => order.indexOf(a.slug) - order.indexOf(b.slug));
  const graph = conceptGraph(ordered, course.modules, readYaml('concept-map.yaml'));
  const { svg: mapSvg } = conceptMapSvg(graph, ['Outside topics', ...course.modules.map((m, i) => `${i + 1} · ${m.title}`)]);
  const siteMd = createMarkdown({ engine, figures, exerciseIds, glossary, usedFigures: [], usedExercises: [], usedTerms: new Set(), where: 'content/systems-and-scaling.yaml' });
  return {
    modules,
    home: homePage(course.home, modules),
    lessons: ordered,
    track: { ...(course.track ?? {}), parts: trackParts(course, existing, outline), assumes: trackAssumes(course, existing, outline) },
    overview: buildOverview(readYaml('systems-and-scaling.yaml'), { md: siteMd, outline, engine }),
    resources: checkResources(readYaml('resources.yaml'), outline),
    conceptMap: { ...graph, svg: mapSvg },
    figuresByLesson: ordered.map((l) => ({ slug: l.slug, title: l.title, figures: l.figures.map((id) => figureList.find((f) => f.id === id)) })),
    glossary: [...glossary.values()].sort((a, b) => a.term.localeCompare(b.term)),
    figures: figureList,
    totalLessons: outline.size,
    calculators: calculatorIndex(engine, raw, ordered),
    programs: ordered.filter((l) => l.program).map((l) => ({ ...l.program, title: l.title, module: l.module, track: l.track })),
  };
}
