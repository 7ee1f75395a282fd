// axe-core finds no violations on every page, in light and dark colour schemes and at a
// phone width, with the figures and exercises drawn. Also: every figure control can be
// reached with the keyboard.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createRequire } from 'node:module';
import { launch, startServer, openPage, drawAll, axeViolations } from '../../web/test/browser.js';

const require = createRequire(path.resolve('web/package.json'));
const axePath = require.resolve('axe-core/axe.min.js');
let browser, server, base;

before(async () => {
  ({ server, url: base } = await startServer(0));
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

import { siteDir } from '../../web/scripts/paths.js';
import { sitePages } from '../../web/test/browser.js';

// Every page of the built site. The embed pages (one figure each, the same shell) are checked
// in the light desktop and dark phone views; every other page in all four.
const pages = sitePages(siteDir);
const views = [
  { name: 'light desktop', colorScheme: 'light', width: 1280, embeds: true },
  { name: 'dark desktop', colorScheme: 'dark', width: 1280, embeds: false },
  { name: 'light phone', colorScheme: 'light', width: 390, embeds: false },
  { name: 'dark phone', colorScheme: 'dark', width: 390, embeds: true },
];

for (const view of views) {
  test(`axe: no violations (${view.name})`, async () => {
    const { context, page } = await openPage(browser, { colorScheme: view.colorScheme, width: view.width, height: 800, bypassCSP: true });
    const found = [];
    for (const p of pages.filter((x) => view.embeds || !x.startsWith('/embed/'))) {
      await page.goto(`${base}${p}`);
      await drawAll(page, { timeout: p === '/figures/' ? 120000 : 20000 });
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
