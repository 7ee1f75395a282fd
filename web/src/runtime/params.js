// A figure's parameter list resolved against the engine's schemas: a param that names a
// calculator field ({from: [calc, field]}) takes its type, unit, range, options and default
// from the engine; the figure may narrow them. Also parses and validates outside state
// (URL hash, embed attributes) so that nothing unchecked reaches a figure. Pure: no DOM.

export function resolveParams(figure, engine) {
  return figure.params.map((p) => {
    let base = {};
    if (p.from) {
      const [calcName, fieldName] = p.from;
      const field = engine.schema(calcName).fields.find((f) => f.name === fieldName);
      if (!field) throw new Error(`${figure.id}: ${calcName} has no field ${fieldName}`);
      base = {
        type: field.options ? 'select' : field.type,
        unit: field.unit,
        min: field.min,
        max: field.max,
        options: field.options,
        default: field.default,
        description: field.description,
      };
      // A list field (shapes, points): the bounds are its items'.
      if (field.type === 'array') Object.assign(base, { min: field.items?.min, max: field.items?.max, items: field.items?.type, item_options: field.items?.options, min_items: field.min_items, max_items: field.max_items });
    }
    const spec = { ...base, ...stripUndefined(p) };
    if (p.samples) {
      spec.samples = p.samples.map((x) => (isNamedSample(x) ? x.value : x));
      spec.sampleLabels = p.samples.map((x) => (isNamedSample(x) ? x.label : null));
    }
    if (spec.type === 'select') {
      // Accelerator ids are labelled with their full names.
      const names = new Map(p.from?.[1] === 'hardware' ? engine.acceleratorNames() : []);
      spec.options = (p.options ?? base.options ?? [])
        .map((o) => (typeof o === 'string' ? { value: o, label: names.get(o) ?? o } : o));
    }
    return spec;
  });
}

// A text box's samples (other values for a list, an object or an expression) are written in a
// figure as values, or as {label, value} for one the reader chooses by a name (the sample
// select of controls.js): "Accented words, emoji and Chinese" rather than the text itself.
// resolveParams keeps the values in `samples` (the build's plan and the tests try each) and the
// names in `sampleLabels` (null: shown as its text). No control value is an object of exactly a
// string `label` and a `value` (an object control holds numbers), so the two forms never clash.
export const isNamedSample = (x) => Boolean(x) && typeof x === 'object' && !Array.isArray(x)
  && typeof x.label === 'string' && Object.hasOwn(x, 'value') && Object.keys(x).length === 2;

// The choices of a text box's sample select: its default first, then each sample, equal values
// once (the first name given wins); [] when the spec names no samples.
// Whether a control is shown at these parameter values: a spec with `when: {key: [values]}`
// only while each named param has one of its values (controls.js; the page's placeholder).
export function shownAt(spec, params) {
  return !spec.when || Object.entries(spec.when).every(([k, values]) => values.includes(params[k]));
}

export function sampleChoices(spec) {
  if (!Array.isArray(spec.samples) || spec.samples.length === 0) return [];
  const all = [{ value: spec.default, label: null }, ...spec.samples.map((value, i) => ({ value, label: spec.sampleLabels?.[i] ?? null }))];
  const out = [];
  for (const c of all) {
    if (c.value === undefined) continue;
    const same = out.find((o) => sameValue(o.value, c.value));
    if (!same) out.push({ ...c });
    else same.label ??= c.label;
  }
  return out;
}

function stripUndefined(obj) {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

export function defaults(specs) {
  return Object.fromEntries(specs.map((s) => [s.key, s.default]));
}

// Checks one raw value (string from a URL, or any JSON value) against its spec. Returns
// {value} or {error} with a sentence; never throws.
export function coerce(spec, raw) {
  const label = spec.label ?? spec.key;
  if (spec.type === 'select') {
    const found = spec.options.find((o) => String(o.value) === String(raw));
    return found ? { value: found.value } : { error: `${label}: "${clip(raw)}" is not one of the choices.` };
  }
  if (spec.type === 'boolean') {
    if (raw === true || raw === 'true' || raw === '1') return { value: true };
    if (raw === false || raw === 'false' || raw === '0') return { value: false };
    return { error: `${label}: "${clip(raw)}" must be true or false.` };
  }
  if (spec.type === 'array') return coerceList(spec, raw, label);
  if (spec.type === 'string') return { value: String(raw ?? '') }; // free text (an expression): the engine checks it
  if (spec.type === 'object') return coerceObject(raw, label);
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  const x = text === '' ? NaN : Number(text);
  if (!Number.isFinite(x)) return { error: `${label}: "${clip(raw)}" is not a number.` };
  if (spec.type === 'integer' && !Number.isInteger(x)) return { error: `${label} must be a whole number.` };
  if (spec.min !== undefined && (spec.min_exclusive ? x <= spec.min : x < spec.min)) {
    return { error: `${label} must be ${spec.min_exclusive ? 'greater than' : 'at least'} ${spec.min}${unitText(spec)}.` };
  }
  if (spec.max !== undefined && x > spec.max) return { error: `${label} must be at most ${spec.max}${unitText(spec)}.` };
  return { value: x };
}

// A list: a JSON array, or text such as "2, 3, 4" or "[2, 3, 4]" (a control, a permalink).
// A list of names (items 'string'): "h100-sxm, b200", each one of item_options when given.
function coerceList(spec, raw, label) {
  const text = Array.isArray(raw) ? null : String(raw ?? '').trim().replace(/^\[|\]$/g, '').trim();
  const items = Array.isArray(raw) ? raw : text === '' ? [] : text.split(',').map((t) => t.trim());
  const whole = spec.items === 'integer';
  const names = spec.items === 'string';
  const count = spec.min_items === spec.max_items ? `${spec.max_items}` : `${spec.min_items ?? 0} to ${spec.max_items}`;
  const kind = names ? 'names' : whole ? 'whole numbers' : 'numbers';
  const expected = `${label} must be a list of ${count} ${kind}, such as ${JSON.stringify(spec.default ?? [])}`;
  if (spec.max_items !== undefined && (items.length < (spec.min_items ?? 0) || items.length > spec.max_items)) {
    return { error: `${expected}; it has ${items.length} items.` };
  }
  if (names) {
    const value = items.map((item) => String(item ?? '').trim());
    const i = value.findIndex((v) => v === '' || (spec.item_options && !spec.item_options.includes(v)));
    if (i >= 0) return { error: `${label}: item ${i + 1}, "${clip(value[i])}", is not ${value[i] === '' ? 'a name' : `one of ${spec.item_options.join(', ')}`}.` };
    return { value };
  }
  const value = [];
  for (const [i, item] of items.entries()) {
    const x = item === '' || item === null ? NaN : Number(item);
    if (!Number.isFinite(x)) return { error: `${label}: item ${i + 1}, "${clip(item)}", is not a number.` };
    if (whole && !Number.isInteger(x)) return { error: `${label}: item ${i + 1} must be a whole number.` };
    if (spec.min !== undefined && x < spec.min) return { error: `${label}: item ${i + 1} must be at least ${spec.min}.` };
    if (spec.max !== undefined && x > spec.max) return { error: `${label}: item ${i + 1} must be at most ${spec.max}.` };
    value.push(x);
  }
  return { value };
}

// An object of numbers ({"x": 2}): a JSON object, or its text.
function coerceObject(raw, label) {
  let v = raw;
  if (typeof raw === 'string') {
    try { v = JSON.parse(raw); } catch { v = null; }
  }
  if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.values(v).every((x) => typeof x === 'number' && Number.isFinite(x))) {
    return { error: `${label}: "${clip(raw)}" must name numbers, such as {"x": 2, "y": 3}.` };
  }
  return { value: v };
}

// A setting as text (a permalink, a text box): lists as "2,3,4", objects as JSON.
export const valueText = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? JSON.stringify(v) : String(v));

// Equal settings: lists and objects by their contents.
export const sameValue = (a, b) => (a && b && typeof a === 'object' && typeof b === 'object' ? JSON.stringify(a) === JSON.stringify(b) : a === b);

function unitText(spec) {
  return spec.unit ? ` ${spec.unit}` : '';
}

function clip(raw) {
  const s = String(raw);
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

// Applies outside state {key: raw} over `current`: returns {params, errors}. Unknown keys
// are reported, not applied.
export function applyState(specs, current, state) {
  const params = { ...current };
  const errors = [];
  for (const [key, raw] of Object.entries(state)) {
    const spec = specs.find((s) => s.key === key);
    if (!spec) {
      errors.push(`Unknown setting "${clip(key)}" ignored.`);
      continue;
    }
    const r = coerce(spec, raw);
    if (r.error) errors.push(r.error);
    else params[key] = r.value;
  }
  return { params, errors };
}

// State <-> URL hash fragment "figure-id:key=value&key=value".
export function encodeState(figureId, specs, params) {
  const q = new URLSearchParams();
  for (const s of specs) if (!sameValue(params[s.key], s.default)) q.set(s.key, valueText(params[s.key]));
  const query = q.toString();
  return query ? `${figureId}:${query}` : figureId;
}

// The settings are read from the hash as written (URLSearchParams decodes them: "1e%2B300" is
// 1e+300, where decoding first would turn its "+" into a space); a hash whose id itself is
// percent-encoded is decoded once. Never throws: a malformed escape ("%E0%A4%A") leaves the
// hash as written, so the figure starts and reports the bad values like any other rejected state.
export function decodeHash(hash, figureId) {
  const raw = String(hash).replace(/^#/, '');
  const names = (h) => h === figureId || h.startsWith(`${figureId}:`);
  let h = raw;
  if (!names(raw)) {
    try { h = decodeURIComponent(raw); } catch { /* kept as written */ }
    if (!names(h)) return null;
  }
  return Object.fromEntries(new URLSearchParams(h.slice(figureId.length + 1)));
}
