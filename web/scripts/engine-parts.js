// Which part of the engine (one wasm module per part of the course) each figure, exercise and
// calculator loads in the browser. A page loads only its part, not every calculator of the
// course. wasm/parts.json names each part's lessons; the build computes what each part holds
// from what its pages call and writes the plan beside the engine (web/scripts/engine-plan.mjs:
// build/wasm/engine/parts-plan.json). The map is read from that plan and checked here against
// the content and the built parts: every figure and exercise of a lesson belongs to its
// lesson's part, and each part holds everything its pages call.
import fs from 'node:fs';
import path from 'node:path';
import { loadNodeEngine } from '../src/runtime/engine-node.js';
import { readParts, partsFile } from './engine-plan.mjs';
import { engineDir } from './paths.js';

export { readParts, partsFile };

// The plan the build computed: {parts: {part: {lessons, calculatorGroups, exerciseGroups,
// calls, calculators, exercises}}, figures: {id: part}, exercises: {id: part},
// calcs: {name: part}, figureCalls: {id: [calculator]}, pageCalcs: {name: part}}.
export function readPlan(dir = engineDir) {
  const file = path.join(dir, 'parts-plan.json');
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: build the wasm preset first`);
  const plan = JSON.parse(fs.readFileSync(file, 'utf8'));
  const parts = readParts();
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(Object.keys(plan.parts), Object.keys(parts))
      || Object.keys(parts).some((p) => !same(plan.parts[p].lessons, parts[p].lessons))) {
    throw new Error(`${file} is older than wasm/parts.json: rebuild the wasm preset`);
  }
  return plan;
}

// lessons: [{slug, figures, exercises}] -> {figures: {id: part}, exercises: {id: part}, calcs: {name: part}}
export async function engineParts(lessons, dir = engineDir) {
  const plan = readPlan(dir);
  const partOfLesson = new Map();
  for (const [part, spec] of Object.entries(plan.parts)) for (const slug of spec.lessons) partOfLesson.set(slug, part);
  const held = new Map();
  for (const part of Object.keys(plan.parts)) {
    const { engine } = await loadNodeEngine(dir, `engine-${part}`);
    const calcs = new Set(engine.list());
    held.set(part, { calcs, exercises: new Set(engine.exerciseIds()) });
    for (const name of plan.parts[part].calls) {
      if (!calcs.has(name)) throw new Error(`engine-${part} lacks calculator "${name}", which its pages call: rebuild the wasm preset`);
    }
  }
  for (const l of lessons) {
    const part = partOfLesson.get(l.slug);
    if (!part) throw new Error(`wasm/parts.json: lesson "${l.slug}" is in no part of the engine`);
    for (const id of l.figures) {
      if (plan.figures[id] !== part) throw new Error(`${path.join(dir, 'parts-plan.json')}: figure "${id}" of ${l.slug} is not planned in ${part}: rebuild the wasm preset`);
    }
    for (const id of l.exercises) {
      if (!held.get(part).exercises.has(id)) throw new Error(`exercise "${id}" of ${l.slug} is not in engine-${part}: rebuild the wasm preset`);
    }
  }
  for (const [name, part] of Object.entries(plan.calcs)) {
    if (!held.get(part).calcs.has(name)) throw new Error(`engine-${part} lacks calculator "${name}": rebuild the wasm preset`);
  }
  return { figures: { ...plan.figures }, exercises: { ...plan.exercises }, calcs: { ...plan.calcs } };
}
