// Loads the built WASM engine in Node (tests, benchmarks, the site build). Emscripten's
// ES-module output cannot fetch its own .wasm in Node, so the bytes are passed in.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { wrapEngine } from './engine-api.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// MLSYS_ENGINE_DIR points elsewhere (e.g. a second build tree).
export const engineDir = process.env.MLSYS_ENGINE_DIR ?? path.resolve(here, '../../../build/wasm/engine');

// name: 'engine' (every calculator and exercise) or 'engine-<part>' (wasm/parts.json).
export async function loadNodeEngine(dir = engineDir, name = 'engine') {
  const { default: createEngine } = await import(pathToFileURL(path.join(dir, `${name}.mjs`)).href);
  const raw = await createEngine({ wasmBinary: fs.readFileSync(path.join(dir, `${name}.wasm`)) });
  return { raw, engine: wrapEngine(raw) };
}
