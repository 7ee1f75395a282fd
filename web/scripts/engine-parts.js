// Which part of the engine (wasm/parts.json: one wasm module per part of the course) each
// figure, exercise and calculator loads in the browser. A page loads only its part, not
// every calculator of the course. The map is checked here: every figure and exercise of a
// lesson belongs to its lesson's part, and every calculator is in some part.
import fs from 'node:fs';
import path from 'node:path';
import { loadNodeEngine } from '../src/runtime/engine-node.js';
import { repoRoot, engineDir } from './paths.js';

export const partsFile = path.join(repoRoot, 'wasm/parts.json');

// {part: {lessons, calculators, exercises}} in file order (the first part holding a
// calculator is the one a calculator widget loads).
export function readParts() {
  return JSON.parse(fs.readFileSync(partsFile, 'utf8'));
}

// lessons: [{slug, figures, exercises}] -> {figures: {id: part}, exercises: {id: part}, calcs: {name: part}}
export async function engineParts(lessons, dir = engineDir) {
  const parts = readParts();
  const map = { figures: {}, exercises: {}, calcs: {} };
  const partOfLesson = new Map();
  for (const [part, spec] of Object.entries(parts)) for (const slug of spec.lessons) partOfLesson.set(slug, part);
  const held = new Map();
  for (const part of Object.keys(parts)) {
    const { engine } = await loadNodeEngine(dir, `engine-${part}`);
    held.set(part, { calcs: new Set(engine.list()), exercises: new Set(engine.exerciseIds()) });
    for (const name of engine.list()) map.calcs[name] ??= part;
  }
  for (const l of lessons) {
    const part = partOfLesson.get(l.slug);
    if (!part) throw new Error(`wasm/parts.json: lesson "${l.slug}" is in no part of the engine`);
    for (const id of l.figures) map.figures[id] = part;
    for (const id of l.exercises) {
      if (!held.get(part).exercises.has(id)) throw new Error(`wasm/parts.json: exercise "${id}" of ${l.slug} is not in engine-${part}`);
      map.exercises[id] = part;
    }
  }
  return map;
}
