// The downloads a figure needs before it can draw, as preload hints: the chart chunk, the
// figure's module and its engine part's glue (module scripts), and the part's wasm, fetched
// as engine.js fetches it (cors mode, same-origin credentials) so that the response is reused.
// Written at build time into embed pages (web/scripts/preload.js) and added at run time by the
// head script for a figure the URL names. engine: the part's content-hashed file names
// {mjs, wasm}, in /assets/engine/ where the site serves them (web/scripts/build.mjs writes
// them there); engine.js finds the same files relative to its own URL instead, so that a page
// on another site that loads the runtime (embed.js) reaches them.
export function figurePreloads(chart, module, engine) {
  return [
    ...[chart, module, `/assets/engine/${engine.mjs}`].filter(Boolean).map((href) => ({ rel: 'modulepreload', href })),
    { rel: 'preload', as: 'fetch', href: `/assets/engine/${engine.wasm}` },
  ];
}
