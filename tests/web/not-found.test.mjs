// The 404 page (web/src/site/404.11ty.js): built as /404.html (the name
// static hosts serve for unknown addresses), served by the local server with status 404 for
// any unknown address, with a search box and a link to the course. Offline, the service
// worker tells an address that is no page of the site ("does not exist", the 404 page) from a
// page that is not kept yet (the offline page).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openPage, useSite } from '../../web/test/browser.js';
import { siteDir } from '../../web/scripts/paths.js';

let browser, base;
useSite((s) => ({ browser, base } = s));

test('the build has /404.html, every link and asset on it absolute', () => {
  const html = fs.readFileSync(path.join(siteDir, '404.html'), 'utf8');
  assert.match(html, /<h1>This page does not exist<\/h1>/);
  // Served at any depth (/a/b/c), so a relative link would point elsewhere.
  const relative = [...html.matchAll(/(?:href|src|action)="([^"]*)"/g)].map((m) => m[1]).filter((u) => !/^(\/|https?:|#)/.test(u));
  assert.deepEqual(relative, []);
});

test('an unknown address gets the 404 page with status 404; a page still gets 200', async () => {
  for (const p of ['/no-such-page/', '/lessons/no-such-lesson/', '/a/b/c.html']) {
    const res = await fetch(`${base}${p}`);
    assert.equal(res.status, 404, p);
    assert.match(res.headers.get('content-type'), /^text\/html/);
    assert.ok(res.headers.get('content-security-policy'), 'the site CSP');
    assert.match(await res.text(), /This page does not exist/);
  }
  assert.equal((await fetch(`${base}/glossary/`)).status, 200);
  assert.equal((await fetch(`${base}/assets/no-such.js`)).status, 404);
});

test('the 404 page in a browser: search box that searches, link to the course', async () => {
  const { context, page, problems } = await openPage(browser);
  const res = await page.goto(`${base}/lessons/no-such-lesson/`);
  assert.equal(res.status(), 404);
  assert.equal(await page.title(), 'Page not found · ML systems');
  assert.equal(await page.locator('main a[href="/"]').count(), 1);
  await page.fill('#notfound-q', 'roofline');
  await Promise.all([page.waitForURL(/\/search\/\?q=roofline$/), page.press('#notfound-q', 'Enter')]);
  await page.locator('.search-results a').first().waitFor();
  // The page's own 404 (and Chromium's console line about it) is the only failure: styles and
  // scripts load at that depth.
  const own = (p) => p.includes('/lessons/no-such-lesson/') || p.includes('status of 404 (Not Found)');
  assert.equal(problems.filter((p) => p.startsWith('HTTP 404')).length, 1, problems.join('\n'));
  assert.deepEqual(problems.filter((p) => !own(p)), []);
  await context.close();
});

test('offline: an unknown address says it does not exist; a page not kept yet says so', async () => {
  const { context, page } = await openPage(browser, { serviceWorkers: 'allow' });
  await page.goto(`${base}/`);
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
  });
  await context.setOffline(true);
  const unknown = await page.goto(`${base}/no-such-page/`);
  assert.equal(unknown.status(), 404);
  assert.equal(await page.locator('h1').textContent(), 'This page does not exist');
  // A lesson never opened: on the site, only not kept yet (with or without the final slash).
  for (const p of ['/lessons/roofline/', '/lessons/roofline']) {
    const known = await page.goto(`${base}${p}`);
    assert.equal(known.status(), 200, p);
    assert.equal(await page.locator('h1').textContent(), 'Keep for offline reading', p);
  }
  await context.close();
});
