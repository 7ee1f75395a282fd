// Numbers with units for prose, axes, tables and tooltips. The same table serves the
// lesson build ({{calc ... UNIT:decimals}}) and the figures. Pure.

const UNITS = {
  FLOP: [1, 'FLOP'], GFLOP: [1e9, 'GFLOP'], TFLOP: [1e12, 'TFLOP'], PFLOP: [1e15, 'PFLOP'],
  'FLOP/s': [1, 'FLOP/s'], 'GFLOP/s': [1e9, 'GFLOP/s'], 'TFLOP/s': [1e12, 'TFLOP/s'], 'PFLOP/s': [1e15, 'PFLOP/s'],
  B: [1, 'B'], KB: [1e3, 'KB'], MB: [1e6, 'MB'], GB: [1e9, 'GB'], KiB: [1024, 'KiB'], MiB: [1024 ** 2, 'MiB'],
  GiB: [1024 ** 3, 'GiB'], 'GB/s': [1e9, 'GB/s'], 'TB/s': [1e12, 'TB/s'], 'FLOP/B': [1, 'FLOP/B'],
  s: [1, 's'], ms: [1e-3, 'ms'], us: [1e-6, 'µs'], ns: [1e-9, 'ns'], W: [1, 'W'],
  days: [86400, 'days'], years: [365.25 * 86400, 'years'],
  '%': [0.01, '%'], x: [1, ''], int: [1, ''], sci: [1, ''],
  pt: [0.01, 'points'],  // percentage points: a difference of percentages, from a fraction (0.022 -> "2.2 points")
};

const SUPERSCRIPT = { '-': '\u207B', 0: '\u2070', 1: '\u00B9', 2: '\u00B2', 3: '\u00B3', 4: '\u2074', 5: '\u2075', 6: '\u2076', 7: '\u2077', 8: '\u2078', 9: '\u2079' };

// Scientific notation as prose writes it, `decimals` digits after the point: 3.0074e20 with
// 1 -> "3.0 × 10²⁰" (a measured value far beyond 2^53, whose full digits would be noise).
export function formatScientific(x, decimals = 1) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return NONE;
  const [mantissa, exponent] = x.toExponential(decimals).split('e');
  const power = String(Number(exponent)).replace(/./g, (c) => SUPERSCRIPT[c]);
  return exponent === '+0' ? mantissa : `${mantissa} \u00D7 10${power}`;
}

export const unitNames = Object.keys(UNITS);

// What formatQuantity writes after the number for `unit` ('' for 'x', 'int' and 'sci', which print
// none; undefined for a unit it does not know).
export const quantityLabel = (unit) => UNITS[unit]?.[1];

// Thousands separators, fixed decimals: the text of x.toLocaleString('en-US') with that many
// fraction digits, without the cost of the browser's first Intl call (tens of milliseconds,
// paid by a page's first figure). Like Intl, it rounds the shortest decimal form of x that
// reads back as x (1.005 -> "1.01"), ties away from zero.
export function formatFixed(x, decimals) {
  if (!Number.isFinite(x)) return x.toLocaleString('en-US');
  const [mantissa, exponent] = Math.abs(x).toExponential().split('e');
  let digits = mantissa.replace('.', '');
  let point = Number(exponent) + 1; // digits before the decimal point
  if (point < 1) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  }
  const end = point + decimals;
  let kept = digits.padEnd(end, '0').slice(0, end);
  if (digits[end] >= '5') kept = (BigInt(kept) + 1n).toString().padStart(end, '0');
  const whole = kept.slice(0, kept.length - decimals).replace(/^0+(?=\d)/, '');
  const fraction = kept.slice(kept.length - decimals);
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  return `${sign}${whole.replace(/\B(?=(\d{3})+$)/g, ',')}${decimals > 0 ? `.${fraction}` : ''}`;
}

// What a reader sees where there is no number to show (NaN, Infinity, a missing field).
export const NONE = '—';

// formatFixed for readers: integers beyond 2^53 printed exactly from their binary value
// (2 ** 58 is 288,230,376,151,711,744; formatFixed, like Intl, prints the shortest decimal
// form, ...740), and never "-0" (a tiny negative that rounds to zero reads "0"). NONE for
// NaN and Infinity.
export function formatDecimal(x, decimals = 0) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return NONE;
  if (Number.isInteger(x) && Math.abs(x) > Number.MAX_SAFE_INTEGER) {
    const whole = BigInt(x).toString().replace(/\B(?=(\d{3})+$)/g, ',');
    return decimals > 0 ? `${whole}.${'0'.repeat(decimals)}` : whole;
  }
  const text = formatFixed(x, decimals);
  return /^-[0.,]*$/.test(text) ? text.slice(1) : text;
}

// `digits` significant digits with separators, trailing zeros kept: 1.010713 -> "1.01",
// 25 -> "25.0", 1157.3 -> "1,157" (digits left of the point are never dropped). Beyond 2^53
// the digits a double does not hold are zeros: 3.14e23 -> "314,000,000,000,000,000,000,000",
// not its binary expansion "313,999,999,999,999,995,805,696".
export function formatSignificant(x, digits = 3) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return NONE;
  if (Math.abs(x) > Number.MAX_SAFE_INTEGER) {
    const [mantissa, exponent] = Math.abs(x).toExponential().split('e+');
    const whole = BigInt(mantissa.replace('.', '').slice(0, Number(exponent) + 1).padEnd(Number(exponent) + 1, '0'));
    return `${x < 0 ? '-' : ''}${whole.toString().replace(/\B(?=(\d{3})+$)/g, ',')}`;
  }
  const r = Math.abs(x) >= 10 ** digits ? Math.round(x) : Number(x.toPrecision(digits));
  const decimals = r === 0 ? 0 : Math.max(0, digits - 1 - Math.floor(Math.log10(Math.abs(r))));
  return formatDecimal(r, decimals);
}

// The unit families. A value is given in the family's base unit (seconds, bytes, FLOP, ...)
// and shown in the step that keeps it readable: 1.010713 s is "1.01 s", not "1,010,713.6 µs".
const TIME = [[86400, 'days'], [3600, 'h'], [60, 'min'], [1, 's'], [1e-3, 'ms'], [1e-6, 'µs'], [1e-9, 'ns']];
const DECIMAL_BYTES = [[1e15, 'PB'], [1e12, 'TB'], [1e9, 'GB'], [1e6, 'MB'], [1e3, 'kB'], [1, 'B']];
const BINARY_BYTES = [[2 ** 50, 'PiB'], [2 ** 40, 'TiB'], [2 ** 30, 'GiB'], [2 ** 20, 'MiB'], [2 ** 10, 'KiB'], [1, 'B']];
const PREFIXES = [[1e18, 'E'], [1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k'], [1, ''], [1e-3, 'm'], [1e-6, 'µ'], [1e-9, 'n']];
const prefixed = (base) => PREFIXES.map(([scale, p]) => [scale, `${p}${base}`]);

// A unit name (as a figure, a calculator output or a lesson writes it) -> the steps of its
// family. Bytes stay decimal (kB, MB, GB) or binary (KiB, MiB, GiB) as the caller wrote them.
function familyOf(unit) {
  if (['s', 'ms', 'us', 'µs', 'ns', 'min', 'h', 'days'].includes(unit)) return TIME;
  if (['KiB', 'MiB', 'GiB', 'TiB', 'PiB'].includes(unit)) return BINARY_BYTES;
  if (['B', 'kB', 'KB', 'MB', 'GB', 'TB', 'PB'].includes(unit)) return DECIMAL_BYTES;
  for (const base of ['FLOP/s', 'FLOP', 'B/s', 'W', 'Hz', 'bit']) {
    if (unit === base || (unit.endsWith(base) && 'kMGTPE'.includes(unit.slice(0, -base.length)) && unit.length === base.length + 1)) {
      return prefixed(base);
    }
  }
  return null;
}

export const isScaledUnit = (unit) => Boolean(unit) && familyOf(unit) !== null;

// Every symbol this file writes after a number, or takes as a unit name: the {{calc}} table's
// names and labels and each step of the scaled families (µs and us, kB and KB, TFLOP/s, PiB...).
export function unitSymbols() {
  const families = [TIME, DECIMAL_BYTES, BINARY_BYTES, ...['FLOP/s', 'FLOP', 'B/s', 'W', 'Hz', 'bit'].map(prefixed)];
  const names = [...Object.entries(UNITS).flatMap(([name, [, label]]) => [name, label]), ...families.flat().map(([, label]) => label)];
  return [...new Set(names.filter((n) => n && !['x', 'int', 'sci'].includes(n)))];
}

// `value` in its family's base unit, in the step where it reads best, with `digits`
// significant digits (trim: without trailing zeros, for axes). A unit of no family follows
// the number as it is.
function scaled(value, unit, digits, trim) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return NONE;
  const steps = familyOf(unit);
  const number = (x) => (trim ? formatDecimal(Number(x.toPrecision(digits)), 20).replace(/\.?0+$/, '') : formatSignificant(x, digits));
  if (!steps) return `${number(value)}${unit ? ` ${unit}` : ''}`;
  if (value === 0) return `0 ${steps.find(([s]) => s === 1)[1]}`.trimEnd();
  // The first step in which the rounded number is at least 1: 0.9997 s reads "1.00 s", not
  // "1,000 ms".
  const [scale, label] = steps.find(([s]) => Math.abs(Number((value / s).toPrecision(digits))) >= 1) ?? steps[steps.length - 1];
  // A whole count of the base unit is exact: "8 bit", "512 B", not "8.00 bit".
  const text = scale === 1 && Number.isInteger(value) ? formatDecimal(value, 0) : number(value / scale);
  return `${text}${label ? ` ${label}` : ''}`;
}

// Reader text of a measured quantity: times in s / ms / µs / ns (min, h, days when long),
// bytes, FLOP, FLOP/s and B/s with their prefixes, `digits` significant digits:
// formatValue(1.010713, 's') -> "1.01 s", formatValue(2 ** 30, 'GiB') -> "1.00 GiB".
// '%' takes a fraction (0.123 -> "12.3%"), 'int' an integer printed exactly.
export function formatValue(value, unit = '', digits = 3) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return NONE;
  if (unit === 'int') return formatDecimal(Math.round(value), 0);
  if (unit === '%') return `${formatSignificant(100 * value, digits)}%`;
  return scaled(value, unit, digits, false);
}

// A number without a unit, four significant digits: 0.00784313725 -> "0.007843"; very small
// or very large ones in e-notation ("5.100e-6"); whole numbers exact below 1e15.
export function formatPlain(value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return NONE;
  if (value === 0) return '0';
  // A whole number is a count: exact ("128", not "128.0"), up to 1e15.
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return formatDecimal(value, 0);
  if (Math.abs(value) < 1e-3 || Math.abs(value) >= 1e9) return value.toExponential(3).replace('e+', 'e');
  return formatDecimal(Number(value.toPrecision(4)), Math.max(0, 3 - Math.floor(Math.log10(Math.abs(value) || 1))));
}

// A short number for a figure's labels: three significant digits, trailing zeros dropped,
// e-notation below 1e-3 and from 1e5 ("0.00392", "5.13e-6").
export function formatShort(x) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return NONE;
  if (x === 0 || (Math.abs(x) >= 1e-3 && Math.abs(x) < 1e5)) return String(Number(x.toPrecision(3)));
  return x.toExponential(2);
}

// `value` (in SI base units) shown in `unit` with `decimals` digits: "989 TFLOP/s". The
// lessons' {{calc}} numbers: the unit is the author's choice, fixed.
export function formatQuantity(value, unit, decimals = 0) {
  const u = UNITS[unit];
  if (!u) throw new Error(`unknown unit "${unit}"; known: ${unitNames.join(', ')}`);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  const [scale, label] = u;
  if (unit === 'sci') return formatScientific(value, decimals);
  const text = formatDecimal(unit === 'int' ? Math.round(value) : value / scale, unit === 'int' ? 0 : decimals);
  if (!label) return text;
  return unit === '%' ? `${text}%` : `${text} ${label}`;
}

// A compact rendering for axes and legends, trailing zeros dropped: 1.2e12 FLOP/s ->
// "1.2 TFLOP/s", 5400 s -> "1.5 h". Without a unit, an SI prefix alone ("1.2 k").
export function formatSI(value, unit = '', digits = 3) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return NONE;
  if (!unit) {
    if (value === 0) return '0';
    const [scale, p] = PREFIXES.find(([s]) => Math.abs(Number((value / s).toPrecision(digits))) >= 1) ?? PREFIXES[PREFIXES.length - 1];
    return `${String(Number((value / scale).toPrecision(digits)))}${p ? ` ${p}` : ''}`;
  }
  return scaled(value, unit, digits, true);
}

// A count as papers write parameters, tokens and GPU-hours: "25.2K", "1.72M", "6.74B", "15T".
export function formatCount(x, digits = 3) {
  return formatSI(x, '', digits).replace(/ k$/, 'K').replace(/ G$/, 'B').replace(/ ([MT])$/, '$1');
}

// Which ticks of a logarithmic axis carry a label: powers of ten, plus 2 and 5 when the axis
// spans less than three decades. Returns the tick's mantissa and exponent, or null.
function labelledTick(v, ticks) {
  const e = Math.floor(Math.log10(v) + 1e-9);
  const m = v / 10 ** e;
  const few = ticks.length > 1 && ticks[ticks.length - 1].value / ticks[0].value < 1e3;
  const labelled = Math.abs(m - 1) < 1e-6 || (few && (Math.abs(m - 2) < 1e-6 || Math.abs(m - 5) < 1e-6));
  return labelled ? { m: Math.round(m), e } : null;
}

// Tick labels of a logarithmic axis (see labelledTick); plain decimals below 1 when the axis
// has no unit.
export function logTick(unit = '') {
  return (v, i, ticks) => {
    if (!labelledTick(v, ticks)) return '';
    return !unit && v < 1 ? String(Number(v.toPrecision(1))) : formatSI(v, unit);
  };
}

// The same ticks in exponent notation (1e21, 2e21), as the prose writes training budgets in
// FLOP: an axis from 1e18 to 1e27 FLOP has no readable SI prefixes.
export function exponentTick(v, i, ticks) {
  const t = labelledTick(v, ticks);
  return t ? `${t.m}e${t.e}` : '';
}
