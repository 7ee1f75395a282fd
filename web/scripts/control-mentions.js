// Instructions that name a figure's controls, checked against the figure: a caption or a
// lesson paragraph that tells the reader to "choose the accented sample" of a figure that has
// no such sample asks for what the figure cannot do (the site build fails, naming it).
//
// Design. The check is built for few false alarms: it reads only instructions written in one
// of four recognisable forms, and a sentence in none of them is not checked at all. An
// instruction is an imperative: its verb opens a clause, or follows "then", "and", "or", a
// comma or a parenthesis ("the outliers set the step" and "to move the knee" are not read).
// A figure's vocabulary is what its controls show a reader (resolveParams, so an engine
// field's options are included): each control's label and unit (not its key: readers never
// see it), every option's label and value, every sample's name and text, each sample select's
// label, and the toolbar's buttons.
//   A. Quoted names. After an instruction verb (choose, pick, select, switch, set, view, show,
//      turn, tick, toggle), a “quoted” or "quoted" text reached through filler words alone
//      (to, the, view, sample, option, or, a control's own label words...) must be a name of
//      the figure: whole, or without its "(unit)", ": detail", "— detail" or ", detail" tail,
//      case and spacing aside. 'Switch the view to "none"', 'Choose “Your configuration”'.
//   B. Described choices. "choose|pick|select|switch to|view the WORDS sample|option|view":
//      every word of WORDS must be a word of one sample's name (sample) or of one option's
//      label or value (option, view). 'Choose the accented sample', 'switch to the loss view'.
//   C. Named values. "choose|pick|select NAME", "switch [the X] to NAME", "switch from NAME to
//      NAME", and more NAMEs after "or" or a comma, where NAME is a run of words each with a
//      capital or a digit ("Llama 3 8B", "H200", "fp16"): NAME must occur in one option's label
//      or value or one sample's name or text (letters and digits compared). A NAME that is a
//      number ("40", "32,000", "128k", "4-byte") needs a control that accepts it: labelled
//      with the word after it when there is one ("Choose 40 heads", "switch to 4-byte loads").
//   D. Named controls. "raise|lower|increase|decrease|shrink|double|halve|widen|move|drag|slide|
//      change|turn on|turn off|tick|untick the WORDS", "set the WORDS to", "turn the WORDS
//      on|off": WORDS end at a connective (to, from, and, or, until, as, ...); words such as
//      "number of", "count", "control" or "knob" are skipped, and some control's label must
//      hold every one of the rest ("Raise the micro-batches" needs a label with "micro-batches"; plurals and a
//      word's start are matched, "GPUs" is "GPU", but "batch" is not "micro-batches"). "tick
//      the box" needs a checkbox. "to N" after WORDS must be one of a select's values.
// Words are compared lowercased, split at spaces and slashes (hyphens kept). A caption is
// checked against its own figure; a lesson sentence against the figures placed in its
// section (between ## headings), or, in a section without figures, only when it mentions a
// figure: "the first figure" is the lesson's first placed figure, "the figure above/below"
// the nearest one, any other mention every figure of the lesson.
import { resolveParams, sampleChoices, valueText } from '../src/runtime/params.js';

// The buttons of every figure's toolbar (runtime/figure.js).
const TOOLBAR = ['Reset', 'Permalink', 'Embed', 'Download CSV', 'Show data'];
const FILLER = new Set(['to', 'the', 'a', 'an', 'or', 'and', 'then', 'from', 'back', 'view', 'views', 'sample', 'samples',
  'option', 'options', 'setting', 'mode', 'menu', 'select', 'it', 'either', 'on', 'off', 'instead', 'first', 'one', 'of']);
const SKIP_WORDS = new Set(['the', 'a', 'an', 'number', 'of', 'its', 'their', 'this', 'that', 'each', 'both', 'figure’s',
  "figure's", 'count', 'control', 'controls', 'knob', 'slider', 'field', 'value', 'setting', 'box', 'checkbox']);
const STOP = new Set(['to', 'from', 'and', 'or', 'until', 'as', 'by', 'so', 'then', 'with', 'in', 'on', 'off', 'at', 'while',
  'past', 'beyond', 'above', 'below', 'toward', 'towards', 'one', 'step', 'if', 'for', 'which', 'that', 'up', 'down',
  'back', 'too', 'all', 'is', 'are', 'away', 'into', 'through', 'over', 'under', 'instead', 'first', 'where', 'when', 'there',
  'without', 'but', 'because', 'before', 'after', 'here', 'enough', 'more', 'less', 'further', 'twice', 'once', 'now', 'again',
  'slightly', 'far', 'just', 'only', 'also', 'still', 'very', 'much', 'across', 'along', 'around', 'between', 'against', 'onto',
  'it', 'them', 'these', 'those']);
// What may stand before an instruction's verb in its clause.
const LEAD = /(?:^|[,(—–]|\b(?:then|and|or|finally|now|first|next|also|just|simply|instead|again|try\s+to))\s*$/i;

const norm = (s) => String(s).toLowerCase().replace(/[‘’]/g, "'").replace(/[“”]/g, '"').replace(/\s+/g, ' ').trim();
const squash = (s) => norm(s).replace(/[^\p{L}\p{N}]+/gu, '');
const words = (s) => norm(s).split(/[\s/,()·:;=]+/).map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')).filter(Boolean);
const stem = (w) => w.replace(/(es|s)$/, '');
// A word of an instruction matches a word of a name: equal, plural aside, or its start ("micro" in
// "micro-batch"); a hyphenated word also when each of its parts is a word of the name
// ("per-GPU" in "rate per GPU"). "batch" is not "micro-batches".
const wordIs = (w, n) => n === w || stem(n) === stem(w) || (w.length >= 3 && n.startsWith(w));
const wordIn = (w, names) => names.some((n) => wordIs(w, n))
  || (w.includes('-') && w.split('-').every((p) => p && names.flatMap((n) => n.split('-')).some((n) => wordIs(p, n))));

// What a reader sees of a figure's controls: {id, names: [text], controls: [{words, spec}],
// options: [text], samples: [text]}.
export function figureVocabulary(fig, engine) {
  const specs = resolveParams(fig, engine);
  const controls = [];
  const options = [];
  const samples = [];
  const names = [...TOOLBAR];
  for (const s of specs) {
    const label = s.label ?? s.key;
    names.push(label);
    controls.push({ spec: s, words: words(`${label} ${s.type === 'select' ? '' : s.unit ?? ''}`) });
    if (s.type === 'select') {
      for (const o of s.options) {
        options.push(String(o.label), String(o.value));
        names.push(String(o.label), String(o.value));
      }
    }
    const choices = sampleChoices(s);
    if (choices.length) {
      const sel = s.samplesLabel ?? `Samples: ${label}`;
      names.push(sel);
      controls.push({ spec: { ...s, type: 'samples' }, words: words(sel) });
      for (const c of choices) {
        const text = valueText(c.value);
        samples.push(...(c.label ? [c.label, text] : [text]));
        names.push(...(c.label ? [c.label, text] : [text]));
      }
    }
  }
  return { id: fig.id, names, controls, options, samples };
}

// The ways a name may be quoted: whole, or without a tail.
function nameVariants(name) {
  const n = norm(name);
  return [n, ...[/\s*\(.*$/, /\s*:.*$/, /\s*[—–].*$/, /\s*,.*$/].map((re) => n.replace(re, ''))].filter(Boolean);
}

// The instruction verbs of a clause that open it (LEAD) and stand outside quotes: [{verb, end}].
function verbsIn(clause, re) {
  const quoted = [...clause.matchAll(/[“"][^”"]*[”"]/g)].map((q) => [q.index, q.index + q[0].length]);
  return [...clause.matchAll(re)]
    .filter((m) => LEAD.test(clause.slice(0, m.index)) && !quoted.some(([a, b]) => m.index > a && m.index < b))
    .map((m) => ({ m, end: m.index + m[0].length }));
}

// Form A: the quoted names in one clause that an instruction verb reaches through filler.
function quotedNames(clause, labelWords) {
  const found = [];
  for (const { end } of verbsIn(clause, /\b(?:choose|pick|select|switch|set|view|show|turn|tick|toggle)\b/gi)) {
    let at = end;
    const quote = /[“"]([^”"]{1,80})[”"]/g;
    quote.lastIndex = at;
    for (let q = quote.exec(clause); q; q = quote.exec(clause)) {
      if (!words(clause.slice(at, q.index)).every((w) => FILLER.has(w) || labelWords.has(w))) break;
      found.push(q[1]);
      at = q.index + q[0].length;
    }
  }
  return [...new Set(found)];
}

// A number as a NAME: "40", "32,000", "0.5", "128k" (×1000, `rounded`), "4-byte" (4).
function numberOf(name) {
  const m = /^(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)([kKMGT])?(?:-[a-z]+)?$/.exec(name);
  if (!m) return null;
  const scale = { k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12 }[m[2]] ?? 1;
  return { x: Number(m[1].replace(/,/g, '')) * scale, rounded: scale > 1 };
}

// A run of "name" words (each with a capital or a digit) from the start of `text`.
const NAME_WORD = /^\s*((?:\d{1,3}(?:,\d{3})+|[\p{L}\p{N}][\p{L}\p{N}.+×-]*[\p{L}\p{N}+]|[\p{N}\p{Lu}]))(?=[\s,;:.)]|$)/u;
function nameAt(text) {
  const parts = [];
  let rest = text;
  for (let m = NAME_WORD.exec(rest); m && /[\p{Lu}\p{N}]/u.test(m[1]); m = NAME_WORD.exec(rest)) {
    parts.push(m[1].replace(/\.$/, ''));
    rest = rest.slice(m[0].length);
  }
  return { name: parts.join(' '), rest };
}

// Form C: the NAMEs after choose/pick/select/switch to (and "or NAME", ", NAME").
function namedValues(clause) {
  const out = [];
  const re = /\b(?:choose|pick|select|switch(?:\s+(?!to\b)[\p{L}-]+){0,3}?\s+to|switch\s+from)\s+(?:the\s+|a\s+|an\s+)?/giu;
  for (const { end } of verbsIn(clause, re)) {
    let rest = clause.slice(end);
    for (;;) {
      const { name, rest: after } = nameAt(rest);
      if (!name) break;
      const noun = /^\s+([\p{Ll}][\p{Ll}-]*)/u.exec(after)?.[1];
      if (['sample', 'option', 'view'].includes(noun)) break; // form B reads "the NAME sample"
      out.push({ name, noun: noun && !STOP.has(noun) && !SKIP_WORDS.has(noun) ? noun : undefined });
      const more = /^\s*(?:,\s*(?:or\s+)?(?:to\s+)?|\s+or\s+(?:to\s+)?|\s+to\s+)(?:the\s+|a\s+|an\s+)?/i.exec(after);
      if (!more) break;
      rest = after.slice(more[0].length);
    }
  }
  return out;
}

// The words of "VERB the WORDS", up to a connective or punctuation.
function phraseAfter(text) {
  const ws = [];
  for (const raw of text.split(/\s+/)) {
    const w = raw.replace(/^[(“"]+/, '');
    const bare = w.replace(/[,;:.)”"!?]+$/, '');
    // "of" ends the phrase unless only skipped words came before it ("the number of logits").
    const of = bare.toLowerCase() === 'of' && ws.some((x) => !SKIP_WORDS.has(x.toLowerCase()));
    if (!bare || of || STOP.has(bare.toLowerCase()) || !/^[\p{L}][\p{L}\p{N}’'-]*$/u.test(bare)) break;
    ws.push(bare);
    if (bare !== w || ws.length >= 5) break;
  }
  return ws;
}

const contentWords = (text) => words(text).filter((w) => !SKIP_WORDS.has(w));

// Form B.
function describedChoices(clause) {
  const re = /\b(?:choose|pick|select|switch\s+to|view)\s+the\s+([\p{L}\p{N}][\p{L}\p{N}\s’'-]{0,60}?)\s+(sample|option|view)\b/giu;
  return verbsIn(clause, re).map(({ m }) => ({ words: contentWords(m[1]), kind: m[2].toLowerCase() }))
    .filter((d) => d.words.length > 0);
}

// Form D.
function namedControls(clause) {
  const out = [];
  const re = /\b(set|raise|lower|increase|decrease|shrink|double|halve|widen|move|drag|slide|change|turn\s+on|turn\s+off|tick|untick)\s+the\s+/gi;
  for (const { m, end } of verbsIn(clause, re)) {
    const ws = phraseAfter(clause.slice(end));
    const after = clause.slice(end).split(/\s+/).slice(ws.length).join(' ');
    const verb = m[1].toLowerCase().replace(/\s+/, ' ');
    if (verb === 'set' && !/^to\b/i.test(after)) continue; // "set the X against Y" is no setting
    const to = /^to\s+(-?\d[\d,]*(?:\.\d+)?)(?![\d.,]*\s*[%×^])/i.exec(after);
    out.push({ verb, raw: ws, words: contentWords(ws.join(' ')), to: to ? Number(to[1].replace(/,/g, '')) : undefined });
  }
  for (const { m } of verbsIn(clause, /\bturn\s+the\s+([\p{L}][\p{L}\s-]{0,40}?)\s+(on|off)\b/giu)) {
    out.push({ verb: `turn ${m[2]}`, raw: [m[1]], words: contentWords(m[1]) });
  }
  return out;
}

function accepts(spec, { x, rounded }) {
  const near = (a) => (rounded ? Math.abs(a - x) <= 0.03 * x : a === x);
  if (spec.type === 'select') {
    return spec.options.some((o) => near(Number(o.value)) || near(Number(/\d[\d,]*(?:\.\d+)?/.exec(String(o.label))?.[0].replace(/,/g, ''))));
  }
  if (spec.type === 'number' || spec.type === 'integer') {
    return (spec.min === undefined || x >= spec.min) && (spec.max === undefined || x <= spec.max);
  }
  return false;
}

// Everything one clause asks of `vocabs` that none of them has: [text of the problem].
function clauseProblems(clause, vocabs) {
  const problems = [];
  const any = (pred) => vocabs.some(pred);
  const controls = vocabs.flatMap((v) => v.controls);
  const figs = vocabs.map((v) => v.id).join(', ');
  for (const q of quotedNames(clause, new Set(controls.flatMap((c) => c.words)))) {
    const want = norm(q).replace(/[.,]+$/, '');
    if (!any((v) => v.names.some((n) => nameVariants(n).includes(want)))) {
      problems.push(`asks for “${q}”, which is no control, option or sample of ${figs}`);
    }
  }
  for (const d of describedChoices(clause)) {
    const pool = (v) => (d.kind === 'sample' ? v.samples : v.options);
    if (!any((v) => pool(v).some((t) => d.words.every((w) => wordIn(w, words(t)))))) {
      problems.push(`asks for the ${d.words.join(' ')} ${d.kind}, but ${figs} has no ${d.kind === 'sample' ? 'sample' : 'option'} with ${d.words.length > 1 ? 'those words' : 'that word'}`);
    }
  }
  for (const { name, noun } of namedValues(clause)) {
    const n = numberOf(name);
    // "4-byte loads" in "one 4-byte load per thread": a number with a unit, written in an option.
    if (n && /\D/.test(name.replace(/,/g, '')) && any((v) => [...v.options, ...v.samples].some((t) => squash(t).includes(squash(name))))) continue;
    if (n) {
      const labelled = noun ? controls.filter((c) => wordIn(noun.toLowerCase(), c.words)) : controls;
      if (!labelled.some((c) => accepts(c.spec, n))) {
        problems.push(noun ? `asks for ${name} ${noun}, but no control of ${figs} labelled “${noun}” accepts ${name}`
          : `asks for ${name}, which no control of ${figs} accepts`);
      }
      continue;
    }
    const want = squash(name);
    if (want && !any((v) => [...v.options, ...v.samples].some((t) => squash(t).includes(want)))) {
      problems.push(`asks for ${name}, which is no option or sample of ${figs}`);
    }
  }
  for (const c of namedControls(clause)) {
    if (c.words.length === 0) {
      if (/^(check)?box$/i.test(c.raw.join(' ')) && !controls.some((k) => k.spec.type === 'boolean')) {
        problems.push(`asks to ${c.verb} the box, but ${figs} has no checkbox`);
      }
      continue;
    }
    const match = controls.filter((k) => c.words.every((w) => wordIn(w, k.words)));
    if (match.length === 0) {
      problems.push(`asks to ${c.verb} the ${c.raw.join(' ')}, but no control of ${figs} is labelled so`);
    } else if (c.to !== undefined && match.every((k) => k.spec.type === 'select') && !match.some((k) => accepts(k.spec, { x: c.to }))) {
      problems.push(`asks to ${c.verb} the ${c.raw.join(' ')} to ${c.to}, which is not one of its options`);
    }
  }
  return problems;
}

// A text's clauses: sentences split further at semicolons and at colons before lowercase text.
const clausesOf = (text) => text.split(/(?<=[.!?])\s+(?=[A-Z“"(])|;\s+|:\s+(?=\p{Ll})/u).map((s) => s.trim()).filter(Boolean);

// Problems of one figure's caption against its own controls.
export function checkCaption(fig, vocab) {
  return clausesOf(fig.caption).flatMap((c) => clauseProblems(c, [vocab]).map((p) => `the caption of ${fig.id}: “${c}” ${p}`));
}

// Lesson Markdown as prose: math as a neutral word, code, links and emphasis as their words.
function prose(md) {
  return md.replace(/\$\$[\s\S]*?\$\$/g, ' ').replace(/`[^`]*`/g, (m) => m.slice(1, -1))
    .replace(/\$[^$\n]+\$/g, 'formula').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\*\*?|__/g, '');
}

// Problems of a lesson body (after its {{calc}} values are filled) against its figures.
// vocabOf(id): the vocabulary of a placed figure.
export function checkLessonProse(body, vocabOf, where) {
  const text = body.replace(/^---\n[\s\S]*?\n---\n/, '');
  const placed = [...text.matchAll(/^:::\s*figure\s+([a-z0-9-]+)/gm)].map((m) => ({ id: m[1], at: m.index }));
  if (placed.length === 0) return [];
  const problems = [];
  const bounds = [0, ...[...text.matchAll(/^##\s/gm)].map((m) => m.index), text.length];
  for (let i = 0; i + 1 < bounds.length; i += 1) {
    const [from, to] = [bounds[i], bounds[i + 1]];
    const own = placed.filter((p) => p.at >= from && p.at < to);
    // Paragraphs outside fenced code, directives, headings and tables.
    const chunk = text.slice(from, to).replace(/^```[\s\S]*?^```/gm, (m) => ' '.repeat(m.length));
    for (const m of chunk.matchAll(/(?:^(?!:::|#|\|)[^\n]+\n?)+/gm)) {
      const at = from + m.index;
      for (const clause of clausesOf(prose(m[0]).replace(/\n/g, ' '))) {
        let figs = own;
        const mention = /\b(?:(first|second|third|fourth|fifth|sixth|seventh|eighth)\s+figure|figure\s+(above|below)|(figure))\b/i.exec(clause);
        if (mention?.[1]) figs = [placed[['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth'].indexOf(mention[1].toLowerCase())]].filter(Boolean);
        else if (mention?.[2]) figs = mention[2].toLowerCase() === 'above' ? placed.filter((p) => p.at < at).slice(-1) : placed.filter((p) => p.at > at).slice(0, 1);
        else if (mention?.[3] && own.length === 0) figs = placed;
        if (figs.length === 0) continue;
        for (const p of clauseProblems(clause, figs.map((f) => vocabOf(f.id)))) problems.push(`${where}: “${clause}” ${p}`);
      }
    }
  }
  return problems;
}

// The instructions the check reads in a text, by form (for the tests and for review):
// [{form: 'A'|'B'|'C'|'D', text}].
export function instructionsIn(text) {
  return clausesOf(prose(text).replace(/\n/g, ' ')).flatMap((c) => [
    ...quotedNames(c, new Set()).map((q) => ({ form: 'A', text: `“${q}”` })),
    ...describedChoices(c).map((d) => ({ form: 'B', text: `${d.words.join(' ')} ${d.kind}` })),
    ...namedValues(c).map((n) => ({ form: 'C', text: `${n.name}${n.noun ? ` ${n.noun}` : ''}` })),
    ...namedControls(c).map((d) => ({ form: 'D', text: `${d.verb} the ${d.raw.join(' ')}${d.to === undefined ? '' : ` to ${d.to}`}` })),
  ]);
}
