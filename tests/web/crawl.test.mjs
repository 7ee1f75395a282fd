// Every page of the built site (all .html files, not a sample): no broken internal links or
// anchors; loads with no console errors, failed requests or CSP violations; preloads exactly
// the KaTeX fonts it uses; every figure, exercise and calculator on it draws (the all-figures
// page is scrolled through); axe-core finds no accessibility violations and the page is not
// wider than the screen (light, 1280 px; the other views on a sample: tests/web/a11y.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createRequire } from 'node:module';
import { openPage, drawAll, paintedPixels, sitePages, axeViolations, useSite } from '../../web/test/browser.js';
import { brokenLinks } from '../../web/test/links.js';
import { siteDir } from '../../web/scripts/paths.js';

const axePath = createRequire(path.resolve('web/package.json')).resolve('axe-core/axe.min.js');
let browser, base;
useSite((s) => ({ browser, base } = s));

const pages = sitePages(siteDir);

test('the crawl finds the site pages', () => {
  for (const p of ['/', '/track/', '/systems-and-scaling/', '/recap/', '/figures/', '/glossary/', '/concept-map/', '/videos-and-books/']) {
    assert.ok(pages.includes(p), `${p} was not built`);
  }
  assert.ok(pages.some((p) => p.startsWith('/lessons/')) && pages.some((p) => p.startsWith('/embed/')));
});

test('no broken internal links or anchors on any page', () => {
  assert.deepEqual(brokenLinks(siteDir), []);
});

test(`every page (${pages.length}) loads cleanly, draws all its figures and passes axe`, async () => {
  const { context, page, problems } = await openPage(browser);
  const found = [];
  for (const p of pages) {
    problems.length = 0;
    await page.goto(`${base}${p}`);
    try {
      await drawAll(page, { timeout: p === '/figures/' ? 120000 : 20000 });
    } catch (err) {
      found.push(`${p}: not everything drew (${err.message.split('\n')[0]})`);
    }
    // Every KaTeX font the page loads is preloaded, and none it does not (layout.js).
    const fonts = await page.evaluate(async () => {
      await document.fonts.ready;
      const name = (f) => `${f.family.replace(/"/g, '')}-${[f.weight === 'bold' || f.weight === '700' ? 'Bold' : '', f.style === 'italic' ? 'Italic' : ''].join('') || 'Regular'}`;
      return {
        loaded: [...document.fonts].filter((f) => f.status === 'loaded' && f.family.includes('KaTeX')).map(name).sort(),
        preloaded: [...document.querySelectorAll('link[rel=preload][as=font]')].map((l) => l.href.split('/').pop().replace('.woff2', '')).sort(),
      };
    });
    if (fonts.loaded.join() !== fonts.preloaded.join()) found.push(`${p}: loads the fonts ${fonts.loaded.join(', ')} but preloads ${fonts.preloaded.join(', ')}`);
    for (const fig of await page.$$('mlsys-figure')) {
      // Charts draw on a canvas; diagrams may be SVG.
      const blank = (await fig.$('canvas')) ? await paintedPixels(fig) <= 2000 : await fig.$$eval('svg *', (els) => els.length) < 3;
      if (blank) found.push(`${p}: figure ${await fig.getAttribute('data-id')} looks blank`);
    }
    for (const v of await axeViolations(page, axePath)) found.push(`${p}: ${v}`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    if (overflow > 0) found.push(`${p}: the page is ${overflow}px wider than the screen`);
    found.push(...problems.map((x) => `${p}: ${x}`));
  }
  assert.deepEqual(found, []);
  await context.close();
});
