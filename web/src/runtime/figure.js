// <mlsys-figure data-id="..."> : loads the engine and the figure module when it nears the
// viewport, builds controls from the figure's parameters, computes data(engine, params),
// draws it (a Chart.js config on a canvas, or an SVG scene as inline SVG: svg-render.js), and
// offers reset, permalink, embed, CSV and a data table (visually hidden for screen readers,
// shown on "Show data"). Rejected input shows a message inside the figure and keeps the last
// good drawing.
import { loadEngine, partFor } from './engine.js';
import { figureLoaders } from '../figures/index.js';
import { h, uid, whenNear, whenIdle, download } from './dom.js';
import { resolveParams, defaults, applyState, encodeState, decodeHash } from './params.js';
import { buildControls } from './controls.js';
import { readTheme } from './theme.js';
import { SvgView } from './svg-render.js';
import { EMBED_CHROME } from './embed-height.js';
import { labelledError } from './field-labels.js';
import { tableText } from './table-text.js';

const siteRoot = new URL('../../', import.meta.url);
let firstDrawMarked = false;

// Starting a figure is three tasks (the engine's instantiation, its schemas, the first chart)
// rather than one long one that would block input.
const nextTask = () => new Promise((resolve) => { setTimeout(resolve, 0); });

// The redraws in idle time after a figure's first draw (warmUp): at most so many, and so long.
const WARM_REDRAWS = 8;
const WARM_MS = 200;

function csvCell(v) {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function tableToCsv(table) {
  return [table.columns, ...table.rows].map((row) => row.map(csvCell).join(',')).join('\n') + '\n';
}

class MlsysFigure extends HTMLElement {
  connectedCallback() {
    if (this.started) return;
    this.started = true;
    this.id_ = this.dataset.id ?? '';
    this.status = h('p', { class: 'fig-status', role: 'status', 'aria-live': 'polite', text: 'Loading figure…' });
    if (!Object.hasOwn(figureLoaders, this.id_)) {
      this.replaceChildren(h('p', { class: 'fig-error', role: 'alert', text: `Unknown figure "${this.id_.slice(0, 60)}".` }));
      return;
    }
    // The page's placeholder (title, caption, reserved boxes) stays until the figure is built.
    this.querySelector('.fig-status')?.replaceWith(this.status);
    // A figure starts near the viewport, or once visible where the page asks (data-start=
    // "visible": /figures/, whose figures a reader mostly scrolls past); a permalink to this
    // figure starts it at once.
    if (decodeHash(location.hash, this.id_)) this.start();
    else whenNear(this, () => this.start(), this.dataset.start === 'visible' ? '0px' : undefined);
  }

  async start() {
    try {
      const [engine, mod, charts] = await Promise.all([loadEngine(partFor('figures', this.id_)), figureLoaders[this.id_](), import('./chart.js')]);
      this.charts = charts;
      this.engine = engine;
      this.figure = mod.default;
      await nextTask();
      this.specs = resolveParams(this.figure, engine);
    } catch (err) {
      if (!this.status.isConnected) this.append(this.status);
      this.status.textContent = `This figure could not load: ${err.message}`;
      this.status.className = 'fig-error';
      this.dataset.state = 'failed';
      this.dispatchEvent(new CustomEvent('mlsys-figure-failed', { bubbles: true }));
      return;
    }
    await nextTask();
    this.defaults = defaults(this.specs);
    const outside = [];
    let params = this.defaults;
    // Embed attribute: data-settings="key=value&key=value" (validated like the URL hash).
    if (this.dataset.settings) {
      const r = applyState(this.specs, params, Object.fromEntries(new URLSearchParams(this.dataset.settings)));
      params = r.params;
      outside.push(...r.errors);
    }
    const fromHash = decodeHash(location.hash, this.id_);
    if (fromHash) {
      const r = applyState(this.specs, params, fromHash);
      params = r.params;
      outside.push(...r.errors);
    }
    this.params = params;
    this.build();
    this.render(outside.join(' '));
    if (fromHash) this.scrollIntoView({ block: 'start' });
    this.warmUp();
    window.addEventListener('hashchange', () => {
      const state = decodeHash(location.hash, this.id_);
      if (!state) return;
      const r = applyState(this.specs, this.defaults, state);
      this.rejected?.clear();
      this.params = r.params;
      this.controls.set(this.params);
      this.render(r.errors.join(' '));
    });
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => this.render());
  }

  // A reader's first control changes ran code V8 had not yet optimized: the chart library's
  // update path, the figure's data and draw, and the engine's calculators (WASM starts from a
  // baseline compile; V8 optimizes a function once it has run enough). Those redraws took two
  // to three times as long as later ones. So, in idle time after the first draw, the figure
  // redraws itself with the same settings (nothing on screen changes), WARM_REDRAWS times or
  // until they have taken WARM_MS in all. An analytic figure's warm-up computes its engine
  // calls again rather than reading the kept outputs (engine-api.js): warming the calculators
  // too cut the slowest of a reader's first redraws by about a quarter (README, Benchmarks).
  // A simulation's calls can take tens of milliseconds each, so its warm-up reads them.
  warmUp(times = WARM_REDRAWS, spent = 0) {
    if (times <= 0 || spent >= WARM_MS) return;
    whenIdle(() => {
      if (!this.isConnected) return;
      const t0 = performance.now();
      if (this.figure.simulation) this.render('', true);
      else this.engine.uncached(() => this.render('', true));
      this.warmUp(times - 1, spent + performance.now() - t0);
    });
  }

  build() {
    const f = this.figure;
    const titleId = uid('fig-title');
    // A control whose typed value was rejected stays flagged, with its message, while other
    // controls change: the figure keeps that control's last accepted value, and says so.
    this.rejected = new Map();
    this.controls = buildControls(this.specs, this.params, (key, value, error) => {
      if (error) {
        this.rejected.set(key, error);
        this.showMessage(error);
        this.controls.setInvalid(key);
        return;
      }
      this.rejected.delete(key);
      this.params = { ...this.params, [key]: value };
      this.render();
    });
    this.controls.set(this.params);
    this.canvas = h('canvas', { role: 'img', 'aria-label': `${f.title}. The data table below the chart gives the values.` });
    this.message = h('p', { class: 'fig-message', role: 'alert', hidden: true });
    this.srTable = h('table');
    this.chartBox = h('div', { class: 'fig-chart' }, this.canvas);
    this.tableBox = h('div', { class: 'sr-only', id: uid('fig-data') }, this.srTable);
    this.embedPanel = h('div', { class: 'fig-embed', hidden: true });
    const button = (text, onclick) => h('button', { type: 'button', class: 'fig-btn', onclick, text });
    this.status.textContent = '';
    this.status.className = 'fig-status';
    this.replaceChildren(
      h('div', { class: 'fig-title', id: titleId, role: 'heading', 'aria-level': this.dataset.level ?? '3', text: f.title }),
      this.controls.root,
      this.chartBox,
      this.message,
      h('div', { class: 'fig-toolbar', role: 'group', 'aria-label': 'Figure actions' },
        button('Reset', () => this.reset()),
        button('Permalink', () => this.permalink()),
        button('Embed', () => this.toggleEmbed()),
        button('Download CSV', () => this.downloadCsv()),
        h('button', { type: 'button', class: 'fig-btn', 'aria-pressed': 'false', 'aria-controls': this.tableBox.id,
          onclick: (e) => this.toggleData(e.currentTarget), text: 'Show data' })),
      this.status,
      this.embedPanel,
      this.tableBox,
      h('p', { class: 'fig-caption', text: f.caption }),
    );
    this.setAttribute('aria-labelledby', titleId);
    this.setAttribute('role', 'figure');
  }

  // "Show data": the table screen readers always have, shown to everyone; a second press hides
  // it again. Shown, its box scrolls sideways on a phone, so it is a tab stop (the keyboard
  // scrolls it) and a named region.
  toggleData(btn) {
    const show = btn.getAttribute('aria-pressed') !== 'true';
    btn.setAttribute('aria-pressed', String(show));
    this.tableBox.className = show ? 'fig-data' : 'sr-only';
    const attrs = { tabindex: '0', role: 'region', 'aria-label': `Data of the figure "${this.figure.title}"` };
    for (const [k, v] of Object.entries(attrs)) {
      if (show) this.tableBox.setAttribute(k, v);
      else this.tableBox.removeAttribute(k);
    }
  }

  showMessage(text) {
    this.message.textContent = text;
    this.message.hidden = !text;
  }

  render(note = '', warm = false) {
    const t0 = performance.now();
    let data, config;
    const { Chart, applyThemeDefaults } = this.charts;
    try {
      data = this.figure.data(this.engine, this.params);
      // SVG scenes are laid out for the chart box's size (text at its own size on a phone).
      const theme = { ...readTheme(this), width: this.chartBox.clientWidth, height: this.chartBox.clientHeight };
      applyThemeDefaults(theme, this.clientWidth);
      config = this.figure.draw(data, theme);
    } catch (err) {
      if (warm) return;
      const { key, message } = labelledError(err, this.specs);
      this.controls.setInvalid(key);
      this.showMessage(`${message} The figure still shows the last accepted settings.`);
      this.dataset.rejected = String(Number(this.dataset.rejected ?? 0) + 1);
      return;
    }
    if (!warm) {
      const [key, error] = [...(this.rejected ?? [])][0] ?? [null, ''];
      this.controls.setInvalid(key);
      this.showMessage(error ? `${error} The figure uses its last accepted value.` : note);
    }
    this.data = data;
    if (config.type === 'svg') this.drawSvg(config);
    else if (this.chart && this.chart.config.type === config.type) {
      this.chart.data = config.data;
      this.chart.options = config.options;
      this.chart.update('none');
    } else {
      this.drawSvg(null);
      this.chart?.destroy();
      this.chart = new Chart(this.canvas, config);
    }
    if (warm) return;
    this.dataset.renderMs = (performance.now() - t0).toFixed(2);
    this.dataset.draws = String(Number(this.dataset.draws ?? 0) + 1);
    this.queueTable(data.table);
    this.dataset.state = 'drawn';
    if (!firstDrawMarked) {
      firstDrawMarked = true;
      performance.mark('mlsys:first-figure-drawn');
    }
    this.dispatchEvent(new CustomEvent('mlsys-figure-drawn', { bubbles: true }));
  }

  // An SVG scene in place of the canvas, in the same box (null: back to the canvas).
  drawSvg(scene) {
    if (!scene) {
      this.svgView?.root.remove();
      this.svgView = null;
      this.canvas.style.display = '';
      return;
    }
    if (!this.svgView) {
      this.chart?.destroy();
      this.chart = null;
      this.canvas.style.display = 'none';
      this.svgView = new SvgView(this.figure.title);
      this.chartBox.append(this.svgView.root);
      if (!this.resizeWatch) {
        this.resizeWatch = new ResizeObserver(() => this.svgResized());
        this.resizeWatch.observe(this.chartBox);
      }
    }
    this.svgView.render(scene);
  }

  // A scene is laid out for its box: when the box changes width (a phone turned), the same data
  // is drawn again for the new size (data() is not called again).
  svgResized() {
    const w = this.chartBox.clientWidth;
    if (!this.svgView || !this.data || w === 0 || Math.abs(w - this.svgView.scene.width) <= 8) return;
    const theme = { ...readTheme(this), width: w, height: this.chartBox.clientHeight };
    try {
      this.svgView.render(this.figure.draw(this.data, theme));
    } catch { /* the last drawing stays */ }
  }

  // The data table is mostly not seen (only on "Show data"), so it is filled after the frame
  // that shows the new drawing, in idle time (at most 250 ms later), and only with the latest
  // drawing's data when redraws come faster: the layout of its cells (hundreds) is not part of
  // that frame.
  // data-table-draws: the draw whose data the table shows.
  queueTable(table) {
    const draw = this.dataset.draws;
    const queued = this.queuedTable;
    this.queuedTable = { table, draw };
    if (queued) return;
    requestAnimationFrame(() => whenIdle(() => {
      const latest = this.queuedTable;
      this.queuedTable = null;
      this.fillTable(latest.table);
      this.dataset.tableDraws = latest.draw;
    }, 250));
  }

  // A redraw usually changes values, not the table's shape: then only the cells whose text
  // changed are rewritten (no new elements to style and lay out).
  fillTable(table) {
    const shape = [table.columns.join('\u0000'), ...table.rows.map((r) => r.length)].join('|');
    const texts = tableText(table);
    if (this.tableShape === shape) {
      const rows = this.srTable.tBodies[0].rows;
      texts.forEach((r, i) => r.forEach((text, j) => {
        const td = rows[i].cells[j];
        if (td.textContent !== text) td.textContent = text;
      }));
      return;
    }
    this.tableShape = shape;
    const head = h('tr', {}, table.columns.map((c) => h('th', { scope: 'col', text: c })));
    const rows = texts.map((r) => h('tr', {}, r.map((text) => h('td', { text }))));
    this.srTable.replaceChildren(h('caption', { text: `Data of the figure "${this.figure.title}"` }),
      h('thead', {}, head), h('tbody', {}, rows));
  }

  reset() {
    this.rejected?.clear();
    this.params = { ...this.defaults };
    this.controls.set(this.params);
    this.render();
    // The permalink in the address bar names the old settings: drop it (only this figure's).
    if (decodeHash(location.hash, this.id_)) history.replaceState(null, '', location.pathname + location.search);
    this.status.textContent = 'Settings reset.';
  }

  stateHash() {
    return encodeState(this.id_, this.specs, this.params);
  }

  async permalink() {
    history.replaceState(null, '', `#${this.stateHash()}`);
    const url = location.href;
    try {
      await navigator.clipboard.writeText(url);
      this.status.textContent = 'Link to these settings copied.';
    } catch {
      this.status.textContent = 'The address bar now links to these settings.';
    }
  }

  toggleEmbed() {
    if (!this.embedPanel.hidden) {
      this.embedPanel.hidden = true;
      return;
    }
    const state = this.stateHash().slice(this.id_.length + 1);
    // The iframe's height: this figure's at the width it has here (the listener on /embedding/ adjusts it).
    const height = Math.ceil(this.getBoundingClientRect().height) + EMBED_CHROME;
    const iframe = `<iframe src="${new URL(`embed/${this.id_}/`, siteRoot)}${state ? `#${this.id_}:${state}` : ''}" ` +
      `title="${this.figure.title.replace(/"/g, '&quot;')}" width="100%" height="${height}" loading="lazy" style="border:0"></iframe>`;
    const script = `<script type="module" src="${new URL('assets/js/embed.js', siteRoot)}"></script>\n` +
      `<mlsys-figure data-id="${this.id_}"${state ? ` data-settings="${state.replace(/&/g, '&amp;')}"` : ''}></mlsys-figure>`;
    const box = (label, value) => {
      const id = uid('embed');
      const area = h('textarea', { id, readonly: true, rows: '3', spellcheck: 'false' });
      area.value = value;
      return h('div', {}, h('label', { for: id, text: label }), area);
    };
    this.embedPanel.replaceChildren(box('Embed in an iframe', iframe), box('Or place it directly with the script', script));
    this.embedPanel.hidden = false;
  }

  downloadCsv() {
    if (!this.data) return;
    download(`${this.id_}.csv`, tableToCsv(this.data.table), 'text/csv');
    this.status.textContent = 'CSV downloaded.';
  }
}

// Defined as <mlsys-figure> by the page script (main.js); the script embed (embed.js) defines
// its own <mlsys-figure>, a shadow-root host, and this class under another name inside it.
export { MlsysFigure };
