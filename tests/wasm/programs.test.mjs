// The companion programs (content/programs/<slug>.py, as the site build wrote them to
// build/site/programs/): each runs under the system Python, exits 0, prints what the lesson
// says, and its numbers equal the engine's calculators for the same inputs
// (tests/programs/<slug>.json: `runs` of arguments, each with `checks` of a --json key
// against a calculator field, relative tolerance `rtol` (default 1e-9) or `exact`, and
// `prints`: text the plain run must contain); `--help` works; each of `bad` exits non-zero
// with a one-line message. Programs import the standard library only. (The repository's
// sources print the same as these downloads: program-forms.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadNodeEngine } from '../../web/src/runtime/engine-node.js';
import { programFiles } from '../../web/scripts/programs.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const built = path.join(root, 'build/site/programs');
const slugs = programFiles().map((f) => f.slice(0, -3));
const { engine } = await loadNodeEngine();

const python = (file, args) => spawnSync('python3', [file, ...args], { encoding: 'utf8', timeout: 120_000 });
const at = (obj, key) => key.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);

// The standard library's module names, and whether the source parses as Python 3.10.
const PROBE = `import ast, json, sys
src = open(sys.argv[1]).read()
ast.parse(src, feature_version=(3, 10))
mods = {a.name.split('.')[0] for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Import) for a in n.names}
mods |= {n.module.split('.')[0] for n in ast.walk(ast.parse(src)) if isinstance(n, ast.ImportFrom) and n.module}
print(json.dumps({"imports": sorted(mods), "stdlib": sorted(sys.stdlib_module_names)}))`;
assert.equal(spawnSync('python3', ['--version']).status, 0, 'python3 is needed: ./tools/dev installs it');

for (const slug of slugs) {
  test(`program ${slug}.py: runs, matches the engine, explains bad flags`, () => {
    const file = path.join(built, `${slug}.py`);
    assert.ok(fs.existsSync(file), `${file} is missing: build the site`);
    const specFile = path.join(root, 'tests/programs', `${slug}.json`);
    assert.ok(fs.existsSync(specFile), `tests/programs/${slug}.json is missing: every program is checked against the engine`);
    const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'));

    const info = spawnSync('python3', ['-c', PROBE, file], { encoding: 'utf8' });
    assert.equal(info.status, 0, `${slug}.py does not parse as Python 3.10: ${info.stderr}`);
    const { imports, stdlib } = JSON.parse(info.stdout);
    for (const m of imports) {
      assert.ok(stdlib.includes(m), `${slug}.py imports ${m}, which is not in the standard library`);
      assert.ok(!['socket', 'urllib', 'http', 'ftplib', 'smtplib', 'requests'].includes(m), `${slug}.py imports ${m}: programs run offline`);
    }

    const help = python(file, ['--help']);
    assert.equal(help.status, 0, `--help: ${help.stderr}`);
    assert.match(help.stdout, /^usage: /);

    assert.ok(spec.runs?.length && spec.runs.some((r) => r.checks?.length), `${slug}: the spec needs runs with checks`);
    for (const run of spec.runs) {
      const plain = python(file, run.args);
      assert.equal(plain.status, 0, `${slug}.py ${run.args.join(' ')}: ${plain.stderr}`);
      assert.equal(plain.stderr, '', `${slug}.py ${run.args.join(' ')} writes to stderr`);
      for (const text of run.prints ?? []) assert.ok(plain.stdout.includes(text), `${slug}.py ${run.args.join(' ')} does not print "${text}"`);
      const out = python(file, [...run.args, '--json']);
      assert.equal(out.status, 0, `${slug}.py ${run.args.join(' ')} --json: ${out.stderr}`);
      const got = JSON.parse(out.stdout);
      for (const c of run.checks ?? []) {
        const want = at(engine.calc(c.calc, c.input), c.field);
        const have = at(got, c.key);
        const what = `${slug}.py ${run.args.join(' ')}: ${c.key} = ${have}, engine ${c.calc}.${c.field} = ${want}`;
        assert.notEqual(want, undefined, `${what}: the engine has no such output`);
        if (c.exact || typeof want !== 'number') assert.deepEqual(have, want, what);
        else assert.ok(typeof have === 'number' && Math.abs(have - want) <= (c.rtol ?? 1e-9) * Math.abs(want), what);
      }
    }

    assert.ok(spec.bad?.length, `${slug}: the spec needs bad arguments`);
    for (const args of spec.bad) {
      const bad = python(file, args);
      assert.notEqual(bad.status, 0, `${slug}.py ${args.join(' ')} should fail`);
      assert.equal(bad.stdout, '', `${slug}.py ${args.join(' ')} prints on stdout`);
      assert.equal(bad.stderr.trim().split('\n').length, 1, `${slug}.py ${args.join(' ')}: one-line message, got ${bad.stderr}`);
      assert.match(bad.stderr, new RegExp(`^${slug}\\.py: `), 'the message names the program');
    }
  });
}
