// Loads a part of the WASM engine (wasm/parts.json) once per page, lazily: the first
// figure, exercise or calculator near the viewport asks for the part that holds it.
// engine-<part>.mjs and .wasm sit in ../engine/ beside this bundle.
import parts from 'mlsys:engine-parts';
import { wrapEngine } from './engine-api.js';

const loading = new Map();

// kind: 'figures', 'exercises' or 'calcs'; undefined when no part holds the id.
export function partFor(kind, id) {
  return Object.hasOwn(parts[kind], id) ? parts[kind][id] : undefined;
}

export function loadEngine(part) {
  if (!part) return Promise.reject(new Error('this version of the engine does not hold it'));
  if (!loading.has(part)) {
    const url = new URL(`../engine/engine-${part}.mjs`, import.meta.url).href;
    loading.set(part, import(/* @vite-ignore */ url)
      .then((mod) => mod.default())
      .then(wrapEngine)
      .catch((err) => {
        loading.delete(part); // a later figure may retry (e.g. after the network returns)
        throw err;
      }));
  }
  return loading.get(part);
}
