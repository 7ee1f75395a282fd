// The lesson build's {{calc NAME {json} PATH UNIT:DECIMALS}}: a well-formed one becomes the
// engine's number; anything else that starts with {{calc stops the build with the text it
// could not read, instead of printing it raw on the page.
import test from 'node:test';
import assert from 'node:assert/strict';
import { calcValues } from '../../web/scripts/markdown.js';

// A stand-in engine: the build only needs calc(name, input) -> result.
const engine = { calc: (name, input) => ({ value: 2 * (input.x ?? 1), text: 'bits', nested: { n: 3 } }) };

test('a well-formed value is replaced by the formatted number', () => {
  assert.equal(calcValues('a {{calc any {"x":21} value int}} b', engine, 'page'), 'a 42 b');
  assert.equal(calcValues('{{calc any {} nested.n int}}', engine, 'page'), '3');
});

test('malformed values stop the build and name what they could not read', () => {
  for (const bad of [
    '{{calc float {"format":"fp16"} bits}}',          // no unit: used to slip through raw
    '{{calc any {"a":{"b":1}} value int}}',           // nested JSON object
    '{{calc any {"x":1} value int',                   // never closed
    '{{calc Any {} value int}}',                      // name out of form
  ]) {
    assert.throws(() => calcValues(`text ${bad} more`, engine, 'lesson x'), (err) =>
      err.message.startsWith('lesson x: malformed engine value {{calc') && err.message.includes('the form is'), bad);
  }
});

test('a path that is not a number names the path', () => {
  assert.throws(() => calcValues('{{calc any {} text int}}', engine, 'p'), /text is not a number/);
  assert.throws(() => calcValues('{{calc any {} missing.path int}}', engine, 'p'), /missing\.path is not a number/);
});
