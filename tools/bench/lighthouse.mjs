// Lighthouse (default mobile config) on the home page, one lesson and the all-figures page of
// the built site, served as the browser tests serve it. Reported, never asserted. Writes
// build/bench/lighthouse.md and build/bench/lighthouse.json.
// Usage: node tools/bench/lighthouse.mjs [--runs=N] (needs a build: ./tools/dev build); with
// several runs a page reports Lighthouse's median run.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer, CHROMIUM_ARGS } from '../../web/test/browser.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Lighthouse and its chrome-launcher are installed in web/node_modules.
const fromWeb = (name) => import(pathToFileURL(createRequire(path.join(root, 'web/package.json')).resolve(name)).href);
const { default: lighthouse } = await fromWeb('lighthouse');
const chromeLauncher = await fromWeb('chrome-launcher');
const { computeMedianRun } = await fromWeb('lighthouse/core/lib/median-run.js');

export const PAGES = ['/', '/lessons/roofline/', '/figures/'];
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
export const BUDGETS = { performance: 95, accessibility: 100, 'best-practices': 100, seo: 95, lcpMs: 2500, tbtMs: 200 };

// One page: category scores (0-100), LCP and TBT in ms, the audits that did not pass (with
// their weight in the category score) and each run's metrics.
async function audit(url, port, runs) {
  const lhrs = [];
  for (let i = 0; i < runs; i += 1) {
    const { lhr } = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES });
    if (lhr.runtimeError) throw new Error(`${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
    lhrs.push(lhr);
  }
  const lhr = runs > 1 ? computeMedianRun(lhrs) : lhrs[0];
  const scores = Object.fromEntries(CATEGORIES.map((c) => [c, lhr.categories[c].score === null ? null : Math.round(lhr.categories[c].score * 100)]));
  const failing = {};
  for (const c of CATEGORIES) {
    failing[c] = lhr.categories[c].auditRefs
      .map((r) => ({ a: lhr.audits[r.id], weight: r.weight }))
      .filter(({ a }) => a.score !== null && a.score < 1 && a.scoreDisplayMode !== 'informative' && a.scoreDisplayMode !== 'manual')
      .map(({ a, weight }) => ({ id: a.id, title: a.title, score: a.score, weight, displayValue: a.displayValue ?? '' }));
  }
  return {
    scores,
    lcpMs: lhr.audits['largest-contentful-paint'].numericValue,
    tbtMs: lhr.audits['total-blocking-time'].numericValue,
    // Lighthouse's CPU benchmark of the machine; its 4x mobile slowdown assumes about 1,500.
    benchmarkIndex: Math.round(lhr.environment.benchmarkIndex),
    failing,
    warnings: lhr.runWarnings,
    runs: lhrs.map((l) => ({
      performance: Math.round(l.categories.performance.score * 100),
      fcpMs: Math.round(l.audits['first-contentful-paint'].numericValue),
      lcpMs: Math.round(l.audits['largest-contentful-paint'].numericValue),
      tbtMs: Math.round(l.audits['total-blocking-time'].numericValue),
      cls: Number(l.audits['cumulative-layout-shift'].numericValue.toFixed(3)),
      speedIndexMs: Math.round(l.audits['speed-index'].numericValue),
    })),
  };
}

// Rows: {page, scores, lcpMs, tbtMs, failing, warnings, runs} or {page, error}. Starts its own server and Chromium.
export async function runLighthouse({ pages = PAGES, runs = 1 } = {}) {
  const { server, url } = await startServer(0);
  const rows = [];
  let chrome;
  try {
    chrome = await chromeLauncher.launch({
      chromePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      chromeFlags: CHROMIUM_ARGS,
      logLevel: 'error',
    });
    for (const page of pages) {
      try {
        rows.push({ page, ...(await audit(`${url}${page}`, chrome.port, runs)) });
      } catch (e) {
        rows.push({ page, error: String(e?.message ?? e).split('\n')[0] });
      }
    }
  } catch (e) {
    for (const page of pages.slice(rows.length)) rows.push({ page, error: `Chromium: ${String(e?.message ?? e).split('\n')[0]}` });
  } finally {
    await chrome?.kill();
    server.close();
  }
  return rows;
}

const ok = (pass) => (pass ? '' : ' ✗');
const score = (v, budget) => (v === null ? '–' : `${v}${ok(v >= budget)}`);

export function lighthouseTable(rows) {
  const b = BUDGETS;
  const lines = [
    `| page | performance (≥ ${b.performance}) | accessibility (${b.accessibility}) | best practices (${b['best-practices']}) | SEO (≥ ${b.seo}) | LCP (≤ ${b.lcpMs / 1000} s) | TBT (≤ ${b.tbtMs} ms) |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of rows) {
    if (r.error) { lines.push(`| ${r.page} | error: ${r.error.replaceAll('|', '\\|')} | | | | | |`); continue; }
    const s = r.scores;
    lines.push(`| ${r.page} | ${score(s.performance, b.performance)} | ${score(s.accessibility, b.accessibility)} | `
      + `${score(s['best-practices'], b['best-practices'])} | ${score(s.seo, b.seo)} | `
      + `${(r.lcpMs / 1000).toFixed(2)} s${ok(r.lcpMs <= b.lcpMs)} | ${Math.round(r.tbtMs)} ms${ok(r.tbtMs <= b.tbtMs)} |`);
  }
  const index = rows.find((r) => r.benchmarkIndex)?.benchmarkIndex;
  if (index) lines.push('', `This machine's Lighthouse CPU benchmark index: ${index} (Lighthouse's 4× mobile CPU slowdown is calibrated for about 1,500).`);
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 1);
  const rows = await runLighthouse({ runs });
  const table = lighthouseTable(rows);
  console.log(table);
  for (const r of rows) {
    if (r.runs?.length > 1) {
      for (const x of r.runs) console.log(`  ${r.page} run: performance ${x.performance}, FCP ${x.fcpMs} ms, LCP ${x.lcpMs} ms, TBT ${x.tbtMs} ms, CLS ${x.cls}, SI ${x.speedIndexMs} ms`);
    }
    for (const w of r.warnings ?? []) console.log(`  ${r.page} warning: ${w}`);
    for (const [c, audits] of Object.entries(r.failing ?? {})) {
      for (const a of audits) console.log(`  ${r.page} ${c}: ${a.id} (score ${a.score}, weight ${a.weight}) ${a.title} ${a.displayValue}`);
    }
  }
  const dir = path.join(root, 'build/bench');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'lighthouse.md'), `# Lighthouse (mobile, simulated throttling)\n\n${table}\n`);
  fs.writeFileSync(path.join(dir, 'lighthouse.json'), `${JSON.stringify({ date: new Date().toISOString(), budgets: BUDGETS, rows }, null, 2)}\n`);
}
