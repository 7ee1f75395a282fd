// The size budget of an engine part: what a page downloads, engine-<part>.wasm + .mjs
// gzipped (level 9, as tools/bench/run.mjs measures), must stay within 350 KB. The build runs
// it after linking each part (wasm/CMakeLists.txt):
//   node web/scripts/engine-size.mjs <engine dir> <part> <stamp file>
// It prints the size and writes the stamp only within budget, so an over-budget part fails
// every build until it shrinks.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const BUDGET_BYTES = 350_000;

function partSize(engineDir, part) {
  const gz = (ext) => zlib.gzipSync(fs.readFileSync(path.join(engineDir, `engine-${part}.${ext}`)), { level: 9 }).length;
  const wasm = gz('wasm'), mjs = gz('mjs');
  return { wasm, mjs, total: wasm + mjs };
}

const [engineDir, part, stamp] = process.argv.slice(2);
if (!engineDir || !part || !stamp) {
  console.error('usage: node web/scripts/engine-size.mjs <engine dir> <part> <stamp file>');
  process.exit(2);
}
const s = partSize(engineDir, part);
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const line = `engine-${part}: ${kib(s.total)} gzipped (${s.total} bytes: wasm ${s.wasm} + mjs ${s.mjs}), budget ${BUDGET_BYTES} bytes`;
fs.rmSync(stamp, { force: true });
if (s.total > BUDGET_BYTES) {
  console.error(`error: ${line}: engine-${part} is over the 350 KB budget by ${s.total - BUDGET_BYTES} bytes; ` +
    'move lessons to another part (wasm/parts.json) or make its pages call less');
  process.exit(1);
}
console.log(line);
fs.writeFileSync(stamp, `${line}\n`);
