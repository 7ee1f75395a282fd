// The figure runtime's pure parts: outside state (URL hash, embed attributes) is validated
// against the engine's schemas and never applied unchecked; the reading-progress store
// survives corruption; the figure registry matches the figure files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadNodeEngine } from '../../web/src/runtime/engine-node.js';
import { resolveParams, defaults, applyState, encodeState, decodeHash } from '../../web/src/runtime/params.js';
import { readProgress } from '../../web/src/runtime/progress.js';
import { figureLoaders } from '../../web/src/figures/index.js';
import { formatQuantity } from '../../web/src/runtime/format.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { engine } = await loadNodeEngine();
const figure = (await figureLoaders['roofline-plot']()).default;
const specs = resolveParams(figure, engine);

test('params built from the engine schema', () => {
  const hw = specs.find((s) => s.key === 'hardware');
  assert.equal(hw.type, 'select');
  assert.ok(hw.options.some((o) => o.value === 'h100-sxm' && /H100/.test(o.label)));
  assert.equal(defaults(specs).hardware, 'h100-sxm');
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
