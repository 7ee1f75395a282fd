// Builds the static site into build/site: page scripts and styles (esbuild), the engine
// (copied from build/wasm), KaTeX styles and fonts, the pages (Eleventy), and the service
// worker and offline manifest (offline-manifest.js, web/src/sw/sw.js), and the search index
// (Pagefind, search-index.js). Scripts and engine parts are named by their content
// (hashed-names.js); /assets/js/embed.js is the embed script's stable loader.
import fs from 'node:fs';
import path from 'node:path';
import esbuild from 'esbuild';
import Eleventy from '@11ty/eleventy';
import { writeSearchIndex } from './search-index.js';
import { writeOfflineFiles } from './offline-manifest.js';
import { loadContent } from './content.js';
import { programsOut } from './programs.js';
import { engineParts, readParts } from './engine-parts.js';
import { setAssets, bundleOf } from './preload.js';
import { precompress } from './precompress.js';
import { addCompileHints, hintedFiles } from './compile-hints.js';
import { repoRoot, engineDir, siteDir } from './paths.js';
import { hashedName, writeEmbedLoader } from './hashed-names.js';

const web = path.join(repoRoot, 'web');
const out = siteDir;

function copyDir(from, to, filter = () => true) {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name), dst = path.join(to, entry.name);
    if (entry.isDirectory()) copyDir(src, dst, filter);
    else if (filter(entry.name)) fs.copyFileSync(src, dst);
  }
}

// The full engine renders the lessons' numbers; the pages load one part each.
const engineFiles = ['engine', ...Object.keys(readParts()).map((p) => `engine-${p}`)].flatMap((n) => [`${n}.mjs`, `${n}.wasm`]);
for (const f of engineFiles) {
  if (!fs.existsSync(path.join(engineDir, f))) throw new Error(`build/wasm/engine/${f} is missing: build the wasm preset first`);
}
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

// Every engine part under its content-hashed name (hashed-names.js): {part: {mjs, wasm}}.
const engineOut = path.join(out, 'assets/engine');
fs.mkdirSync(engineOut, { recursive: true });
const engine = {};
for (const part of Object.keys(readParts())) {
  engine[part] = {};
  for (const ext of ['mjs', 'wasm']) {
    const bytes = fs.readFileSync(path.join(engineDir, `engine-${part}.${ext}`));
    engine[part][ext] = hashedName(`engine-${part}.${ext}`, bytes);
    fs.writeFileSync(path.join(engineOut, engine[part][ext]), bytes);
  }
}

// `import parts from 'mlsys:engine-parts'` in the runtime: which part each figure, exercise
// and calculator loads (engine-parts.js), and the parts' file names.
const content = await loadContent();
const partsMap = { ...await engineParts(content.lessons), engine };
const enginePartsModule = {
  name: 'engine-parts',
  setup(b) {
    b.onResolve({ filter: /^mlsys:engine-parts$/ }, (a) => ({ path: a.path, namespace: 'mlsys' }));
    b.onLoad({ filter: /.*/, namespace: 'mlsys' }, () => ({ contents: JSON.stringify(partsMap), loader: 'json' }));
  },
};

const bundles = await esbuild.build({
  entryPoints: { main: path.join(web, 'src/runtime/main.js'), embed: path.join(web, 'src/runtime/embed.js') },
  outdir: path.join(out, 'assets/js'),
  bundle: true, splitting: true, format: 'esm', minify: true, target: 'es2020',
  entryNames: '[name]-[hash]', chunkNames: '[name]-[hash]', logLevel: 'warning', plugins: [enginePartsModule], metafile: true,
});
// The head script is a classic script (it must hold the parser: head.js says why).
const head = await esbuild.build({
  entryPoints: [path.join(web, 'src/runtime/head.js')], outdir: path.join(out, 'assets/js'), entryNames: '[name]-[hash]',
  bundle: true, format: 'iife', minify: true, target: 'es2020', logLevel: 'warning', metafile: true,
});
const headFile = Object.keys(head.metafile.outputs).find((f) => f.endsWith('.js'));
setAssets(bundles.metafile, path.join(out, 'assets/js'), web, partsMap, headFile);
addCompileHints(hintedFiles(bundles.metafile, web, ['src/runtime/main.js', 'src/runtime/embed.js', 'src/runtime/chart.js']));
writeEmbedLoader(path.join(out, 'assets/js'), bundleOf(bundles.metafile, web, 'src/runtime/embed.js')[0]);
await esbuild.build({
  entryPoints: [path.join(web, 'src/styles/site.css')],
  outfile: path.join(out, 'assets/site.css'), bundle: true, minify: true, logLevel: 'warning',
});
// The print stylesheet, linked after site.css with media="print" (layout.js), so that its
// rules win over the screen rules they replace.
await esbuild.build({
  entryPoints: [path.join(web, 'src/styles/print.css')],
  outfile: path.join(out, 'assets/print.css'), bundle: true, minify: true, logLevel: 'warning',
});
const katexDist = path.join(web, 'node_modules/katex/dist');
fs.mkdirSync(path.join(out, 'assets/katex'), { recursive: true });
fs.copyFileSync(path.join(katexDist, 'katex.min.css'), path.join(out, 'assets/katex/katex.min.css'));
copyDir(path.join(katexDist, 'fonts'), path.join(out, 'assets/katex/fonts'), (n) => n.endsWith('.woff2'));

const eleventy = new Eleventy(path.join(web, 'src/site'), out, { configPath: path.join(web, 'eleventy.config.js'), quietMode: true });
await eleventy.write();
// The companion programs, as content.js expanded them (programs.js).
copyDir(programsOut, path.join(out, 'programs'), (n) => n.endsWith('.py'));

const precompressed = await precompress(['assets/js', 'assets/engine', 'assets', 'assets/katex'].map((d) => path.join(out, d)));

// Search index over the built pages, then the offline manifest over every file (index included).
const search = await writeSearchIndex(out);
const offline = writeOfflineFiles(out, path.join(web, 'src/sw/sw.js'));
console.log(`site: ${out} (version ${offline.version}: ${offline.files} files, ${(offline.bytes / 1024).toFixed(0)} KiB; ` +
  `shell ${offline.shell} files; ${precompressed} precompressed; search: ${search.pages} pages + ${search.records} records)`);
