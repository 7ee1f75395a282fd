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
// {figure id: [module URL, engine part]}; data-chart: the chart chunk's URL.
import { decodeHash } from './params.js';
import { figurePreloads } from './figure-preloads.js';

function preloadNamedFigure(script) {
  let figures;
  try {
    figures = JSON.parse(script.dataset.figures ?? '{}');
  } catch {
    return;
  }
  const id = Object.keys(figures).find((f) => decodeHash(location.hash, f));
  if (!id) return;
  const [module, part] = figures[id];
  for (const { rel, href, as } of figurePreloads(script.dataset.chart, module, part)) {
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

if (document.currentScript) preloadNamedFigure(document.currentScript);
