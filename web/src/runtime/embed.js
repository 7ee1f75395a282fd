// For other sites (documented on the site's /embedding/ page):
//   <script type="module" src="https://COURSE/assets/js/embed.js"></script>
//   <mlsys-figure data-id="roofline-plot" data-settings="hardware=b200&dtype=fp8-e4m3"></mlsys-figure>
// defines <mlsys-figure> (figure.js), which loads the engine and the figure's module from the
// course's origin (this script's URL) when it nears the viewport. Its settings come from
// data-settings, then from the host page's hash "#<figure-id>:key=value&..." (the course's
// permalink form); both are validated against the engine's schemas and never inserted as
// markup. The course's styles come with it.
import './figure.js';

const css = new URL('../site.css', import.meta.url).href;
if (!document.querySelector(`link[href="${css}"]`)) {
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = css;
  document.head.append(link);
}
