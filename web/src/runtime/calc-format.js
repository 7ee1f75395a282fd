// Formats one calculator result field for the <mlsys-calc> widgets and their build-time
// first view: {unit, decimals} as in {{calc}} (web/src/runtime/format.js); without a unit, a
// number with four significant digits, or text as it is. Pure.
import { formatQuantity, formatFixed } from './format.js';

export function formatOutput(value, { unit, decimals = 0 } = {}) {
  if (typeof value !== 'number') return String(value);
  if (unit) return formatQuantity(value, unit, decimals);
  if (value !== 0 && (Math.abs(value) < 1e-3 || Math.abs(value) >= 1e9)) return value.toExponential(3).replace('e+', 'e');
  return formatFixed(Number(value.toPrecision(4)), Math.max(0, 3 - Math.floor(Math.log10(Math.abs(value) || 1))));
}
