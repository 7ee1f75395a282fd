// A second build of the site for the upgrade tests, made from a built one in a second:
// a copy in which one figure module and one engine part's wasm changed. Each changed file
// gets a new hashed name; every file that names it is rewritten, and a hashed file so
// rewritten is renamed in turn (the chunk that loads the figure, then the page script, ...),
// as a real build would name them; stale precompressed copies go; the offline manifest and
// the service worker are rewritten. What changed:
// - the figure module, when it runs, sets <html data-figure-build="B">;
// - the wasm gains a custom section (ignored by the engine, valid WebAssembly).
import fs from 'node:fs';
import path from 'node:path';
import { contentHash, isHashed } from '../scripts/hashed-names.js';
import { writeOfflineFiles } from '../scripts/offline-manifest.js';

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

// A WebAssembly custom section (id 0) named `name` holding `text`.
function customSection(name, text) {
  const body = Buffer.concat([Buffer.from([name.length]), Buffer.from(name), Buffer.from(text)]);
  if (name.length > 127 || body.length > 127) throw new Error('customSection: keep it short (one-byte lengths)');
  return Buffer.concat([Buffer.from([0, body.length]), body]);
}

// from: a built site; to: where the variant goes; figure: a figure id; part: an engine part;
// swSource: web/src/sw/sw.js. Returns {renamed: Map old name -> new name, version}.
export function siteVariant(from, to, { figure, part, swSource }) {
  fs.rmSync(to, { recursive: true, force: true });
  fs.cpSync(from, to, { recursive: true });
  const js = path.join(to, 'assets/js'), engine = path.join(to, 'assets/engine');
  const pick = (dir, re) => {
    const found = fs.readdirSync(dir).filter((n) => re.test(n));
    if (found.length !== 1) throw new Error(`siteVariant: expected one file like ${re} in ${dir}, found ${found.length}`);
    return path.join(dir, found[0]);
  };
  const figureFile = pick(js, new RegExp(`^${figure}-[A-Z2-7]{8}\\.js$`));
  const wasmFile = pick(engine, new RegExp(`^engine-${part}-[A-Z2-7]{8}\\.wasm$`));
  fs.appendFileSync(figureFile, '\ndocument.documentElement.dataset.figureBuild="B";\n');
  fs.appendFileSync(wasmFile, customSection('mlsys-build', 'B'));

  const texts = walk(to).filter((f) => /\.(html|js|mjs)$/.test(f));
  const renamed = new Map();
  const dropCopies = (file) => ['.br', '.gz'].forEach((ext) => fs.rmSync(file + ext, { force: true }));
  let changed = [figureFile, wasmFile];
  while (changed.length) {
    const next = [];
    for (const file of changed) {
      dropCopies(file);
      const name = path.basename(file);
      if (!isHashed(`/${path.relative(to, file)}`) || renamed.has(name) || [...renamed.values()].includes(name)) continue;
      const fresh = name.replace(/-[A-Z2-7]{8}(\.\w+)$/, `-${contentHash(fs.readFileSync(file))}$1`);
      fs.renameSync(file, path.join(path.dirname(file), fresh));
      renamed.set(name, fresh);
      const at = texts.indexOf(file);
      if (at >= 0) texts[at] = path.join(path.dirname(file), fresh);
      // Every file naming the old name now names the new one.
      for (const text of texts) {
        const body = fs.readFileSync(text, 'utf8');
        if (!body.includes(name)) continue;
        fs.writeFileSync(text, body.replaceAll(name, fresh));
        next.push(text);
      }
    }
    changed = next;
  }
  const { version } = writeOfflineFiles(to, swSource);
  return { renamed, version };
}
