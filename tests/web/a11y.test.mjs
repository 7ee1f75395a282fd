// axe-core finds no violations in the dark desktop, light phone and dark phone views of a fixed
// sample of pages, with the figures and exercises drawn (every page in the light desktop view:
// crawl.test.mjs). Also: every figure control can be reached with the keyboard.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createRequire } from 'node:module';
import { openPage, drawAll, axeViolations, useSite } from '../../web/test/browser.js';

const require = createRequire(path.resolve('web/package.json'));
const axePath = require.resolve('axe-core/axe.min.js');
let browser, base;
useSite((s) => ({ browser, base } = s));

// Every page is checked with axe in the light desktop view by tests/web/crawl.test.mjs (one
// visit per page). The three other views (dark desktop, light and dark phone) check a fixed
// sample: one page of each kind (home, track, a lesson with formulas, an SVG and Chart.js
// figures, a lesson exercise, the glossary, search, an embed page), so their cost does not grow
// with the number of lessons.
const SAMPLE = ['/', '/track/', '/lessons/flashattention/', '/lessons/collectives/', '/glossary/', '/search/',
  '/systems-and-scaling/', '/embed/roofline-plot/'];
const views = [
  { name: 'dark desktop', colorScheme: 'dark', width: 1280 },
  { name: 'light phone', colorScheme: 'light', width: 390 },
  { name: 'dark phone', colorScheme: 'dark', width: 390 },
];

for (const view of views) {
  test(`axe: no violations on the sample pages (${view.name})`, async () => {
    const { context, page } = await openPage(browser, { colorScheme: view.colorScheme, width: view.width, height: 800 });
    const found = [];
    for (const p of SAMPLE) {
      await page.goto(`${base}${p}`);
      await drawAll(page);
      for (const v of await axeViolations(page, axePath)) found.push(`${p}: ${v}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (overflow > 0) found.push(`${p}: the page is ${overflow}px wider than the screen`);
    }
    assert.deepEqual(found, []);
    await context.close();
  });
}

test('keyboard: Tab reaches every control of a figure, and arrows change a select', async () => {
  const { context, page } = await openPage(browser);
  await page.goto(`${base}/embed/roofline-plot/`);
  await drawAll(page);
  const controls = await page.$$eval('mlsys-figure select, mlsys-figure input, mlsys-figure button', (els) => els.length);
  const reached = new Set();
  for (let i = 0; i < controls + 5; i += 1) {
    await page.keyboard.press('Tab');
    const tag = await page.evaluate(() => {
      const a = document.activeElement;
      return a && a.closest('mlsys-figure') ? `${a.tagName}:${a.name || a.textContent || a.getAttribute('aria-label')}` : null;
    });
    if (tag) reached.add(tag);
  }
  assert.ok(reached.size >= controls, `reached ${reached.size} of ${controls} controls`);
  const draws = await page.$eval('mlsys-figure', (f) => Number(f.dataset.draws));
  await page.focus('mlsys-figure select');
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction((n) => Number(document.querySelector('mlsys-figure').dataset.draws) > n, draws);
  await context.close();
});
