// The tensors-and-layout lesson's three figures on the built WASM engine: what each figure's
// data says, checked against closed forms. Sources: PyTorch's torch.Tensor.stride docs (a
// 2 × 5 tensor has strides (5, 1)), row-major strides s_d = Π_{k>d} n_k and the offset
// Σ i_d·s_d (NumPy's ndarray memory layout docs), and NumPy's broadcasting docs
// (https://numpy.org/doc/stable/user/basics.broadcasting.html) for the broadcast examples.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, run, isEngineError, assertSceneSubset, assertChartSubset } from './figure-harness.mjs';
import strides from '../../web/src/figures/tensor-strides.js';
import bytes from '../../web/src/figures/tensor-bytes.js';
import checker from '../../web/src/figures/broadcast-checker.js';

const rowMajor = (shape) => shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
const product = (xs) => xs.reduce((a, b) => a * b, 1);
// Row-major index of position k in a shape (last index fastest).
const indexOf = (k, shape) => {
  const idx = [];
  for (let d = shape.length - 1; d >= 0; d--) {
    idx.unshift(k % shape[d]);
    k = Math.floor(k / shape[d]);
  }
  return idx;
};

// --- tensor-strides ------------------------------------------------------------------

test('tensor-strides: PyTorch’s documented 2 × 5 example, (5, 1), and its transpose (1, 5)', () => {
  const x = run(strides, { shape: '2,5', view: 'none' });
  assert.deepEqual(x.strides, [5, 1]);
  assert.equal(x.contiguous, true);
  assert.equal(x.copy_bytes, 0);
  const t = run(strides, { shape: '2,5', view: 't-last' });
  assert.deepEqual(t.shape, [5, 2]);
  assert.deepEqual(t.strides, [1, 5]);
  assert.equal(t.contiguous, false);
});

test('tensor-strides: every view’s offsets are Σ index × stride, its storage walk is their inverse', () => {
  for (const shape of ['3,4', '2,5', '4,6', '2,3,4', '3,2,4']) {
    const dims = shape.split(',').map(Number);
    for (const view of ['none', 't-last', 't-outer', 'p201', 'p120']) {
      const d = run(strides, { shape, view });
      assert.deepEqual(d.strides_x, rowMajor(dims), `${shape}: x is row-major`);
      assert.equal(d.elements, product(dims));
      assert.deepEqual(d.contiguous_strides, rowMajor(d.shape));
      // Views of a contiguous tensor permute its strides: the same multiset.
      assert.deepEqual([...d.strides].sort((a, b) => a - b), [...rowMajor(dims)].sort((a, b) => a - b));
      d.offsets.forEach((off, k) => {
        const idx = indexOf(k, d.shape);
        assert.equal(off, idx.reduce((s, i, q) => s + i * d.strides[q], 0), `${shape} ${view}: offset of step ${k}`);
        assert.equal(d.visit[off], k, `${shape} ${view}: slot ${off} read at step ${k}`);
      });
      // Contiguous exactly when the strides are the row-major ones; a copy is the whole tensor.
      const rm = JSON.stringify(d.strides) === JSON.stringify(rowMajor(d.shape));
      assert.equal(d.contiguous, rm, `${shape} ${view}: contiguity`);
      assert.equal(d.copy_bytes, rm ? 0 : d.elements * 4, `${shape} ${view}: .contiguous() bytes (fp32)`);
      assert.equal(d.jumps.every((j) => j === 1), rm, `${shape} ${view}: a contiguous walk steps by 1`);
    }
  }
});

test('tensor-strides: the lesson’s numbers (3 × 4 transposed, 2 × 3 × 4 permuted) and the dtype sets the bytes', () => {
  const t = run(strides);
  assert.deepEqual(t.shape, [4, 3]);
  assert.deepEqual(t.strides, [1, 4]);
  assert.deepEqual(t.offsets.slice(0, 6), [0, 4, 8, 1, 5, 9]);
  assert.equal(t.copy_bytes, 48);
  assert.equal(t.inner_stride, 4);
  assert.equal(run(strides, { dtype: 'bf16' }).copy_bytes, 24);
  assert.equal(run(strides, { dtype: 'int4' }).copy_bytes, 6);
  const p = run(strides, { shape: '2,3,4', view: 'p201' });
  assert.deepEqual(p.shape, [4, 2, 3]);
  assert.deepEqual(p.strides, [1, 12, 4]);
  // y = x.transpose(0, 2): y[3, 1, 0] is x[0, 1, 3], offset 1·4 + 3·1 = 7.
  const y = run(strides, { shape: '2,3,4', view: 't-outer' });
  assert.deepEqual(y.strides, [1, 4, 12]);
  assert.equal(y.offsets[3 * 6 + 1 * 2 + 0], 7);
});

test('tensor-strides: a permutation of a 2-D tensor is its transpose; the drawing numbers every tile', () => {
  for (const view of ['p201', 'p120']) assert.deepEqual(run(strides, { view }).strides, [1, 4]);
  const d = run(strides);
  const scene = strides.draw(d, THEME);
  assertSceneSubset('tensor-strides', scene);
  const cells = scene.nodes.filter((n) => n.kind === 'rect' && n.cell);
  assert.equal(cells.length, 2 * d.elements, 'one tile per storage slot and one per view element');
  const words = scene.nodes.filter((n) => n.kind === 'text').map((n) => n.text).join(' ');
  assert.match(words, /strides \[1, 4\]/);
  assert.match(words, /copies all 12 elements, 48 B/);
});

// A 3-D view is drawn as its slices side by side; each is named above its tiles, in the row
// between the memory row and the view, left to right in order.
test('tensor-strides: the slices of a 3-D view are named y[0] … y[n − 1] above their tiles', () => {
  const scene = strides.draw(run(strides, { shape: '2,3,4', view: 'p201' }), THEME);
  const names = scene.nodes.filter((n) => n.kind === 'text' && /^y\[\d\]$/.test(n.text));
  assert.deepEqual(names.map((n) => n.text), ['y[0]', 'y[1]', 'y[2]', 'y[3]']);
  for (let k = 1; k < names.length; k++) assert.ok(names[k].x > names[k - 1].x);
  const memory = scene.nodes.find((n) => n.kind === 'rect' && n.cell && n.cell[0] === 0);
  const view = scene.nodes.find((n) => n.kind === 'rect' && n.cell && n.cell[0] === 2);
  for (const n of names) assert.ok(n.y > memory.y + memory.h && n.y < view.y, `${n.text} sits between memory and the view`);
  const flat = strides.draw(run(strides), THEME);
  assert.equal(flat.nodes.filter((n) => n.kind === 'text' && /^y\[\d\]$/.test(n.text)).length, 0, 'a 2-D view has no slices');
});

// --- tensor-bytes --------------------------------------------------------------------

test('tensor-bytes: bytes = batch × sequence × vocabulary × bytes per element', () => {
  const size = { fp64: 8, fp32: 4, bf16: 2, fp16: 2, 'fp8-e4m3': 1, int8: 1, int4: 0.5 };
  for (const over of [{}, { batch: 1, seq: 256, vocab: 1000 }, { batch: 64, seq: 16384, vocab: 262144 }]) {
    const d = run(bytes, over);
    const n = product(d.shape);
    assert.equal(d.elements, n);
    for (const b of d.bars) assert.equal(b.bytes, n * size[b.dtype], `${b.dtype} ${JSON.stringify(over)}`);
    // Every bar lies inside the fixed range of the bytes axis.
    for (const b of d.bars) assert.ok(b.bytes > d.range[0] && b.bytes < d.range[1]);
  }
  // The lesson's GPT-2 batch: 8 × 2048 × 50257 = 823,410,688 elements, 3.29 GB in fp32.
  const d = run(bytes);
  assert.equal(d.elements, 823410688);
  assert.equal(d.bars.find((b) => b.dtype === 'fp32').bytes, 3293642752);
});

test('tensor-bytes: the log axis is the same at every setting, the highlighted bar moves', () => {
  const axis = (over) => {
    const cfg = bytes.draw(run(bytes, { axis: 'log', ...over }), THEME);
    assertChartSubset('tensor-bytes', cfg);
    assert.equal(cfg.options.scales.x.type, 'logarithmic');
    return [cfg.options.scales.x.min, cfg.options.scales.x.max];
  };
  const at = axis({});
  for (const over of [{ batch: 64 }, { seq: 256 }, { vocab: 262144 }, { highlight: 'int4' }]) assert.deepEqual(axis(over), at);
  const cfg = bytes.draw(run(bytes, { highlight: 'bf16' }), THEME);
  assert.deepEqual(cfg.data.datasets[1].data.map((v) => v !== null), cfg.data.labels.map((l) => l.startsWith('bf16 ')));
});

// The default axis is linear from 0, so bar lengths are in the ratio of the element sizes: each
// halving of the element size halves the bar, int4 is a sixteenth of fp64 (on the log axis it
// is not: there a halving is a fixed step).
test('tensor-bytes: on the default linear axis bar lengths are proportional to the bytes', () => {
  for (const over of [{}, { batch: 64, vocab: 262144 }]) {
    const d = run(bytes, over);
    const cfg = bytes.draw(d, THEME);
    assertChartSubset('tensor-bytes', cfg);
    const x = cfg.options.scales.x;
    assert.equal(x.type, 'linear');
    assert.equal(x.min, 0);
    const by = Object.fromEntries(d.bars.map((b) => [b.dtype, b.bytes]));
    // A round end (1, 2, 2.5 or 5 times a power of ten) past the fp64 bar and room for its label.
    assert.ok(x.max >= 1.2 * by.fp64 && x.max <= 2.4 * by.fp64, `${x.max} for ${by.fp64}`);
    assert.ok([1, 2, 2.5, 5, 10].some((m) => Math.abs(x.max / 10 ** Math.floor(Math.log10(x.max)) - m) < 1e-9));
    assert.equal(by.int4 / by.fp64, 1 / 16);
    assert.equal(by.fp32 / by.fp64, 1 / 2);
  }
});

// --- broadcast-checker ---------------------------------------------------------------

// NumPy's documented examples: [a, b, result].
const NUMPY = [
  [[8, 1, 6, 1], [7, 1, 5], [8, 7, 6, 5]],
  [[256, 256, 3], [3], [256, 256, 3]],
  [[5, 4], [1], [5, 4]],
  [[5, 4], [4], [5, 4]],
  [[15, 3, 5], [15, 1, 5], [15, 3, 5]],
  [[15, 3, 5], [3, 5], [15, 3, 5]],
  [[15, 3, 5], [3, 1], [15, 3, 5]],
];

test('broadcast-checker: NumPy’s compatible examples give NumPy’s result shapes, stride 0 where stretched', () => {
  for (const [a, b, want] of NUMPY) {
    const d = run(checker, { a, b });
    assert.equal(d.error, null);
    assert.deepEqual(d.shape, want, `${a} + ${b}`);
    assert.equal(d.elements, product(want));
    // Each operand's stride over the result: 0 where it is missing or stretched from 1, its
    // own row-major stride elsewhere.
    for (const [x, s, stretched] of [[a, d.a_strides, d.a_stretched], [b, d.b_strides, d.b_stretched]]) {
      const own = rowMajor(x);
      const lead = want.length - x.length;
      want.forEach((n, k) => {
        const zero = k < lead || (x[k - lead] === 1 && n !== 1);
        assert.equal(s[k], zero ? 0 : own[k - lead], `${a} + ${b}: stride ${k}`);
        assert.equal(stretched.includes(k), zero);
      });
    }
  }
});

test('broadcast-checker: NumPy’s incompatible examples show the engine’s error naming both sizes', () => {
  for (const [a, b, sizes] of [[[3], [4], [3, 4]], [[2, 1], [8, 4, 3], [2, 4]]]) {
    const d = run(checker, { a, b });
    assert.equal(d.shape, null);
    assert.match(d.error, new RegExp(`size ${sizes[0]}\\).*size ${sizes[1]}\\)`));
    assert.ok(d.clash, `${a} + ${b}: the clashing dimensions are marked`);
    const scene = checker.draw(d, THEME);
    assertSceneSubset('broadcast-checker', scene);
    assert.ok(scene.nodes.some((n) => n.kind === 'text' && n.text.startsWith('Engine:')));
  }
});

test('broadcast-checker: the (n,) + (n, 1) pitfall makes an n × n tensor', () => {
  for (const n of [3, 1000]) {
    const d = run(checker, { a: [n], b: [n, 1] });
    assert.deepEqual(d.shape, [n, n]);
    assert.equal(d.elements, n * n);
    assert.equal(d.a_elements + d.b_elements, 2 * n);
  }
});

test('broadcast-checker: a size out of range is the control’s message', () => {
  assert.throws(() => checker.data(engine, { a: [-1], b: [3] }), isEngineError('a'));
});

// Size 0 is legal in NumPy and PyTorch: it broadcasts against 0 or 1 (to 0) and clashes with
// any other size. The status line says the result is empty (no 0/0 ratio).
test('broadcast-checker: empty dimensions broadcast, and the status names the empty result', () => {
  const d = run(checker, { a: [0, 3], b: [1, 3] });
  assert.deepEqual(d.shape, [0, 3]);
  assert.equal(d.elements, 0);
  const scene = checker.draw(d, THEME);
  assertSceneSubset('broadcast-checker', scene);
  const texts = scene.nodes.filter((n) => n.kind === 'text').map((n) => n.text).join(' ');
  assert.match(texts, /empty tensor/);
  assert.doesNotMatch(texts, /NaN|undefined|Infinity/);
  const clash = run(checker, { a: [0], b: [5] });
  assert.match(clash.error, /size 0\).*size 5\)/);
});
