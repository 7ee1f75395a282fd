// One formatter for prose, figures, widgets and the calculators page (web/src/runtime/format.js):
// units scale to the step that reads best, integers stay exact beyond 2^53, nothing reads
// "-0", "NaN" or "Infinity"; engine messages name the controls' labels (field-labels.js).
import test from 'node:test';
import assert from 'node:assert/strict';
import { formatValue, formatSI, formatDecimal, formatSignificant, formatQuantity, NONE } from '../../web/src/runtime/format.js';
import { formatOutput } from '../../web/src/runtime/calc-format.js';
import { formatField } from '../../web/src/runtime/calc-page-text.js';
import { labelledError, humanize } from '../../web/src/runtime/field-labels.js';
import { cellText, columnUnit, columnFormat, tableText } from '../../web/src/runtime/table-text.js';

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

test('a data table: counts exact, measurements with four significant digits, e-notation with the unit from a million', () => {
  assert.equal(columnUnit('Budget C (FLOP)'), 'FLOP');
  assert.equal(columnUnit('Bandwidth (B/s)'), 'B/s');
  assert.equal(columnUnit('Tokens/s (all chips)'), '');
  assert.equal(columnUnit('N (params)'), '');
  assert.equal(columnUnit('Accelerator'), '');
  // A column of whole numbers a double holds exactly is a column of counts.
  assert.deepEqual(columnFormat({ columns: ['N (params)'], rows: [[6738415616], [Number.MAX_SAFE_INTEGER], ['—']] }, 0), { unit: '', counts: true });
  assert.deepEqual(columnFormat({ columns: ['C (FLOP)'], rows: [[1e15], [2 ** 53]] }, 0), { unit: 'FLOP', counts: false });
  assert.deepEqual(columnFormat({ columns: ['p'], rows: [[1], [0.5]] }, 0), { unit: '', counts: false });
  const counts = { counts: true };
  assert.equal(cellText(6738415616, counts), '6,738,415,616');
  assert.equal(cellText(Number.MAX_SAFE_INTEGER, counts), '9,007,199,254,740,991');
  // Beyond 2^53 a double is no count: not "313,999,999,999,999,995,805,696".
  assert.equal(cellText(3.14e23, { unit: 'FLOP', counts: true }), '3.14e23 FLOP');
  assert.equal(cellText(1e25, { unit: 'FLOP' }), '1e25 FLOP');
  assert.equal(cellText(-2.5e30, {}), '-2.5e30');
  assert.equal(cellText(5.1e-6, { unit: 's' }), '5.1e-6 s');
  // Measurements: four significant digits, trailing zeros kept, never "-0".
  assert.equal(cellText(0.30000000000000004, {}), '0.3000');
  assert.equal(cellText(0.0021653, {}), '0.002165');
  assert.equal(cellText(65536, {}), '65,536');
  assert.equal(cellText(20, {}), '20.00');
  assert.equal(cellText(-0, {}), '0');
  assert.equal(cellText(NaN, {}), NONE);
  assert.equal(cellText(-Infinity, counts), NONE);
  assert.equal(cellText(null, {}), NONE);
  assert.equal(cellText('bf16', {}), 'bf16');
  assert.deepEqual(tableText({ columns: ['C (FLOP)', 'N', 'Model'], rows: [[1e24, 7e9, 'A'], [5e21, 13e9, 'B']] }),
    [['1e24 FLOP', '7,000,000,000', 'A'], ['5e21 FLOP', '13,000,000,000', 'B']]);
  assert.deepEqual(tableText({ columns: ['MSE'], rows: [[0.002165], [4669660805287537], [3.007e20]] }), [['0.002165'], ['4.67e15'], ['3.007e20']]);
});

test('significant digits beyond 2^53: the digits a double holds, then zeros, never its binary expansion', () => {
  assert.equal(formatSignificant(3.14e23, 3), '314,000,000,000,000,000,000,000');
  assert.equal(formatValue(-1e25, 'tokens'), '-10,000,000,000,000,000,000,000,000 tokens');
  assert.equal(formatSignificant(2 ** 53, 3), '9,007,199,254,740,992');
  assert.equal(formatSignificant(12345.6, 3), '12,346');
});
