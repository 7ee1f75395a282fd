// Writes brotli (quality 11) and gzip (level 9) copies beside the site's scripts, styles and
// engine parts (x.wasm -> x.wasm.br, x.wasm.gz), for hosts that serve precompressed files
// (the test server through sirv; nginx's brotli_static and gzip_static; Caddy's precompressed).
// The engine parts are a page's largest download: brotli 11 makes the gpu part about a fifth
// smaller than on-the-fly compression, and the server spends no time compressing.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
const COMPRESSIBLE = /\.(wasm|mjs|js|css)$/;

// dirs: folders whose files (not sub-folders) to compress. Returns the number of files.
export async function precompress(dirs) {
  const files = dirs.flatMap((dir) => fs.readdirSync(dir).filter((n) => COMPRESSIBLE.test(n)).map((n) => path.join(dir, n)));
  await Promise.all(files.map(async (file) => {
    const body = fs.readFileSync(file);
    const [br, gz] = await Promise.all([
      brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
      gzip(body, { level: 9 }),
    ]);
    fs.writeFileSync(`${file}.br`, br);
    fs.writeFileSync(`${file}.gz`, gz);
  }));
  return files.length;
}
