// A browser that blocks the site's storage (site data blocked, some private modes, a
// third-party frame): localStorage, sessionStorage, indexedDB and caches throw a
// SecurityError when read, and there is no service worker. Every page still works (figures,
// exercises, calculators, search, glossary, copy buttons) with no uncaught error; "mark as
// read" and the progress lines say that progress cannot be kept; "Keep for offline reading"
// says it is not available.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, drawAll, paintedPixels, useSite } from '../../web/test/browser.js';

let browser, base;
useSite((s) => ({ browser, base } = s));

function blockStorage() {
  const blocked = () => { throw new DOMException('Access is denied for this document.', 'SecurityError'); };
  for (const name of ['localStorage', 'sessionStorage', 'indexedDB', 'caches']) {
    Object.defineProperty(window, name, { get: blocked, configurable: true });
  }
  Object.defineProperty(Navigator.prototype, 'serviceWorker', { get: () => undefined, configurable: true });
}

async function blockedPage() {
  const opened = await openPage(browser, { serviceWorkers: 'allow' });
  await opened.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await opened.page.addInitScript(blockStorage);
  return opened;
}

const NOT_KEPT = /cannot be kept/;
const footerBox = (page) => page.locator('.site-footer [data-offline-keep]');

test('blocked storage: the init script really blocks it', async () => {
  const { context, page } = await blockedPage();
  await page.goto(`${base}/`);
  const seen = await page.evaluate(() => ['localStorage', 'sessionStorage', 'indexedDB', 'caches'].map((n) => {
    try {
      return `${n}: ${typeof window[n]}`;
    } catch (err) {
      return `${n}: ${err.name}`;
    }
  }).concat(`serviceWorker: ${typeof navigator.serviceWorker}`));
  assert.deepEqual(seen, ['localStorage: SecurityError', 'sessionStorage: SecurityError', 'indexedDB: SecurityError',
    'caches: SecurityError', 'serviceWorker: undefined']);
  await context.close();
});

test('blocked storage: home page says progress cannot be kept, offline reading is not available', async () => {
  const { context, page, problems } = await blockedPage();
  await page.goto(`${base}/`);
  await page.waitForFunction(() => document.documentElement.dataset.progressKept === 'false');
  assert.match(await page.locator('.progress-line [data-progress]').textContent(), NOT_KEPT);
  assert.equal(await page.locator('.module-progress:visible').count(), 0, 'the per-module lines are hidden');
  assert.equal(await page.locator('[data-continue]').isVisible(), false);
  await page.waitForFunction(() => document.querySelector('.site-footer [data-offline-keep]').dataset.offline === 'unavailable');
  assert.match(await footerBox(page).locator('[data-offline-status]').textContent(), /not available in this browser/);
  assert.equal(await footerBox(page).locator('button').isDisabled(), true);
  assert.deepEqual(problems, []);
  await context.close();
});

test('blocked storage: a lesson draws every figure, checks an exercise, and says "mark as read" is not kept', async () => {
  const { context, page, problems } = await blockedPage();
  await page.goto(`${base}/lessons/roofline/`);
  await drawAll(page);
  const figures = await page.$$('mlsys-figure');
  assert.ok(figures.length >= 4);
  for (const fig of figures) assert.ok(await paintedPixels(fig) > 2000, `${await fig.getAttribute('data-id')} looks blank`);
  const ex = page.locator('mlsys-exercise').first();
  await ex.locator('input').fill('1');
  await ex.locator('button[type=submit]').click();
  await page.waitForFunction(() => ['correct', 'wrong'].includes(document.querySelector('mlsys-exercise').dataset.result));
  assert.ok((await ex.locator('.ex-feedback').textContent()).length > 0);
  const mark = page.locator('[data-mark-read]');
  assert.match(await page.locator('.read-mark [data-progress]').textContent(), NOT_KEPT);
  await mark.click();
  assert.equal(await mark.getAttribute('aria-pressed'), 'true');
  assert.match(await mark.textContent(), /\(this visit\)/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('blocked storage: calculators, search, glossary, copy buttons and the offline page work', async () => {
  const { context, page, problems } = await blockedPage();
  await page.goto(`${base}/systems-and-scaling/`);
  await drawAll(page);
  assert.ok(await page.locator('mlsys-calc[data-state="ready"]').count() >= 1);

  await page.goto(`${base}/search/?q=${encodeURIComponent('arithmetic intensity')}`);
  await page.waitForFunction(() => ['done', 'failed'].includes(document.querySelector('[data-search]').dataset.state), null, { timeout: 20000 });
  assert.equal(await page.locator('[data-search]').getAttribute('data-state'), 'done');
  assert.ok(await page.locator('.search-results a[href="/glossary/#arithmetic-intensity"]').count() > 0);

  await page.goto(`${base}/glossary/`);
  await page.locator('[data-glossary-filter] input').fill('roofline');
  assert.match(await page.locator('.gloss-count').textContent(), /^\d+ of \d+ terms shown$/);
  assert.ok(await page.locator('.gloss-entry:visible').count() >= 1);

  await page.goto(`${base}/embedding/`);
  const copy = page.locator('button[data-copy]').first();
  await copy.click();
  await page.waitForFunction(() => document.querySelector('button[data-copy]').textContent === 'Copied');

  await page.goto(`${base}/offline/`);
  await page.waitForFunction(() => document.querySelector('[data-offline-keep]').dataset.offline === 'unavailable');
  assert.match(await page.locator('[data-offline-status]').textContent(), /not available in this browser/);
  assert.deepEqual(problems, []);
  await context.close();
});
