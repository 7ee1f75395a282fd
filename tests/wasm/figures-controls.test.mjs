// Every control of every figure, moved alone from the defaults: each option of a select, both
// states of a checkbox, a number at its min and max. The figure must draw, or reject the
// value with a message on one of its own controls (a message naming a field the reader
// cannot see would leave them stuck).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME } from './figure-harness.mjs';
import { resolveParams, defaults } from '../../web/src/runtime/params.js';
import { EngineError } from '../../web/src/runtime/engine-api.js';
import { figureLoaders } from '../../web/src/figures/index.js';

const settings = (s) => {
  if (s.type === 'select') return s.options.map((o) => o.value);
  if (s.type === 'boolean') return [true, false];
  return [s.min, s.max].filter((v) => v !== undefined);
};

for (const id of Object.keys(figureLoaders)) {
  test(`${id}: every control alone draws or names one of the figure's controls`, async () => {
    const fig = (await figureLoaders[id]()).default;
    const specs = resolveParams(fig, engine);
    const keys = new Set(specs.map((s) => s.key));
    const start = defaults(specs);
    for (const s of specs) {
      for (const value of settings(s)) {
        const where = `${s.key} = ${JSON.stringify(value)}`;
        try {
          fig.draw(fig.data(engine, { ...start, [s.key]: value }), THEME);
        } catch (err) {
          assert.ok(err instanceof EngineError, `${where}: ${err.stack}`);
          assert.ok(keys.has(err.field), `${where}: rejected on "${err.field}", not a control: ${err.message}`);
        }
      }
    }
  });
}
