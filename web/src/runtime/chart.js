// Chart.js, registered with only the pieces figures use (tree-shaken by esbuild).
import {
  Chart, LineController, ScatterController, BarController, LinearScale, LogarithmicScale,
  CategoryScale, PointElement, LineElement, BarElement, Legend, Tooltip, Filler, Ticks,
} from 'chart.js';
import { formatFixed } from './format.js';
import { pointLabelsPlugin } from './point-labels.js';

// pointLabelsPlugin: text beside the points a figure names (a dataset's pointLabels).
Chart.register(LineController, ScatterController, BarController, LinearScale, LogarithmicScale,
  CategoryScale, PointElement, LineElement, BarElement, Legend, Tooltip, Filler, pointLabelsPlugin);

// Charts appear drawn at once: no entry animation (less main-thread work, no motion).
Chart.defaults.animation = false;

// Chart.js's default tick labels (its Ticks.formatters.numeric and .logarithmic), written with
// formatFixed instead of Intl.NumberFormat: the browser's first Intl call costs tens of
// milliseconds, paid by the first chart of a page. Labels read as in en-US, like the rest of
// the course's numbers. Ticks beyond 1e15 or below 1e-4 keep Chart.js's scientific notation,
// and an axis given Intl options (ticks.format) keeps Chart.js's formatter.
export function numericTick(value, index, ticks) {
  if (value === 0) return '0';
  if (this.options.ticks.format) return Ticks.formatters.numeric.call(this, value, index, ticks); // Intl options
  let delta = value;
  if (ticks.length > 1) {
    const largest = Math.max(Math.abs(ticks[0].value), Math.abs(ticks[ticks.length - 1].value));
    if (largest < 1e-4 || largest > 1e15) return Ticks.formatters.numeric.call(this, value, index, ticks);
    delta = ticks.length > 3 ? ticks[2].value - ticks[1].value : ticks[1].value - ticks[0].value;
    if (Math.abs(delta) >= 1 && value !== Math.floor(value)) delta = value - Math.floor(value);
  }
  const logDelta = Math.log10(Math.abs(delta));
  return formatFixed(value, Number.isNaN(logDelta) ? 1 : Math.max(Math.min(-Math.floor(logDelta), 20), 0));
}

export function logarithmicTick(value, index, ticks) {
  if (value === 0) return '0';
  const significand = ticks[index].significand || value / 10 ** Math.floor(Math.log10(value));
  const labelled = [1, 2, 3, 5, 10, 15].includes(significand) || index > 0.8 * ticks.length;
  return labelled ? numericTick.call(this, value, index, ticks) : '';
}

Chart.defaults.scales.linear.ticks.callback = numericTick;
Chart.defaults.scales.logarithmic.ticks.callback = logarithmicTick;

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
