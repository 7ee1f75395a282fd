// WASM vs native (reported, never asserted): a loop over the calculator mix (the valid cases
// of the roofline parity table, JSON in and out), and each executed kernel on its own
// (tools/bench/kernel_loop.cpp, built natively by g++ -O3 and to WASM, on the same seeded
// inputs, so the checksums must agree). The two kernel binaries run in turn, nine times each
// (0.5 s per kernel), so that both meet the same moments of a shared machine; a kernel's time
// is its fastest run, the least disturbed; the spread of the ratio from round to round is
// reported beside it. Part of run.mjs; alone, it compares two builds back to back:
//   node tools/bench/wasm-native.mjs [--native DIR] [--wasm DIR] [--label TEXT]
// (DIR defaults: build/native/bin and build/wasm, whose engine/ and bin/ it reads).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadNodeEngine } from '../../web/src/runtime/engine-node.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const us = (s) => (s >= 1e-3 ? `${(s * 1e3).toFixed(2)} ms` : `${(s * 1e6).toFixed(2)} µs`);

export async function wasmNativeTable({ nativeDir = path.join(root, 'build/native/bin'), wasmDir = path.join(root, 'build/wasm'), label = '' } = {}) {
  const { raw } = await loadNodeEngine(path.join(wasmDir, 'engine'));
  const tmp = path.join(os.tmpdir(), `mlsys-bench-cases-${process.pid}.json`);
  // Seconds per call of `calls` ([{calc, input}]) natively and in WASM, each over >= ~0.3 s.
  function timeBoth(calls, iterations) {
    fs.writeFileSync(tmp, JSON.stringify(calls));
    const nativeRun = JSON.parse(execFileSync(path.join(nativeDir, 'mlsys_bench'), [tmp, String(iterations)], { encoding: 'utf8' }));
    const texts = calls.map((c) => [c.calc, JSON.stringify(c.input)]);
    for (let i = 0; i < Math.max(1, iterations / 10); i += 1) for (const [n, t] of texts) raw.calc(n, t); // JIT warm-up
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iterations; i += 1) for (const [n, t] of texts) raw.calc(n, t);
    const wasm = Number(process.hrtime.bigint() - t0) / 1e9 / (iterations * texts.length);
    return { native: nativeRun.per_call_s, wasm };
  }
  const lines = [];
  const mix = JSON.parse(fs.readFileSync(path.join(root, 'tests/cases/roofline.json'), 'utf8'))
    .filter((c) => 'input' in c && !JSON.parse(raw.calc(c.calc, JSON.stringify(c.input))).error);
  lines.push(`| WASM vs native${label} (Node 20; native g++ -O3) | native per call | WASM per call | WASM / native | ratio in each round | budget |\n| --- | --- | --- | --- | --- | --- |`);
  const m = timeBoth(mix, 2000);
  lines.push(`| calculator mix (${mix.length} analytic calculators, JSON in and out) | ${us(m.native)} | ${us(m.wasm)} | ${(m.wasm / m.native).toFixed(2)} | – | – |`);
  const kernelRun = (cmd, args) => JSON.parse(execFileSync(cmd, args, { cwd: root, encoding: 'utf8' }));
  const nativeRuns = [], wasmRuns = [];
  for (let round = 0; round < 9; round += 1) {
    nativeRuns.push(kernelRun(path.join(nativeDir, 'mlsys_kernel_bench'), ['0.5']));
    wasmRuns.push(kernelRun('node', [path.join(wasmDir, 'bin/mlsys_kernel_bench.js'), '0.5']));
  }
  const fastest = (runs) => runs[0].map((k, i) => ({ ...k, per_call_s: Math.min(...runs.map((r) => r[i].per_call_s)) }));
  const nativeKernels = fastest(nativeRuns);
  const wasmKernels = fastest(wasmRuns);
  nativeKernels.forEach((n, i) => {
    const w = wasmKernels[i];
    const same = n.checksum === w.checksum ? '' : ` (checksums differ: ${n.checksum} vs ${w.checksum})`;
    const rounds = nativeRuns.map((r, k) => wasmRuns[k][i].per_call_s / r[i].per_call_s);
    lines.push(`| ${n.label}, kernel only${same} | ${us(n.per_call_s)} | ${us(w.per_call_s)} | ${(w.per_call_s / n.per_call_s).toFixed(2)} | ${Math.min(...rounds).toFixed(2)}–${Math.max(...rounds).toFixed(2)} | ≤ 1.5 |`);
  });
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
  const dirs = {};
  if (arg('--native')) dirs.nativeDir = path.resolve(arg('--native'));
  if (arg('--wasm')) dirs.wasmDir = path.resolve(arg('--wasm'));
  if (arg('--label')) dirs.label = ` (${arg('--label')})`;
  console.log(await wasmNativeTable(dirs));
}
