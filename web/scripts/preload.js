// Preload hints. Every page: the page script's static chunks, which the browser would
// otherwise discover only once it has parsed the page script (on a long lesson, after the
// first layout). Embed pages, whose figure is the page, also: the chart chunk, the figure's
// module and its engine part (glue and wasm). Other pages: the head script
// (web/src/runtime/head.js) with what it needs to preload a figure the URL names. The site
// build fills this from esbuild's metafile (build.mjs); layout.js writes the tags.
import path from 'node:path';
import { esc } from './markdown.js';
import { figurePreloads } from '../src/runtime/figure-preloads.js';

let assets = null;

// esbuild's output for the entry point `entry` (a path under `web`): [file, output], or
// undefined. staticImports(output): the files it imports statically (its chunks).
export function bundleOf(metafile, web, entry) {
  return Object.entries(metafile.outputs)
    .find(([, o]) => o.entryPoint && path.resolve(o.entryPoint) === path.resolve(web, entry));
}
export const staticImports = (output) => output.imports.filter((i) => i.kind === 'import-statement').map((i) => i.path);

// metafile: esbuild's, outdir: where the bundles went; parts: {figures: {id: part}, engine:
// {part: {mjs, wasm}}} (the parts' hashed file names); headFile: the head script's file.
export function setAssets(metafile, outdir, web, parts, headFile) {
  const url = (file) => `/assets/js/${path.relative(outdir, path.resolve(file)).split(path.sep).join('/')}`;
  const byEntry = (entry) => bundleOf(metafile, web, entry);
  const main = byEntry('src/runtime/main.js');
  const chart = byEntry('src/runtime/chart.js');
  const figures = {};
  for (const id of Object.keys(parts.figures)) {
    const out = byEntry(`src/figures/${id}.js`);
    if (out) figures[id] = url(out[0]);
  }
  assets = {
    main: url(main[0]),
    head: url(headFile),
    mainChunks: staticImports(main[1]).map(url),
    chart: chart ? url(chart[0]) : null,
    figures,
    parts: parts.figures,
    engine: parts.engine,
  };
}

// The engine part's files of figure `id`: {mjs, wasm} (names in /assets/engine/).
const engineOf = (id) => assets.engine[assets.parts[id]];

// The page script's URL (its name carries its content hash).
export const mainScript = () => assets?.main ?? '/assets/js/main.js';

// The <link> tags for a page that preloads the code of its figure `ids[0]` (embed pages).
export function preloadLinks(ids) {
  if (!assets) return '';
  const figure = assets.parts[ids[0]] ? figurePreloads(assets.chart, assets.figures[ids[0]], engineOf(ids[0])) : [];
  return [
    ...assets.mainChunks.map((href) => `<link rel="modulepreload" href="${href}">`),
    ...figure.map(({ rel, href, as }) => (as
      ? `<link rel="${rel}" as="${as}" crossorigin href="${href}">`
      : `<link rel="${rel}" href="${href}">`)),
  ].join('\n  ');
}

// The head script's tag for a page whose HTML is `body`: the chart chunk, the module and
// engine part of each figure on the page, and those parts' hashed file names.
export function headScript(body) {
  const ids = [...new Set([...body.matchAll(/<mlsys-figure[^>]*\sdata-id="([^"]+)"/g)].map((m) => m[1]))];
  const figures = Object.fromEntries(ids.filter((id) => assets?.figures[id] && assets.parts[id])
    .map((id) => [id, [assets.figures[id], assets.parts[id]]]));
  const engine = Object.fromEntries(Object.values(figures).map(([, part]) => [part, assets.engine[part]]));
  const chart = assets?.chart ? ` data-chart="${assets.chart}"` : '';
  return `<script src="${assets?.head ?? '/assets/js/head.js'}"${chart} data-figures="${esc(JSON.stringify(figures))}" ` +
    `data-engine="${esc(JSON.stringify(engine))}"></script>`;
}
