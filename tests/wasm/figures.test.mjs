// The generic figure suite: every figure module of the course (web/src/figures/index.js), with
// no per-figure code, so a new figure is tested by being listed. For each one:
// - its parameters resolve against the engine's schemas: every default is an accepted value,
//   and so is every option of a select, both states of a checkbox, a number's min and max;
//   the permalink of the defaults is the bare id, and a permalink of moved settings restores them;
//   a text box's samples (its sample select) are at least two distinct, distinctly named values;
// - data(engine, params) is pure (frozen params, same result twice) and finite (no NaN or
//   infinity anywhere in what it returns), and its table is rectangular;
// - draw(data, theme) builds a config the runtime can render (a Chart.js config in the course's
//   subset, or an SVG scene);
// - every value of every control, moved alone from the defaults, draws or is rejected with a
//   message on one of the figure's own controls (a message naming a field the reader cannot see
//   would leave them stuck);
// - each control changes what the reader sees (the drawing or the data table) for at least one
//   of its other values: at the defaults, or else with one other control moved (sequence
//   parallelism does nothing at one tensor-parallel GPU; it must do something at two);
// - in a figure with views, each view shows exactly the controls that change it (`when`).
// And one test over every figure's data table at its defaults, as "Show data" prints it
// (runtime/table-text.js): no cell reads NaN, undefined or Infinity, none writes out 1e16 or
// more in full, none prints float noise (more than seven significant digits, except a count
// a double holds exactly); and none of its text (title, caption, what draw() writes, the
// table) prints a unit twice ("9.47 ms ms").
// The lesson's own tests (figures-<lesson>.test.mjs) check what each figure says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as harness from './figure-harness.mjs';
import { resolveParams, defaults, coerce, encodeState, decodeHash, applyState, sameValue, sampleChoices, valueText } from '../../web/src/runtime/params.js';
import { EngineError } from '../../web/src/runtime/engine-api.js';
import { figureLoaders } from '../../web/src/figures/index.js';
import { textSamples } from '../../web/scripts/engine-plan.mjs';
import { tableText } from '../../web/src/runtime/table-text.js';
import { doubledUnits } from '../../web/scripts/calc-units.js';

const { engine, THEME } = harness;

// The values a reader can set a control to, the default first left out.
const settings = (s) => {
  if (s.type === 'select') return s.options.map((o) => o.value);
  if (s.type === 'boolean') return [true, false];
  if (['array', 'object', 'string'].includes(s.type)) return textSamples(s).slice(1);
  return [s.min, s.max, s.min !== undefined && s.max !== undefined && s.scale !== 'log' ? (s.min + s.max) / 2 : undefined]
    .filter((v) => v !== undefined)
    .map((v) => (s.type === 'integer' ? Math.round(v) : v));
};

// Paths of every number that is not finite, in anything data() returns.
function notFinite(value, path = 'data', out = []) {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) out.push(`${path} = ${value}`);
  } else if (Array.isArray(value)) value.forEach((v, i) => notFinite(v, `${path}[${i}]`, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) notFinite(v, `${path}.${k}`, out);
  return out;
}

// What is drawn, as text: the config or scene without its callbacks.
const drawn = (out) => JSON.stringify(out, (k, v) => (typeof v === 'function' ? undefined : v));

function checkDrawing(id, out) {
  assert.ok(out && typeof out === 'object' && typeof out.type === 'string', `${id}: draw returned ${out}`);
  if (out.type === 'svg') {
    assert.ok(typeof harness.assertSceneSubset === 'function', `${id}: an SVG scene, but the harness has no scene check`);
    harness.assertSceneSubset(id, out);
  } else harness.assertChartSubset(id, out);
}

for (const id of Object.keys(figureLoaders)) {
  test(`${id}: parameters, pure and finite data, a drawing, and controls that each change it`, async () => {
    const fig = (await figureLoaders[id]()).default;
    assert.equal(fig.id, id, 'the module names its own id');
    assert.ok(fig.title && fig.caption && fig.caption.length > 40, 'a title and a caption');
    const specs = resolveParams(fig, engine);
    const keys = new Set(specs.map((s) => s.key));
    assert.equal(keys.size, specs.length, 'parameter keys are distinct');
    const start = Object.freeze(defaults(specs));

    for (const s of specs) {
      for (const v of [s.default, ...settings(s)]) {
        const r = coerce(s, v);
        assert.ok(!r.error && sameValue(r.value, v), `${s.key} = ${JSON.stringify(v)} is not accepted: ${r.error}`);
      }
    }
    assert.equal(encodeState(id, specs, start), id, 'the defaults make the bare permalink');
    // A text box's samples make a select beside it (runtime/controls.js): two choices at least,
    // each named differently, and each one's permalink restores it.
    for (const s of specs.filter((t) => t.samples)) {
      const choices = sampleChoices(s);
      assert.ok(choices.length >= 2, `${s.key}: its samples offer ${choices.length} distinct choice`);
      const names = choices.map((c) => c.label ?? valueText(c.value));
      assert.equal(new Set(names).size, names.length, `${s.key}: sample names repeat: ${names}`);
      for (const c of choices) {
        const state = decodeHash(`#${encodeState(id, specs, { ...start, [s.key]: c.value })}`, id);
        assert.ok(sameValue(applyState(specs, start, state).params[s.key], c.value), `${s.key}: the permalink of sample ${names[choices.indexOf(c)]}`);
      }
    }

    const data = fig.data(engine, start);
    assert.deepEqual(fig.data(engine, start), data, 'data() gives the same result twice');
    assert.deepEqual(notFinite(data), []);
    assert.ok(data.table?.columns?.length > 0 && data.table.rows.length > 0, 'a data table');
    for (const row of data.table.rows) assert.equal(row.length, data.table.columns.length, 'table rows as wide as its columns');
    checkDrawing(id, fig.draw(data, THEME));

    // What the reader sees at these settings, or the rejection's message.
    const seen = (params) => {
      try {
        const d = fig.data(engine, params);
        return drawn(fig.draw(d, THEME)) + JSON.stringify(d.table);
      } catch (err) {
        return `rejected: ${err.message}`;
      }
    };
    for (const s of specs) {
      for (const value of settings(s).filter((v) => v !== s.default)) {
        const where = `${s.key} = ${JSON.stringify(value)}`;
        const params = Object.freeze({ ...start, [s.key]: value });
        try {
          const d = fig.data(engine, params);
          assert.deepEqual(notFinite(d), [], where);
          checkDrawing(`${id} (${where})`, fig.draw(d, THEME));
          // The permalink of these settings restores them.
          const state = decodeHash(`#${encodeState(id, specs, params)}`, id);
          assert.deepEqual(applyState(specs, start, state), { params: { ...params }, errors: [] }, `${where}: permalink`);
        } catch (err) {
          assert.ok(err instanceof EngineError, `${where}: ${err.stack}`);
          assert.ok(keys.has(err.field), `${where}: rejected on "${err.field}", not a control: ${err.message}`);
          assert.ok(err.message.length > 10, `${where}: a message`);
        }
      }
    }
    for (const s of specs) {
      const values = settings(s).filter((v) => v !== s.default);
      if (values.length === 0) continue;
      const contexts = [start, ...specs.filter((t) => t !== s)
        .flatMap((t) => settings(t).filter((v) => v !== t.default).map((v) => ({ ...start, [t.key]: v })))];
      const matters = contexts.some((c) => {
        const here = seen({ ...c, [s.key]: s.default });
        return values.some((v) => seen({ ...c, [s.key]: v }) !== here);
      });
      assert.ok(matters, `${s.key}: no other value of this control changes the drawing or the data, at the defaults or with one other control moved`);
    }
    // A control with `when: {key: [values]}` is shown only while those controls have those
    // values (runtime/controls.js): in each setting of such a key, every control shown must
    // change what is seen, and every control hidden must change nothing.
    const shownAt = (spec, p) => !spec.when || Object.entries(spec.when).every(([k, vs]) => vs.includes(p[k]));
    for (const key of new Set(specs.flatMap((t) => Object.keys(t.when ?? {})))) {
      const viewSpec = specs.find((t) => t.key === key);
      assert.ok(viewSpec, `'when' names ${key}, which is not a control`);
      for (const view of [viewSpec.default, ...settings(viewSpec)]) {
        const at = { ...start, [key]: view }, here = seen(at);
        for (const t of specs.filter((x) => x !== viewSpec)) {
          const moves = settings(t).filter((v) => v !== t.default).some((v) => seen({ ...at, [t.key]: v }) !== here);
          assert.equal(moves, shownAt(t, at), `${key} = ${view}: ${t.key} ${moves ? 'changes the figure but is hidden' : 'is shown but changes nothing'}`);
        }
      }
    }
  });
}

test('every figure\'s data table at its defaults reads without float noise, NaN or 1e16+ written in full', async () => {
  // The check itself: the binary expansion of 3.14e23 that "Show data" once printed fails it.
  assert.deepEqual(harness.cellProblems('313,999,999,999,999,995,805,696', 3.14e23), ['"313,999,999,999,999,995,805,696" is 1e16 or more, written out in full']);
  assert.deepEqual(harness.cellProblems('0.30000000000000004', 0.1 + 0.2), ['"0.30000000000000004" has 17 significant digits']);
  assert.deepEqual(harness.cellProblems('6,738,415,616', 6738415616), []);
  assert.deepEqual(harness.cellProblems('null', null), ['reads "null"']);
  assert.deepEqual(harness.cellProblems('Rounded 0.30000000000000004', 'Rounded 0.30000000000000004'), ['"0.30000000000000004" is a double\'s noise']);
  assert.deepEqual(harness.cellProblems('arXiv:2304.01433, bits 0 01111011 10011001100110011001101', ''), []);
  const problems = [];
  for (const id of Object.keys(figureLoaders)) {
    const fig = (await figureLoaders[id]()).default;
    const { table } = fig.data(engine, defaults(resolveParams(fig, engine)));
    tableText(table).forEach((row, i) => row.forEach((text, j) => {
      for (const p of harness.cellProblems(text, table.rows[i][j])) problems.push(`${id}: row ${i + 1}, "${table.columns[j]}": ${p}`);
    }));
  }
  assert.deepEqual(problems, []);
});

test('no figure prints a unit twice at its defaults: title, caption, drawing or table', async () => {
  const found = [];
  for (const id of Object.keys(figureLoaders)) {
    const fig = (await figureLoaders[id]()).default;
    const data = fig.data(engine, defaults(resolveParams(fig, engine)));
    // The strings of the drawing (labels, titles, tooltips); callbacks are called by the runtime.
    const strings = [];
    JSON.stringify(fig.draw(data, THEME), (k, v) => {
      if (typeof v === 'string') strings.push(v);
      return typeof v === 'function' ? undefined : v;
    });
    // Each string apart: a cell's number and the next cell's unit are not one phrase.
    const text = [fig.title, fig.caption, ...strings, ...data.table.columns, ...tableText(data.table).flat()].join(' |\n');
    for (const d of doubledUnits(text)) found.push(`${id}: "${d}"`);
  }
  assert.deepEqual(found, []);
});
