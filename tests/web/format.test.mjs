// One formatter for prose, figures, widgets and the calculators page (web/src/runtime/format.js):
// units scale to the step that reads best, integers stay exact beyond 2^53, nothing reads
// "-0", "NaN" or "Infinity"; engine messages name the controls' labels (field-labels.js).
import test from 'node:test';
import assert from 'node:assert/strict';
import { formatValue, formatSI, formatDecimal, formatSignificant, formatQuantity, NONE } from '../../web/src/runtime/format.js';
import { formatOutput } from '../../web/src/runtime/calc-format.js';
import { formatField } from '../../web/src/runtime/calc-page-text.js';
import { labelledError, humanize } from '../../web/src/runtime/field-labels.js';

test('times scale from ns to days with three significant digits', () => {
  assert.equal(formatValue(1.010713, 's'), '1.01 s');
  assert.equal(formatValue(1.5e-6, 's'), '1.50 µs');
  assert.equal(formatValue(2.5e-3, 's'), '2.50 ms');
  assert.equal(formatValue(3.2e-9, 's'), '3.20 ns');
  assert.equal(formatValue(90, 's'), '1.50 min');
  assert.equal(formatValue(5400, 's'), '1.50 h');
  assert.equal(formatValue(90061, 's'), '1.04 days');
  // Rounded before the step is chosen: not "1,000 ms".
  assert.equal(formatValue(0.99996, 's'), '1.00 s');
  // The unit a caller names only picks the family: the value is in seconds.
  assert.equal(formatValue(1.010713, 'us'), '1.01 s');
  assert.equal(formatOutput(1.010713, { unit: 'us', decimals: 1 }), '1.01 s');
  assert.equal(formatField(1.010713, { unit: 's' }), '1.01 s');
  assert.equal(formatSI(5400, 's'), '1.5 h');
});

test('bytes stay decimal or binary as the caller writes them; rates and FLOP take SI prefixes', () => {
  assert.equal(formatValue(1.5e9, 'B'), '1.50 GB');
  assert.equal(formatValue(1.5e9, 'GB'), '1.50 GB');
  assert.equal(formatValue(2 ** 30, 'GiB'), '1.00 GiB');
  assert.equal(formatValue(2 ** 30, 'B'), '1.07 GB');
  assert.equal(formatValue(1536, 'KiB'), '1.50 KiB');
  assert.equal(formatValue(999.97, 'B'), '1.00 kB');
  assert.equal(formatValue(1.28e14, 'FLOP/s'), '128 TFLOP/s');
  assert.equal(formatValue(989.4e12, 'TFLOP/s'), '989 TFLOP/s');
  assert.equal(formatValue(3.35e12, 'B/s'), '3.35 TB/s');
  assert.equal(formatValue(3.35e12, 'GB/s'), '3.35 TB/s');
  assert.equal(formatOutput(2 ** 31, { unit: 'GiB', decimals: 2 }), '2.00 GiB');
});

test('integers are exact beyond 2^53, with separators', () => {
  assert.equal(formatDecimal(2 ** 58, 0), '288,230,376,151,711,744');
  assert.equal(formatValue(2 ** 58, 'int'), '288,230,376,151,711,744');
  assert.equal(formatQuantity(2 ** 58, 'int'), '288,230,376,151,711,744');
  assert.equal(formatField(2 ** 58, { type: 'integer' }), '288,230,376,151,711,744');
  assert.equal(formatField(2 ** 60, { type: 'integer' }), '1,152,921,504,606,846,976');
  assert.equal(formatQuantity(268435456, 'int'), '268,435,456');
  assert.equal(formatSignificant(1157.3), '1,157');
});

test('no "-0", NaN or Infinity reaches a reader', () => {
  assert.equal(formatDecimal(-0, 0), '0');
  assert.equal(formatDecimal(-0.001, 2), '0.00');
  assert.equal(formatValue(-0, 's'), '0 s');
  assert.equal(formatValue(-0), '0');
  assert.equal(formatOutput(-0, {}), '0');
  assert.equal(formatValue(-2.5e-3, 's'), '-2.50 ms');
  for (const bad of [NaN, Infinity, -Infinity]) {
    assert.equal(formatValue(bad, 's'), NONE);
    assert.equal(formatSI(bad, 'B'), NONE);
    assert.equal(formatField(bad, { unit: 's' }), NONE);
    assert.equal(formatOutput(bad, {}), NONE);
  }
  assert.equal(formatField(null), NONE);
  assert.throws(() => formatQuantity(NaN, 'B'), /not a finite number/);
});

test('engine messages name the controls by their labels', () => {
  const specs = [{ key: 'bits', label: 'Bits b' }, { key: 'range_min', label: 'Range min' }, { key: 'range_max', label: 'Range max' },
    { key: 'peak', label: 'Peak', from: ['roofline', 'peak_flops'] }];
  assert.deepEqual(labelledError({ field: 'range_max', message: 'range_max must be greater than range_min.' }, specs),
    { key: 'range_max', message: 'Range max must be greater than Range min.' });
  // A figure control feeding the engine field of another name is found by that name.
  assert.deepEqual(labelledError({ field: 'peak_flops', message: "Field 'peak_flops' must be positive." }, specs),
    { key: 'peak', message: 'Field Peak must be positive.' });
  // A plain word that is also a field name stays a word; an unknown field names no control.
  assert.deepEqual(labelledError({ field: 'typo', message: 'Use 8 bits or more.' }, specs), { key: null, message: 'Use 8 bits or more.' });
  assert.equal(labelledError(new Error('range_min is low'), specs).message, 'Range min is low');
  assert.equal(humanize('bandwidth_Bps'), 'Bandwidth Bps');
});

test('a whole count of the base unit prints as the integer', () => {
  assert.equal(formatValue(8, 'bit'), '8 bit');
  assert.equal(formatValue(4.5, 'bit'), '4.50 bit');
  assert.equal(formatValue(512, 'B'), '512 B');
  assert.equal(formatField(8, { type: 'integer', unit: 'bit' }), '8 bit');
});

test('a plain whole number is a count, printed exactly', () => {
  assert.equal(formatOutput(128, {}), '128');
  assert.equal(formatField(255, {}), '255');
  assert.equal(formatField(4294967296, {}), '4,294,967,296');
  assert.equal(formatOutput(0.5, {}), '0.5000');
  assert.equal(formatOutput(5.1e-6, {}), '5.100e-6');
});
