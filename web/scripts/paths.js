// The repository root, from this file's location.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Where the built engine and site live; overridable for a second build tree.
export const engineDir = process.env.MLSYS_ENGINE_DIR ?? path.join(repoRoot, 'build/wasm/engine');
export const siteDir = process.env.MLSYS_SITE_DIR ?? path.join(repoRoot, 'build/site');
