// A static server for build/site that sends the site's CSP and cache headers; used by
// serve.mjs, watch.mjs (serve --watch), the browser tests and the benchmarks.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import sirv from 'sirv';
import compression from 'compression';
import { siteDir } from './paths.js';
import { CSP } from '../src/site/_includes/csp.js';
import { isHashed } from './hashed-names.js';

// The headers of every file of the site. A content-hashed script or engine part
// (hashed-names.js) never changes, so browsers keep it for a year without asking; everything
// else (pages, the stable embed loader, styles, the service worker, the search index) is
// revalidated on every use (ETag), so a new deployment is seen at once and a new page never
// meets an old script. The service worker, not HTTP caches, handles offline.
export function setSiteHeaders(res, pathname) {
  res.setHeader('Content-Security-Policy', CSP);
  // Other sites may embed figures with a module script, which needs CORS.
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Cache-Control', isHashed(pathname) ? 'public, max-age=31536000, immutable' : 'no-cache');
}

// An unknown address gets the site's 404 page with status 404, as a static host serves
// 404.html (web/src/site/404.11ty.js); plain text if the build has none.
function notFound(root, req, res) {
  res.statusCode = 404;
  setSiteHeaders(res, '/404.html');
  let page = null;
  try {
    page = fs.readFileSync(path.join(root, '404.html'));
  } catch { /* no 404 page in this build */ }
  res.setHeader('Content-Type', page ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8');
  res.end(req.method === 'HEAD' ? undefined : page ?? 'Not found');
}

// Resolves to {server, url} once listening; port 0 picks a free port. intercept(req, res):
// true when it has answered the request itself (serve --watch: watch.mjs).
export function startServer(port = 0, host = '127.0.0.1', root = siteDir, intercept = () => false) {
  const serve = sirv(root, {
    dev: true, // files are read per request: a rebuilt site (serve --watch) is served at once
    etag: true,
    brotli: true, // x.br and x.gz beside x (web/scripts/precompress.js) are sent as they are
    gzip: true,
    setHeaders: setSiteHeaders,
  });
  // The rest (pages, search index) compressed on the fly, as a production host would; byte
  // ranges stay plain.
  const compress = compression({ filter: (req, res) => !req.headers.range && compression.filter(req, res) });
  const server = http.createServer((req, res) => intercept(req, res) || compress(req, res, () => serve(req, res, () => notFound(root, req, res))));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve({ server, url: `http://${host}:${server.address().port}` }));
  });
}
