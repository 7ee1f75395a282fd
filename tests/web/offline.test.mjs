// Offline reading: "Keep for offline reading" stores every file of the build (progress in
// files and bytes, then the space used and "available offline"); with the network cut, every
// page of the site (all .html files) loads from the cache and draws its figures, and search
// works. A new version replaces the old cleanly: the reader is told, the caches hold only the
// new version, the pages show it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, drawAll, paintedPixels, sitePages } from '../../web/test/browser.js';
import { siteDir } from '../../web/scripts/paths.js';
import { switchableServer } from '../../web/test/switchable-server.js';
import { writeOfflineFiles } from '../../web/scripts/offline-manifest.js';
import { isHashed } from '../../web/scripts/hashed-names.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const manifestOf = (dir) => JSON.parse(fs.readFileSync(path.join(dir, 'offline-manifest.json'), 'utf8'));

async function controlled(page) {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
  });
}

// Clicks the footer's "Keep for offline reading" and records the progress lines shown.
async function keep(page) {
  await page.evaluate(() => {
    window.progressSeen = [];
    const status = document.querySelector('.site-footer [data-offline-status]');
    new MutationObserver(() => window.progressSeen.push(status.textContent)).observe(status, { childList: true, characterData: true, subtree: true });
  });
  await page.click('.site-footer [data-offline-button]');
  await page.waitForFunction(() => ['kept', 'failed'].includes(document.querySelector('.site-footer [data-offline-keep]').dataset.offline), null, { timeout: 120000 });
  const status = await page.locator('.site-footer [data-offline-status]').textContent();
  assert.equal(await page.locator('.site-footer [data-offline-keep]').getAttribute('data-offline'), 'kept', status);
  return { status, seen: await page.evaluate(() => window.progressSeen) };
}

const cacheState = (page) => page.evaluate(async () => {
  const names = await caches.keys();
  const sizes = await Promise.all(names.map(async (n) => (await (await caches.open(n)).keys()).length));
  return { names, sizes, kept: JSON.parse(localStorage.getItem('mlsys:offline:v1') ?? 'null') };
});

test('keep for offline reading, then every page and figure works with the network cut', async (t) => {
  const { server, url: base } = await switchableServer(siteDir);
  t.after(() => server.close()); // also when an assertion fails, so the run does not hang
  const manifest = manifestOf(siteDir);
  const { context, page, problems } = await openPage(browser, { serviceWorkers: 'allow' });
  await page.goto(`${base}/track/`);
  await controlled(page);
  const { status, seen } = await keep(page);
  assert.match(status, new RegExp(`Available offline: all ${manifest.files.length} files .* of version ${manifest.version}`));
  assert.match(status, /used by this site/);
  const last = seen.filter((s) => s.startsWith('Downloading')).at(-1);
  assert.match(last, new RegExp(`^Downloading: ${manifest.files.length} of ${manifest.files.length} files, `));
  const state = await cacheState(page);
  assert.deepEqual(state.names, [`mlsys-${manifest.version}`]);
  assert.equal(state.sizes[0], manifest.files.length + 1); // every file + the "kept" marker
  assert.equal(state.kept.version, manifest.version);

  await context.setOffline(true);
  const found = [];
  for (const p of sitePages(siteDir)) {
    problems.length = 0;
    const res = await page.goto(`${base}${p}`);
    if (!res?.ok()) found.push(`${p}: HTTP ${res?.status()}`);
    if (p !== '/offline/' && (await page.title()).startsWith('Keep for offline reading')) found.push(`${p}: not in the cache`);
    try {
      await drawAll(page, { timeout: p === '/figures/' ? 120000 : 20000 });
    } catch (err) {
      found.push(`${p}: not everything drew offline (${err.message.split('\n')[0]})`);
    }
    for (const fig of await page.$$('mlsys-figure')) {
      const blank = (await fig.$('canvas')) ? await paintedPixels(fig) <= 2000 : await fig.$$eval('svg *', (els) => els.length) < 3;
      if (blank) found.push(`${p}: figure ${await fig.getAttribute('data-id')} looks blank offline`);
    }
    found.push(...problems.map((x) => `${p}: ${x}`));
  }
  // Search works offline too.
  await page.goto(`${base}/search/?q=${encodeURIComponent('arithmetic intensity')}`);
  await page.waitForFunction(() => ['done', 'failed'].includes(document.querySelector('[data-search]').dataset.state), null, { timeout: 20000 });
  assert.ok(await page.locator('.search-results a[href="/glossary/#arithmetic-intensity"]').count() > 0, 'offline search');
  assert.deepEqual(found, []);
  await context.close();
});

test('a new version replaces the kept one: the reader is told, only the new version remains', async (t) => {
  // v1: the built site; v2: a copy with a changed lesson and its own manifest and worker.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mlsys-v2-'));
  const v2 = path.join(tmp, 'site');
  fs.cpSync(siteDir, v2, { recursive: true });
  const lesson = path.join(v2, 'lessons/roofline/index.html');
  fs.writeFileSync(lesson, fs.readFileSync(lesson, 'utf8').replace('</h1>', ' <span id="v2-mark">(second edition)</span></h1>'));
  const { version: v2Version } = writeOfflineFiles(v2, path.join(root, 'web/src/sw/sw.js'));
  const v1Version = manifestOf(siteDir).version;
  assert.notEqual(v1Version, v2Version);

  const srv = await switchableServer(siteDir);
  t.after(() => { srv.server.close(); fs.rmSync(tmp, { recursive: true, force: true }); });
  const { context, page, problems } = await openPage(browser, { serviceWorkers: 'allow' });
  await page.goto(`${srv.url}/lessons/roofline/`);
  await controlled(page);
  await keep(page);
  assert.deepEqual((await cacheState(page)).names, [`mlsys-${v1Version}`]);

  srv.use(v2);
  srv.requested.length = 0;
  await page.reload();
  // The old version keeps serving until the new one is complete; then the reader is told.
  await page.waitForFunction(() => document.documentElement.dataset.update === 'waiting', null, { timeout: 120000 });
  // Only what changed was downloaded: v2's scripts and engine parts, named by their content,
  // are v1's, copied from its cache.
  assert.deepEqual(srv.requested.filter((p) => isHashed(p)), []);
  assert.ok(srv.requested.includes('/lessons/roofline/'));
  assert.match(await page.locator('.update-notice').textContent(), /new version of the course is ready .*offline copy/);
  assert.equal(await page.locator('#v2-mark').count(), 0);
  await Promise.all([page.waitForEvent('load'), page.click('.update-notice button')]);
  await page.waitForFunction(() => document.documentElement.dataset.update === 'done', null, { timeout: 20000 });
  assert.match(await page.locator('.update-notice').textContent(), /Updated to the new version .*offline copy was refreshed/);
  assert.equal(await page.locator('#v2-mark').count(), 1);
  const state = await cacheState(page);
  assert.deepEqual(state.names, [`mlsys-${v2Version}`]);
  assert.equal(state.sizes[0], manifestOf(v2).files.length + 1);
  assert.equal(state.kept.version, v2Version);
  // Offline, the footer still says the (new) copy is complete, and pages are the new ones.
  await context.setOffline(true);
  await page.goto(`${srv.url}/lessons/roofline/`);
  assert.equal(await page.locator('#v2-mark').count(), 1);
  await page.waitForFunction(() => document.querySelector('.site-footer [data-offline-keep]').dataset.offline === 'kept');
  assert.deepEqual(problems, []);
  await context.close();
});
