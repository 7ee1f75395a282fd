// Loads a part of the WASM engine (wasm/parts.json) once per page, lazily: the first
// figure, exercise or calculator near the viewport asks for the part that holds it.
// engine-<part>-<hash>.mjs and .wasm sit in ../engine/ beside this bundle, named by their
// content (web/scripts/hashed-names.js), so a page never runs another build's engine; both
// downloads start at once (the glue would otherwise ask for the wasm only after it has itself
// arrived and run).
import parts from 'mlsys:engine-parts';
import { wrapEngine } from './engine-api.js';

const loading = new Map();

// kind: 'figures', 'exercises' or 'calcs'; undefined when no part holds the id.
export function partFor(kind, id) {
  return Object.hasOwn(parts[kind], id) ? parts[kind][id] : undefined;
}

// Compiles while the bytes arrive when the server labels them application/wasm.
async function instantiate(fetched, imports, part) {
  const response = await fetched;
  if (!response.ok) throw new Error(`the engine part "${part}" could not be downloaded (HTTP ${response.status})`);
  return response.headers.get('content-type')?.startsWith('application/wasm')
    ? WebAssembly.instantiateStreaming(response, imports)
    : WebAssembly.instantiate(await response.arrayBuffer(), imports);
}

export function loadEngine(part) {
  const files = part && Object.hasOwn(parts.engine, part) ? parts.engine[part] : null;
  if (!files) return Promise.reject(new Error('this version of the engine does not hold it'));
  if (!loading.has(part)) {
    const url = (name) => new URL(`../engine/${name}`, import.meta.url).href;
    const fetched = fetch(url(files.wasm), { credentials: 'same-origin' });
    fetched.catch(() => {}); // a failed download is reported once, by instantiate
    loading.set(part, import(/* @vite-ignore */ url(files.mjs))
      .then((mod) => new Promise((resolve, reject) => {
        mod.default({
          instantiateWasm(imports, receive) {
            instantiate(fetched, imports, part).then((r) => receive(r.instance, r.module), reject);
            return {}; // exports arrive through receive()
          },
        }).then(resolve, reject);
      }))
      .then(wrapEngine)
      .catch((err) => {
        loading.delete(part); // a later figure may retry (e.g. after the network returns)
        throw err;
      }));
  }
  return loading.get(part);
}
