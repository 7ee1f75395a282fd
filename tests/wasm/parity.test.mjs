// WASM and native give identical results: every case of tests/cases/*.json
// (results and errors) and every exercise for several seeds, run through the command-line
// calculator and through the WASM module, must produce the same JSON text.
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

test('the shared table has results and errors', () => {
  const errors = cases.filter((c) => 'text' in c || native(['calc', c.calc, JSON.stringify(c.input)]).code !== 0);
  assert.ok(errors.length >= 15, `only ${errors.length} error cases`);
  assert.ok(cases.length - errors.length >= 10);
});

for (const [i, c] of cases.entries()) {
  const text = 'text' in c ? c.text : JSON.stringify(c.input);
  test(`case ${i}: ${c.calc} ${text.slice(0, 60)}`, () => {
    const n = native(['calc', c.calc, '-'], text);
    const w = raw.calc(c.calc, text);
    assert.equal(w, n.out, 'WASM and native JSON text differ');
    const parsed = JSON.parse(w);
    assert.equal(n.code, parsed.error ? 2 : 0, 'exit code 2 exactly for errors');
    if (parsed.error && 'input' in c) {
      assert.equal(typeof parsed.error.field, 'string');
      assert.ok(parsed.error.message.length > 10);
      assert.throws(() => engine.calc(c.calc, c.input), (e) => e.name === 'EngineError' && e.field === parsed.error.field);
    }
  });
}

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
