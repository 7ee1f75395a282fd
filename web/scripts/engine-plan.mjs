// The plan of the engine parts, computed from what each part's pages call. wasm/parts.json
// names each part's lessons (the course's division), and may name calculator `groups` a part
// holds before any lesson uses them; this script finds the calculator and exercise groups
// each part must hold, by running the full engine:
//   - every figure of the part's lessons (content/lessons/<slug>.md front matter, `figures`)
//     through its data(engine, params) at the defaults and with each control moved alone over
//     its values (controlSettings below), recording every calculator it calls;
//   - every exercise of those lessons (front matter `exercises`);
//   - every live calculator of the course pages (<mlsys-calc>, content/systems-and-scaling.yaml
//     `equations`): in the first part whose figures already call it, else the first whose
//     groups already hold it, else the part of the equation's first lesson that has one.
// The engine's own table ({calculator: group}, {exercise: group}: engineGroups in
// wasm/bindings.cpp) turns names into groups. The build (wasm/CMakeLists.txt) runs it after
// linking the full engine:
//   node web/scripts/engine-plan.mjs <engine dir> <header dir>
// and it writes <engine dir>/parts-plan.json (read by the site build, engine-parts.js) and
// <header dir>/<part>.h, the defines each part compiles its group registries with; a
// file is rewritten only when its content changes, so the parts relink only when the plan does.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import yaml from 'js-yaml';
import { loadNodeEngine } from '../src/runtime/engine-node.js';
import { resolveParams, defaults } from '../src/runtime/params.js';
import { figureLoaders } from '../src/figures/index.js';
import { repoRoot } from './paths.js';

export const partsFile = path.join(repoRoot, 'wasm/parts.json');
const contentDir = path.join(repoRoot, 'content');

const TEXT_TYPES = ['array', 'object', 'string'];

// The values a control takes when moved alone: every option of a select, both states of a
// checkbox, a text box's `samples` (the values a figure names for a list, object or expression
// box, which has no range to step through), a number at its min, default, max and three steps
// between (geometric on a log slider), rounded on an integer one.
export function controlSettings(spec) {
  if (spec.type === 'select') return spec.options.map((o) => o.value);
  if (spec.type === 'boolean') return [true, false];
  if (TEXT_TYPES.includes(spec.type)) return textSamples(spec);
  const { min, max } = spec;
  const values = [spec.default, min, max];
  if (min !== undefined && max !== undefined && max > min) {
    const log = spec.scale === 'log' && min > 0;
    for (const t of [0.25, 0.5, 0.75]) values.push(log ? min * (max / min) ** t : min + (max - min) * t);
  }
  const round = spec.type === 'integer' ? Math.round : (x) => x;
  return [...new Set(values.filter((v) => typeof v === 'number' && Number.isFinite(v)).map(round))];
}

// A text box's other values: the figure must name some, or no test would ever move it.
export function textSamples(spec) {
  if (!Array.isArray(spec.samples) || spec.samples.length === 0) {
    throw new Error(`figure parameter "${spec.key}" (a ${spec.type} text box) needs \`samples\`: other values the plan and the tests try`);
  }
  return [spec.default, ...spec.samples];
}

// The parameter sets a figure is run with: the defaults, then each control moved alone.
export function figureSettings(fig, engine) {
  const specs = resolveParams(fig, engine);
  const start = defaults(specs);
  const runs = [start];
  for (const s of specs) {
    for (const value of controlSettings(s)) if (value !== start[s.key]) runs.push({ ...start, [s.key]: value });
  }
  return runs;
}

// The engine with its calculator calls recorded in `called` (the name, before the call: a
// call the inputs make fail still needs its calculator).
export function recording(engine, called) {
  return { ...engine, calc(name, input) { called.add(String(name)); return engine.calc(name, input); } };
}

// Every calculator a figure calls over its settings (a rejected setting still counts what it
// called before the rejection).
export async function figureCalls(id, engine) {
  const fig = (await figureLoaders[id]()).default;
  const called = new Set();
  const rec = recording(engine, called);
  for (const p of figureSettings(fig, rec)) {
    try {
      fig.data(rec, p);
    } catch { /* rejected inputs: the calls made so far are recorded */ }
  }
  return [...called].sort();
}

export function readParts() {
  return JSON.parse(fs.readFileSync(partsFile, 'utf8'));
}

// {slug: {figures, exercises}} from the front matter of content/lessons/*.md.
export function readLessons() {
  const lessons = {};
  const dir = path.join(contentDir, 'lessons');
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.md')).sort()) {
    const m = /^---\n([\s\S]*?)\n---\n/.exec(fs.readFileSync(path.join(dir, file), 'utf8'));
    if (!m) throw new Error(`content/lessons/${file}: missing front matter`);
    const data = yaml.load(m[1]);
    lessons[data.slug] = { figures: data.figures ?? [], exercises: data.exercises ?? [] };
  }
  return lessons;
}

// The live calculators of the course pages: [{calc, lessons, values, where}].
export function readPageCalcs() {
  const where = 'content/systems-and-scaling.yaml';
  const doc = yaml.load(fs.readFileSync(path.join(contentDir, 'systems-and-scaling.yaml'), 'utf8'));
  return (doc.equations ?? []).map((e) => ({ calc: e.calc, lessons: e.lessons ?? [], values: e.values ?? {}, where: `${where} (${e.id})` }));
}

export async function computePlan(engine, raw) {
  const parts = readParts();
  const lessons = readLessons();
  const groups = JSON.parse(raw.engineGroups());
  const partOfLesson = new Map();
  for (const [part, spec] of Object.entries(parts)) {
    for (const slug of spec.lessons) {
      if (!lessons[slug]) throw new Error(`wasm/parts.json: part "${part}" names lesson "${slug}", which content/lessons lacks`);
      if (partOfLesson.has(slug)) throw new Error(`wasm/parts.json: lesson "${slug}" is in two parts`);
      partOfLesson.set(slug, part);
    }
  }
  for (const slug of Object.keys(lessons)) {
    if (!partOfLesson.has(slug)) throw new Error(`wasm/parts.json: lesson "${slug}" is in no part of the engine`);
  }

  const plan = { parts: {}, figures: {}, exercises: {}, calcs: {}, figureCalls: {}, pageCalcs: {} };
  const need = {};
  for (const [part, spec] of Object.entries(parts)) {
    need[part] = { calcs: new Set(), exercises: new Set() };
    for (const slug of spec.lessons) {
      for (const id of lessons[slug].figures) {
        if (!figureLoaders[id]) throw new Error(`content/lessons/${slug}.md: no figure "${id}" (web/src/figures/index.js)`);
        const calls = await figureCalls(id, engine);
        plan.figures[id] = part;
        plan.figureCalls[id] = calls;
        for (const name of calls) need[part].calcs.add(name);
      }
      for (const id of lessons[slug].exercises) {
        if (!groups.exercises[id]) throw new Error(`content/lessons/${slug}.md: the engine has no exercise "${id}"`);
        plan.exercises[id] = part;
        need[part].exercises.add(id);
      }
    }
  }
  // Groups a part holds before its lessons' pages call them (parts.json `groups`: the
  // calculators page offers every calculator, and the module's lessons, written later, place
  // the exercises of the group of the same name).
  for (const [part, spec] of Object.entries(parts)) {
    for (const g of spec.groups ?? []) {
      const names = Object.keys(groups.calculators).filter((n) => groups.calculators[n] === g);
      const ids = Object.keys(groups.exercises).filter((id) => groups.exercises[id] === g);
      if (!names.length && !ids.length) throw new Error(`wasm/parts.json: part "${part}" names group "${g}", which the engine lacks`);
      for (const n of names) need[part].calcs.add(n);
      for (const id of ids) need[part].exercises.add(id);
    }
  }
  // A page's calculator goes where its pages already call it, else where its group already
  // is, else to the part of its first lesson (adding its group there).
  const groupOf = (name, part) => {
    const g = groups.calculators[name];
    if (!g) throw new Error(`part "${part}": a page calls calculator "${name}", which the engine lacks`);
    return g;
  };
  const hasGroup = (part, g) => [...need[part].calcs].some((n) => groupOf(n, part) === g);
  for (const { calc, lessons: eqLessons, where } of readPageCalcs()) {
    if (!groups.calculators[calc]) throw new Error(`${where}: the engine has no calculator "${calc}"`);
    const names = Object.keys(parts);
    const part = names.find((p) => need[p].calcs.has(calc))
      ?? names.find((p) => hasGroup(p, groups.calculators[calc]))
      ?? eqLessons.map((slug) => partOfLesson.get(slug)).find(Boolean) ?? names[0];
    need[part].calcs.add(calc);
    plan.pageCalcs[calc] = part;
  }
  for (const [part, spec] of Object.entries(parts)) {
    const calcGroups = [...new Set([...need[part].calcs].map((name) => groupOf(name, part)))].sort();
    const exerciseGroups = [...new Set([...need[part].exercises].map((id) => groups.exercises[id]))].sort();
    const calculators = Object.keys(groups.calculators).filter((n) => calcGroups.includes(groups.calculators[n])).sort();
    const exercises = Object.keys(groups.exercises).filter((id) => exerciseGroups.includes(groups.exercises[id])).sort();
    plan.parts[part] = {
      lessons: spec.lessons, calculatorGroups: calcGroups, exerciseGroups,
      calls: [...need[part].calcs].sort(), calculators, exercises,
    };
  }
  // A calculator widget loads the part planned for it, any other calculator the first part
  // holding it.
  for (const [part, p] of Object.entries(plan.parts)) for (const name of p.calculators) plan.calcs[name] ??= part;
  Object.assign(plan.calcs, plan.pageCalcs);
  return plan;
}

// The defines a part compiles core/cmake/groups.cmake's generated registries with.
export function partHeader(part, p) {
  return [
    '// Generated by web/scripts/engine-plan.mjs (the plan of the engine parts); do not edit.',
    `// engine-${part}: lessons ${p.lessons.join(', ')}`,
    `#define MLSYS_PART ${part}`,
    ...p.calculatorGroups.map((g) => `#define MLSYS_CALC_${g}`),
    ...p.exerciseGroups.map((g) => `#define MLSYS_EXERCISE_${g}`),
    '',
  ].join('\n');
}

function writeIfChanged(file, text) {
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text) return false;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return true;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const [engineDir, headerDir] = process.argv.slice(2);
  if (!engineDir || !headerDir) {
    console.error('usage: node web/scripts/engine-plan.mjs <engine dir> <header dir>');
    process.exit(2);
  }
  const { engine, raw } = await loadNodeEngine(path.resolve(engineDir), 'engine');
  const plan = await computePlan(engine, raw);
  const changed = [];
  for (const [part, p] of Object.entries(plan.parts)) {
    if (writeIfChanged(path.join(headerDir, `${part}.h`), partHeader(part, p))) changed.push(`${part}.h`);
    console.log(`engine-${part}: calculators ${p.calculatorGroups.join(' ')}; exercises ${p.exerciseGroups.join(' ')}`);
  }
  if (writeIfChanged(path.join(engineDir, 'parts-plan.json'), `${JSON.stringify(plan, null, 1)}\n`)) changed.push('parts-plan.json');
  console.log(changed.length ? `engine plan: wrote ${changed.join(', ')}` : 'engine plan: unchanged');
}
