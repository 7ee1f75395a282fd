// The service worker (written by hand, see README "Offline"). The build prepends
//   const VERSION = '<hash of every file of the build>';
//   const SHELL = ['/', '/offline/', '/404.html', '/assets/...', ...];
//   const PAGES = ['/', '/track/', ..., '/404.html']; (every page of the build)
//   const HASHED = /.../; (content-hashed scripts and engine parts: web/scripts/hashed-names.js)
// Every file of one build lives in one cache, `mlsys-<VERSION>`, so pages and assets are
// always served from a single version. Install stores the app shell (runtime, styles, engine,
// fonts); pages are added as they are read; "Keep for offline reading" (runtime/offline.js)
// adds every file of /offline-manifest.json and the marker KEPT. A new build installs beside
// the old one (downloading the whole new site first if the reader had kept the old one),
// waits until the reader accepts the update (or closes every tab), then deletes every other
// version's cache.
/* global VERSION, SHELL, PAGES, HASHED */
const PREFIX = 'mlsys-';
const CACHE = `${PREFIX}${VERSION}`;
const KEPT = '/__mlsys/kept';
const NEVER_CACHED = new Set(['/sw.js', '/offline-manifest.json']);

const fresh = (url) => new Request(url, { cache: 'no-store' });

async function otherCaches() {
  return (await caches.keys()).filter((n) => n.startsWith(PREFIX) && n !== CACHE);
}

async function keptBefore(names) {
  for (const name of names) if (await (await caches.open(name)).match(KEPT)) return true;
  return false;
}

async function copyFrom(names, url, cache) {
  for (const name of names) {
    const hit = await (await caches.open(name)).match(url);
    if (hit) {
      await cache.put(url, hit);
      return true;
    }
  }
  return false;
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const old = await otherCaches();
    const kept = await keptBefore(old);
    let urls = SHELL;
    if (kept) {
      // The reader kept the previous version: the new one installs only once it is complete.
      const manifest = await (await fetch(fresh('/offline-manifest.json'))).json();
      if (manifest.version !== VERSION) throw new Error('the site changed during the update');
      urls = manifest.files.map((f) => f.url);
    }
    const cache = await caches.open(CACHE);
    // A content-hashed file that an older version holds is the same file: copied, not
    // downloaded again (an update then fetches only what changed).
    const fetchNow = [];
    for (const url of urls) if (!HASHED.test(url) || !(await copyFrom(old, url, cache))) fetchNow.push(url);
    await cache.addAll(fetchNow.map(fresh));
    if (kept) await cache.put(KEPT, new Response(JSON.stringify({ version: VERSION, at: Date.now(), refreshed: true })));
    // The first install takes over at once; an update waits for the reader (runtime/offline.js).
    if (old.length === 0) await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const old = await otherCaches();
    await Promise.all(old.map((n) => caches.delete(n)));
    await self.clients.claim();
    const kept = Boolean(await (await caches.open(CACHE)).match(KEPT));
    for (const client of await self.clients.matchAll({ type: 'window' })) {
      client.postMessage({ type: 'mlsys-activated', version: VERSION, replaced: old.length > 0, kept });
    }
  })());
});

self.addEventListener('message', (event) => {
  const msg = event.data ?? {};
  if (msg.type === 'mlsys-version') event.ports[0]?.postMessage({ version: VERSION });
  if (msg.type === 'mlsys-skip-waiting') self.skipWaiting();
});

// "/x/index.html" and "/x/" are one page; the query string never selects a different file.
function cacheKey(url) {
  return url.pathname.endsWith('/index.html') ? url.pathname.slice(0, -'index.html'.length) : url.pathname;
}

async function respond(request, url) {
  const cache = await caches.open(CACHE);
  const key = cacheKey(url);
  const hit = await cache.match(key);
  if (hit) return hit;
  try {
    const response = await fetch(request);
    if (response.ok && response.type === 'basic' && !response.redirected) await cache.put(key, response.clone());
    return response;
  } catch (err) {
    if (request.mode === 'navigate') {
      // Offline: a page of the site that is not kept yet gets the offline page; an address
      // that is no page of the site gets the 404 page, with its status.
      const known = PAGES.includes(key) || PAGES.includes(`${key}/`);
      const page = await cache.match(known ? '/offline/' : '/404.html');
      if (page && known) return page;
      if (page) return new Response(page.body, { status: 404, statusText: 'Not Found', headers: page.headers });
    }
    throw err;
  }
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || NEVER_CACHED.has(url.pathname) || url.pathname.startsWith('/__mlsys/')) return;
  event.respondWith(respond(request, url));
});
