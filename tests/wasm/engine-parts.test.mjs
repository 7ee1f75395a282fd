// The site's pages load one part of the engine each (wasm/parts.json). Every figure and
// exercise of a part's lessons must work in that part alone and give exactly what the full
// engine gives; every calculator a part holds must have the full engine's schema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadNodeEngine } from '../../web/src/runtime/engine-node.js';
import { resolveParams, defaults } from '../../web/src/runtime/params.js';
import { figureLoaders } from '../../web/src/figures/index.js';
import { loadContent } from '../../web/scripts/content.js';
import { engineParts, readParts } from '../../web/scripts/engine-parts.js';

const { engine: full, raw: fullRaw } = await loadNodeEngine();
const { lessons } = await loadContent();
const map = await engineParts(lessons);
const parts = readParts();

// Figure data as text (plain series; a thrown engine error compares by its message).
const dataText = async (id, engine) => {
  const fig = (await figureLoaders[id]()).default;
  try {
    return JSON.stringify(fig.data(engine, defaults(resolveParams(fig, engine))));
  } catch (err) {
    return `error: ${err.message}`;
  }
};

for (const part of Object.keys(parts)) {
  test(`engine-${part}: its lessons' figures, exercises and calculators match the full engine`, async () => {
    const { engine, raw } = await loadNodeEngine(undefined, `engine-${part}`);
    const figures = Object.keys(map.figures).filter((id) => map.figures[id] === part);
    const exercises = Object.keys(map.exercises).filter((id) => map.exercises[id] === part);
    assert.ok(figures.length > 0 && exercises.length > 0);
    for (const id of figures) assert.equal(await dataText(id, engine), await dataText(id, full), `figure ${id}`);
    for (const id of exercises) {
      for (const seed of [1, 7]) {
        assert.equal(raw.exercise(id, seed), fullRaw.exercise(id, seed), `exercise ${id} seed ${seed}`);
        const answer = String(full.exercise(id, seed).answer);
        assert.equal(raw.checkExercise(id, seed, answer), fullRaw.checkExercise(id, seed, answer));
      }
    }
    for (const name of engine.list()) assert.equal(raw.calcSchema(name), fullRaw.calcSchema(name), `schema of ${name}`);
    // A part leaves out what other parts hold (that is the point of parts).
    assert.ok(engine.list().length < full.list().length);
  });
}

test('every calculator of the engine is held by some part, every figure by its lesson\'s part', () => {
  assert.deepEqual(Object.keys(map.calcs).sort(), full.list().sort());
  assert.deepEqual(Object.keys(map.figures).sort(), Object.keys(figureLoaders).sort());
  for (const l of lessons) {
    const part = Object.keys(parts).find((p) => parts[p].lessons.includes(l.slug));
    for (const id of l.figures) assert.equal(map.figures[id], part);
  }
});
