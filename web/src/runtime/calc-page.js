// The /calculators/ page: the calculator named in the URL hash (#NAME?key=value&...) as a
// form built from the engine's schema of it (every input field a control with its unit,
// range, options and default; every output field labelled and formatted), computed on each
// change. The hash is the permalink; the equivalent `mlsys calc` command line and the JSON of
// input and output follow every result. The engine part that holds the calculator loads when
// it is chosen. A rejected input shows the engine's message next to its field and keeps the
// last good result.
import { loadEngine, partFor } from './engine.js';
import { h } from './dom.js';
import { resolveParams, applyState } from './params.js';
import { buildControls } from './controls.js';
import { parseHash, encodeHash, engineInput, commandLine, formatField } from './calc-page-text.js';
import { labelledError, humanize } from './field-labels.js';

function readJson(text, fallback) {
  try {
    return JSON.parse(text ?? '') ?? fallback;
  } catch {
    return fallback;
  }
}

// A log slider for a wide positive range (1 to 1e30 FLOP would leave a linear one useless).
function specsOf(name, schema, engine) {
  const specs = resolveParams({
    id: name,
    params: schema.fields.map((f) => ({ key: f.name, label: f.description || f.name, from: [name, f.name] })),
  }, engine);
  for (const s of specs) if (s.min > 0 && s.max / s.min >= 1e3 && !['select', 'array'].includes(s.type)) s.scale = 'log';
  return specs;
}

class CalculatorView {
  constructor(panel, entry, known) {
    this.panel = panel;
    this.known = known; // the names of every calculator on the page
    this.name = entry.dataset.calc;
    this.start = readJson(entry.dataset.start, {});
    this.lessons = readJson(entry.dataset.lessons, []);
  }

  async open(state) {
    const { panel, name } = this;
    panel.view = this; // a later choice wins over this one if it arrives while loading
    panel.dataset.state = 'loading';
    panel.dataset.calc = name;
    panel.replaceChildren(h('h2', { id: 'calc-title', text: name }), h('p', { class: 'fig-status', role: 'status', text: 'Loading the engine…' }));
    try {
      this.engine = await loadEngine(partFor('calcs', name));
      this.schema = this.engine.schema(name);
      this.specs = specsOf(name, this.schema, this.engine);
    } catch (err) {
      if (panel.view !== this) return;
      panel.querySelector('.fig-status').textContent = `This calculator could not load: ${err.message}`;
      panel.dataset.state = 'unavailable';
      return;
    }
    if (panel.view !== this) return;
    const base = Object.fromEntries(this.specs.map((s) => [s.key, s.default ?? undefined]));
    Object.assign(base, this.start);
    this.base = base;
    const { params, errors } = applyState(this.specs, base, state);
    this.params = params;
    this.render(errors.join(' '));
  }

  render(note) {
    const { panel, name, schema } = this;
    this.controls = buildControls(this.specs, this.params, (key, value, error) => {
      if (error) return this.reject(key, error);
      this.params = { ...this.params, [key]: value };
      this.compute();
    });
    this.controls.set(this.params);
    // An optional field without a default (an override) starts empty, not "undefined".
    for (const s of this.specs) {
      if (this.params[s.key] === undefined) this.controls.root.querySelector(`[name="${CSS.escape(s.key)}"]`).value = '';
    }
    this.controls.root.classList.add('calc-controls');
    this.controls.root.setAttribute('role', 'group');
    this.controls.root.setAttribute('aria-label', `Inputs of ${name}`);
    const used = this.lessons.length
      ? h('p', { class: 'meta' }, 'Used in: ', ...this.lessons.flatMap((l, i) => [i ? ', ' : '', h('a', { href: `/lessons/${l.slug}/`, text: l.title })]))
      : '';
    this.note = h('p', { class: 'fig-message', role: 'alert', hidden: true });
    this.results = h('dl', { class: 'calc-results calcs-results', 'aria-live': 'polite' });
    this.permalink = h('a', { class: 'calcs-permalink', text: 'Permalink to these inputs' });
    this.command = h('code', { class: 'calcs-command' });
    this.json = h('code');
    panel.replaceChildren(
      h('h2', { id: 'calc-title', text: name }),
      h('p', { class: 'calcs-description', text: schema.description }),
      used,
      this.controls.root,
      this.note,
      h('h3', { text: 'Results' }),
      this.results,
      h('p', {}, this.permalink),
      h('h3', { text: 'Command line' }),
      h('pre', { class: 'calcs-pre' }, this.command),
      h('details', { class: 'calcs-json' }, h('summary', { text: 'Input and output JSON' }), h('pre', { class: 'calcs-pre' }, this.json)),
    );
    this.compute(note);
  }

  // The engine's message beside the field it names (or above the results when it names none).
  fieldMessage(key, text) {
    for (const m of this.panel.querySelectorAll('.calcs-field-msg')) m.remove();
    this.controls.setInvalid(key);
    const input = key && this.controls.root.querySelector(`[name="${CSS.escape(key)}"]`);
    if (text && input) {
      const id = `msg-${key}`;
      input.closest('.ctl').append(h('p', { class: 'calcs-field-msg', id, role: 'alert', text }));
      input.setAttribute('aria-describedby', id);
      return true;
    }
    return false;
  }

  reject(key, text) {
    this.fieldMessage(key, text) || this.showNote(text);
    this.panel.dataset.rejected = String(Number(this.panel.dataset.rejected ?? 0) + 1);
  }

  showNote(text) {
    this.note.textContent = text;
    this.note.hidden = !text;
  }

  compute(note = '') {
    if (this.panel.view !== this) return; // a late event of a calculator no longer shown
    const input = engineInput(this.params, this.schema.fields);
    let out;
    try {
      out = this.engine.calc(this.name, input);
    } catch (err) {
      this.showNote('');
      // The page's labels are the schema's long descriptions; its messages name a field by
      // its name read as words ("Range max").
      const { key, message } = labelledError(err, this.specs, (s) => humanize(s.key));
      this.reject(key, `${message} The results still show the last accepted inputs.`);
      this.panel.dataset.state = this.panel.dataset.state === 'loading' ? 'error' : this.panel.dataset.state;
      return;
    }
    this.fieldMessage(null, '');
    this.showNote(note);
    this.results.replaceChildren(...this.schema.outputs.filter((o) => o.name in out).map((o) => h('div', { class: 'calc-out', 'data-field': o.name },
      h('dt', { title: o.name, text: o.description || o.name }),
      h('dd', { text: formatField(out[o.name], o) }))));
    const hash = encodeHash(this.name, this.params, this.base);
    // A change event that fires as the reader follows a link to another calculator (the
    // input loses focus) must not write this calculator's hash over the new one.
    const named = parseHash(location.hash).name;
    if (named === this.name || !this.known.has(named)) history.replaceState(history.state, '', hash);
    this.permalink.href = hash;
    this.command.textContent = commandLine(this.name, input);
    this.json.textContent = `${JSON.stringify({ name: this.name, input }, null, 1)}\n${JSON.stringify(out, null, 1)}`;
    this.panel.dataset.state = 'ready';
    this.panel.dataset.computes = String(Number(this.panel.dataset.computes ?? 0) + 1);
  }
}

export function initCalculatorsPage() {
  const root = document.querySelector('[data-calculators]');
  if (!root) return;
  const panel = root.querySelector('.calcs-panel');
  const entries = new Map([...root.querySelectorAll('a[data-calc]')].map((a) => [a.dataset.calc, a]));
  const show = () => {
    const { name, state } = parseHash(location.hash);
    const entry = entries.get(name) ?? entries.values().next().value;
    for (const a of entries.values()) a.removeAttribute('aria-current');
    entry.setAttribute('aria-current', 'true');
    new CalculatorView(panel, entry, entries).open(entries.has(name) ? state : {});
    if (entries.has(name) && window.matchMedia('(max-width: 48rem)').matches) panel.scrollIntoView();
  };
  window.addEventListener('hashchange', show);
  show();
}
