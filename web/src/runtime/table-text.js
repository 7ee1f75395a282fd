// The text of a figure's data table ("Show data" and the screen-reader table), column by
// column. A column whose numbers are all whole and held exactly by a double (up to 2^53) is a
// column of counts: printed whole, with separators ("6,738,415,616"). Any other column holds
// measurements: four significant digits, "0.002165", "12.35", "65,536", and from a million up
// (or below 0.001) in e-notation with the unit the header names, as the axes of the scaling
// figures print budgets ("3.14e23 FLOP", not the float's binary expansion
// "313,999,999,999,999,995,805,696"). "—" for NaN, Infinity or no value (null). Pure.
import { NONE, formatDecimal, formatSignificant, unitSymbols } from './format.js';

const SYMBOLS = new Set(unitSymbols());

// The unit a column's header names in its last parentheses: "Budget C (FLOP)" -> "FLOP";
// '' when there is none or it is not a unit ("Tokens/s (all chips)", "N (params)").
export function columnUnit(header) {
  const m = /\(([^()]+)\)\s*$/.exec(String(header ?? ''));
  const unit = m ? m[1].trim() : '';
  return SYMBOLS.has(unit) ? unit : '';
}

// How column j of a table {columns, rows} prints: {unit, counts}.
export function columnFormat(table, j) {
  const numbers = table.rows.map((r) => r[j]).filter((v) => typeof v === 'number' && Number.isFinite(v));
  return { unit: columnUnit(table.columns[j]), counts: numbers.every(Number.isSafeInteger) };
}

// Four significant digits in e-notation, trailing zeros dropped: 3.14e23 -> "3.14e23".
const exponent = (v) => v.toExponential(3).replace(/\.?0+e/, 'e').replace('e+', 'e');

export function cellText(v, { unit = '', counts = false } = {}) {
  if (v === null || v === undefined) return NONE;  // a cell that has no value in this row
  if (typeof v !== 'number') return String(v);
  if (!Number.isFinite(v)) return NONE;
  if (counts && Number.isSafeInteger(v)) return formatDecimal(v, 0);
  const size = Math.abs(v);
  if (size === 0) return '0';
  if (size >= 1e-3 && size < 1e6) return formatSignificant(v, 4);
  return `${exponent(v)}${unit ? ` ${unit}` : ''}`;
}

// Every cell of a table {columns, rows} as the reader sees it.
export function tableText(table) {
  const formats = table.columns.map((_, j) => columnFormat(table, j));
  return table.rows.map((row) => row.map((v, j) => cellText(v, formats[j] ?? {})));
}
