// The engine rejects input with a message naming its internal fields ("range_max must be
// greater than range_min", "Field 'peak_flops' ..."); a reader knows the controls by their
// labels. One helper for figures, calculator widgets and the /calculators/ page: each names
// its controls (spec.key, and spec.from[1], the engine field a control feeds), and the
// message comes back with those labels. Pure.

// "range_max" -> "Range max": the label a schema-generated control would carry.
export function humanize(name) {
  const words = String(name).replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

// [[name, {key, label}]] for every name a control answers to, longest first (so that
// "range_max" is replaced before a shorter name inside it could be).
function namesOf(specs, labelOf) {
  const names = new Map();
  for (const s of specs) {
    const entry = { key: s.key, label: labelOf(s) };
    for (const n of [s.key, s.from?.[1]]) if (n && !names.has(n)) names.set(n, entry);
  }
  return [...names].sort(([a], [b]) => b.length - a.length);
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// {key, message}: the control the engine's `field` belongs to (null when none does) and the
// message with every field name the controls know replaced by its label. A name is replaced
// where it is quoted (`x`, 'x', "x") or reads as an identifier (has "_" or a digit), so that a
// field called "bits" does not rewrite the English word in "8 bits".
export function labelledError(err, specs, labelOf = (s) => s.label ?? humanize(s.key)) {
  const field = err?.field ?? '';
  const names = namesOf(specs ?? [], labelOf);
  const byName = new Map(names);
  let message = String(err?.message ?? err ?? '');
  for (const [name, { label }] of names) {
    const quoted = new RegExp(`[\`'"]${escapeRe(name)}[\`'"]`, 'g');
    message = message.replace(quoted, label);
    if (/[_0-9]/.test(name)) message = message.replace(new RegExp(`(?<![\\w.])${escapeRe(name)}(?![\\w])`, 'g'), label);
  }
  if (message) message = message.charAt(0).toUpperCase() + message.slice(1);
  return { key: byName.get(field)?.key ?? null, message };
}
