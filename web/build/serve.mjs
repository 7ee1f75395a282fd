// Serves build/site at http://127.0.0.1:PORT with the site's CSP as a header too.
// Usage: node build/serve.mjs [port]
import http from 'node:http';
import path from 'node:path';
import sirv from 'sirv';
import { repoRoot } from './paths.js';
import { CSP } from '../src/site/_includes/csp.js';

const port = Number(process.argv[2] ?? process.env.PORT ?? 8080);
const serve = sirv(path.join(repoRoot, 'build/site'), {
  dev: true, // no caching headers: the service worker, not HTTP caches, handles offline
  setHeaders(res, pathname) {
    res.setHeader('Content-Security-Policy', CSP);
    if (pathname.endsWith('/sw.js')) res.setHeader('Cache-Control', 'no-cache');
  },
});
http.createServer((req, res) => serve(req, res, () => {
  res.statusCode = 404;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end('Not found');
})).listen(port, '127.0.0.1', () => console.log(`serving build/site at http://127.0.0.1:${port}/`));
