// Preload hints for pages with figures: the page script's static chunks, the chart chunk,
// the first figure's module and the glue of the engine parts of the page's figures start
// downloading while the page parses, instead of one after another once the first figure
// starts. (The engine's wasm is fetched as soon as the page script runs: figure.js.) The
// site build fills this from esbuild's metafile (build.mjs); layout.js writes the links.
import path from 'node:path';

let assets = null;

// metafile: esbuild's, outdir: where the bundles went; parts: {figures: {id: part}}.
export function setAssets(metafile, outdir, web, parts) {
  const url = (file) => `/assets/js/${path.relative(outdir, path.resolve(file)).split(path.sep).join('/')}`;
  const outputs = Object.entries(metafile.outputs);
  const byEntry = (entry) => outputs.find(([, o]) => o.entryPoint && path.resolve(o.entryPoint) === path.resolve(web, entry));
  const main = byEntry('src/runtime/main.js');
  const chart = byEntry('src/runtime/chart.js');
  const figures = {};
  for (const id of Object.keys(parts.figures)) {
    const out = byEntry(`src/figures/${id}.js`);
    if (out) figures[id] = url(out[0]);
  }
  assets = {
    mainChunks: main[1].imports.filter((i) => i.kind === 'import-statement').map((i) => url(i.path)),
    chart: chart ? url(chart[0]) : null,
    figures,
    parts: parts.figures,
  };
}

// The <link> tags for a page whose figures are `ids` (in page order).
export function preloadLinks(ids) {
  if (!assets || ids.length === 0) return '';
  const modules = [...assets.mainChunks, assets.chart, assets.figures[ids[0]]].filter(Boolean);
  const parts = [...new Set(ids.map((id) => assets.parts[id]).filter(Boolean))];
  return [
    ...modules.map((href) => `<link rel="modulepreload" href="${href}">`),
    ...parts.map((p) => `<link rel="modulepreload" href="/assets/engine/engine-${p}.mjs">`),
  ].join('\n  ');
}
