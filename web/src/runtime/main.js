// The page script of every site page: custom elements (which load the engine lazily),
// glossary tooltips, reading progress, and the service worker for offline reading.
import './figure.js';
import './exercise.js';
import { initGlossary } from './glossary.js';
import { initProgress } from './progress.js';

// The script runs as soon as it loads (async), possibly before the page is parsed.
function whenParsed(fn) {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', fn, { once: true });
  else fn();
}

whenParsed(() => {
  initGlossary();
  initProgress();
});

if ('serviceWorker' in navigator && document.documentElement.dataset.sw === 'on') {
  navigator.serviceWorker.register(new URL('../../sw.js', import.meta.url), { scope: '/' }).catch(() => {});
}
