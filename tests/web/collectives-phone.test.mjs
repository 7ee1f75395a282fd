// The collectives lesson on a phone (390 px): every display formula fits its column, so none
// needs sideways scrolling (the long ones are split over lines).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, useSite } from '../../web/test/browser.js';

let browser, base;
useSite((s) => ({ browser, base } = s));

test('collectives at 390 px: no display formula is wider than its column', async () => {
  const { context, page, problems } = await openPage(browser, { width: 390, height: 800 });
  await page.goto(`${base}/lessons/collectives/`);
  await page.evaluate(() => document.fonts.ready);
  const wide = await page.evaluate(() => [...document.querySelectorAll('.katex-block')]
    .filter((b) => b.scrollWidth > b.clientWidth + 1)
    .map((b) => `${b.scrollWidth}px in ${b.clientWidth}px: ${b.querySelector('annotation')?.textContent}`));
  const count = await page.locator('.katex-block').count();
  assert.ok(count >= 8, `display formulas found: ${count}`);
  assert.deepEqual(wide, []);
  assert.deepEqual(problems, []);
  await context.close();
});
