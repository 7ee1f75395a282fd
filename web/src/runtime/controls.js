// Builds a figure's controls from its resolved parameter specs: a select for options, a
// checkbox for booleans, a text box for lists ("2, 3, 4"),
// objects ({"x": 2}) and expressions, a slider plus a number box for
// numbers (log sliders for wide ranges). Every control is labelled with its unit and works by keyboard.
// A text box whose spec names `samples` gets a second control beside it, a select of those
// samples (sampleChoices in params.js: the default first, each by its name or its text): choosing
// one puts it in the box. The select shows the sample the box holds, or "Your own" (an option
// the reader cannot choose) when it holds none of them; so it needs no state of its own, and a
// permalink restores it with the box.
import { h, uid } from './dom.js';
import { coerce, sampleChoices, sameValue, shownAt } from './params.js';

const LOG_STEPS = 1000;

function sliderToValue(spec, pos) {
  if (spec.scale === 'log') {
    const lo = Math.log10(spec.min), hi = Math.log10(spec.max);
    const x = 10 ** (lo + ((hi - lo) * pos) / LOG_STEPS);
    return spec.type === 'integer' ? Math.round(x) : Number(x.toPrecision(3));
  }
  return pos;
}

function valueToSlider(spec, value) {
  if (spec.scale === 'log') {
    const lo = Math.log10(spec.min), hi = Math.log10(spec.max);
    return Math.round(((Math.log10(value) - lo) / (hi - lo)) * LOG_STEPS);
  }
  return value;
}

// Short text for a number box: 1e12 rather than 1000000000000.
function numberText(v) {
  const a = Math.abs(v);
  return a >= 1e6 || (a > 0 && a < 1e-3) ? v.toExponential().replace('e+', 'e') : String(v);
}

// The select of a text box's samples, or null when its spec names none: {row, select,
// show(value): selects the sample equal to value or "Your own", value(): the chosen sample}.
const YOUR_OWN = '';
function sampleChooser(spec, shown) {
  const choices = sampleChoices(spec);
  if (choices.length < 2) return null;
  const id = uid('ctl');
  const select = h('select', { id, name: `${spec.key}-sample` });
  const clip = (t) => (t.length > 48 ? `${t.slice(0, 47)}…` : t);
  choices.forEach((c, i) => select.append(h('option', { value: String(i), text: c.label ?? clip(shown(c.value)) })));
  const own = h('option', { value: YOUR_OWN, disabled: true, text: 'Your own (typed in the box)' });
  select.append(own);
  const row = h('div', { class: 'ctl ctl-select ctl-samples' },
    h('label', { for: id, text: spec.samplesLabel ?? `Samples: ${spec.label ?? spec.key}` }), select);
  return {
    row,
    select,
    show(v) {
      const i = choices.findIndex((c) => sameValue(c.value, v));
      select.value = i >= 0 ? String(i) : YOUR_OWN;
    },
    value: () => (select.value === YOUR_OWN ? undefined : choices[Number(select.value)].value),
  };
}

// Returns {root, set(params), setInvalid(key|null)}; calls onChange(key, value) on input.
// A spec with `when: {key: [values]}` is shown only while each named param has one of its
// values (e.g. {view: ['a2a']}), so that a figure with several views never shows a control
// its current view ignores.
export function buildControls(specs, params, onChange) {
  const root = h('div', { class: 'fig-controls' });
  const setters = new Map();
  const inputs = new Map();
  const conditional = [];  // [spec, row] of the controls with a `when`
  let current = { ...params };
  const showWhen = () => {
    for (const [spec, row] of conditional) {
      row.hidden = !shownAt(spec, current);
    }
  };
  const notify = onChange;
  onChange = (key, value, error) => {
    if (!error) {
      current = { ...current, [key]: value };
      showWhen();
    }
    notify(key, value, error);
  };

  for (const spec of specs) {
    const id = uid('ctl');
    const unit = spec.unit && spec.type !== 'select' ? ` (${spec.unit})` : '';
    const label = h('label', { for: id, text: `${spec.label ?? spec.key}${unit}` });
    let row;
    if (spec.type === 'select') {
      const select = h('select', { id, name: spec.key });
      for (const o of spec.options) select.append(h('option', { value: o.value, text: o.label }));
      select.addEventListener('change', () => onChange(spec.key, coerce(spec, select.value).value));
      setters.set(spec.key, (v) => { select.value = String(v); });
      inputs.set(spec.key, select);
      row = h('div', { class: 'ctl ctl-select' }, label, select);
    } else if (['array', 'object', 'string'].includes(spec.type)) {
      // Typed text: a list as "2, 3, 4", an object as {"x": 2}, an expression as written.
      const kind = { array: 'list', object: 'json', string: 'text' }[spec.type];
      const text = h('input', { id, type: 'text', name: spec.key, spellcheck: 'false', autocomplete: 'off', [`data-${kind}`]: '' });
      text.addEventListener('change', () => {
        const r = coerce(spec, text.value);
        onChange(spec.key, r.value, r.error);
      });
      const shown = { list: (v) => v.join(', '), json: (v) => JSON.stringify(v), text: String }[kind];
      const samples = sampleChooser(spec, shown);
      setters.set(spec.key, (v) => {
        text.value = v === undefined || v === null ? '' : shown(v);
        samples?.show(v);
      });
      if (samples) {
        samples.select.addEventListener('change', () => {
          const v = samples.value();
          if (v === undefined) return;
          text.value = shown(v);
          onChange(spec.key, v);
        });
        text.addEventListener('change', () => {
          const r = coerce(spec, text.value);
          samples.show(r.error ? undefined : r.value);
        });
      }
      inputs.set(spec.key, text);
      row = h('div', { class: `ctl ctl-${kind}` }, label, text);
      if (samples) {
        if (spec.when) conditional.push([spec, row]);
        root.append(row);
        row = samples.row;
      }
    } else if (spec.type === 'boolean') {
      const box = h('input', { id, type: 'checkbox', name: spec.key });
      box.addEventListener('change', () => onChange(spec.key, box.checked));
      setters.set(spec.key, (v) => { box.checked = Boolean(v); });
      inputs.set(spec.key, box);
      row = h('div', { class: 'ctl ctl-boolean' }, box, label);
    } else {
      const number = h('input', {
        id, type: 'number', name: spec.key, inputmode: 'decimal',
        min: spec.min, max: spec.max, step: spec.step ?? (spec.type === 'integer' ? 1 : 'any'),
      });
      const slider = h('input', {
        type: 'range', 'aria-label': `${spec.label ?? spec.key} slider`,
        min: spec.scale === 'log' ? 0 : spec.min, max: spec.scale === 'log' ? LOG_STEPS : spec.max,
        step: spec.scale === 'log' ? 1 : spec.step ?? (spec.type === 'integer' ? 1 : 'any'),
      });
      slider.addEventListener('input', () => {
        const v = sliderToValue(spec, Number(slider.value));
        number.value = numberText(v);
        onChange(spec.key, v);
      });
      number.addEventListener('change', () => {
        const r = coerce(spec, number.value);
        if (r.error) {
          onChange(spec.key, undefined, r.error);
          return;
        }
        slider.value = String(valueToSlider(spec, r.value));
        onChange(spec.key, r.value);
      });
      setters.set(spec.key, (v) => {
        number.value = numberText(v);
        slider.value = String(valueToSlider(spec, v));
      });
      inputs.set(spec.key, number);
      row = h('div', { class: 'ctl ctl-number' }, label, h('div', { class: 'ctl-pair' }, slider, number));
    }
    if (spec.when) conditional.push([spec, row]);
    root.append(row);
  }
  showWhen();

  return {
    root,
    set(p) {
      for (const [k, set] of setters) set(p[k]);
      current = { ...p };
      showWhen();
    },
    setInvalid(key) {
      for (const [k, input] of inputs) {
        if (k === key) input.setAttribute('aria-invalid', 'true');
        else input.removeAttribute('aria-invalid');
      }
    },
  };
}
