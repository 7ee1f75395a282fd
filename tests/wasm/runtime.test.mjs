// The figure runtime's pure parts: outside state (URL hash, embed attributes) is validated
// against the engine's schemas and never applied unchecked; the reading-progress store
// survives corruption; the figure registry matches the figure files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadNodeEngine } from '../../web/src/runtime/engine-node.js';
import { wrapEngine, EngineError } from '../../web/src/runtime/engine-api.js';
import { resolveParams, defaults, applyState, encodeState, decodeHash } from '../../web/src/runtime/params.js';
import { readProgress } from '../../web/src/runtime/progress.js';
import { figureLoaders } from '../../web/src/figures/index.js';
import { formatQuantity, formatFixed } from '../../web/src/runtime/format.js';
import { formatField } from '../../web/src/runtime/calc-page-text.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const rawEngine = await loadNodeEngine();
const { engine } = rawEngine;
const figure = (await figureLoaders['roofline-plot']()).default;
const specs = resolveParams(figure, engine);

// The wrapped engine over the real one, with the names of the calls that reach it.
function countingEngine() {
  const { raw } = rawEngine;
  const calls = [];
  return { calls, wrapped: wrapEngine({ ...raw, calc: (name, text) => { calls.push(name); return raw.calc(name, text); } }) };
}

test('calculator outputs are kept: a repeated call reaches the engine once and returns a new object', () => {
  const { wrapped, calls } = countingEngine();
  const input = { m: 4096, n: 4096, k: 4096, dtype: 'bf16' };
  const first = wrapped.calc('matmul', input);
  first.intensity = -1; // a caller may change what it gets
  const again = wrapped.calc('matmul', { ...input });
  assert.deepEqual(again, engine.calc('matmul', input));
  assert.notEqual(again.intensity, -1);
  assert.deepEqual(calls, ['matmul']);
  wrapped.calc('matmul', { ...input, dtype: 'fp32' });
  assert.deepEqual(calls, ['matmul', 'matmul'], 'another input is computed');
  // A rejected input throws the same error each time.
  for (let i = 0; i < 2; i += 1) {
    assert.throws(() => wrapped.calc('matmul', { ...input, m: -1 }), (e) => e instanceof EngineError && e.field === 'm');
  }
  assert.equal(calls.length, 3);
});

test('uncached(fn): every call inside fn reaches the engine again, and its output is kept', () => {
  const { wrapped, calls } = countingEngine();
  const input = { m: 64, n: 64, k: 64, dtype: 'bf16' };
  const first = wrapped.calc('matmul', input);
  const inside = wrapped.uncached(() => [wrapped.calc('matmul', input), wrapped.calc('matmul', input)]);
  assert.equal(calls.length, 3, 'both calls inside were computed');
  assert.deepEqual(inside, [first, first]);
  assert.deepEqual(wrapped.calc('matmul', input), first);
  assert.equal(calls.length, 3, 'outside, the kept output is read again');
  // A rejected input inside still throws, and the cache is read again afterwards.
  assert.throws(() => wrapped.uncached(() => wrapped.calc('matmul', { ...input, m: -1 })), (e) => e.field === 'm');
  wrapped.calc('matmul', input);
  assert.equal(calls.length, 4);
  // Nested: the outer uncached() still computes after an inner one returns.
  wrapped.uncached(() => { wrapped.uncached(() => {}); wrapped.calc('matmul', input); });
  assert.equal(calls.length, 5);
});

test('the kept outputs stay within their size: the oldest go first', () => {
  const calls = [];
  const fake = { calc: (name, text) => { calls.push(text); return JSON.stringify({ echo: text, pad: 'x'.repeat(100) }); } };
  const wrapped = wrapEngine(fake, 1000); // room for about six outputs
  for (let i = 0; i < 10; i += 1) wrapped.calc('echo', { i });
  wrapped.calc('echo', { i: 9 });
  assert.equal(calls.length, 10, 'the newest is kept');
  wrapped.calc('echo', { i: 0 });
  assert.equal(calls.length, 11, 'the oldest was dropped');
  assert.deepEqual(wrapped.calc('echo', { i: 0 }), { echo: '{"i":0}', pad: 'x'.repeat(100) });
  assert.equal(calls.length, 11);
  // Computing a kept output again (uncached) neither counts it twice nor drops others.
  for (let n = 0; n < 20; n += 1) wrapped.uncached(() => wrapped.calc('echo', { i: 9 }));
  assert.equal(calls.length, 31);
  for (const i of [0, 6, 7, 8, 9]) wrapped.calc('echo', { i });
  assert.equal(calls.length, 31, 'the same outputs are kept');
});

test('params built from the engine schema', () => {
  const hw = specs.find((s) => s.key === 'hardware');
  assert.equal(hw.type, 'select');
  assert.ok(hw.options.some((o) => o.value === 'h100-sxm' && /H100/.test(o.label)));
  assert.equal(defaults(specs).hardware, 'h100-sxm');
});

test('accelerator select labels: every id of the hardware table with its name, in table order', () => {
  const table = engine.calc('hardware', {}).accelerators;
  assert.deepEqual(engine.acceleratorNames(), table.map((a) => [a.id, a.name]));
  const hw = specs.find((s) => s.key === 'hardware');
  assert.deepEqual(hw.options, table.map((a) => ({ value: a.id, label: a.name })));
});

test('hostile outside state is rejected with messages, never applied', () => {
  const start = defaults(specs);
  const { params, errors } = applyState(specs, start, {
    hardware: '<img src=x onerror=alert(1)>', dtype: 'fp12', flops: '1e999', bytes: '-5', '__proto__': 'x', extra: '1',
  });
  assert.deepEqual(params, start);
  assert.equal(errors.length, 5, errors.join(' | '));
  for (const e of errors) assert.ok(e.length < 200);
  const ok = applyState(specs, start, { dtype: 'fp32', flops: '2e12' });
  assert.deepEqual(ok.errors, []);
  assert.equal(ok.params.dtype, 'fp32');
  assert.equal(ok.params.flops, 2e12);
});

test('permalink state round-trips through the hash', () => {
  const p = { ...defaults(specs), dtype: 'fp16', flops: 5e11 };
  const hash = encodeState('roofline-plot', specs, p);
  const back = applyState(specs, defaults(specs), decodeHash(`#${hash}`, 'roofline-plot'));
  assert.deepEqual(back.params, p);
  assert.equal(decodeHash('#other-figure:dtype=fp16', 'roofline-plot'), null);
  // Malformed escapes never throw (a throw here left every figure of the page unstarted).
  assert.equal(decodeHash('#%E0%A4%A', 'roofline-plot'), null);
  assert.equal(decodeHash('#%', 'roofline-plot'), null);
  const bad = decodeHash('#roofline-plot:flops=%ZZ&dtype=fp16', 'roofline-plot');
  assert.deepEqual(bad, { flops: '%ZZ', dtype: 'fp16' });
  const r = applyState(specs, defaults(specs), bad);
  assert.equal(r.params.dtype, 'fp16');
  assert.equal(r.errors.length, 1);
});

test('a corrupted progress store reads as empty or cleaned', () => {
  const store = (v) => ({ getItem: () => v });
  assert.deepEqual(readProgress(store('{not json')), { read: {} });
  assert.deepEqual(readProgress(store('[1,2]')), { read: {} });
  assert.deepEqual(readProgress(store('{"read": "x"}')), { read: {} });
  assert.deepEqual(readProgress(store('{"read": {"roofline": 5, "<b>": 1, "x": "y"}}')), { read: { roofline: 5 } });
  assert.deepEqual(readProgress({ getItem: () => { throw new Error('blocked'); } }), { read: {} });
});

test('every figure file is registered and every registered figure has a file', () => {
  const files = fs.readdirSync(path.join(root, 'web/src/figures')).filter((f) => f.endsWith('.js') && f !== 'index.js').map((f) => f.replace(/\.js$/, ''));
  assert.deepEqual(files.sort(), Object.keys(figureLoaders).sort());
});

test('prose number formatting', () => {
  assert.equal(formatQuantity(989.4e12, 'TFLOP/s', 0), '989 TFLOP/s');
  assert.equal(formatQuantity(3.35e12, 'TB/s', 2), '3.35 TB/s');
  assert.equal(formatQuantity(0.1234, '%', 1), '12.3%');
  assert.equal(formatQuantity(268435456, 'int'), '268,435,456');
  assert.throws(() => formatQuantity(1, 'parsec'));
  assert.throws(() => formatQuantity(NaN, 'B'));
});

// formatFixed avoids Intl (slow on a page's first call) but must print exactly what
// toLocaleString('en-US') prints: rounding of the shortest decimal form, signs, separators.
test('formatFixed prints what toLocaleString prints', () => {
  const values = [0, -0, 0.5, 1.005, 2.675, 999.995, -0.001, 5e-7, 1234567.891, 1e20, 1e21, 1.2345e25, 123456789012345680000];
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let i = 0; i < 4000; i += 1) values.push((random() - 0.3) * 10 ** Math.floor(random() * 30 - 8), Math.round(random() * 1e6) / 1000);
  for (const x of values) {
    for (const d of [0, 1, 2, 3, 6]) {
      assert.equal(formatFixed(x, d), x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }), `${x} with ${d} decimals`);
    }
  }
});

// The figures' default tick labels avoid Intl (web/src/runtime/chart.js) and must read exactly
// as Chart.js's own formatters read them in en-US.
test('tick labels equal Chart.js formatters in en-US', async () => {
  const { numericTick, logarithmicTick } = await import('../../web/src/runtime/chart.js');
  const { Ticks } = await import('../../web/node_modules/chart.js/dist/chart.js');
  const scale = { chart: { options: { locale: 'en-US' } }, options: { ticks: {} } };
  const linear = [[0, 0.2, 0.4, 0.6], [0, 250, 500, 750, 1000], [-1.5, -1, -0.5, 0, 0.5], [1e-3, 2e-3, 3e-3], [0.00001, 0.00002], [1e14, 2e14], [2e15, 4e15], [1234.5, 1234.75, 1235], [7], [0, 1e6, 2e6, 3e6]];
  const logarithmic = [[1e-3, 1e-2, 0.1, 1, 10, 100], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 30, 50], [1e9, 2e9, 5e9, 1e10, 1e12], [0.5, 1, 1.5, 2]];
  for (const values of linear) {
    const ticks = values.map((value) => ({ value }));
    values.forEach((v, i) => assert.equal(numericTick.call(scale, v, i, ticks), Ticks.formatters.numeric.call(scale, v, i, ticks), `linear ${v} in [${values}]`));
  }
  for (const values of logarithmic) {
    const ticks = values.map((value) => ({ value }));
    values.forEach((v, i) => assert.equal(logarithmicTick.call(scale, v, i, ticks), Ticks.formatters.logarithmic.call(scale, v, i, ticks), `log ${v} in [${values}]`));
  }
});

test('the calculators page formats outputs in units a reader can use', () => {
  assert.equal(formatField(2.983e-4, { unit: 's' }), '298 µs');
  assert.equal(formatField(0.1011, { unit: 's' }), '101 ms');
  assert.equal(formatField(3.2e-9, { unit: 's' }), '3.20 ns');
  assert.equal(formatField(2.5, { unit: 's' }), '2.50 s');
  assert.equal(formatField(1010.7, { unit: 's' }), '16.8 min');
  assert.equal(formatField(1e9, { unit: 'B' }), '1.00 GB');
  assert.equal(formatField(true), 'yes');
});

test('"New numbers" shows a prompt not seen yet while the generator has one', async () => {
  const { freshSeed } = await import('../../web/src/runtime/fresh-seed.js');
  // A generator with a small parameter space (a handful of formats): random seeds alone
  // repeat its prompts within a few presses.
  const id = 'numerics-recipe-bytes';
  const promptOf = (s) => engine.exercise(id, s).prompt;
  const space = new Set(Array.from({ length: 4000 }, (_, s) => promptOf(s)));
  let state = 12345;  // a fixed pseudo-random sequence (xorshift32), so the test is repeatable
  const random = () => { state ^= state << 13; state >>>= 0; state ^= state >>> 17; state ^= state << 5; state >>>= 0; return state; };
  const seen = new Set([promptOf(1)]);
  let current = promptOf(1);
  const shown = [current];
  for (let press = 1; press < Math.min(space.size, 10); press += 1) {
    current = promptOf(freshSeed(promptOf, seen, current, random));
    assert.ok(!seen.has(current), `press ${press} repeated a prompt while ${space.size - seen.size} were unseen`);
    seen.add(current);
    shown.push(current);
  }
  // Every prompt seen: the next press still changes the prompt.
  for (const p of space) seen.add(p);
  const next = promptOf(freshSeed(promptOf, seen, current, random));
  assert.notEqual(next, current);
});
