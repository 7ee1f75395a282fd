// The page script of every site page: custom elements (which load the engine lazily),
// glossary tooltips, reading progress, and the service worker for offline reading.
import './figure.js';
import './exercise.js';
import { initGlossary } from './glossary.js';
import { initProgress } from './progress.js';

initGlossary();
initProgress();

if ('serviceWorker' in navigator && document.documentElement.dataset.sw === 'on') {
  navigator.serviceWorker.register(new URL('../../sw.js', import.meta.url), { scope: '/' }).catch(() => {});
}
