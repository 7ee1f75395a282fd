// The page script of every site page: custom elements (which load the engine lazily),
// glossary tooltips, reading progress, and the service worker for offline reading.
import { MlsysFigure } from './figure.js';
import './exercise.js';
import './calc-widget.js';
import { initGlossary } from './glossary.js';
import { initGlossaryFilter } from './glossary-filter.js';
import { initProgress } from './progress.js';
import { initOffline } from './offline.js';
import { initSearch } from './search.js';
import { initCopyButtons } from './copy.js';
import { initEmbedHeight } from './embed-height.js';
import { initCalculatorsPage } from './calc-page.js';
// The concept map: its zoom buttons.
import { initConceptMapZoom } from './concept-map-zoom.js';
import { initLessonNav } from './lesson-nav.js'; // lesson contents and previous/next

if (!customElements.get('mlsys-figure')) customElements.define('mlsys-figure', MlsysFigure);

// The script runs as soon as it loads (async), possibly before the page is parsed.
function whenParsed(fn) {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', fn, { once: true });
  else fn();
}

whenParsed(() => {
  initGlossary();
  initGlossaryFilter();
  initProgress();
  initOffline(); // the service worker, "Keep for offline reading", update notices
  initSearch();
  initCopyButtons();
  initEmbedHeight(); // /embed/<id>/ in an iframe: tells the parent page its height
  initCalculatorsPage();
  initConceptMapZoom();
  initLessonNav();
});

