// The authoring loop, `./tools/dev serve --watch` (after a full build): serves build/site at
// http://127.0.0.1:PORT and rebuilds it when content/ or web/src/ changes; when core/ or
// wasm/ changes, the WASM engine first, then the site. Open pages reload once the new site
// is in place (a server-sent event to a small script added to every page: web/src/watch/).
// Changes are gathered for DEBOUNCE_MS before a rebuild starts; a change during a rebuild
// starts another once it ends. The site is built beside the served one (build/site-next) and
// swapped in only when the build succeeds: a failed rebuild prints its error and the last
// good site stays served. No service worker in watch mode (pages say data-sw="off", and
// /sw.js is a worker that removes an earlier one). Usage: node web/scripts/watch.mjs [port]
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { startServer, setSiteHeaders } from './server.js';
import { repoRoot, siteDir } from './paths.js';

const DEBOUNCE_MS = 300;
const WATCHED = { content: 'site', 'web/src': 'site', core: 'engine', wasm: 'engine' };
const CLIENT = { '/__mlsys/reload.js': 'web/src/watch/reload.js', '/sw.js': 'web/src/watch/sw.js' };
const port = Number(process.argv[2] ?? process.env.PORT ?? 8080);
const log = (text) => console.log(`[watch ${new Date().toTimeString().slice(0, 8)}] ${text}`);

// Open pages, each an event stream.
const pages = new Set();
const tell = (event) => { for (const res of pages) res.write(`event: ${event}\ndata: {}\n\n`); };

// The page at `pathname` with the reload script and without the service worker, or null.
function watchedPage(pathname) {
  if (!pathname.endsWith('/') && !pathname.endsWith('.html')) return null;
  let file;
  try {
    file = path.join(siteDir, decodeURIComponent(pathname), pathname.endsWith('/') ? 'index.html' : '');
  } catch {
    return null; // a malformed escape: the static server answers
  }
  if (!file.startsWith(siteDir + path.sep) || !fs.existsSync(file)) return null;
  return fs.readFileSync(file, 'utf8').replace('data-sw="on"', 'data-sw="off"')
    .replace('</head>', '<script type="module" src="/__mlsys/reload.js"></script>\n</head>');
}

function intercept(req, res) {
  const { pathname } = new URL(req.url, 'http://localhost');
  if (pathname === '/__mlsys/events') {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    res.write(': watching\n\n');
    pages.add(res);
    req.on('close', () => pages.delete(res));
    return true;
  }
  const client = CLIENT[pathname];
  const page = client || req.method !== 'GET' ? null : watchedPage(pathname);
  if (!client && page === null) return false;
  setSiteHeaders(res, pathname);
  res.setHeader('Content-Type', client ? 'text/javascript; charset=utf-8' : 'text/html; charset=utf-8');
  res.end(client ? fs.readFileSync(path.join(repoRoot, client)) : page);
  return true;
}

// Runs a command with the terminal as its output; resolves to whether it succeeded.
let running = null;
function run(command, args, options = {}) {
  return new Promise((resolve) => {
    running = spawn(command, args, { stdio: 'inherit', cwd: repoRoot, ...options });
    running.on('error', (err) => { console.error(err.message); resolve(false); });
    running.on('exit', (code) => { running = null; resolve(code === 0); });
  });
}
// Stopped (Ctrl-C, kill): a rebuild under way stops too, and leaves no half-built site.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    running?.kill(signal);
    fs.rmSync(`${siteDir}-next`, { recursive: true, force: true });
    process.exit(130);
  });
}

async function rebuild(engine) {
  const started = Date.now();
  if (engine) {
    log('building the WASM engine (core/ or wasm/ changed since its last good build)');
    if (!await run('bash', ['-c', 'cmake --preset wasm >/dev/null && cmake --build --preset wasm -j "$(nproc)"'])) return false;
  }
  log('building the site');
  const next = `${siteDir}-next`, prev = `${siteDir}-prev`;
  fs.rmSync(next, { recursive: true, force: true });
  if (!await run(process.execPath, ['scripts/build.mjs'], { cwd: path.join(repoRoot, 'web'), env: { ...process.env, MLSYS_SITE_DIR: next } })) {
    fs.rmSync(next, { recursive: true, force: true });
    return false;
  }
  fs.rmSync(prev, { recursive: true, force: true });
  fs.renameSync(siteDir, prev);
  fs.renameSync(next, siteDir);
  fs.rmSync(prev, { recursive: true, force: true });
  log(`rebuilt in ${((Date.now() - started) / 1000).toFixed(1)} s: reloading ${pages.size} open page(s)`);
  return true;
}

let timer = null, building = false, pending = false, pendingEngine = false;
async function start() {
  if (building) return; // started again when this build ends
  building = true;
  const engine = pendingEngine;
  pending = pendingEngine = false;
  const ok = await rebuild(engine).catch((err) => { console.error(err); return false; });
  if (ok) tell('reload');
  else {
    log('the rebuild failed (error above): still serving the last good site');
    tell('failed');
    if (engine) pendingEngine = true; // the engine is still to build on the next change
  }
  building = false;
  if (pending) start();
}

// Editors' swap and backup files do not count.
const ignored = (file) => path.basename(file).startsWith('.') || /(~|\.swp|\.swx|\.tmp)$/.test(file);

for (const [dir, kind] of Object.entries(WATCHED)) {
  fs.watch(path.join(repoRoot, dir), { recursive: true }, (event, file) => {
    if (!file || ignored(file)) return;
    pending = true;
    if (kind === 'engine') pendingEngine = true;
    clearTimeout(timer);
    timer = setTimeout(start, DEBOUNCE_MS);
  });
}

const { url } = await startServer(port, '127.0.0.1', siteDir, intercept);
log(`serving build/site at ${url}/ and watching ${Object.keys(WATCHED).join(', ')} (Ctrl-C stops)`);
