// Chart.js, registered with only the pieces figures use (tree-shaken by esbuild).
import {
  Chart, LineController, ScatterController, BarController, LinearScale, LogarithmicScale,
  CategoryScale, PointElement, LineElement, BarElement, Legend, Tooltip, Filler,
} from 'chart.js';

Chart.register(LineController, ScatterController, BarController, LinearScale, LogarithmicScale,
  CategoryScale, PointElement, LineElement, BarElement, Legend, Tooltip, Filler);

// Charts appear drawn at once: no entry animation (less main-thread work, no motion).
Chart.defaults.animation = false;

// Colours from the theme; smaller type and legend keys on narrow (phone) figures.
export function applyThemeDefaults(theme, widthPx) {
  const narrow = widthPx < 500;
  Chart.defaults.color = theme.text;
  Chart.defaults.borderColor = theme.grid;
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  Chart.defaults.font.size = narrow ? 10 : 12;
  Chart.defaults.plugins.legend.labels.boxWidth = narrow ? 10 : 40;
  Chart.defaults.plugins.legend.labels.padding = narrow ? 6 : 10;
}

export { Chart };
