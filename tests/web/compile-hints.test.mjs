// V8's compile hint (web/scripts/compile-hints.js): the page scripts, the chunks they import
// and the chart chunk start with it; a figure's own module, which runs only a little of its
// code, does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { siteDir } from '../../web/scripts/paths.js';
import { HINT } from '../../web/scripts/compile-hints.js';

const file = (url) => fs.readFileSync(path.join(siteDir, url), 'utf8');
const unescape = (s) => s.replaceAll('&quot;', '"').replaceAll('&amp;', '&');

test('page scripts, their chunks and the chart chunk carry the compile hint; figure modules do not', () => {
  const lesson = file('lessons/roofline/index.html');
  const embed = file('embed/roofline-plot/index.html');
  const chunks = [...embed.matchAll(/<link rel="modulepreload" href="(\/assets\/js\/[^"]+)">/g)].map((m) => m[1]);
  const chart = lesson.match(/data-chart="([^"]+)"/)[1];
  const figures = JSON.parse(unescape(lesson.match(/data-figures="([^"]+)"/)[1]));
  const figureModules = Object.values(figures).map(([module]) => module);
  // The page script and the embed module carry their content hash; /assets/js/embed.js, the
  // embed script's stable address, only imports the hashed module.
  const main = lesson.match(/<script type="module" async src="(\/assets\/js\/main-\w+\.js)">/)[1];
  const embedModule = `/assets/js/${file('assets/js/embed.js').match(/import '\.\/(embed-\w+\.js)'/)[1]}`;
  const hinted = [main, embedModule, chart, ...chunks.filter((c) => !figureModules.includes(c))];
  assert.ok(hinted.length >= 5, hinted.join(' '));
  for (const url of hinted) assert.ok(file(url).startsWith(HINT), `${url} lacks the hint`);
  assert.equal(figureModules.length, 4);
  for (const url of figureModules) assert.ok(!file(url).includes('allFunctionsCalledOnLoad'), `${url} is hinted`);
});
