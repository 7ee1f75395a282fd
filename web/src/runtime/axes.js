// Axis helpers shared by figures (pure; no Chart.js import).
import { formatSI } from './format.js';

// Tick labels of a logarithmic axis: powers of ten only, plus 2 and 5 when the axis spans
// less than three decades; plain decimals below 1 when the axis has no unit.
export function logTick(unit = '') {
  return (v, i, ticks) => {
    const m = v / 10 ** Math.floor(Math.log10(v) + 1e-9);
    const few = ticks.length > 1 && ticks[ticks.length - 1].value / ticks[0].value < 1e3;
    const labelled = Math.abs(m - 1) < 1e-6 || (few && (Math.abs(m - 2) < 1e-6 || Math.abs(m - 5) < 1e-6));
    if (!labelled) return '';
    return !unit && v < 1 ? String(Number(v.toPrecision(1))) : formatSI(v, unit);
  };
}
