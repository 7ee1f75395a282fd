// The head script of every page but the embeds: a small classic script, placed after the
// style sheets and before the body, run while the page is still being parsed.
//
// Being a classic (parser-blocking) script after the style sheets, it holds the parser until
// they have arrived. Without it the parser of a long lesson could reach the end of the page
// first; Chromium then styles and lays out all of it once without the site's CSS and again
// with it: two full layouts of 3,000 math elements. With it, the page is laid out with its
// styles from the first paint on, in parts while the parser goes on.
//
// When the URL names one of the page's figures (#<figure-id> or a permalink
// #<figure-id>:<state>), it starts downloading that figure's code and engine part at once,
// rather than once the page script runs. data-figures (written by web/scripts/preload.js):
// {figure id: [module URL, engine part]}; data-engine: {part: {mjs, wasm}}, the parts'
// content-hashed file names; data-chart: the chart chunk's URL.
//
// It also has the lesson's other parts laid out after that figure is drawn, not before:
// the class `defer-parts` gives each <section class="part"> (lesson.11ty.js)
// `content-visibility: auto` (site.css), so Chromium skips the style and layout of the
// parts away from the viewport. Skipped parts are missing from Chromium's accessibility
// tree, so this lasts only until the figure is drawn (or fails): then one part is laid out
// per animation frame, and the class goes.
import { decodeHash } from './params.js';
import { figurePreloads } from './figure-preloads.js';

function prepareNamedFigure(script) {
  let figures, engine;
  try {
    figures = JSON.parse(script.dataset.figures ?? '{}');
    engine = JSON.parse(script.dataset.engine ?? '{}');
  } catch {
    return;
  }
  const id = Object.keys(figures).find((f) => decodeHash(location.hash, f));
  if (!id) return;
  deferParts();
  const [module, part] = figures[id];
  if (!engine[part]?.mjs || !engine[part].wasm) return;
  for (const { rel, href, as } of figurePreloads(script.dataset.chart, module, engine[part])) {
    const link = document.createElement('link');
    link.rel = rel;
    link.href = href;
    if (as) {
      link.as = as;
      link.crossOrigin = 'anonymous';
    }
    document.head.append(link);
  }
}

function deferParts() {
  const root = document.documentElement;
  root.classList.add('defer-parts');
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    const parts = [...document.querySelectorAll('.defer-parts section.part')];
    const next = () => {
      const part = parts.shift();
      if (!part) root.classList.remove('defer-parts');
      else {
        part.classList.add('laid-out');
        requestAnimationFrame(next);
      }
    };
    requestAnimationFrame(next);
  };
  document.addEventListener('mlsys-figure-drawn', release, { once: true });
  document.addEventListener('mlsys-figure-failed', release, { once: true });
  // If the figure never reports (its code could not load): after the page has loaded.
  addEventListener('load', () => setTimeout(release, 2000), { once: true });
}

if (document.currentScript) prepareNamedFigure(document.currentScript);
