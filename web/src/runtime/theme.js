// Chart colours read from the page's CSS custom properties, so figures follow the light or
// dark colour scheme.
export function readTheme(el) {
  const css = getComputedStyle(el);
  const v = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
  return {
    dark: window.matchMedia('(prefers-color-scheme: dark)').matches,
    text: v('--fig-text', '#1b1f24'),
    muted: v('--fig-muted', '#57606a'),
    grid: v('--fig-grid', '#d0d7de'),
    palette: [1, 2, 3, 4, 5, 6].map((i) => v(`--fig-c${i}`, '#0969da')),
    memory: v('--fig-memory', '#0969da'),
    compute: v('--fig-compute', '#bc4c00'),
  };
}
