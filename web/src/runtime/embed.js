// For other sites: <script type="module" src=".../assets/js/embed.js"></script> defines
// <mlsys-figure data-id="..." data-settings="key=value&..."> and loads the engine and the
// figure from this site. Styles come with it.
import './figure.js';

const css = new URL('../site.css', import.meta.url).href;
if (!document.querySelector(`link[href="${css}"]`)) {
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = css;
  document.head.append(link);
}
