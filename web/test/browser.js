// Helpers for the browser tests: Debian's Chromium through playwright-core, the built site
// on a free port, and a page that records console errors, failed requests and CSP
// violations.
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { startServer } from '../scripts/server.js';
import { siteDir } from '../scripts/paths.js';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

export { startServer };

// The usual setup of a browser test file: Chromium and the built site on a free port, started
// before its tests and closed after them. `ready({browser, base})` hands them to the file.
//   let browser, base;
//   useSite((s) => ({ browser, base } = s));
export function useSite(ready) {
  let browser, server;
  before(async () => {
    let base;
    ({ server, url: base } = await startServer(0));
    browser = await launch();
    ready({ browser, base });
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });
}

// A new context + page; `problems` collects everything that must stay empty.
export async function openPage(browser, { colorScheme = 'light', width = 1280, height = 900, bypassCSP = false, serviceWorkers = 'block' } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme, bypassCSP, serviceWorkers });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  return { context, page, problems };
}

// Scrolls every figure, exercise and calculator into view (one after the other, as a reader
// would) and waits until each has drawn / is ready. A calculator whose engine function is not
// built yet settles as "unavailable".
export async function drawAll(page, { timeout = 20000 } = {}) {
  for (const el of await page.$$('mlsys-figure, mlsys-exercise, mlsys-calc')) await el.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => [...document.querySelectorAll('mlsys-figure')].every((f) => f.dataset.state === 'drawn')
    && [...document.querySelectorAll('mlsys-exercise')].every((e) => e.dataset.ready === 'true')
    && [...document.querySelectorAll('mlsys-calc')].every((c) => c.dataset.state === 'ready' || c.dataset.state === 'unavailable'),
  null, { timeout });
}

// Every page of the built site: the path of each .html file under `root` ("/x/" for x/index.html).
export function sitePages(root = siteDir) {
  const pages = [];
  const walk = (dir, rel) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name), `${rel}${e.name}/`);
      else if (e.name.endsWith('.html')) pages.push(e.name === 'index.html' ? rel : `${rel}${e.name}`);
    }
  };
  walk(root, '/');
  return pages.sort();
}

// Number of painted pixels in a figure's canvas (0 for a blank chart); an SVG figure's drawing
// is rasterized onto a canvas of its box's size first.
export function paintedPixels(figure) {
  return figure.evaluate(async (el) => {
    let c = el.querySelector('canvas');
    const svg = el.querySelector('.fig-svg svg');
    if (svg) {
      const { width, height } = svg.getBoundingClientRect();
      const img = new Image();
      img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(svg))}`;
      await img.decode();
      c = document.createElement('canvas');
      c.width = Math.round(width);
      c.height = Math.round(height);
      c.getContext('2d').drawImage(img, 0, 0, c.width, c.height);
    }
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n += 1;
    return n;
  });
}

// What a figure shows, to compare before and after a change: the canvas's pixels, or the SVG's markup.
export function canvasImage(figure) {
  return figure.evaluate((el) => {
    const svg = el.querySelector('.fig-svg svg');
    return svg ? svg.outerHTML : el.querySelector('canvas').toDataURL();
  });
}

// Runs axe-core on the page (the context must bypass CSP so the script can be injected).
// axe-core is evaluated through the DevTools protocol, which the page's CSP does not govern, so
// a page checked for CSP violations can be checked for accessibility in the same visit.
export async function axeViolations(page, axePath) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(fs.readFileSync(axePath, 'utf8'));
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')})`);
  });
}
