// Chart colours read from the page's CSS custom properties, so figures follow the light or
// dark colour scheme. The fallbacks are the light scheme's (web/src/styles/site.css).
const PALETTE = ['#8250df', '#1a7f37', '#bf3989', '#0a7480', '#b42318', '#7a6400', '#6f4e37', '#3b4cc0'];

export function readTheme(el) {
  const css = getComputedStyle(el);
  const v = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
  return {
    // --scheme (site.css) also follows an embedding page's scheme (host-scheme.js).
    dark: v('--scheme', '') ? v('--scheme', '') === 'dark' : window.matchMedia('(prefers-color-scheme: dark)').matches,
    text: v('--fig-text', '#1b1f24'),
    muted: v('--fig-muted', '#57606a'),
    grid: v('--fig-grid', '#d0d7de'),
    background: v('--bg', '#ffffff'),
    palette: PALETTE.map((fallback, i) => v(`--fig-c${i + 1}`, fallback)),
    memory: v('--fig-memory', '#0b5cad'),
    compute: v('--fig-compute', '#b35900'),
  };
}
