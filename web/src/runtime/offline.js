// Offline reading, the page's side (the service worker is web/src/sw/sw.js):
// - registers the service worker (built pages only: <html data-sw="on">);
// - "Keep for offline reading" ([data-offline-keep] boxes: footer and /offline/): downloads
//   every file of /offline-manifest.json into the service worker's versioned cache, with a
//   progress line (files and bytes), then shows the space used and "available offline";
// - a new version of the site: once it is installed (and, if the reader kept the site, fully
//   downloaded) the reader is told and can switch to it; after the switch the page says so.
const KEY = 'mlsys:offline:v1';
const NOTICE = 'mlsys:updated';

const UNAVAILABLE = 'Keeping the course for offline reading is not available in this browser: it does not let this site store files.';

// Whether this browser lets the page use a service worker and its caches. Where site storage
// is blocked, navigator.serviceWorker may be missing, reading `caches` may throw, and
// registering the worker fails with a SecurityError (initOffline).
let storageBlocked = false;
function offlineAvailable() {
  if (storageBlocked) return false;
  try {
    return Boolean(navigator.serviceWorker && window.caches);
  } catch {
    return false;
  }
}

const mb = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1e3))} kB`);

function readKept() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? 'null');
    return v && typeof v.version === 'string' ? v : null;
  } catch {
    return null;
  }
}

function writeKept(value) {
  try {
    if (value) localStorage.setItem(KEY, JSON.stringify(value));
    else localStorage.removeItem(KEY);
  } catch { /* storage refused: the status line still says what happened */ }
}

// The version of the service worker that controls this page (null without one).
function controllerVersion() {
  const sw = navigator.serviceWorker?.controller;
  if (!sw) return Promise.resolve(null);
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => resolve(null), 3000);
    channel.port1.onmessage = (e) => { clearTimeout(timer); resolve(e.data?.version ?? null); };
    sw.postMessage({ type: 'mlsys-version' }, [channel.port2]);
  });
}

async function fetchManifest() {
  const res = await fetch('/offline-manifest.json', { cache: 'no-store' });
  if (!res.ok) throw new Error(`the file list could not be read (HTTP ${res.status})`);
  return res.json();
}

// Downloads every file of the manifest into the cache of `version`; onProgress(done, total,
// bytesDone, bytesTotal).
export async function keepOffline(onProgress = () => {}) {
  const version = await controllerVersion();
  if (!version) throw new Error('offline reading needs the service worker, which is not running on this page (reload and try again)');
  const manifest = await fetchManifest();
  if (manifest.version !== version) throw new Error('a new version of the course is being installed: reload, then try again');
  const cache = await caches.open(`mlsys-${version}`);
  const files = manifest.files;
  let done = 0, bytes = 0, next = 0;
  onProgress(0, files.length, 0, manifest.bytes);
  const worker = async () => {
    while (next < files.length) {
      const f = files[next++];
      if (!(await cache.match(f.url))) {
        const res = await fetch(f.url, { cache: 'no-store' });
        if (!res.ok) throw new Error(`${f.url} could not be downloaded (HTTP ${res.status})`);
        await cache.put(f.url, res);
      }
      done += 1;
      bytes += f.size;
      onProgress(done, files.length, bytes, manifest.bytes);
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  if ((await fetchManifest()).version !== version) throw new Error('the course changed during the download: reload, then try again');
  await cache.put('/__mlsys/kept', new Response(JSON.stringify({ version, at: Date.now() })));
  const persisted = navigator.storage?.persist ? await navigator.storage.persist().catch(() => false) : false;
  const kept = { version, files: files.length, bytes: manifest.bytes, at: Date.now(), persisted };
  writeKept(kept);
  return kept;
}

async function usage() {
  if (!navigator.storage?.estimate) return '';
  const { usage: used = 0, quota = 0 } = await navigator.storage.estimate();
  return `${mb(used)} used by this site in your browser${quota ? ` (of ${mb(quota)} available)` : ''}`;
}

// Whether the full site of `version` is in the cache (the marker is written last).
async function isKept(version) {
  return Boolean(version && await (await caches.open(`mlsys-${version}`)).match('/__mlsys/kept'));
}

function setUpBox(box) {
  const button = box.querySelector('[data-offline-button]');
  const status = box.querySelector('[data-offline-status]');
  const bar = box.querySelector('progress');
  const say = (text, state) => {
    status.textContent = text;
    box.dataset.offline = state;
  };
  const showKept = async (kept) => {
    const space = await usage();
    say(`Available offline: all ${kept.files} files (${mb(kept.bytes)}) of version ${kept.version}. ${space}${space ? '. ' : ''}` +
      `${kept.persisted ? 'Your browser will keep them.' : 'Your browser may remove them if it runs short of space.'}`, 'kept');
    button.textContent = 'Check offline copy';
  };
  const refresh = async () => {
    if (!offlineAvailable()) {
      say(UNAVAILABLE, 'unavailable');
      button.disabled = true;
      return;
    }
    const version = await controllerVersion();
    const kept = readKept();
    if (version && kept?.version === version && await isKept(version)) await showKept(kept);
    else if (kept && version && kept.version !== version) {
      writeKept(null);
      say('The course was updated: keep it again to read the new version offline.', 'stale');
    }
  };
  button.addEventListener('click', async () => {
    if (!offlineAvailable()) {
      say(UNAVAILABLE, 'unavailable');
      return;
    }
    button.disabled = true;
    bar.hidden = false;
    say('Preparing the download…', 'busy');
    try {
      const kept = await keepOffline((done, total, bytes, totalBytes) => {
        bar.max = totalBytes;
        bar.value = bytes;
        status.textContent = `Downloading: ${done} of ${total} files, ${mb(bytes)} of ${mb(totalBytes)}`;
      });
      await showKept(kept);
    } catch (err) {
      say(`Not kept: ${err.message}.`, 'failed');
    } finally {
      button.disabled = false;
      bar.hidden = true;
    }
  });
  refresh().catch(() => {});
  return refresh;
}

// Tells the reader about a new version: installed and waiting, or just switched to.
function notice(text, action) {
  let bar = document.querySelector('.update-notice');
  if (!bar) {
    bar = document.createElement('div');
    bar.className = 'update-notice';
    bar.setAttribute('role', 'status');
    (document.querySelector('main') ?? document.body).prepend(bar); // inside a landmark
  }
  const p = document.createElement('p');
  p.textContent = text;
  bar.replaceChildren(p);
  if (action) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'fig-btn';
    b.textContent = action.label;
    b.addEventListener('click', action.run);
    p.append(' ', b);
  }
  return bar;
}

function watchUpdates(reg) {
  const offerUpdate = (worker) => {
    notice(`A new version of the course is ready${readKept() ? ' (your offline copy has been refreshed with it)' : ''}.`, {
      label: 'Switch to it',
      run: () => worker.postMessage({ type: 'mlsys-skip-waiting' }),
    });
    document.documentElement.dataset.update = 'waiting';
  };
  const track = (worker) => worker?.addEventListener('statechange', () => {
    if (worker.state === 'installed' && navigator.serviceWorker.controller) offerUpdate(worker);
  });
  if (reg.waiting && navigator.serviceWorker.controller) offerUpdate(reg.waiting);
  track(reg.installing);
  reg.addEventListener('updatefound', () => track(reg.installing));
  navigator.serviceWorker.addEventListener('message', (event) => {
    const msg = event.data ?? {};
    if (msg.type !== 'mlsys-activated' || !msg.replaced) return;
    const kept = readKept();
    if (kept) writeKept(msg.kept ? { ...kept, version: msg.version, at: Date.now() } : null);
    try {
      sessionStorage.setItem(NOTICE, JSON.stringify({ version: msg.version, kept: msg.kept }));
    } catch { /* the reload still shows the new version */ }
    location.reload();
  });
}

function showSwitched() {
  let info = null;
  try {
    info = JSON.parse(sessionStorage.getItem(NOTICE) ?? 'null');
    sessionStorage.removeItem(NOTICE);
  } catch { /* nothing to say */ }
  if (!info) return;
  notice(`Updated to the new version of the course (${String(info.version).slice(0, 12)}).` +
    (info.kept ? ' Your offline copy was refreshed: every page is available offline.' : ''));
  document.documentElement.dataset.update = 'done';
}

export function initOffline() {
  const boxes = document.querySelectorAll('[data-offline-keep]');
  const on = offlineAvailable() && document.documentElement.dataset.sw === 'on';
  showSwitched();
  const refreshers = [...boxes].map(setUpBox);
  if (on) {
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).then(watchUpdates).catch((err) => {
      // Storage blocked: the boxes say so. Other failures (offline, a bad worker) leave them.
      if (err?.name !== 'SecurityError') return;
      storageBlocked = true;
      refreshers.forEach((r) => r().catch(() => {}));
    });
  }
  // Once a service worker controls the page, the page being read joins the cache. The body
  // is read to the end, else the request stays open.
  if (on) {
    const cachePage = () => fetch(location.pathname).then((r) => r.arrayBuffer()).catch(() => {});
    if (navigator.serviceWorker.controller) cachePage();
    else navigator.serviceWorker.addEventListener('controllerchange', cachePage, { once: true });
  }
}
