// A {{calc NAME {json} PATH UNIT:DECIMALS}} number prints its unit ("ms:2" -> "9.47 ms";
// only 'x' and 'int' print none), so a unit written after it in the source is printed twice:
// "{{calc … ms:2}} ms" reads "9.47 ms ms". This finds every shortcode that prints a unit and
// is followed (past spaces, a line break, &nbsp; or the end of an emphasis) by a unit: its own
// or any other the formatter knows (web/src/runtime/format.js), or one spelled out (after a
// percentage only a percent sign: "+{{calc … %:0}} FLOPs" is a share of FLOPs).
import fs from 'node:fs';
import path from 'node:path';
import { quantityLabel, unitSymbols } from '../src/runtime/format.js';
import { calcShortcodes } from './markdown.js';

// Units as prose spells them, beside the symbols the formatter writes.
const SPELLED = ['μs', 'Gb/s', 'Gbit/s', 'Tb/s', 'GiB/s', 'FLOPs', 'FLOPS', 'percent', 'bytes', 'byte', 'kilobytes', 'megabytes',
  'gigabytes', 'terabytes', 'seconds', 'second', 'milliseconds', 'microseconds', 'nanoseconds', 'minutes', 'hours', 'day', 'year'];
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
// The longest first, so that "GB/s" is one unit, not "GB" and a "/s" that blocks the match.
export const unitWords = [...new Set([...unitSymbols(), ...SPELLED])].sort((a, b) => b.length - a.length);
const UNIT = `(${unitWords.map(escape).join('|')})(?![\\p{L}\\p{N}_/])`;
const AFTER = new RegExp(`^[*_]*(?:\\s|&nbsp;|&#160;)*${UNIT}`, 'u');
const SPACE = '[\\s\\u00a0\\u2009\\u202f]';
// A number that starts a word (not the 2 of "w2s" in a formula, nor the 80 of "A100-80GB").
const DOUBLED = new RegExp(`(?<![\\p{L}\\p{N}_.,]|[\\p{L}\\p{N}]-)\\d[\\d,.]*${SPACE}*${UNIT}(?:${SPACE}+|(?<=%))${UNIT}`, 'gu');

// A percentage may be of a quantity ("+33% FLOPs"); any other unit after a unit is one too many.
const PERCENT = ['%', 'percent'];
const twice = (first, second) => !PERCENT.includes(first) || PERCENT.includes(second);

// Rendered text (a page's words, not its source): every number followed by two units,
// "9.47 ms ms", "211 GB/s GB/s", "12.5%%", "3 GB MB". Returns the matches' text.
export const doubledUnits = (text) => [...text.matchAll(DOUBLED)].filter((m) => twice(m[1], m[2])).map((m) => m[0]);

// text: a file's text. Returns [{line, unit, printed, text}] (line 1-based, of the unit written
// after the shortcode; printed: the unit the shortcode prints; text: the shortcode and what
// follows it up to the unit).
export function unitsAfterCalc(text) {
  const found = [];
  for (const m of text.matchAll(calcShortcodes())) {
    const printed = quantityLabel(m[4].split(':')[0]);
    if (!printed) continue;  // 'x', 'int', 'sci' print no unit; an unknown one fails in calcValues
    const end = m.index + m[0].length;
    const after = AFTER.exec(text.slice(end, end + 80));
    if (!after || !twice(printed, after[1])) continue;
    const unitAt = end + after[0].length - after[1].length;
    found.push({ line: text.slice(0, unitAt).split('\n').length, unit: after[1], printed, text: m[0] + after[0] });
  }
  return found;
}

// Checks the files (paths relative to root); throws one error that lists every instance as
// "FILE:LINE: TEXT".
export function checkUnitsAfterCalc(root, files) {
  const lines = files.flatMap((file) => unitsAfterCalc(fs.readFileSync(path.join(root, file), 'utf8'))
    .map((f) => `${file}:${f.line}: ${f.text.replace(/\s+/g, ' ')} (the shortcode prints "${f.printed}" itself)`));
  if (lines.length) {
    throw new Error(`${lines.length} unit${lines.length === 1 ? '' : 's'} printed twice, `
      + `after a {{calc}} whose UNIT:DECIMALS prints it:\n${lines.join('\n')}`);
  }
}
