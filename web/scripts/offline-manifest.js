// The offline manifest of a build: every file of the site with its size, and a version (a
// hash of every file's path and contents). Written as /offline-manifest.json, and the service
// worker (web/src/sw/sw.js) is written with that version, the app shell's list, the pages' list and the
// pattern of content-hashed file names (hashed-names.js).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { HASHED_PATH } from './hashed-names.js';

const GENERATED = new Set(['/sw.js', '/offline-manifest.json']);

function walk(dir, rel = '/') {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(full, `${rel}${e.name}/`));
    else out.push({ file: full, path: `${rel}${e.name}` });
  }
  return out;
}

// A page is fetched as "/x/", not "/x/index.html".
const urlOf = (p) => (p.endsWith('/index.html') ? p.slice(0, -'index.html'.length) : p);

// The app shell: what pages need to run (scripts, styles, fonts), the home page and the
// offline page and the 404 page (what an unknown address shows offline). Not in it: the engine parts (a megabyte; each is cached when a page first
// uses it) and the search index; "Keep for offline" brings both.
const inShell = (url) => url === '/' || url === '/offline/' || url === '/404.html' || url === '/favicon.svg' ||
  (url.startsWith('/assets/') && !url.startsWith('/assets/engine/'));

// Precompressed copies (x.js.br, x.js.gz: precompress.js) are other encodings of a listed file.
const isCopy = (p) => /\.(br|gz)$/.test(p);

export function writeOfflineFiles(siteDir, swSource) {
  const files = walk(siteDir).filter((f) => !GENERATED.has(f.path) && !isCopy(f.path));
  const hash = crypto.createHash('sha256');
  const list = files.map((f) => {
    const body = fs.readFileSync(f.file);
    hash.update(`${f.path}\0${crypto.createHash('sha256').update(body).digest('hex')}\n`);
    return { url: urlOf(f.path), size: body.length };
  });
  const version = hash.digest('hex').slice(0, 12);
  const bytes = list.reduce((n, f) => n + f.size, 0);
  const manifest = { version, files: list, bytes };
  fs.writeFileSync(path.join(siteDir, 'offline-manifest.json'), JSON.stringify(manifest));
  const shell = list.map((f) => f.url).filter(inShell);
  // The site's pages: offline, an address not among them does not exist (the 404 page), one
  // among them is only not kept yet (the offline page).
  const pages = list.map((f) => f.url).filter((u) => u.endsWith('/') || u.endsWith('.html'));
  const header = `const VERSION = ${JSON.stringify(version)};\nconst SHELL = ${JSON.stringify(shell)};\n` +
    `const PAGES = ${JSON.stringify(pages)};\nconst HASHED = ${HASHED_PATH};\n`;
  fs.writeFileSync(path.join(siteDir, 'sw.js'), header + fs.readFileSync(swSource, 'utf8'));
  return { version, files: list.length, bytes, shell: shell.length };
}
