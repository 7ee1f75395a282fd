// Loads the WASM engine once per page, lazily (the first figure or exercise near the
// viewport asks for it). engine.mjs and engine.wasm sit in ../engine/ beside this bundle.
import { wrapEngine } from './engine-api.js';

let loading = null;

export function loadEngine() {
  if (!loading) {
    const url = new URL('../engine/engine.mjs', import.meta.url).href;
    loading = import(/* @vite-ignore */ url)
      .then((mod) => mod.default())
      .then(wrapEngine)
      .catch((err) => {
        loading = null; // a later figure may retry (e.g. after the network returns)
        throw err;
      });
  }
  return loading;
}
