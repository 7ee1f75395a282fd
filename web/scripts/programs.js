// The companion programs: content/programs/<slug>.py, one standard-library Python program per
// lesson. A program reads the course's tables through content/programs/course_data.py, one line
// per table, so that `python3 content/programs/<slug>.py` runs from a clone:
//
//   from course_data import table  # (with the other imports)
//   HARDWARE = table("hardware: h100-sxm, a100-sxm-80gb | name, peak_flops, hbm_bandwidth_Bps")
//
// is the named entries of a table (hardware: content/data/hardware.json accelerators; models:
// models.json models; interconnect: interconnect.json links), each with the named fields only.
// The build writes the file readers download, build/programs/<slug>.py: each such line becomes
// `HARDWARE = {"h100-sxm": {"name": ..., ...}, ...}` with the same values (so a program's
// hardware and model numbers never drift from the engine's, and the download is one file that
// runs alone), and the import is left out. It runs the download once to capture what it prints
// and its --help, which the lesson page and /programs/ show with its size.
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
  // Whole numbers below 2**53 exactly, as int, with Python's digit separators (2_039_000_000_000)
  // from 10,000 up; every other number as float (course_data.number reads JSON the same way).
  if (typeof v === 'number') {
    if (Number.isInteger(v) && Math.abs(v) < 2 ** 53) return String(v).replace(/\B(?=(\d{3})+$)/g, Math.abs(v) >= 1e4 ? '_' : '');
    const s = String(v).replace('e+', 'e');
    return /[.e]/.test(s) ? s : `${s}.0`;
  }
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x) => pyLiteral(x, indent)).join(', ')}]`;
  const inner = `${indent}    `;
  const items = Object.entries(v).map(([k, x]) => `${inner}${JSON.stringify(k)}: ${pyLiteral(x, inner)},`);
  return `{\n${items.join('\n')}\n${indent}}`;
}

export const IMPORT = /^from course_data import table(\s+#.*)?$/;
const TABLE_LINE = /^([A-Z][A-Z0-9_]*) = table\("(\w+): ([^|"]+)\|([^"]+)"\)$/;

// The download's text of one program's source: its table lines written in, the import left
// out; `where` names the source in messages.
export function expandData(source, where, readTable) {
  let imported = false;
  let tables = 0;
  const out = [];
  source.split('\n').forEach((line, i) => {
    const at = `${where}:${i + 1}`;
    if (line.startsWith('# @data')) throw new Error(`${at}: "# @data" lines are replaced by NAME = table("table: id, id | field, field") (web/scripts/programs.js)`);
    if (IMPORT.test(line)) { imported = true; return; }
    if (!/^[A-Z][A-Z0-9_]* = table\(/.test(line)) { out.push(line); return; }
    const m = TABLE_LINE.exec(line);
    if (!m) throw new Error(`${at}: expected NAME = table("table: id, id | field, field") on one line`);
    const [, name, table, idList, fieldList] = m;
    const rows = readTable(table);
    if (!rows) throw new Error(`${at}: unknown table "${table}" (use ${Object.keys(TABLES).join(', ')})`);
    const fields = fieldList.split(',').map((f) => f.trim()).filter(Boolean);
    const entries = {};
    for (const id of idList.split(',').map((s) => s.trim()).filter(Boolean)) {
      const row = rows.find((r) => r.id === id);
      if (!row) throw new Error(`${at}: ${table} has no entry "${id}"`);
      entries[id] = {};
      for (const f of fields) {
        if (!(f in row)) throw new Error(`${at}: ${table} entry "${id}" has no field "${f}"`);
        entries[id][f] = row[f];
      }
    }
    tables += 1;
    out.push(`# ${name}: from content/data/${path.basename(TABLES[table][0])} (${table}: ${Object.keys(entries).join(', ')}), written in by the build.`, `${name} = ${pyLiteral(entries)}`);
  });
  if (tables > 0 && !imported) throw new Error(`${where}: reads tables with table(...) but lacks "from course_data import table"`);
  const text = out.join('\n');
  if (text.includes('course_data')) throw new Error(`${where}: uses course_data other than by "from course_data import table" and NAME = table("...") lines; the download must run alone`);
  return text;
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

// The programs' file names (<slug>.py) in content/programs, beside which course_data.py is the
// tables' reader for the sources, not a program.
export function programFiles() {
  const dir = path.join(contentDir, 'programs');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.py') && f !== 'course_data.py').sort();
}

// outline: Map slug -> course.yaml entry. Returns Map slug -> {slug, file, summary, lines,
// bytes, output, help}, after writing build/programs/<slug>.py; lines and bytes are the
// download's (what the page's size says), output and help are what the download prints.
export function loadPrograms(outline) {
  const dir = path.join(contentDir, 'programs');
  const programs = new Map();
  if (!fs.existsSync(dir)) return programs;
  fs.rmSync(programsOut, { recursive: true, force: true });
  fs.mkdirSync(programsOut, { recursive: true });
  for (const name of programFiles()) {
    const where = `content/programs/${name}`;
    const slug = name.slice(0, -3);
    if (!outline.has(slug)) throw new Error(`${where}: "${slug}" is not a lesson of content/course.yaml`);
    const source = fs.readFileSync(path.join(dir, name), 'utf8');
    const sourceLines = source.trimEnd().split('\n').length;
    if (sourceLines < LINES.min || sourceLines > LINES.max) throw new Error(`${where}: ${sourceLines} lines; a companion program has ${LINES.min} to ${LINES.max}`);
    const text = expandData(source, where, readTable);
    const file = path.join(programsOut, name);
    fs.writeFileSync(file, text);
    programs.set(slug, {
      slug, file: name, summary: summary(source, where), lines: text.trimEnd().split('\n').length, bytes: Buffer.byteLength(text),
      output: run(file, [], where), help: run(file, ['--help'], where),
    });
  }
  return programs;
}
