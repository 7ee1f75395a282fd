// No unit printed twice. In the source, the site build's check (web/scripts/calc-units.js,
// run by content.js) finds a unit written after a {{calc}} that prints its own, for every
// unit the shortcode knows; in the built site (build/site), no page's text has a number
// followed by two units ("9.47 ms ms", "211 GB/s GB/s", "12.5%%"), whatever wrote it: prose,
// figure captions, exercise prompts, glossary tooltips, takeaways.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unitsAfterCalc, checkUnitsAfterCalc, doubledUnits } from '../../web/scripts/calc-units.js';
import { unitNames, quantityLabel, formatQuantity } from '../../web/src/runtime/format.js';
import { siteDir } from '../../web/scripts/paths.js';

const calc = (format) => `{{calc fat-tree {"bytes":1e4} time_s ${format}}}`;

test('the source check finds a unit after every {{calc}} format that prints one, and only there', () => {
  const printing = unitNames.filter((u) => quantityLabel(u));
  assert.ok(printing.length > 20 && printing.includes('ms') && printing.includes('%'));
  for (const unit of printing) {
    const label = quantityLabel(unit);
    // Its own unit, as formatQuantity writes it, with a space, none, or across a line break.
    for (const gap of [' ', '', '\n', '&nbsp;', '** ']) {
      const found = unitsAfterCalc(`A line.\nIt took ${calc(`${unit}:1`)}${gap}${label} in all.`);
      assert.deepEqual(found.map((f) => [f.unit, f.printed]), [[label, label]], `${unit} with "${JSON.stringify(gap)}"`);
      assert.equal(found[0].line, gap === '\n' ? 3 : 2);
    }
    // Another unit, or one spelled out, is as wrong; a percentage may be a share of a quantity.
    assert.equal(unitsAfterCalc(`${calc(`${unit}:0`)} GB/s`).length, unit === '%' ? 0 : 1, unit);
    assert.equal(unitsAfterCalc(`${calc(`${unit}:0`)} milliseconds`).length, unit === '%' ? 0 : 1, unit);
    assert.equal(unitsAfterCalc(`${calc(`${unit}:0`)} percent`).length, 1, unit);
    // Words after it are fine, and so is a unit's letters inside a word.
    assert.deepEqual(unitsAfterCalc(`${calc(`${unit}:2`)} in all, ${calc(`${unit}:2`)} single ${calc(`${unit}:2`)}. ms`), []);
    assert.deepEqual(unitsAfterCalc(`${calc(`${unit}:0`)} B200`), []);
    assert.ok(formatQuantity(0.5, unit, 1).endsWith(label), `${unit} prints "${label}"`);
  }
  // 'x' and 'int' print no unit: the source writes it.
  assert.deepEqual(unitsAfterCalc(`${calc('x:2')}× and ${calc('int')} ms and ${calc('int:0')} GB`), []);
});

test('the source check names the file, the line and the text of each instance', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'units-'));
  try {
    fs.writeFileSync(path.join(dir, 'a.md'), `---\ntitle: a\n---\n\nTogether ${calc('ms:2')} ms, a bus bandwidth of ${calc('GB/s:0')}.\n`);
    fs.writeFileSync(path.join(dir, 'b.yaml'), `- ${calc('%:1')}%\n`);
    assert.throws(() => checkUnitsAfterCalc(dir, ['a.md', 'b.yaml']), (err) => {
      assert.equal(err.message, '2 units printed twice, after a {{calc}} whose UNIT:DECIMALS prints it:\n'
        + `a.md:5: ${calc('ms:2')} ms (the shortcode prints "ms" itself)\n`
        + `b.yaml:1: ${calc('%:1')}% (the shortcode prints "%" itself)`);
      return true;
    });
    fs.writeFileSync(path.join(dir, 'a.md'), `Together ${calc('ms:2')}, ${calc('x:1')} ms.\n`);
    checkUnitsAfterCalc(dir, ['a.md']);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});

test('rendered text: a number followed by two units is found', () => {
  assert.deepEqual(doubledUnits('Together 9.47 ms ms, a bus bandwidth of 211 GB/s GB/s; 1 µs µs; 12.5%% and 3 % %; 117\u00a0GB GB'),
    ['9.47 ms ms', '211 GB/s GB/s', '1 µs µs', '12.5%%', '3 % %', '117\u00a0GB GB']);
  // Units once, a formula's letters ("L w2 s bytes"), a name with a size ("A100-80GB hours").
  assert.deepEqual(doubledUnits('9.47 ms in all, 80 GB B200, 3 days, 12% of 5 s, 2 GB. MB, Lw2s bytes, 4bs2h FLOPs, A100-80GB hours'), []);
  assert.deepEqual(doubledUnits('+33% FLOPs, 12 % GB, 5 GB percent'), ['5 GB percent']);
});

// A page's words: no scripts, styles or KaTeX's MathML copy of each formula; inline tags
// dropped, the others (cells, paragraphs, items) a break ("17 ns" and "bytes per clock" are
// two cells); the common entities decoded.
const INLINE = /^<\/?(a|span|strong|em|b|i|code|sub|sup|abbr|kbd|mark|small|s|u|var)\b/i;
function pageText(html) {
  return html.replace(/<(script|style|math)\b[\s\S]*?<\/\1>/g, ' ').replace(/<[^>]+>/g, (tag) => (INLINE.test(tag) ? '' : ' |\n'))
    .replace(/&nbsp;|&#160;/g, '\u00a0').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>')
    .replace(/&quot;|&#34;/g, '"').replace(/&#39;/g, "'");
}

function htmlFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? htmlFiles(path.join(dir, e.name)) : e.name.endsWith('.html') ? [path.join(dir, e.name)] : []));
}

test('no page of the built site prints a unit twice', () => {
  const files = htmlFiles(siteDir);
  assert.ok(files.some((f) => f.endsWith(path.join('lessons', 'interconnects', 'index.html'))), `${siteDir} holds the built site`);
  const found = files.flatMap((f) => {
    const text = pageText(fs.readFileSync(f, 'utf8'));
    return doubledUnits(text).map((d) => {
      const at = text.indexOf(d);
      return `${path.relative(siteDir, f)}: …${text.slice(Math.max(0, at - 40), at + d.length + 20).replace(/\s+/g, ' ')}…`;
    });
  });
  assert.deepEqual(found, []);
});

// A whole number printed with more significant digits than a double holds (about 16): the
// binary expansion of a measured value (3.0074e20 as 300,741,337,391,586,017,280). Exact
// powers of two (2^58 = 288,230,376,151,711,744) are what they say.
function noisyIntegers(text) {
  return [...text.matchAll(/\d{1,3}(?:,\d{3}){5,}(?![\d,]*\.\d)/g)].map((m) => m[0]).filter((n) => {
    const digits = n.replace(/,/g, '');
    const value = BigInt(digits);
    const powerOfTwo = (value & (value - 1n)) === 0n;
    return digits.replace(/0+$/, '').length > 17 && !powerOfTwo;
  });
}

test('rendered text: a whole number with digits a double does not hold is found', () => {
  assert.deepEqual(noisyIntegers('explodes to 300,741,337,391,586,017,280.'), ['300,741,337,391,586,017,280']);
  assert.deepEqual(noisyIntegers('2^58 is 288,230,376,151,711,744; 314,000,000,000,000,000,000,000 FLOP; 3.0 × 10²⁰'), []);
});

test('no page of the built site prints a whole number with digits a double does not hold', () => {
  const found = htmlFiles(siteDir).flatMap((f) => noisyIntegers(pageText(fs.readFileSync(f, 'utf8'))).map((n) => `${path.relative(siteDir, f)}: ${n}`));
  assert.deepEqual(found, []);
});
