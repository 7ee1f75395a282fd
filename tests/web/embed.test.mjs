// Embedding: a page on another origin (a second server, its own strict CSP) places one figure
// by iframe and two by the documented script + <mlsys-figure>; all draw, state from the
// iframe hash, an attribute and the host's URL applies; no CSP violation or console error.
// The /embedding/ page documents every figure.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, startServer, openPage, paintedPixels } from '../../web/test/browser.js';
import { siteDir } from '../../web/scripts/paths.js';

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/embed-host.html');
let browser, server, base, host, hostUrl;

before(async () => {
  ({ server, url: base } = await startServer(0));
  const csp = `default-src 'self'; script-src 'self' ${base} 'wasm-unsafe-eval'; style-src 'self' ${base}; ` +
    `style-src-attr 'unsafe-inline'; connect-src 'self' ${base}; frame-src ${base}; img-src 'self' data:`;
  host = http.createServer((req, res) => {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Content-Security-Policy', csp);
    res.end(fs.readFileSync(fixture, 'utf8').replaceAll('COURSE', base));
  });
  await new Promise((r) => host.listen(0, '127.0.0.1', r));
  hostUrl = `http://127.0.0.1:${host.address().port}`;
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
  host?.close();
});

test('another origin embeds figures by iframe and by script under its own CSP', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${hostUrl}/#roofline-plot:dtype=fp32`);
  assert.notEqual(new URL(hostUrl).port, new URL(base).port);
  for (const id of ['by-attribute', 'by-url']) {
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    await page.waitForFunction((i) => document.getElementById(i).dataset.state === 'drawn', id, { timeout: 30000 });
    assert.ok(await paintedPixels(await page.$(`#${id}`)) > 2000, `${id} looks blank`);
  }
  // State from the attribute, and from the host page's URL hash.
  assert.equal(await page.locator('#by-attribute select').first().inputValue(), 'weight');
  assert.equal(await page.locator('#by-attribute input[type=number]').first().inputValue(), '64');
  assert.equal(await page.locator('#by-url select').nth(1).inputValue(), 'fp32');
  assert.equal(await page.locator('#by-attribute .fig-message').isVisible(), false);
  // The iframe: its own page on the course's origin, state from its hash.
  await page.locator('#framed').scrollIntoViewIfNeeded();
  const frame = page.frameLocator('#framed');
  await frame.locator('mlsys-figure[data-state="drawn"]').waitFor({ timeout: 30000 });
  assert.equal(await frame.locator('mlsys-figure select').first().inputValue(), 'a100-sxm-80gb');
  assert.deepEqual(problems, []);
  await context.close();
});

test('/embedding/ documents both ways and lists every figure', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/embedding/`);
  const figures = fs.readdirSync(path.join(siteDir, 'embed'));
  for (const id of figures) assert.equal(await page.locator(`a[href="/embed/${id}/"]`).count(), 1, id);
  assert.match(await page.locator('#snip-iframe').textContent(), /<iframe src=".*\/embed\//);
  assert.match(await page.locator('#snip-script').textContent(), /<script type="module" src=".*\/assets\/js\/embed\.js"><\/script>\s*<mlsys-figure data-id=/);
  assert.deepEqual(problems, []);
  await context.close();
});
