// The build's precompressed copies (web/scripts/precompress.js): each decodes to the file
// beside it, the offline manifest lists none of them, and the server sends them with the
// original's type to a browser that accepts the encoding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import http from 'node:http';
import { siteDir } from '../../web/scripts/paths.js';
import { startServer } from '../../web/scripts/server.js';

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

test('every precompressed copy decodes to its original; the manifest lists originals only', () => {
  const files = walk(siteDir);
  const copies = files.filter((f) => /\.(br|gz)$/.test(f));
  const engineParts = files.filter((f) => /assets\/engine\/engine-[a-z]+-[A-Z2-7]{8}\.wasm$/.test(f));
  assert.ok(engineParts.length >= 4);
  for (const f of engineParts) for (const ext of ['.br', '.gz']) assert.ok(copies.includes(f + ext), `${f}${ext} is missing`);
  for (const copy of copies) {
    const original = copy.slice(0, -3);
    const decode = copy.endsWith('.br') ? zlib.brotliDecompressSync : zlib.gunzipSync;
    assert.ok(decode(fs.readFileSync(copy)).equals(fs.readFileSync(original)), `${copy} differs from ${original}`);
  }
  const listed = JSON.parse(fs.readFileSync(path.join(siteDir, 'offline-manifest.json'), 'utf8')).files.map((f) => f.url);
  assert.deepEqual(listed.filter((u) => /\.(br|gz)$/.test(u)), []);
});

// Raw bytes as sent (fetch would decode them).
const get = (url, encoding) => new Promise((resolve, reject) => {
  http.get(url, { headers: { 'accept-encoding': encoding } }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
  }).on('error', reject);
});

test('the server sends the brotli copy, then gzip, then the plain file', async () => {
  const { server, url } = await startServer(0);
  try {
    const file = `/assets/engine/${fs.readdirSync(path.join(siteDir, 'assets/engine')).find((n) => /^engine-gpu-\w+\.wasm$/.test(n))}`;
    const plain = fs.readFileSync(path.join(siteDir, file));
    for (const [accept, encoding] of [['gzip, deflate, br', 'br'], ['gzip', 'gzip'], ['identity', undefined]]) {
      const { headers, body } = await get(`${url}${file}`, accept);
      assert.equal(headers['content-type'], 'application/wasm');
      assert.equal(headers['content-encoding'], encoding, accept);
      const decoded = encoding === 'br' ? zlib.brotliDecompressSync(body) : encoding === 'gzip' ? zlib.gunzipSync(body) : body;
      assert.ok(decoded.equals(plain), accept);
    }
  } finally {
    server.close();
  }
});
