// A static server for the browser tests whose root can be switched while it runs (same
// origin, so the same service worker and caches): serves version 1 of the site, then 2.
import http from 'node:http';
import sirv from 'sirv';
import { setSiteHeaders } from '../scripts/server.js';

// Sends the site's own headers (CSP, cache lifetimes: web/scripts/server.js).
export async function switchableServer(dir) {
  const handler = (d) => sirv(d, { dev: true, etag: true, setHeaders: setSiteHeaders });
  let serve = handler(dir);
  const requested = []; // every path asked for, in order
  const server = http.createServer((req, res) => requested.push(new URL(req.url, 'http://x').pathname) && serve(req, res, () => {
    res.statusCode = 404;
    res.end('Not found');
  }));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${server.address().port}`, requested, use: (d) => { serve = handler(d); } };
}
