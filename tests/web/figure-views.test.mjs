// A figure with views shows only the current view's controls (a spec's `when`, honoured by
// web/src/runtime/controls.js): on the quantization lesson, smoothquant-migration shows α and
// the outlier scale in its migration view and the accelerator and decode batch in its phases
// view, and switching the view swaps them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, drawAll, useSite } from '../../web/test/browser.js';

let browser, base;
useSite((s) => ({ browser, base } = s));

// The names of the controls of one figure that a reader sees.
const shown = (fig) => fig.$$eval('.fig-controls .ctl', (rows) => rows
  .filter((r) => !r.hidden && r.offsetParent !== null)
  .map((r) => r.querySelector('[name]').getAttribute('name')));

test('smoothquant-migration: each view shows its own controls', async () => {
  const { context, page, problems } = await openPage(browser, { width: 1280 });
  await page.goto(`${base}/lessons/quantization/`);
  await drawAll(page);
  const fig = await page.$('mlsys-figure[data-id="smoothquant-migration"]');
  assert.deepEqual(await shown(fig), ['view', 'alpha', 'outlier_scale']);
  await fig.$eval('select[name="view"]', (s) => { s.value = 'phases'; s.dispatchEvent(new Event('change')); });
  await page.waitForFunction(() => document.querySelector('mlsys-figure[data-id="smoothquant-migration"]').dataset.state === 'drawn');
  assert.deepEqual(await shown(fig), ['view', 'hardware', 'decode_batch']);
  // Reset returns to the migration view and its controls.
  await fig.$eval('button.fig-btn', (b) => b.click());
  assert.deepEqual(await shown(fig), ['view', 'alpha', 'outlier_scale']);
  assert.deepEqual(problems, []);
  await context.close();
});
