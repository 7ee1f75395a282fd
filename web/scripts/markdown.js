// The lesson Markdown pipeline: markdown-it + mathematics (math.js: KaTeX at build time) + the
// course's directives:
//   ::: figure ID        -> <mlsys-figure data-id="ID"> (title and reserved space at build time)
//   ::: exercise ID      -> <mlsys-exercise data-id="ID">
//   [text](g:TERM)       -> a glossary link with its definition shown on hover/focus/tap
// and {{calc NAME {json} PATH UNIT:DECIMALS}} (replaced before parsing by calcValues()).
import MarkdownIt from 'markdown-it';
import container from 'markdown-it-container';
import { mathPlugin } from './math.js';
import { formatQuantity } from '../src/runtime/format.js';
import { shownAt } from '../src/runtime/params.js';

export const esc = (s) =>
  String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

// One {{calc NAME {json} PATH UNIT:DECIMALS}}: groups name, json, path, format (a new
// RegExp each time: a global one keeps its position between searches).
export const calcShortcodes = () => /\{\{calc\s+([a-z0-9-]+)\s+(\{[^{}]*\})\s+([A-Za-z0-9_.]+)\s+([^\s}]+)\s*\}\}/g;

// Replaces every {{calc ...}} with the engine's number. Throws with the offending text.
export function calcValues(source, engine, where) {
  return source.replace(calcShortcodes(),
    (whole, name, json, path, format) => {
      try {
        const out = engine.calc(name, JSON.parse(json));
        const value = path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), out);
        if (typeof value !== 'number') throw new Error(`${path} is not a number in the result`);
        const [unit, decimals = '0'] = format.split(':');
        return formatQuantity(value, unit, Number(decimals));
      } catch (err) {
        throw new Error(`${where}: ${whole}: ${err.message}`);
      }
    })
    // Whatever {{calc is left did not match the form above (a missing unit, a nested object...).
    .replace(/\{\{calc\b.*?(\}\}|$)/gm, (bad) => {
      throw new Error(`${where}: malformed engine value ${bad.slice(0, 160)} (the form is {{calc NAME {json} PATH UNIT:DECIMALS}})`);
    });
}

// The page's placeholder of a figure: title, caption and boxes of the final sizes for the
// controls, chart and toolbar (the runtime builds the same layout, so nothing moves): one
// control per parameter shown at the defaults (a `when` hides the others, controls.js), and one
// more for each text box with a sample select.
export function figureShell(id, fig, attrs = '') {
  const defaults = Object.fromEntries(fig.params.map((p) => [p.key, p.default]));
  const shown = fig.params.filter((p) => shownAt(p, defaults));
  const rows = shown.length + shown.filter((p) => p.samples?.length).length;
  return `<mlsys-figure data-id="${esc(id)}"${attrs} style="--rows:${rows};--rows-wide:${Math.ceil(rows / 2)}">` +
    `<div class="fig-title">${esc(fig.title)}</div><div class="fig-controls fig-reserve"></div>` +
    '<div class="fig-chart"></div><div class="fig-toolbar"></div><p class="fig-status">Loading figure…</p>' +
    `<p class="fig-caption">${esc(fig.caption)}</p></mlsys-figure>`;
}

// ctx: {engine, figures: Map id -> {title, params}, exerciseIds: Set, glossary: Map id -> entry,
//       usedFigures: [], usedExercises: [], usedTerms: Set, where}
export function createMarkdown(ctx) {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: true });
  md.use(mathPlugin, { where: ctx.where });

  md.use(container, 'figure', {
    validate: (params) => /^figure\s+[a-z0-9-]+$/.test(params.trim()),
    render(tokens, idx) {
      if (tokens[idx].nesting !== 1) return '';
      const id = tokens[idx].info.trim().split(/\s+/)[1];
      const fig = ctx.figures.get(id);
      if (!fig) throw new Error(`${ctx.where}: unknown figure "${id}"`);
      ctx.usedFigures.push(id);
      return `${figureShell(id, fig)}\n`;
    },
  });

  md.use(container, 'exercise', {
    validate: (params) => /^exercise\s+[a-z0-9-]+$/.test(params.trim()),
    render(tokens, idx) {
      if (tokens[idx].nesting !== 1) return '';
      const id = tokens[idx].info.trim().split(/\s+/)[1];
      if (!ctx.exerciseIds.has(id)) throw new Error(`${ctx.where}: unknown exercise "${id}"`);
      ctx.usedExercises.push(id);
      const ex = ctx.engine.exercise(id, 1);
      // The first view (seed 1) is in the page, so nothing moves when the engine takes over.
      return `<mlsys-exercise data-id="${esc(id)}" data-seed="1"><div class="ex-head"><span class="ex-kicker">Exercise</span>` +
        `<span class="ex-title">${esc(ex.title)}</span><span class="ex-seed">#1</span></div>` +
        `<p class="ex-prompt">${esc(ex.prompt)}</p><div class="ex-reserve"></div></mlsys-exercise>\n`;
    },
  });

  // Headings get an id (a slug of their text), so that they can be linked and the search
  // index (web/scripts/search-index.js) can lead to them.
  const taken = new Set(['main', 'takeaways', 'references']);
  md.core.ruler.push('heading_ids', (state) => {
    state.tokens.forEach((t, i) => {
      if (t.type !== 'heading_open' || t.attrGet('id')) return;
      const base = state.tokens[i + 1].content.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'section';
      let id = base;
      for (let n = 2; taken.has(id); n += 1) id = `${base}-${n}`;
      taken.add(id);
      t.attrSet('id', id);
    });
  });

  // Glossary links: link_open/link_close pairs whose href is g:TERM.
  const open = [];
  let tipCounter = 0;
  const defaultOpen = md.renderer.rules.link_open ?? ((t, i, o, e, self) => self.renderToken(t, i, o));
  const defaultClose = md.renderer.rules.link_close ?? ((t, i, o, e, self) => self.renderToken(t, i, o));
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    const href = tokens[idx].attrGet('href') ?? '';
    if (!href.startsWith('g:')) {
      open.push(null);
      return defaultOpen(tokens, idx, options, env, self);
    }
    const term = href.slice(2);
    const entry = ctx.glossary.get(term);
    if (!entry) throw new Error(`${ctx.where}: glossary term "${term}" is not defined in content/glossary/`);
    ctx.usedTerms.add(term);
    tipCounter += 1;
    const tip = `tip-${term}-${tipCounter}`;
    open.push({ entry, tip });
    return `<span class="term-wrap"><a class="term" href="/glossary/#${esc(term)}" aria-describedby="${tip}">`;
  };
  md.renderer.rules.link_close = (tokens, idx, options, env, self) => {
    const g = open.pop();
    if (!g) return defaultClose(tokens, idx, options, env, self);
    return `</a><span class="term-tip" role="tooltip" id="${g.tip}"><strong>${esc(g.entry.term)}</strong>: ` +
      `${esc(g.entry.definition)}</span></span>`;
  };

  return md;
}
