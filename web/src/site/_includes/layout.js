// The HTML shell of every page: strict CSP, styles, the page script, favicon, header and
// footer. Pages pass already-escaped HTML for `body`.
import { esc } from '../../../scripts/markdown.js';
import { CSP } from './csp.js';
import { preloadLinks, headScript, mainScript } from '../../../scripts/preload.js';

// The site's pages beside the lessons, in the order the header and footer list them.
export const SITE_PAGES = [
  ['/', 'Course'],
  ['/track/', 'Track'],
  ['/systems-and-scaling/', 'Systems and scaling'],
  ['/recap/', 'Recap'],
  ['/figures/', 'Figures'],
  ['/calculators/', 'Calculators'], // every calculator of the engine
  ['/programs/', 'Programs'], // the lessons' companion programs
  ['/glossary/', 'Glossary'],
  ['/concept-map/', 'Concept map'],
  ['/videos-and-books/', 'Videos and books'],
];

function navLinks(current) {
  return SITE_PAGES.map(([href, text]) => `<a href="${href}"${href === current ? ' aria-current="page"' : ''}>${text}</a>`).join('\n      ');
}

// "Keep for offline reading": a button, a progress bar and a status line, run by
// web/src/runtime/offline.js. `prefix` keeps ids unique when a page holds two.
export function offlineBox(prefix) {
  return `<div class="offline-box" data-offline-keep>
      <button type="button" class="fig-btn" data-offline-button aria-describedby="${prefix}-status">Keep for offline reading</button>
      <progress hidden aria-label="Download for offline reading" value="0" max="1"></progress>
      <p class="offline-status" id="${prefix}-status" role="status" aria-live="polite" data-offline-status>Stores every page, figure and the engine in this browser.</p>
    </div>`;
}

// `current`: the page's own path, marked in the navigation. `search: false` keeps a page out
// of the search index (web/scripts/search-index.js; glossary and figures come as records).
const NOT_INDEXED = new Set(['/glossary/', '/figures/']);

// The KaTeX fonts a page's formulas use, preloaded so that they all download with the style
// sheet instead of one by one as layout discovers them (a late font redoes the layout of every
// formula once more). Each font is named by the class lists that select it in katex.css (all
// of a list's classes on one element); tests/web/crawl.test.mjs checks that every page preloads
// exactly the fonts it loads.
const KATEX_FONTS = {
  'KaTeX_Main-Regular': ['katex'],
  'KaTeX_Math-Italic': ['mathnormal'],
  'KaTeX_Main-Italic': ['mathit', 'textit'],
  'KaTeX_Main-Bold': ['mathbf', 'textbf'],
  'KaTeX_Math-BoldItalic': ['boldsymbol'],
  'KaTeX_AMS-Regular': ['amsrm', 'mathbb', 'textbb'],
  'KaTeX_Caligraphic-Regular': ['mathcal'],
  'KaTeX_SansSerif-Regular': ['mathsf', 'textsf'],
  'KaTeX_Typewriter-Regular': ['mathtt', 'texttt'],
  'KaTeX_Size1-Regular': ['delimsizing size1', 'delim-size1', 'op-symbol small-op'],
  'KaTeX_Size2-Regular': ['delimsizing size2', 'op-symbol large-op'],
  'KaTeX_Size3-Regular': ['delimsizing size3'],
  'KaTeX_Size4-Regular': ['delimsizing size4', 'delim-size4'],
};
function katexPreloads(body) {
  const lists = [...new Set([...body.matchAll(/class="([^"]*)"/g)].map((m) => m[1]))].map((c) => new Set(c.split(' ')));
  const used = (selector) => lists.some((l) => selector.split(' ').every((c) => l.has(c)));
  return Object.entries(KATEX_FONTS).filter(([, selectors]) => selectors.some(used))
    .map(([font]) => `<link rel="preload" as="font" type="font/woff2" crossorigin href="/assets/katex/fonts/${font}.woff2">`).join('\n  ');
}

// `figures`: ids of figures whose code and engine part to preload (embed pages: the figure is
// the page). Other pages get the head script instead (web/src/runtime/head.js: it holds the
// parser until the style sheets are in, and preloads a figure the URL names). Every page
// preloads the chunks of its page script (web/scripts/preload.js).
export function layout({ title, description, body, bodyClass = '', katex = false, embed = false, current = '', search = true, figures = [] }) {
  const indexed = search && !embed && !NOT_INDEXED.has(current);
  const nav = embed ? '' : `
  <a class="skip" href="#main">Skip to content</a>
  <header class="site-header">
    <a class="brand" href="/">ML Systems, computed</a>
    <nav aria-label="Site">
      ${navLinks(current)}
    </nav>
    <form class="site-search" role="search" aria-label="Site search" action="/search/">
      <label class="sr-only" for="site-search-q">Search the course</label>
      <input type="search" id="site-search-q" name="q" placeholder="Search" autocomplete="off">
    </form>
  </header>`;
  const footer = embed ? '' : `
  <footer class="site-footer">
    <nav aria-label="Course pages">
      ${navLinks(current)}
    </nav>
    <p class="footer-tools"><a href="/search/">Search</a> · <a href="/offline/">Keep for offline reading</a> · <a href="/embedding/">Embed figures in your pages</a></p>
    ${current === '/offline/' ? '' : offlineBox('footer-offline')}
    <p>Every number on these pages is computed by the course's C++ engine, running in your browser as WebAssembly.</p>
    <!-- Licence and source. No public repository address is published yet. -->
    <p class="footer-licence">Code under the <a href="/LICENSE.txt">MIT licence</a>; text and figures under <a href="/LICENSE-content.txt">CC BY 4.0</a>. The source repository has no public address yet.</p>
  </footer>`;
  return `<!doctype html>
<html lang="en" data-sw="on">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta http-equiv="Content-Security-Policy" content="${CSP}">
  <meta name="color-scheme" content="light dark">
  <title>${esc(title)}</title>
  <meta name="description" content="${esc(description)}">
  <link rel="icon" href="/favicon.svg" type="image/svg+xml">
  ${katex ? `<link rel="stylesheet" href="/assets/katex/katex.min.css">
  ${katexPreloads(body)}` : ''}
  <link rel="stylesheet" href="/assets/site.css">
  <!-- the print stylesheet (web/src/styles/print.css); after site.css so it wins -->
  <link rel="stylesheet" href="/assets/print.css" media="print">${embed ? '' : `
  ${headScript(body)}`}
  <script type="module" async src="${mainScript()}"></script>
  ${preloadLinks(figures)}
</head>
<body class="${bodyClass}">${nav}
  <main id="main"${indexed ? ' data-pagefind-body' : ''}>
${body}
  </main>${footer}
</body>
</html>
`;
}
