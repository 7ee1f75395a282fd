// Content-hashed file names: a new deployment never serves a new page with an old engine part
// or script, since every engine part and script module is named by its content
// (engine-gpu-7QK2M4XA.wasm, main-3FJ2KQ7B.js). esbuild names its entry points and chunks
// this way ([name]-[hash]); the build names the engine parts the same way (build.mjs). The
// server sends hashed files as immutable and everything else as "no-cache" (server.js).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

// esbuild's [hash]: 8 characters of base32 (A-Z, 2-7).
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
export function contentHash(bytes) {
  const digest = crypto.createHash('sha256').update(bytes).digest();
  let bits = 0, value = 0, out = '';
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 8) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length === 8) break;
  }
  return out;
}

// 'engine-gpu.wasm' + its bytes -> 'engine-gpu-<hash>.wasm'.
export function hashedName(name, bytes) {
  const ext = path.extname(name);
  return `${name.slice(0, -ext.length)}-${contentHash(bytes)}${ext}`;
}

// Whether a URL path names a content-hashed script or engine part (precompressed copies
// included); those never change, so they may be cached for good.
export const HASHED_PATH = /\/assets\/(js|engine)\/[^/]+-[A-Z2-7]{8}\.(js|mjs|wasm)(\.br|\.gz)?$/;
export const isHashed = (pathname) => HASHED_PATH.test(pathname);

// The embed script's documented address, /assets/js/embed.js, stays stable for other sites:
// a two-line module that imports this build's hashed embed module. It is served "no-cache",
// so an embedder's page picks up a new deployment at once.
export function writeEmbedLoader(dir, hashedFile) {
  fs.writeFileSync(path.join(dir, 'embed.js'),
    `// The stable address of the course's embed script; the module it imports is this build's.\nimport './${path.basename(hashedFile)}';\n`);
}
