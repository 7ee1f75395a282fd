// The texts of the /calculators/ page that are worth testing alone: the permalink hash
// ("#NAME?key=value&..."), the equivalent `mlsys calc` command line, and a result field
// formatted with its unit. Pure: no DOM.
import { formatOutput } from './calc-format.js';
import { formatFixed, formatSI } from './format.js';

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
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== start[k]) q.set(k, String(v));
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
    if (byName.get(k)?.default === v) continue;
    input[k] = v;
  }
  return input;
}

// A POSIX shell line: the JSON in single quotes (a quote inside becomes '\'').
export function commandLine(name, input) {
  const json = JSON.stringify(input);
  return `mlsys calc ${name} '${json.replaceAll("'", "'\\''")}'`;
}

// Units with SI prefixes read better scaled (1.28e14 FLOP/s -> "128 TFLOP/s").
const SI_UNITS = new Set(['FLOP', 'FLOP/s', 'B', 'B/s', 'W', 'Hz', 'bit']);

// One output field {type, unit} for reading: numbers with their unit, integers exact,
// booleans as yes/no, lists and objects summarised (the whole value is in the JSON below).
export function formatField(value, { type, unit } = {}) {
  if (value === null || value === undefined) return '–';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return `list of ${formatFixed(value.length, 0)}`;
  if (typeof value === 'object') return `${Object.keys(value).length} fields`;
  if (typeof value !== 'number') return String(value);
  if (!Number.isFinite(value)) return String(value);
  const u = unit ? ` ${unit}` : '';
  if (unit && SI_UNITS.has(unit)) return formatSI(value, unit, 4);
  // Times below a second in ms, µs or ns ("298.5 µs", not "2.985e-4 s"); longer ones stay in s.
  if (unit === 's' && value !== 0 && Math.abs(value) < 1) return formatSI(value, 's', 4);
  if (type === 'integer' && Number.isInteger(value) && Math.abs(value) < 1e15) return `${formatFixed(value, 0)}${u}`;
  return `${formatOutput(value)}${u}`;
}
