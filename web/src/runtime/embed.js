// For other sites (documented on the site's /embedding/ page):
//   <script type="module" src="https://COURSE/assets/js/embed.js"></script>
//   <mlsys-figure data-id="roofline-plot" data-settings="hardware=b200&dtype=fp8-e4m3"></mlsys-figure>
// defines <mlsys-figure> as a host for a shadow root holding the course's stylesheet and the
// figure itself (figure.js, under the name <mlsys-figure-view>), so the course's styles never
// reach the host page and the host's never reach the figure. The figure loads the engine and
// its module from the course's origin (this script's URL) when it nears the viewport. Its
// settings come from data-settings, then from the host page's hash "#<figure-id>:key=value&..."
// (the course's permalink form); both are validated against the engine's schemas and never
// inserted as markup. Light or dark follows the host's color-scheme (host-scheme.js).
import { MlsysFigure } from './figure.js';
import { hostScheme, applyScheme } from './host-scheme.js';

const css = new URL('../site.css', import.meta.url).href;

class FigureView extends MlsysFigure {}

class EmbeddedFigure extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const root = this.attachShadow({ mode: 'open' });
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = css;
    link.crossOrigin = 'anonymous'; // so that host-scheme.js may read its rules (the course sends CORS headers)
    this.view = document.createElement('mlsys-figure-view');
    for (const name of ['data-id', 'data-settings', 'data-start']) {
      if (this.hasAttribute(name)) this.view.setAttribute(name, this.getAttribute(name));
    }
    // The host page reads the figure's state (loading, drawn, failed) on the element it placed.
    new MutationObserver(() => { this.dataset.state = this.view.dataset.state ?? ''; })
      .observe(this.view, { attributes: true, attributeFilter: ['data-state'] });
    link.addEventListener('load', () => this.followScheme(link.sheet));
    // The host's inherited styles (on this element itself too) stop at this box.
    const box = document.createElement('div');
    box.className = 'embed-root';
    box.append(this.view);
    root.append(link, box);
  }

  // Applies the host's scheme now, and again when the host page changes it (a class or style
  // on <html>/<body>, the color-scheme meta) or the reader's system setting changes.
  followScheme(sheet) {
    const update = () => {
      const scheme = hostScheme(this);
      if (scheme === this.scheme) return;
      this.scheme = scheme;
      applyScheme(sheet, this.view, scheme);
      if (this.view.figure && this.view.data) this.view.render();
    };
    update();
    const watch = { attributes: true, attributeFilter: ['class', 'style', 'data-theme', 'data-color-scheme'] };
    const observer = new MutationObserver(update);
    observer.observe(document.documentElement, watch);
    if (document.body) observer.observe(document.body, watch);
    observer.observe(document.head, { subtree: true, childList: true, attributes: true, attributeFilter: ['content'] });
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', update);
  }
}

if (!customElements.get('mlsys-figure')) customElements.define('mlsys-figure', EmbeddedFigure);
if (!customElements.get('mlsys-figure-view')) customElements.define('mlsys-figure-view', FigureView);
