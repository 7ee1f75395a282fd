// `./tools/dev serve --watch` serves this as /sw.js: a service worker that an earlier `serve`
// installed updates to this one, which empties the caches, unregisters itself and reloads
// its pages, so that watch mode serves every page fresh.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil((async () => {
  await Promise.all((await caches.keys()).map((name) => caches.delete(name)));
  await self.registration.unregister();
  for (const client of await self.clients.matchAll({ type: 'window' })) client.navigate(client.url);
})()));
