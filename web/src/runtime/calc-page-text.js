// The texts of the /calculators/ page that are worth testing alone: the permalink hash
// ("#NAME?key=value&..."), the equivalent `mlsys calc` command line, and a result field
// formatted with its unit. Pure: no DOM.
import { NONE, formatDecimal, formatPlain, formatValue, isScaledUnit } from './format.js';
import { sameValue, valueText } from './params.js';

// "#roofline?flops=1e%2B12" -> {name: 'roofline', state: {flops: '1e+12'}}. URLSearchParams
// decodes the query as written ("+" in a number arrives encoded as %2B).
export function parseHash(hash) {
  const text = String(hash ?? '').replace(/^#/, '');
  const cut = text.indexOf('?');
  const name = decodeURIComponent(cut < 0 ? text : text.slice(0, cut));
  const state = cut < 0 ? {} : Object.fromEntries(new URLSearchParams(text.slice(cut + 1)));
  return { name, state };
}

// The hash of a calculator with the values that differ from its starting ones.
export function encodeHash(name, params, start) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && !sameValue(v, start[k])) q.set(k, valueText(v));
  const query = q.toString();
  return `#${encodeURIComponent(name)}${query ? `?${query}` : ''}`;
}

// The input the engine is given: the values set (an optional field left empty is omitted),
// without the ones equal to the engine's own default (the engine fills those in).
export function engineInput(params, fields) {
  const byName = new Map(fields.map((f) => [f.name, f]));
  const input = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue;
    if (sameValue(byName.get(k)?.default, v)) continue;
    input[k] = v;
  }
  return input;
}

// A POSIX shell line: the JSON in single quotes (a quote inside becomes '\'').
export function commandLine(name, input) {
  const json = JSON.stringify(input);
  return `mlsys calc ${name} '${json.replaceAll("'", "'\\''")}'`;
}

// One output field {type, unit} for reading: numbers by the rules of format.js (a unit of a
// family scaled: "298 µs", "1.01 s", "128 TFLOP/s"; integers exact, beyond 2^53 too),
// booleans as yes/no, lists and objects summarised (the whole value is in the JSON below).
export function formatField(value, { type, unit } = {}) {
  if (value === null || value === undefined) return NONE;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  // A short list or object of numbers (a shape, strides, gradients by variable) is shown whole.
  const numbers = (xs) => xs.length <= 8 && xs.every((x) => typeof x === 'number');
  if (Array.isArray(value)) return numbers(value) ? `[${value.map((x) => formatField(x, { unit })).join(', ')}]` : `list of ${formatDecimal(value.length, 0)}`;
  if (typeof value === 'object') {
    const entries = Object.entries(value);
    return numbers(entries.map(([, x]) => x)) ? entries.map(([k, x]) => `${k}: ${formatField(x, { unit })}`).join(' · ') : `${entries.length} fields`;
  }
  if (typeof value !== 'number') return String(value);
  if (!Number.isFinite(value)) return NONE;
  if (unit && isScaledUnit(unit)) return formatValue(value, unit);
  const u = unit ? ` ${unit}` : '';
  if (type === 'integer' && Number.isInteger(value)) return `${formatDecimal(value, 0)}${u}`;
  return `${formatPlain(value)}${u}`;
}
