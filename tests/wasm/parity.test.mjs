// WASM and native give identical results: every case of tests/cases/*.json (results and
// errors), every seeded calculator over several seeds and every exercise for several seeds,
// run through the command-line calculator and through the WASM module, must produce the
// same JSON text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadNodeEngine } from '../../web/src/runtime/engine-node.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = process.env.MLSYS_CLI ?? path.join(root, 'build/native/bin/mlsys');
const casesDir = path.join(root, 'tests/cases');
const cases = fs.readdirSync(casesDir).filter((f) => f.endsWith('.json')).sort()
  .flatMap((f) => JSON.parse(fs.readFileSync(path.join(casesDir, f), 'utf8')));
const { raw, engine } = await loadNodeEngine();

function native(args, input) {
  try {
    return { code: 0, out: execFileSync(cli, args, { input, encoding: 'utf8' }).trim() };
  } catch (err) {
    return { code: err.status, out: String(err.stdout).trim() };
  }
}

// Every request of this file through one native process (`mlsys calc --batch -`).
function nativeBatch(requests) {
  const input = requests.map(([name, text]) => JSON.stringify({ name, text })).join('\n') + '\n';
  const out = execFileSync(cli, ['calc', '--batch', '-'], { input, encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n');
  return requests.map((_, i) => out[i]);
}

const caseTexts = cases.map((c) => [c.calc, 'text' in c ? c.text : JSON.stringify(c.input)]);
const caseOutputs = nativeBatch(caseTexts);

test('the shared table has results and errors', () => {
  const errors = caseOutputs.filter((out) => JSON.parse(out).error);
  assert.ok(errors.length >= 15, `only ${errors.length} error cases`);
  assert.ok(cases.length - errors.length >= 10);
});

test('batch mode prints what one process prints, exit code 2 exactly for errors', () => {
  for (const i of [0, cases.findIndex((c) => 'text' in c)]) {
    const n = native(['calc', caseTexts[i][0], '-'], caseTexts[i][1]);
    assert.equal(n.out, caseOutputs[i]);
    assert.equal(n.code, JSON.parse(n.out).error ? 2 : 0);
  }
  const bad = execFileSync(cli, ['calc', '--batch', '-'], { input: 'not json\n{"name": 3}\n', encoding: 'utf8' }).trim().split('\n');
  assert.equal(bad.length, 2);
  for (const line of bad) assert.match(JSON.parse(line).error.message, /batch line/);
});

for (const [i, c] of cases.entries()) {
  const [name, text] = caseTexts[i];
  test(`case ${i}: ${name} ${text.slice(0, 60)}`, () => {
    const w = raw.calc(name, text);
    assert.equal(w, caseOutputs[i], 'WASM and native JSON text differ');
    const parsed = JSON.parse(w);
    if (parsed.error && 'input' in c) {
      assert.equal(typeof parsed.error.field, 'string');
      assert.ok(parsed.error.message.length > 10);
      assert.throws(() => engine.calc(name, c.input), (e) => e.name === 'EngineError' && e.field === parsed.error.field);
    }
  });
}

// Seeded simulations draw from foundations/deterministic.hpp: the same JSON text natively
// and in WASM for every seeded calculator, at its defaults, over several seeds.
test('every seeded calculator gives the same JSON natively and in WASM over several seeds', () => {
  const seeded = engine.list().filter((name) => engine.schema(name).fields.some((f) => f.name === 'seed'));
  assert.ok(seeded.length >= 8, `only ${seeded.length} seeded calculators`);
  const requests = seeded.flatMap((name) => [0, 1, 7, 123456, 4294967295].map((seed) => [name, JSON.stringify({ seed })]));
  const outputs = nativeBatch(requests);
  requests.forEach(([name, text], i) => {
    const w = raw.calc(name, text);
    assert.ok(!JSON.parse(w).error, `${name} ${text}: ${w.slice(0, 200)}`);
    assert.equal(w, outputs[i], `${name} ${text}: WASM and native JSON text differ`);
  });
});

test('the JavaScript API rejects NaN and infinities by field instead of sending null', () => {
  for (const bad of [NaN, Infinity, -Infinity]) {
    assert.throws(() => engine.calc('roofline', { flops: bad, bytes: 1 }), (e) => e.name === 'EngineError' && e.field === 'flops');
  }
});

test('schemas and the list agree', () => {
  const names = JSON.parse(native(['calc', '--list']).out);
  assert.deepEqual(engine.list(), names);
  for (const name of names) assert.deepEqual(engine.schema(name), JSON.parse(native(['calc', name, '--schema']).out));
});

test('exercises: same seed, same exercise and same verdicts natively and in WASM', () => {
  const ids = engine.exerciseIds();
  assert.deepEqual(ids, JSON.parse(native(['exercise', '--list']).out));
  for (const id of ids) {
    for (const seed of [0, 1, 7, 123456, 4294967295]) {
      const w = engine.exercise(id, seed);
      assert.deepEqual(w, JSON.parse(native(['exercise', id, String(seed)]).out), `${id} #${seed}`);
      for (const answer of [String(w.answer), `${w.answer} ${w.unit}`, '42', 'abc', '']) {
        assert.deepEqual(engine.checkExercise(id, seed, answer),
          JSON.parse(native(['exercise', id, String(seed), '--check', answer]).out), `${id} #${seed} "${answer}"`);
      }
    }
  }
});
