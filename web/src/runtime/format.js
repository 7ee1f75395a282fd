// Numbers with units for prose, axes, tables and tooltips. The same table serves the
// lesson build ({{calc ... UNIT:decimals}}) and the figures. Pure.

const UNITS = {
  FLOP: [1, 'FLOP'], GFLOP: [1e9, 'GFLOP'], TFLOP: [1e12, 'TFLOP'], PFLOP: [1e15, 'PFLOP'],
  'FLOP/s': [1, 'FLOP/s'], 'GFLOP/s': [1e9, 'GFLOP/s'], 'TFLOP/s': [1e12, 'TFLOP/s'], 'PFLOP/s': [1e15, 'PFLOP/s'],
  B: [1, 'B'], KB: [1e3, 'KB'], MB: [1e6, 'MB'], GB: [1e9, 'GB'], KiB: [1024, 'KiB'], MiB: [1024 ** 2, 'MiB'],
  GiB: [1024 ** 3, 'GiB'], 'GB/s': [1e9, 'GB/s'], 'TB/s': [1e12, 'TB/s'], 'FLOP/B': [1, 'FLOP/B'],
  s: [1, 's'], ms: [1e-3, 'ms'], us: [1e-6, 'µs'], ns: [1e-9, 'ns'], W: [1, 'W'],
  days: [86400, 'days'], years: [365.25 * 86400, 'years'],
  '%': [0.01, '%'], x: [1, ''], int: [1, ''],
};

export const unitNames = Object.keys(UNITS);

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

// `value` (in SI base units) shown in `unit` with `decimals` digits: "989 TFLOP/s".
export function formatQuantity(value, unit, decimals = 0) {
  const u = UNITS[unit];
  if (!u) throw new Error(`unknown unit "${unit}"; known: ${unitNames.join(', ')}`);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  const [scale, label] = u;
  const text = formatFixed(unit === 'int' ? Math.round(value) : value / scale, unit === 'int' ? 0 : decimals);
  if (!label) return text;
  return unit === '%' ? `${text}%` : `${text} ${label}`;
}

// A compact SI rendering for axes and tables: 1.2e12 FLOP/s -> "1.2 TFLOP/s".
export function formatSI(value, unit = '', digits = 3) {
  if (!Number.isFinite(value)) return '–';
  if (value === 0) return `0${unit ? ` ${unit}` : ''}`;
  const prefixes = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k'], [1, ''], [1e-3, 'm'], [1e-6, 'µ'], [1e-9, 'n']];
  const a = Math.abs(value);
  const [scale, p] = prefixes.find(([s]) => a >= s) ?? prefixes[prefixes.length - 1];
  const n = Number((value / scale).toPrecision(digits));
  return `${n}${unit || p ? ' ' : ''}${p}${unit}`;
}

// Tick labels of a logarithmic axis: powers of ten only, plus 2 and 5 when the axis spans
// less than three decades; plain decimals below 1 when the axis has no unit.
export function logTick(unit = '') {
  return (v, i, ticks) => {
    const m = v / 10 ** Math.floor(Math.log10(v) + 1e-9);
    const few = ticks.length > 1 && ticks[ticks.length - 1].value / ticks[0].value < 1e3;
    const labelled = Math.abs(m - 1) < 1e-6 || (few && (Math.abs(m - 2) < 1e-6 || Math.abs(m - 5) < 1e-6));
    if (!labelled) return '';
    return !unit && v < 1 ? String(Number(v.toPrecision(1))) : formatSI(v, unit);
  };
}
