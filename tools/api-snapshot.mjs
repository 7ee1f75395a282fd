#!/usr/bin/env node
// Every output of the command-line calculator that a refactoring must leave unchanged, one
// line per request, for a before/after diff:
//   node tools/api-snapshot.mjs OLD_CLI > before.txt; node tools/api-snapshot.mjs > after.txt
//   diff before.txt after.txt
// Requests: every case of tests/cases/*.json; each calculator's defaults, each field at its
// min and max and just past them, each option; the input part of each schema; every exercise
// for seeds 0-9, and each one checked with its own answer and with a wrong one.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = process.argv[2] ?? path.join(root, 'build/native/bin/mlsys');

function run(args, input) {
  try {
    return execFileSync(cli, args, { input, encoding: 'utf8', maxBuffer: 1 << 28 }).trim();
  } catch (err) {
    return `exit ${err.status}: ${String(err.stdout).trim()}`;
  }
}

const calls = [];
const casesDir = path.join(root, 'tests/cases');
for (const f of fs.readdirSync(casesDir).filter((n) => n.endsWith('.json')).sort()) {
  for (const c of JSON.parse(fs.readFileSync(path.join(casesDir, f), 'utf8'))) {
    calls.push([c.calc, 'text' in c ? c.text : JSON.stringify(c.input)]);
  }
}
const names = JSON.parse(run(['calc', '--list']));
const lines = [];
for (const name of names) {
  const schema = JSON.parse(run(['calc', name, '--schema']));
  lines.push(`schema ${name} ${JSON.stringify({ ...schema, outputs: undefined })}`);
  calls.push([name, '{}']);
  for (const f of schema.fields) {
    const values = [];
    if (f.min !== undefined) values.push(f.min, f.min - 1);
    if (f.max !== undefined) values.push(f.max, f.max * 2);
    for (const o of f.options ?? []) values.push(o);
    if (f.type === 'boolean') values.push(!f.default);
    for (const v of values) calls.push([name, JSON.stringify({ [f.name]: v })]);
  }
}

// Batch mode when the CLI has it (one process), else one process per request.
const batch = run(['calc', '--batch', '-'], '');
if (batch === '') {
  const input = calls.map(([name, text]) => JSON.stringify({ name, text })).join('\n') + '\n';
  const out = run(['calc', '--batch', '-'], input).split('\n');
  const shown = (line) => (line.startsWith('{"error":') ? `exit 2: ${line}` : line);  // as one process prints it
  calls.forEach(([name, text], i) => lines.push(`calc ${name} ${text} -> ${shown(out[i])}`));
} else {
  for (const [name, text] of calls) lines.push(`calc ${name} ${text} -> ${run(['calc', name, '-'], text)}`);
}

for (const id of JSON.parse(run(['exercise', '--list']))) {
  for (let seed = 0; seed < 10; seed++) {
    const e = run(['exercise', id, String(seed)]);
    lines.push(`exercise ${id} ${seed} -> ${JSON.stringify(JSON.parse(e))}`);
    const answer = JSON.parse(e).answer;
    for (const a of [String(answer), String(answer * 1.5 + 1)]) {
      lines.push(`check ${id} ${seed} ${a} -> ${run(['exercise', id, String(seed), '--check', a])}`);
    }
  }
}
process.stdout.write(lines.join('\n') + '\n');
