// Where the site serves an engine part's glue and wasm (web/scripts/build.mjs copies them
// there): the paths the preload hints name, at build time (web/scripts/preload.js) and in the
// head script. engine.js finds the same files relative to its own URL instead, so that a page
// on another site that loads the runtime (embed.js) reaches them too.
export const enginePartFiles = (part) => ({ glue: `/assets/engine/engine-${part}.mjs`, wasm: `/assets/engine/engine-${part}.wasm` });
