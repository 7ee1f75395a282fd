// Numbers with units for prose, axes, tables and tooltips. The same table serves the
// lesson build ({{calc ... UNIT:decimals}}) and the figures. Pure.

const UNITS = {
  FLOP: [1, 'FLOP'], GFLOP: [1e9, 'GFLOP'], TFLOP: [1e12, 'TFLOP'], PFLOP: [1e15, 'PFLOP'],
  'FLOP/s': [1, 'FLOP/s'], 'GFLOP/s': [1e9, 'GFLOP/s'], 'TFLOP/s': [1e12, 'TFLOP/s'], 'PFLOP/s': [1e15, 'PFLOP/s'],
  B: [1, 'B'], KB: [1e3, 'KB'], MB: [1e6, 'MB'], GB: [1e9, 'GB'], KiB: [1024, 'KiB'], MiB: [1024 ** 2, 'MiB'],
  GiB: [1024 ** 3, 'GiB'], 'GB/s': [1e9, 'GB/s'], 'TB/s': [1e12, 'TB/s'], 'FLOP/B': [1, 'FLOP/B'],
  s: [1, 's'], ms: [1e-3, 'ms'], us: [1e-6, 'µs'], ns: [1e-9, 'ns'], W: [1, 'W'],
  '%': [0.01, '%'], x: [1, ''], int: [1, ''],
};

export const unitNames = Object.keys(UNITS);

// Thousands separators, fixed decimals.
export function formatFixed(x, decimals) {
  return x.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
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
