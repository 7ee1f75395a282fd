// The site's pages load one part of the engine each. wasm/parts.json names each part's
// lessons; the build computes the groups each part holds from what its pages call
// (web/scripts/engine-plan.mjs, build/wasm/engine/parts-plan.json). Every figure of a part's
// lessons, over the same control settings the plan ran, and every exercise must work in
// that part alone and give exactly what the full engine gives; every calculator a part holds
// must have the full engine's schema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadNodeEngine } from '../../web/src/runtime/engine-node.js';
import { figureLoaders } from '../../web/src/figures/index.js';
import { loadContent } from '../../web/scripts/content.js';
import { engineParts, readPlan } from '../../web/scripts/engine-parts.js';
import { figureSettings, figureCalls, recording, readPageCalcs } from '../../web/scripts/engine-plan.mjs';

const { engine: full, raw: fullRaw } = await loadNodeEngine();
const { lessons } = await loadContent();
const map = await engineParts(lessons);
const plan = readPlan();

// Figure data as text (plain series; a thrown engine error compares by its message).
const dataText = (fig, engine, p) => {
  try {
    return JSON.stringify(fig.data(engine, p));
  } catch (err) {
    return `error: ${err.message}`;
  }
};

for (const part of Object.keys(plan.parts)) {
  test(`engine-${part}: its lessons' figures (every control setting), exercises and calculators match the full engine`, async () => {
    const { engine, raw } = await loadNodeEngine(undefined, `engine-${part}`);
    const held = new Set(engine.list());
    const figures = Object.keys(map.figures).filter((id) => map.figures[id] === part);
    const exercises = Object.keys(map.exercises).filter((id) => map.exercises[id] === part);
    if (plan.parts[part].lessons.length) assert.ok(figures.length > 0 && exercises.length > 0);
    else {
      // A part whose lessons are not written yet (parts.json `groups`): its calculators, at
      // their defaults, give the full engine's results, and it holds those groups' exercises.
      assert.ok(engine.list().length > 0 && engine.exerciseIds().length > 0);
      for (const name of engine.list()) assert.equal(raw.calc(name, '{}'), fullRaw.calc(name, '{}'), `${name} at its defaults`);
    }
    for (const id of figures) {
      const fig = (await figureLoaders[id]()).default;
      const called = new Set();
      const rec = recording(engine, called);
      for (const p of figureSettings(fig, full)) {
        assert.equal(dataText(fig, rec, p), dataText(fig, full, p), `figure ${id} at ${JSON.stringify(p)}`);
      }
      for (const name of called) assert.ok(held.has(name), `figure ${id} calls calculator "${name}", which engine-${part} lacks`);
    }
    for (const id of exercises) {
      for (const seed of [1, 7]) {
        assert.equal(raw.exercise(id, seed), fullRaw.exercise(id, seed), `exercise ${id} seed ${seed}`);
        const answer = String(full.exercise(id, seed).answer);
        assert.equal(raw.checkExercise(id, seed, answer), fullRaw.checkExercise(id, seed, answer));
      }
    }
    for (const name of engine.list()) assert.equal(raw.calcSchema(name), fullRaw.calcSchema(name), `schema of ${name}`);
    // The part holds exactly the groups planned for it, and leaves out what only other parts
    // call (that is the point of parts).
    assert.deepEqual(engine.list().sort(), plan.parts[part].calculators);
    assert.deepEqual(engine.exerciseIds().sort(), plan.parts[part].exercises);
    assert.ok(engine.list().length < full.list().length);
  });
}

test('the course pages\' calculators load a part that holds them and give the full engine\'s results', async () => {
  const calcs = readPageCalcs();
  assert.ok(calcs.length > 0);
  for (const { calc, values, where } of calcs) {
    const part = map.calcs[calc];
    assert.ok(part, `${where}: calculator ${calc} is in no part`);
    const { engine } = await loadNodeEngine(undefined, `engine-${part}`);
    assert.ok(engine.list().includes(calc), `${where}: engine-${part} lacks ${calc}`);
    assert.deepEqual(engine.calc(calc, values), full.calc(calc, values), `${where}: ${calc} in engine-${part}`);
  }
});

test('the plan is current: every figure is planned in its lesson\'s part with the calculators it calls', async () => {
  assert.deepEqual(Object.keys(map.figures).sort(), Object.keys(figureLoaders).sort());
  for (const l of lessons) {
    const part = Object.keys(plan.parts).find((p) => plan.parts[p].lessons.includes(l.slug));
    for (const id of l.figures) {
      assert.equal(map.figures[id], part);
      assert.deepEqual(await figureCalls(id, full), plan.figureCalls[id], `calculators of figure ${id}`);
    }
    for (const id of l.exercises) assert.equal(map.exercises[id], part);
  }
  const groups = JSON.parse(fullRaw.engineGroups());
  assert.deepEqual(Object.keys(groups.calculators).sort(), full.list().sort());
  assert.deepEqual(Object.keys(groups.exercises).sort(), full.exerciseIds().sort());
});
