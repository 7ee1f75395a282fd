// Benchmarks (reported, never asserted): the size of each engine part a page loads (gzipped),
// navigation -> first figure drawn with a cold cache, redraw latency per figure, WASM vs
// native time for the calculators and for each executed kernel, Lighthouse, and the time of a
// full clean build (MLSYS_BENCH_BUILD=0 skips it). Needs a build (./tools/dev build).
// Writes build/bench/report.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launch, startServer, openPage } from '../../web/test/browser.js';
import { figureLoaders } from '../../web/src/figures/index.js';
import { readParts, readPlan } from '../../web/scripts/engine-parts.js';
import { runLighthouse, lighthouseTable } from './lighthouse.mjs';
import { wasmNativeTable } from './wasm-native.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const lines = [];
const out = (s = '') => { console.log(s); lines.push(s); };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];
const ms = (x) => `${x.toFixed(1)} ms`;

out(`# Benchmark report\n\n${new Date().toISOString().slice(0, 10)} · ${os.cpus()[0].model.trim()} × ${os.cpus().length} · Node ${process.version} · Chromium (Debian)\n`);

// 1. Size of each engine part (wasm + glue), gzipped: a page loads one part (a page with
// calculators from several parts, one per part). The full engine serves Node only.
const engineDir = path.join(root, 'build/wasm/engine');
const gz = (f) => zlib.gzipSync(fs.readFileSync(path.join(engineDir, f)), { level: 9 }).length;
// What the site sends: its brotli copies (web/scripts/precompress.js).
// The site names each part by its content (engine-gpu.wasm -> engine-gpu-<hash>.wasm).
const siteEngine = path.join(root, 'build/site/assets/engine');
const br = (f) => {
  const [, base, ext] = f.match(/^(.*)(\.\w+)$/);
  const served = fs.readdirSync(siteEngine).find((n) => n.startsWith(`${base}-`) && n.endsWith(`${ext}.br`));
  return fs.statSync(path.join(siteEngine, served)).size;
};
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const siteJs = path.join(root, 'build/site/assets/js');
const jsGz = fs.readdirSync(siteJs).filter((f) => f.endsWith('.js')).reduce((n, f) => n + zlib.gzipSync(fs.readFileSync(path.join(siteJs, f)), { level: 9 }).length, 0);
out('| measure | value | budget |\n| --- | --- | --- |');
// The groups each part holds are computed by the build from what its pages call (the plan).
for (const [part, spec] of Object.entries(readPlan(engineDir).parts)) {
  const w = gz(`engine-${part}.wasm`), g = gz(`engine-${part}.mjs`);
  const sent = br(`engine-${part}.wasm`) + br(`engine-${part}.mjs`);
  out(`| engine-${part}.wasm + .mjs, gzipped (lessons ${spec.lessons.join(', ')}; calculator groups ${spec.calculatorGroups.join(', ')}) | ${kib(w + g)} (${kib(w)} + ${kib(g)}); brotli as served ${kib(sent)} | ≤ 350 KB |`);
}
out(`| full engine.wasm + .mjs, gzipped (Node only: tests, site build; no page loads it) | ${kib(gz('engine.wasm') + gz('engine.mjs'))} | – |`);
out(`| all page JavaScript (runtime, Chart.js, figures), gzipped | ${kib(jsGz)} | – |`);

// 2 + 3. Browser timings.
const { server, url } = await startServer(0);
const browser = await launch();
// Navigation -> first figure drawn, and -> the page's first contentful paint (the floor set by
// the page itself: parsing, styles, layout), median of 9 cold loads each.
const firstDraw = async (pagePath) => {
  const drawn = [], painted = [];
  for (let i = 0; i < 9; i += 1) {
    const { context, page } = await openPage(browser); // a new context: cold cache, no service worker
    await page.goto(`${url}${pagePath}`);
    await page.waitForFunction(() => performance.getEntriesByName('mlsys:first-figure-drawn').length > 0, null, { timeout: 20000 });
    const [d, p] = await page.evaluate(() => [performance.getEntriesByName('mlsys:first-figure-drawn')[0].startTime,
      performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN]);
    drawn.push(d);
    painted.push(p);
    await context.close();
  }
  return `${ms(median(drawn))} (first contentful paint ${ms(median(painted))})`;
};
out(`| navigation → first figure drawn, cold cache, embed page (median of 9) | ${await firstDraw('/embed/roofline-plot/')} | ≤ 500 ms |`);
out(`| navigation → first figure drawn, cold cache, lesson with a figure permalink (median of 9) | ${await firstDraw('/lessons/roofline/#roofline-plot')} | ≤ 500 ms |`);

out('\n| figure | redraw after a control change, median | p95 | budget |\n| --- | --- | --- | --- |');
// Each redraw is triggered the way a reader would: the next option of the figure's first select,
// or one arrow-key step of its first slider, starting 1 s after the figure is drawn (a reader
// takes at least that long to reach a control; sooner, the first redraws would share the CPU
// with the page's own start: the engine's background compilation, the figure's idle warm-up).
// A figure that does not redraw within 5 s is reported as such rather than stopping the report.
for (const id of Object.keys(figureLoaders)) {
  const { context, page } = await openPage(browser);
  const simulation = (await figureLoaders[id]()).default.simulation;
  const budget = simulation ? '≤ 50 ms (simulation)' : '≤ 16 ms (analytic)';
  try {
    await page.goto(`${url}/embed/${id}/`);
    await page.waitForFunction(() => document.querySelector('mlsys-figure').dataset.state === 'drawn');
    // The style and layout a drawing leaves for the frame that shows it, forced and timed at
    // the start of that frame (the screen-reader table is filled after it, in idle time).
    await page.evaluate(() => {
      const f = document.querySelector('mlsys-figure');
      f.addEventListener('mlsys-figure-drawn', () => requestAnimationFrame(() => {
        const t = performance.now();
        document.documentElement.getBoundingClientRect();
        f.dataset.benchFrameMs = (performance.now() - t).toFixed(2);
        f.dataset.benchFrames = f.dataset.draws;
      }));
    });
    await page.waitForTimeout(1000);
    const samples = [];
    const select = page.locator('mlsys-figure select').first();
    const hasSelect = (await select.count()) > 0;
    const options = hasSelect ? await select.locator('option').evaluateAll((os) => os.map((o) => o.value)) : [];
    const slider = page.locator('mlsys-figure input[type=range]').first();
    for (let i = 0; i < 30; i += 1) {
      const draws = await page.$eval('mlsys-figure', (f) => Number(f.dataset.draws));
      if (hasSelect) {
        const current = await select.inputValue();
        await select.selectOption(options[(options.indexOf(current) + 1) % options.length]);
      } else {
        await slider.focus();
        await page.keyboard.press(i % 2 ? 'ArrowLeft' : 'ArrowRight');
      }
      await page.waitForFunction((n) => Number(document.querySelector('mlsys-figure').dataset.benchFrames) > n, draws, { timeout: 5000 });
      samples.push(await page.$eval('mlsys-figure', (f) => Number(f.dataset.renderMs) + Number(f.dataset.benchFrameMs)));
    }
    out(`| ${id} | ${ms(median(samples))} | ${ms(p95(samples))} | ${budget} |`);
  } catch {
    out(`| ${id} | no redraw within 5 s of a control change (first select or slider) | – | ${budget} |`);
  }
  await context.close();
}
await browser.close();
server.close();

// 4. WASM vs native, calculators and executed kernels (tools/bench/wasm-native.mjs).
out(`\n${await wasmNativeTable()}`);

// 5. Lighthouse (default mobile emulation) on the home page, one lesson and all figures.
out(`\n${lighthouseTable(await runLighthouse())}`);

// 6. A full clean build: native, wasm and site, in a fresh folder with no compiler cache.
if (process.env.MLSYS_BENCH_BUILD !== '0') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mlsys-clean-build-'));
  const env = {
    ...process.env, NODE_PATH: '/usr/share/nodejs', CCACHE_DISABLE: '1',
    MLSYS_ENGINE_DIR: path.join(dir, 'wasm/engine'), MLSYS_SITE_DIR: path.join(dir, 'site'),
  };
  const timed = (cmd) => {
    const t0 = process.hrtime.bigint();
    execSync(cmd, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
    return Number(process.hrtime.bigint() - t0) / 1e9;
  };
  const jobs = os.cpus().length;
  const min = (x) => `${(x / 60).toFixed(1)} min`;
  out(`\n| full clean build (${jobs} jobs, no compiler cache) | time |\n| --- | --- |`);
  try {
    const native = timed(`cmake --preset native -B ${dir}/native >/dev/null && cmake --build ${dir}/native -j ${jobs}`);
    const wasm = timed(`cmake --preset wasm -B ${dir}/wasm >/dev/null && cmake --build ${dir}/wasm -j ${jobs}`);
    const site = timed('cd web && node scripts/build.mjs');
    out(`| native (engine, CLI, tests, benchmarks) | ${min(native)} |\n| wasm (full engine, ${Object.keys(readParts()).length} parts, kernel benchmark) | ${min(wasm)} |`);
    out(`| site | ${min(site)} |\n| total | ${min(native + wasm + site)} |`);
  } catch (err) {
    out(`| failed: ${String(err.stderr ?? err.message).trim().split('\n').at(-1).replaceAll('|', '\\|')} | – |`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

fs.mkdirSync(path.join(root, 'build/bench'), { recursive: true });
fs.writeFileSync(path.join(root, 'build/bench/report.md'), `${lines.join('\n')}\n`);
