// <mlsys-exercise data-id="..."> : an engine-generated exercise. The reader types a number
// (units allowed), the engine reads and checks it (check_exercise: notations, units and
// scales, messages; nothing is parsed here) with the exercise's tolerance; hint, worked solution
// and "new numbers" (a fresh seed) are one click away. The seed shown names the exercise.
import { loadEngine, partFor } from './engine.js';
import { h, uid, whenNear } from './dom.js';
import { freshSeed } from './fresh-seed.js';

// The unit as the label names it: "µs", "billions" (a count asked in billions), "units of
// 10^21 FLOP" (a power of ten the prompt asks in).
const unitLabel = (u) => {
  if (u === 'us') return 'µs';
  if (/^(thousand|million|billion|trillion)$/.test(u)) return `${u}s`;
  if (/^10(\^|\u207B|[\u2070\u00B9\u00B2\u00B3\u2074-\u2079])/.test(u)) return `units of ${u}`;
  return u;
};

class MlsysExercise extends HTMLElement {
  connectedCallback() {
    if (this.started) return;
    this.started = true;
    // The page holds the first view (seed 1) until the engine takes over.
    whenNear(this, () => this.start());
  }

  async start() {
    try {
      this.engine = await loadEngine(partFor('exercises', this.dataset.id ?? ''));
    } catch (err) {
      this.append(h('p', { class: 'fig-error', role: 'alert', text: `This exercise could not load: ${err.message}` }));
      return;
    }
    const seed = Number(this.dataset.seed ?? 1);
    this.show(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff ? seed : 1);
  }

  show(seed) {
    let ex;
    try {
      ex = this.engine.exercise(this.dataset.id ?? '', seed);
    } catch (err) {
      this.replaceChildren(h('p', { class: 'fig-error', role: 'alert', text: err.message }));
      return;
    }
    this.ex = ex;
    this.seen ??= new Set();
    this.seen.add(ex.prompt);
    const inputId = uid('answer');
    const feedback = h('p', { class: 'ex-feedback', role: 'status', 'aria-live': 'polite' });
    // A full keyboard: answers carry units, scales and exponents ("1.552B", "10.7 h", "1.6e-6"),
    // and a phone's decimal pad gives a comma in many locales, which the engine refuses.
    const input = h('input', { id: inputId, type: 'text', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false' });
    const hint = h('p', { class: 'ex-hint', hidden: true, text: `Hint: ${ex.hint}` });
    const solution = h('p', { class: 'ex-solution', hidden: true, text: `Solution: ${ex.solution}` });
    const form = h('form', { class: 'ex-form' },
      // A difference of percentages asked in percentage points is labelled in points, not %.
      h('label', { for: inputId, text: `Your answer${ex.unit ? ` (${ex.unit === '%' && ex.prompt.includes('percentage points') ? 'percentage points' : unitLabel(ex.unit)})` : ''}` }),
      input,
      h('button', { type: 'submit', class: 'fig-btn', text: 'Check' }));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const r = this.engine.checkExercise(ex.id, ex.seed, input.value);
      feedback.textContent = r.message;
      feedback.className = `ex-feedback ${r.correct ? 'ok' : 'wrong'}`;
      this.dataset.result = r.correct ? 'correct' : 'wrong';
    });
    const reveal = (el, button) => () => {
      el.hidden = false;
      button.setAttribute('aria-expanded', 'true');
    };
    const hintBtn = h('button', { type: 'button', class: 'fig-btn', 'aria-expanded': 'false', text: 'Hint' });
    hintBtn.addEventListener('click', reveal(hint, hintBtn));
    const solBtn = h('button', { type: 'button', class: 'fig-btn', 'aria-expanded': 'false', text: 'Show solution' });
    solBtn.addEventListener('click', reveal(solution, solBtn));
    const fresh = h('button', { type: 'button', class: 'fig-btn', text: 'New numbers' });
    fresh.addEventListener('click', () => {
      const id = this.dataset.id ?? '';
      const random = () => crypto.getRandomValues(new Uint32Array(1))[0];
      this.show(freshSeed((s) => this.engine.exercise(id, s).prompt, this.seen, ex.prompt, random));
      this.querySelector('input')?.focus();
    });
    this.replaceChildren(
      h('div', { class: 'ex-head' },
        h('span', { class: 'ex-kicker', text: 'Exercise' }),
        h('span', { class: 'ex-title', text: ex.title }),
        h('span', { class: 'ex-seed', text: `#${ex.seed}` })),
      h('p', { class: 'ex-prompt', text: ex.prompt }),
      form,
      feedback,
      h('div', { class: 'ex-actions' }, hintBtn, solBtn, fresh),
      hint,
      solution,
    );
    this.dataset.seed = String(ex.seed);
    this.dataset.ready = 'true';
  }
}

if (!customElements.get('mlsys-exercise')) customElements.define('mlsys-exercise', MlsysExercise);
