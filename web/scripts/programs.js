// The companion programs: content/programs/<slug>.py, one standard-library Python program per
// lesson. The build expands each `# @data` line into constants taken from content/data/*.json
// (so a program's hardware and model numbers never drift from the engine's), writes the result
// to build/programs/<slug>.py (the file readers download), and runs it once to capture what it
// prints and its --help, which the lesson page and /programs/ show.
//
//   # @data HARDWARE = hardware: h100-sxm, a100-sxm-80gb | name, peak_flops, hbm_bandwidth_Bps
//
// becomes `HARDWARE = {"h100-sxm": {"name": ..., ...}, ...}`: the named entries of a table
// (hardware: content/data/hardware.json accelerators; models: models.json models;
// interconnect: interconnect.json links), each with the named fields only.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { repoRoot } from './paths.js';

const contentDir = path.join(repoRoot, 'content');
export const programsOut = path.join(repoRoot, 'build/programs');
const TABLES = { hardware: ['data/hardware.json', 'accelerators'], models: ['data/models.json', 'models'],
  interconnect: ['data/interconnect.json', 'links'] };
export const LINES = { min: 60, max: 250 };

// A JSON value as a Python literal (JSON's true/false/null are Python's True/False/None).
export function pyLiteral(v, indent = '') {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  // Whole numbers exactly, with Python's digit separators (2_039_000_000_000) from 10,000 up.
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 53 ? String(v).replace(/\B(?=(\d{3})+$)/g, Math.abs(v) >= 1e4 ? '_' : '') : String(v).replace('e+', 'e');
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x) => pyLiteral(x, indent)).join(', ')}]`;
  const inner = `${indent}    `;
  const items = Object.entries(v).map(([k, x]) => `${inner}${JSON.stringify(k)}: ${pyLiteral(x, inner)},`);
  return `{\n${items.join('\n')}\n${indent}}`;
}

// Expands the `# @data` lines of one program's source; `where` names it in messages.
export function expandData(source, where, readTable) {
  return source.split('\n').map((line, i) => {
    if (!line.startsWith('# @data')) return line;
    const m = /^# @data ([A-Z][A-Z0-9_]*) = (\w+): ([^|]+)\|(.+)$/.exec(line);
    if (!m) throw new Error(`${where}:${i + 1}: expected "# @data NAME = table: id, id | field, field"`);
    const [, name, table, idList, fieldList] = m;
    const rows = readTable(table);
    if (!rows) throw new Error(`${where}:${i + 1}: unknown table "${table}" (use ${Object.keys(TABLES).join(', ')})`);
    const fields = fieldList.split(',').map((f) => f.trim()).filter(Boolean);
    const entries = {};
    for (const id of idList.split(',').map((s) => s.trim()).filter(Boolean)) {
      const row = rows.find((r) => r.id === id);
      if (!row) throw new Error(`${where}:${i + 1}: ${table} has no entry "${id}"`);
      entries[id] = {};
      for (const f of fields) {
        if (!(f in row)) throw new Error(`${where}:${i + 1}: ${table} entry "${id}" has no field "${f}"`);
        entries[id][f] = row[f];
      }
    }
    return `# ${name}: from content/data/${path.basename(TABLES[table][0])} (${table}: ${Object.keys(entries).join(', ')}), written in by the build.\n${name} = ${pyLiteral(entries)}`;
  }).join('\n');
}

function readTable(table) {
  if (!TABLES[table]) return undefined;
  const [file, key] = TABLES[table];
  return JSON.parse(fs.readFileSync(path.join(contentDir, file), 'utf8'))[key];
}

function run(file, args, where) {
  try {
    // COLUMNS: --help wraps to the terminal's width; the page shows it at 80.
    return execFileSync('python3', [file, ...args], { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, COLUMNS: '80' } });
  } catch (e) {
    throw new Error(`${where}: \`python3 ${path.basename(file)} ${args.join(' ')}\` failed: ${e.stderr || e.message}`);
  }
}

// The docstring's first paragraph: what the program computes (shown on /programs/).
function summary(source, where) {
  const m = /^(?:#![^\n]*\n)?"""([\s\S]*?)"""/.exec(source);
  if (!m) throw new Error(`${where}: a program starts with a docstring saying what it computes`);
  return m[1].trim().split(/\n\s*\n/)[0].replace(/\s+/g, ' ');
}

// outline: Map slug -> course.yaml entry. Returns Map slug -> {slug, file, summary, lines,
// output, help}, after writing build/programs/<slug>.py.
export function loadPrograms(outline) {
  const dir = path.join(contentDir, 'programs');
  const programs = new Map();
  if (!fs.existsSync(dir)) return programs;
  fs.rmSync(programsOut, { recursive: true, force: true });
  fs.mkdirSync(programsOut, { recursive: true });
  for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.py')).sort()) {
    const where = `content/programs/${name}`;
    const slug = name.slice(0, -3);
    if (!outline.has(slug)) throw new Error(`${where}: "${slug}" is not a lesson of content/course.yaml`);
    const source = fs.readFileSync(path.join(dir, name), 'utf8');
    const lines = source.trimEnd().split('\n').length;
    if (lines < LINES.min || lines > LINES.max) throw new Error(`${where}: ${lines} lines; a companion program has ${LINES.min} to ${LINES.max}`);
    const text = expandData(source, where, readTable);
    const file = path.join(programsOut, name);
    fs.writeFileSync(file, text);
    programs.set(slug, { slug, file: name, summary: summary(source, where), lines, output: run(file, [], where), help: run(file, ['--help'], where) });
  }
  return programs;
}
