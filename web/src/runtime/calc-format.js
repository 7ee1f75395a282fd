// Formats one calculator result field for the <mlsys-calc> widgets and their build-time
// first view, by the rules of web/src/runtime/format.js: a unit of a family (times, bytes,
// FLOP, rates) scales to the step that reads best with three significant digits; another
// known unit ({{calc}}'s table: '%', 'int', FLOP/B) keeps its `decimals`; without a unit, a
// plain number; text as it is. Pure.
import { formatQuantity, formatValue, formatPlain, isScaledUnit } from './format.js';

export function formatOutput(value, { unit, decimals = 0 } = {}) {
  if (typeof value !== 'number') return String(value);
  if (unit && isScaledUnit(unit)) return formatValue(value, unit);
  if (unit) return formatQuantity(value, unit, decimals);
  return formatPlain(value);
}
