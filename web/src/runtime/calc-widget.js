// <mlsys-calc data-calc="NAME" data-inputs='[{key, label?, scale?, min?, max?}]'
//             data-values='{...}' data-outputs='[{field, label, unit?, decimals?}]'>
// A small live calculator (the Systems and scaling page): controls built from the engine's
// schema of NAME like a figure's (web/src/runtime/controls.js), the result fields formatted
// with units. The first result is in the page (computed at build time); the engine loads
// when the element nears the viewport. Rejected input shows a message and keeps the last
// good result.
import { loadEngine, partFor } from './engine.js';
import { h, whenNear } from './dom.js';
import { resolveParams, defaults, applyState } from './params.js';
import { buildControls } from './controls.js';
import { formatOutput } from './calc-format.js';
import { NONE } from './format.js';
import { labelledError } from './field-labels.js';

function parseJson(text, fallback) {
  try {
    return JSON.parse(text ?? '') ?? fallback;
  } catch {
    return fallback;
  }
}

class MlsysCalc extends HTMLElement {
  connectedCallback() {
    if (this.started) return;
    this.started = true;
    this.name = this.dataset.calc ?? '';
    this.inputs = parseJson(this.dataset.inputs, []);
    this.outputs = parseJson(this.dataset.outputs, []);
    this.status = this.querySelector('.calc-status') ?? this.appendChild(h('p', { class: 'calc-status fig-status' }));
    this.status.setAttribute('role', 'status');
    whenNear(this, () => this.start());
  }

  async start() {
    const part = partFor('calcs', this.name);
    if (!part) {
      this.fail(`The calculator "${this.name.slice(0, 40)}" is not in this version of the engine.`);
      return;
    }
    let engine;
    try {
      engine = await loadEngine(part);
    } catch (err) {
      this.fail(`The engine could not load: ${err.message}`);
      return;
    }
    this.engine = engine;
    try {
      this.specs = resolveParams({ id: this.name, params: this.inputs.map((p) => ({ ...p, from: [this.name, p.key] })) }, engine);
    } catch (err) {
      this.fail(err.message);
      return;
    }
    const start = applyState(this.specs, defaults(this.specs), parseJson(this.dataset.values, {}));
    this.params = start.params;
    this.message = h('p', { class: 'fig-message', role: 'alert', hidden: true });
    this.controls = buildControls(this.specs, this.params, (key, value, error) => {
      if (error) {
        this.showMessage(error);
        this.controls.setInvalid(key);
        return;
      }
      this.params = { ...this.params, [key]: value };
      this.compute();
    });
    this.controls.set(this.params);
    this.controls.root.classList.add('calc-controls');
    this.controls.root.setAttribute('role', 'group');
    this.controls.root.setAttribute('aria-label', `Inputs of the ${this.name} calculator`);
    this.querySelector('.calc-controls')?.replaceWith(this.controls.root);
    this.querySelector('.calc-results')?.before(this.message);
    this.results = this.querySelector('.calc-results');
    this.results?.setAttribute('aria-live', 'polite');
    this.compute(start.errors.join(' '));
    this.status.textContent = '';
  }

  compute(note = '') {
    let out;
    try {
      out = this.engine.calc(this.name, this.params);
    } catch (err) {
      const { key, message } = labelledError(err, this.specs);
      this.controls.setInvalid(key);
      this.showMessage(`${message} The results still show the last accepted inputs.`);
      this.dataset.rejected = String(Number(this.dataset.rejected ?? 0) + 1);
      return;
    }
    this.controls.setInvalid(null);
    this.showMessage(note);
    for (const o of this.outputs) {
      const dd = this.querySelector(`dd[data-field="${CSS.escape(String(o.field))}"]`);
      if (dd) dd.textContent = o.field in out ? formatOutput(out[o.field], o) : NONE;
    }
    this.dataset.computes = String(Number(this.dataset.computes ?? 0) + 1);
    this.dataset.state = 'ready';
  }

  showMessage(text) {
    this.message.textContent = text;
    this.message.hidden = !text;
  }

  fail(text) {
    this.status.textContent = text;
    this.status.classList.add('fig-error');
    this.dataset.state = 'unavailable';
  }
}

if (!customElements.get('mlsys-calc')) customElements.define('mlsys-calc', MlsysCalc);
