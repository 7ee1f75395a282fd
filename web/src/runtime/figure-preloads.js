// The downloads a figure needs before it can draw, as preload hints: the chart chunk, the
// figure's module and its engine part's glue (module scripts), and the part's wasm, fetched
// as engine.js fetches it (cors mode, same-origin credentials) so that the response is reused.
// Written at build time into embed pages (web/scripts/preload.js) and added at run time by the
// head script for a figure the URL names. The engine paths are where the site serves the parts
// (web/scripts/build.mjs copies them there); engine.js finds the same files relative to its own
// URL instead, so that a page on another site that loads the runtime (embed.js) reaches them.
export function figurePreloads(chart, module, part) {
  return [
    ...[chart, module, `/assets/engine/engine-${part}.mjs`].filter(Boolean).map((href) => ({ rel: 'modulepreload', href })),
    { rel: 'preload', as: 'fetch', href: `/assets/engine/engine-${part}.wasm` },
  ];
}
