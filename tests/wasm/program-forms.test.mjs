// The companion programs in their two forms: the source a maintainer runs from a clone,
// `python3 content/programs/<slug>.py` from any working directory (it reads the course's tables
// through content/programs/course_data.py), and the file a reader downloads, build/site/programs/
// <slug>.py, which the build wrote with the tables in it and which must run alone in an empty
// folder. Both print the same thing, byte for byte, for every run of tests/programs/<slug>.json
// (plain and --json), --help and each bad argument list, and hold the same tables, value and type.
// The size the lesson page and /programs/ show beside "Download" is the downloaded file's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { programFiles } from '../../web/scripts/programs.js';
import { repoRoot, siteDir } from '../../web/scripts/paths.js';

const sources = path.join(repoRoot, 'content/programs');
const slugs = programFiles().map((f) => f.slice(0, -3));
const env = { ...process.env, COLUMNS: '80' }; // --help wraps to the terminal's width
const python = (args, cwd) => spawnSync('python3', args, { encoding: 'utf8', cwd, env, timeout: 120_000 });

// The tables of both forms as repr() (which tells 1 from 1.0 and keeps key order): the source's
// NAME = table("...") lines evaluated by course_data, the download's NAME = <literal> lines.
const TABLES = `import ast, json, sys
sys.path.insert(0, sys.argv[1])
from course_data import table
def assigned(file):
    for node in ast.parse(open(file, encoding="utf-8").read()).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            yield node.targets[0].id, node.value
source = {name: repr(table(v.args[0].value)) for name, v in assigned(sys.argv[2])
          if isinstance(v, ast.Call) and getattr(v.func, "id", None) == "table"}
download = {}
for name, v in assigned(sys.argv[3]):
    if name in source:
        try:
            download[name] = repr(ast.literal_eval(v))
        except ValueError:
            download[name] = "not a literal: " + ast.unparse(v)
print(json.dumps({"source": source, "download": download}))`;

test('there are programs, and course_data.py is not one of them', () => {
  assert.ok(slugs.length >= 30, `${slugs.length} programs`);
  assert.ok(!slugs.includes('course_data'));
  assert.ok(fs.existsSync(path.join(sources, 'course_data.py')));
});

for (const slug of slugs) {
  test(`program ${slug}.py: the repository's source runs and prints what the download prints`, () => {
    const download = path.join(siteDir, 'programs', `${slug}.py`);
    assert.ok(fs.existsSync(download), `${download} is missing: build the site (or node web/scripts/build-programs.mjs)`);
    const spec = JSON.parse(fs.readFileSync(path.join(repoRoot, 'tests/programs', `${slug}.json`), 'utf8'));
    const alone = fs.mkdtempSync(path.join(os.tmpdir(), `mlsys-download-${slug}-`)); // the download, and nothing else
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'mlsys-cwd-')); // an unrelated working directory
    try {
      fs.copyFileSync(download, path.join(alone, `${slug}.py`));
      const argLists = [[], ['--help'], ...spec.runs.flatMap((r) => [r.args, [...r.args, '--json']]), ...spec.bad];
      for (const args of argLists) {
        const what = `python3 ${slug}.py ${args.join(' ')}`.trim();
        const fromClone = python([path.join(sources, `${slug}.py`), ...args], elsewhere);
        const downloaded = python([`${slug}.py`, ...args], alone);
        const expectFailure = spec.bad.includes(args);
        assert.equal(fromClone.status === 0, !expectFailure, `${what} from the repository (content/programs) exits ${fromClone.status}: ${fromClone.stderr}`);
        assert.equal(downloaded.status === 0, !expectFailure, `${what}, downloaded, exits ${downloaded.status}: ${downloaded.stderr}`);
        assert.equal(fromClone.stdout, downloaded.stdout, `${what}: the repository's source and the download print different output`);
        assert.equal(fromClone.stderr, downloaded.stderr, `${what}: the repository's source and the download write different errors`);
      }
      assert.deepEqual(fs.readdirSync(alone), [`${slug}.py`], 'the download writes nothing beside itself');

      const tables = python(['-c', TABLES, sources, path.join(sources, `${slug}.py`), download], elsewhere);
      assert.equal(tables.status, 0, tables.stderr);
      const { source, download: written } = JSON.parse(tables.stdout);
      assert.deepEqual(written, source, `${slug}.py: the download's tables differ from content/data's`);
    } finally {
      fs.rmSync(alone, { recursive: true, force: true });
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });
}

// Each <span class="program-size" data-bytes="N">L lines · K kB</span> of a built page, by the
// program it sits beside.
function shownSizes(html) {
  const re = /href="\/programs\/([\w-]+)\.py" download>[\s\S]*?<span class="program-size" data-bytes="(\d+)">(\d+) lines · ([\d.]+) kB<\/span>/g;
  return [...html.matchAll(re)].map(([, slug, bytes, lines, kB]) => ({ slug, bytes: Number(bytes), lines: Number(lines), kB }));
}

test('the size shown beside each program\'s download is the downloaded file\'s', () => {
  const pages = [...slugs.map((slug) => [`lessons/${slug}/index.html`, [slug]]), ['programs/index.html', slugs]];
  for (const [page, expected] of pages) {
    const file = path.join(siteDir, page);
    assert.ok(fs.existsSync(file), `${file} is missing: build the site (cd web && node scripts/build.mjs)`);
    const shown = shownSizes(fs.readFileSync(file, 'utf8'));
    assert.deepEqual(shown.map((s) => s.slug).sort(), [...expected].sort(), `${page}: a size beside each program's download`);
    for (const s of shown) {
      const text = fs.readFileSync(path.join(siteDir, 'programs', `${s.slug}.py`), 'utf8');
      const bytes = Buffer.byteLength(text);
      const why = `${page} shows ${s.slug}.py as ${s.lines} lines, ${s.kB} kB (${s.bytes} B); the download has ${text.trimEnd().split('\n').length} lines, ${bytes} B (after changing a program, rebuild the site)`;
      assert.equal(s.bytes, bytes, why);
      assert.equal(s.kB, (bytes / 1e3).toFixed(1), why);
      assert.equal(s.lines, text.trimEnd().split('\n').length, why);
    }
  }
});
