// Chart.js, registered with only the pieces figures use (tree-shaken by esbuild).
import {
  Chart, LineController, ScatterController, BarController, LinearScale, LogarithmicScale,
  CategoryScale, PointElement, LineElement, BarElement, Legend, Tooltip, Filler,
} from 'chart.js';

Chart.register(LineController, ScatterController, BarController, LinearScale, LogarithmicScale,
  CategoryScale, PointElement, LineElement, BarElement, Legend, Tooltip, Filler);

export function applyThemeDefaults(theme) {
  Chart.defaults.color = theme.text;
  Chart.defaults.borderColor = theme.grid;
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
}

export { Chart };
