// A new deployment while a reader has the site open, for a reader who did not keep it for
// offline reading. Build A is the built site; build B is a copy in which a figure module and
// an engine part changed (web/test/site-variant.js renames them and everything that names
// them, as a build would). After the switch, every page the reader opens or reloads runs
// build B's scripts, figure modules and engine parts only, never a mix of A and B, and its
// figures draw. Also: the server's cache lifetimes (hashed files immutable, the rest
// revalidated), which is what makes this hold with HTTP caches.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, drawAll, paintedPixels, startServer } from '../../web/test/browser.js';
import { siteDir } from '../../web/scripts/paths.js';
import { switchableServer } from '../../web/test/switchable-server.js';
import { siteVariant } from '../../web/test/site-variant.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LESSON = '/lessons/roofline/'; // holds the changed figure
const OTHER = '/lessons/gpu-architecture/'; // same engine part, other figures
let browser, tmp, siteB, renamed;

function assetPaths(dir) {
  const list = (sub) => fs.readdirSync(path.join(dir, sub)).filter((n) => !/\.(br|gz)$/.test(n)).map((n) => `/${sub}/${n}`);
  return new Set([...list('assets/js'), ...list('assets/engine')]);
}

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mlsys-upgrade-'));
  siteB = path.join(tmp, 'site');
  ({ renamed } = siteVariant(siteDir, siteB, { figure: 'roofline-plot', part: 'gpu', swSource: path.join(root, 'web/src/sw/sw.js') }));
  browser = await launch();
});
after(async () => {
  await browser?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('build B differs from A where it should: the figure, the engine part and what names them', () => {
  const names = [...renamed.keys()];
  for (const re of [/^roofline-plot-/, /^engine-gpu-\w+\.wasm$/, /^main-/, /^embed-/]) assert.ok(names.some((n) => re.test(n)), `${re} renamed: ${names.join(' ')}`);
  const a = assetPaths(siteDir), b = assetPaths(siteB);
  for (const [from, to] of renamed) {
    assert.ok(![...a].some((p) => p.endsWith(`/${to}`)), `${to} is new`);
    assert.ok(![...b].some((p) => p.endsWith(`/${from}`)), `${from} is gone from B`);
  }
  // The stable embed loader imports B's embed module.
  assert.match(fs.readFileSync(path.join(siteB, 'assets/js/embed.js'), 'utf8'), new RegExp(renamed.get([...renamed.keys()].find((n) => n.startsWith('embed-')))));
});

// The site's scripts and engine parts a page asked for, from its first request on.
function recordAssets(page) {
  const seen = [];
  page.on('request', (r) => {
    const p = new URL(r.url()).pathname;
    if (p.startsWith('/assets/js/') || p.startsWith('/assets/engine/')) seen.push(p);
  });
  return seen;
}

// Which builds the requested assets belong to: 'A', 'B', or a mix. A file of both builds has
// the same name and the same bytes in both.
function buildsOf(paths) {
  const a = assetPaths(siteDir), b = assetPaths(siteB);
  const onlyA = paths.filter((p) => a.has(p) && !b.has(p)), onlyB = paths.filter((p) => b.has(p) && !a.has(p));
  const unknown = paths.filter((p) => !a.has(p) && !b.has(p));
  return { onlyA, onlyB, unknown };
}

async function drawn(page) {
  await drawAll(page);
  for (const fig of await page.$$('mlsys-figure')) {
    const blank = (await fig.$('canvas')) ? await paintedPixels(fig) <= 2000 : await fig.$$eval('svg *', (els) => els.length) < 3;
    assert.ok(!blank, `${await fig.getAttribute('data-id')} looks blank`);
  }
}

async function visit(page, seen, url, how = 'goto') {
  seen.length = 0;
  if (how === 'reload') await page.reload();
  else await page.goto(url);
  await drawn(page);
  return buildsOf([...new Set(seen)]);
}

test('without a service worker: after the switch, pages opened and reloaded run build B only', async (t) => {
  const srv = await switchableServer(siteDir);
  const { context, page, problems } = await openPage(browser);
  t.after(() => { srv.server.close(); return context.close(); });
  const seen = recordAssets(page);
  const onA = await visit(page, seen, `${srv.url}${LESSON}`);
  assert.deepEqual([onA.onlyB, onA.unknown], [[], []], 'build A runs A');
  assert.ok(onA.onlyA.some((p) => p.startsWith('/assets/js/roofline-plot-')));

  srv.use(siteB);
  const other = await visit(page, seen, `${srv.url}${OTHER}`);
  assert.deepEqual([other.onlyA, other.unknown], [[], []], `another page after the switch: ${other.onlyA.join(' ')}`);
  assert.ok(other.onlyB.some((p) => /^\/assets\/engine\/engine-gpu-\w+\.wasm$/.test(p)), `B's engine part: ${other.onlyB.join(' ')}`);

  const again = await visit(page, seen, null, 'reload');
  assert.deepEqual([again.onlyA, again.unknown], [[], []], `that page reloaded: ${again.onlyA.join(' ')}`);
  // Back to the lesson read on A (in the HTTP cache: its page is revalidated, so it is B's).
  const back = await visit(page, seen, `${srv.url}${LESSON}`);
  assert.deepEqual([back.onlyA, back.unknown], [[], []], `the first lesson again: ${back.onlyA.join(' ')}`);
  assert.ok(back.onlyB.some((p) => p.startsWith('/assets/js/roofline-plot-')), 'B\'s figure module');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.figureBuild), 'B', 'B\'s figure module ran');
  assert.deepEqual(problems, []);
});

test('with the service worker (site not kept): every page runs one build, B for pages not read on A', async (t) => {
  const srv = await switchableServer(siteDir);
  const { context, page, problems } = await openPage(browser, { serviceWorkers: 'allow' });
  t.after(() => { srv.server.close(); return context.close(); });
  const seen = recordAssets(page);
  await page.goto(`${srv.url}${LESSON}`);
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
  });
  await drawn(page);

  srv.use(siteB);
  // Not read on A: the old worker fetches it, and B's page brings B's files.
  const other = await visit(page, seen, `${srv.url}${OTHER}`);
  assert.deepEqual([other.onlyA, other.unknown], [[], []], `a page first read after the switch: ${other.onlyA.join(' ')}`);
  assert.ok(other.onlyB.length > 0);
  // Read on A: the old worker serves its copy until the reader switches (offline.test.mjs),
  // with A's files only.
  const read = await visit(page, seen, `${srv.url}${LESSON}`);
  assert.ok(read.onlyA.length === 0 || read.onlyB.length === 0, `one build: A-only ${read.onlyA.join(' ')}; B-only ${read.onlyB.join(' ')}`);
  assert.deepEqual(read.unknown, []);
  assert.deepEqual(problems, []);
});

const head = (url, encoding = 'identity') => new Promise((resolve, reject) => {
  http.get(url, { headers: { 'accept-encoding': encoding } }, (res) => {
    res.resume();
    res.on('end', () => resolve(res.headers));
  }).on('error', reject);
});

test('the server: hashed scripts and engine parts are immutable, everything else is revalidated', async () => {
  const { server, url } = await startServer(0);
  try {
    const lesson = fs.readFileSync(path.join(siteDir, 'lessons/roofline/index.html'), 'utf8');
    const main = lesson.match(/src="(\/assets\/js\/main-\w+\.js)"/)[1];
    const wasm = `/assets/engine/${fs.readdirSync(path.join(siteDir, 'assets/engine')).find((n) => /^engine-gpu-\w+\.wasm$/.test(n))}`;
    const chunk = lesson.match(/data-chart="([^"]+)"/)[1];
    for (const [file, encoding] of [[main, 'br'], [wasm, 'br'], [wasm, 'identity'], [chunk, 'gzip']]) {
      assert.equal((await head(`${url}${file}`, encoding))['cache-control'], 'public, max-age=31536000, immutable', `${file} (${encoding})`);
    }
    for (const file of ['/', LESSON, '/assets/js/embed.js', '/assets/site.css', '/sw.js', '/offline-manifest.json', '/pagefind/pagefind.js']) {
      assert.equal((await head(`${url}${file}`))['cache-control'], 'no-cache', file);
    }
  } finally {
    server.close();
  }
});
