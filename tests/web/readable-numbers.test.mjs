// Readable numbers in the browser: a figure's rejected setting and a widget's rejected input
// are reported with the controls' labels, not the engine's field names; the quantization
// widget of /systems-and-scaling/ shows s, z and the code q of a value x; the roofline widget
// reads a time in the unit that fits it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, drawAll, useSite } from '../../web/test/browser.js';

let browser, base;
useSite((s) => ({ browser, base } = s));

const results = (calc) => calc.$$eval('dd[data-field]', (dds) => Object.fromEntries(dds.map((d) => [d.dataset.field, d.textContent])));

test('a figure rejected by the engine names its controls by their labels', async () => {
  const { context, page, problems } = await openPage(browser);
  // range_max below range_min: the engine's "range_max must be greater than range_min."
  await page.goto(`${base}/lessons/quantization/#quantizer-staircase:range_min=1&range_max=0.5`);
  const fig = page.locator('mlsys-figure[data-id="quantizer-staircase"]');
  const message = fig.locator('.fig-message');
  await message.waitFor({ state: 'visible', timeout: 20000 });
  const text = await message.textContent();
  assert.match(text, /^Range maximum must be greater than Range minimum\./);
  assert.doesNotMatch(text, /range_(max|min)/);
  assert.equal(await fig.locator('input[name="range_max"][aria-invalid="true"]').count() > 0, true);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the quantization widget shows s, z and the code q of x, and rejects with labels', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/systems-and-scaling/`);
  await drawAll(page);
  const calc = await page.$('mlsys-calc[data-calc="quantize"]');
  assert.equal(await calc.getAttribute('data-state'), 'ready');
  // 8 bits on [-1, 1], x = 0.3: s = 2/255, z = 128, q = round(0.3/s) + z = 38 + 128 = 166,
  // x̂ = 76/255 = 0.2980, error 0.5/255 = 0.001961.
  assert.deepEqual(await results(calc), {
    scale: '0.007843', zero_point: '128', q: '166', dequantized: '0.2980', reconstruction_error: '0.001961',
    max_error: '0.003922', mse_uniform: '5.126e-6',
  });
  const box = await calc.$('input[type=number][name="value"]');
  await box.fill('0.5');
  await box.press('Enter');
  await page.waitForFunction((el) => Number(el.dataset.computes) >= 2, calc);
  // round(0.5 · 127.5) = round(63.75) = 64: q = 192.
  assert.equal((await results(calc)).q, '192');
  const max = await calc.$('input[type=number][name="range_max"]');
  await max.fill('-2');
  await max.press('Enter');
  const message = await calc.$('.fig-message');
  assert.ok(await message.isVisible());
  assert.match(await message.textContent(), /^Range max must be greater than Range min\./);
  assert.equal((await results(calc)).q, '192');  // the last accepted result stays
  assert.deepEqual(problems, []);
  await context.close();
});

test('the roofline widget reads its time in the unit that fits it', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/systems-and-scaling/`);
  await drawAll(page);
  const calc = await page.$('mlsys-calc[data-calc="roofline"]');
  const flops = await calc.$('input[type=number][name="flops"]');
  await flops.fill('1e18');
  await flops.press('Enter');
  await page.waitForFunction((el) => Number(el.dataset.computes) >= 2, calc);
  // 1e18 FLOP at the H100's ~989 TFLOP/s (bf16) is about 1,011 s: "16.8 min", not "1,011,…,… µs".
  const time = (await results(calc)).time_s;
  assert.match(time, /^\d{1,3}(\.\d+)? (min|s|h)$/, time);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the calculators page names a rejected field as words, beside its control', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/calculators/#quantize?range_min=1&range_max=0.5`);
  const msg = page.locator('.calcs-field-msg');
  await msg.waitFor({ state: 'visible', timeout: 20000 });
  assert.equal(await msg.textContent(), 'Range max must be greater than Range min. The results still show the last accepted inputs.');
  // Beside the control of range_max, which is marked invalid.
  assert.equal(await page.locator('.ctl:has(.calcs-field-msg) [name="range_max"][aria-invalid="true"]').count(), 1);
  assert.deepEqual(problems, []);
  await context.close();
});
