// Benchmarks (reported, never asserted): engine + glue size gzipped, navigation -> first
// figure drawn with a cold cache, redraw latency per figure, and WASM vs native time for a
// loop of calculator calls. Needs a build (./tools/dev build). Writes build/bench/report.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadNodeEngine } from '../../web/src/runtime/engine-node.js';
import { launch, startServer, openPage } from '../../web/test/browser.js';
import { figureLoaders } from '../../web/src/figures/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const lines = [];
const out = (s = '') => { console.log(s); lines.push(s); };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];
const ms = (x) => `${x.toFixed(1)} ms`;

out(`# Benchmark report\n\n${new Date().toISOString().slice(0, 10)} · ${os.cpus()[0].model.trim()} × ${os.cpus().length} · Node ${process.version} · Chromium (Debian)\n`);

// 1. Size of the engine and its glue, gzipped.
const engineDir = path.join(root, 'build/wasm/engine');
const gz = (f) => zlib.gzipSync(fs.readFileSync(path.join(engineDir, f)), { level: 9 }).length;
const wasmGz = gz('engine.wasm'), glueGz = gz('engine.mjs');
const siteJs = path.join(root, 'build/site/assets/js');
const jsGz = fs.readdirSync(siteJs).reduce((n, f) => n + zlib.gzipSync(fs.readFileSync(path.join(siteJs, f)), { level: 9 }).length, 0);
out('| measure | value | budget |\n| --- | --- | --- |');
out(`| engine.wasm + engine.mjs, gzipped | ${((wasmGz + glueGz) / 1024).toFixed(1)} KiB (${(wasmGz / 1024).toFixed(1)} + ${(glueGz / 1024).toFixed(1)}) | ≤ 350 KB |`);
out(`| all page JavaScript (runtime, Chart.js, figures), gzipped | ${(jsGz / 1024).toFixed(1)} KiB | – |`);

// 2 + 3. Browser timings.
const { server, url } = await startServer(0);
const browser = await launch();
const firstDraw = async (pagePath) => {
  const times = [];
  for (let i = 0; i < 5; i += 1) {
    const { context, page } = await openPage(browser); // a new context: cold cache, no service worker
    await page.goto(`${url}${pagePath}`);
    await page.waitForFunction(() => performance.getEntriesByName('mlsys:first-figure-drawn').length > 0, null, { timeout: 20000 });
    times.push(await page.evaluate(() => performance.getEntriesByName('mlsys:first-figure-drawn')[0].startTime));
    await context.close();
  }
  return times;
};
const embedTimes = await firstDraw('/embed/roofline-plot/');
out(`| navigation → first figure drawn, cold cache, embed page (median of 5) | ${ms(median(embedTimes))} | ≤ 500 ms |`);
const lessonTimes = await firstDraw('/lessons/roofline/#roofline-plot');
out(`| navigation → first figure drawn, cold cache, lesson with a figure permalink (median of 5) | ${ms(median(lessonTimes))} | ≤ 500 ms |`);

out('\n| figure | redraw after a control change, median | p95 | budget |\n| --- | --- | --- | --- |');
for (const id of Object.keys(figureLoaders)) {
  const { context, page } = await openPage(browser);
  await page.goto(`${url}/embed/${id}/`);
  await page.waitForFunction(() => document.querySelector('mlsys-figure').dataset.state === 'drawn');
  const samples = [];
  const select = page.locator('mlsys-figure select').first();
  const options = await select.locator('option').evaluateAll((os) => os.map((o) => o.value));
  for (let i = 0; i < 30; i += 1) {
    const draws = await page.$eval('mlsys-figure', (f) => Number(f.dataset.draws));
    const current = await select.inputValue();
    await select.selectOption(options[(options.indexOf(current) + 1) % options.length]);
    await page.waitForFunction((n) => Number(document.querySelector('mlsys-figure').dataset.draws) > n, draws);
    samples.push(await page.$eval('mlsys-figure', (f) => Number(f.dataset.renderMs)));
  }
  out(`| ${id} | ${ms(median(samples))} | ${ms(p95(samples))} | ≤ 16 ms (analytic) |`);
  await context.close();
}
await browser.close();
server.close();

// 4. WASM vs native on a loop of calculator calls (the valid cases of the parity table).
const cases = JSON.parse(fs.readFileSync(path.join(root, 'tests/cases/roofline.json'), 'utf8'))
  .filter((c) => 'input' in c && c.calc !== 'no-such-calculator');
const { raw } = await loadNodeEngine();
const valid = cases.filter((c) => !JSON.parse(raw.calc(c.calc, JSON.stringify(c.input))).error);
const tmp = path.join(os.tmpdir(), 'mlsys-bench-cases.json');
fs.writeFileSync(tmp, JSON.stringify(valid));
const iterations = 2000;
const nativeRun = JSON.parse(execFileSync(path.join(root, 'build/native/bin/mlsys_bench'), [tmp, String(iterations)], { encoding: 'utf8' }));
const texts = valid.map((c) => [c.calc, JSON.stringify(c.input)]);
for (let i = 0; i < 200; i += 1) for (const [n, t] of texts) raw.calc(n, t); // warm up the JIT
const t0 = process.hrtime.bigint();
for (let i = 0; i < iterations; i += 1) for (const [n, t] of texts) raw.calc(n, t);
const wasmSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
const calls = iterations * texts.length;
out('\n| calculator loop (' + `${texts.length} cases × ${iterations}` + ') | per call | ratio |\n| --- | --- | --- |');
out(`| native (g++ -O3) | ${(nativeRun.per_call_s * 1e6).toFixed(2)} µs | 1.00 |`);
out(`| WASM in Node | ${((wasmSeconds / calls) * 1e6).toFixed(2)} µs | ${((wasmSeconds / calls) / nativeRun.per_call_s).toFixed(2)} × native (budget ≤ 1.5 on executed kernels) |`);

fs.mkdirSync(path.join(root, 'build/bench'), { recursive: true });
fs.writeFileSync(path.join(root, 'build/bench/report.md'), `${lines.join('\n')}\n`);
