// Text labels drawn beside chosen points of a chart, so a figure can name the points its
// caption talks about (the roofline's kernels, published models) without a hover.
// A dataset opts in with `pointLabels: true` (each point's raw.label) or a function
// (raw, index) => text. Labels keep clear of every marker and bar, except the bars of a dataset
// marked `labelBackdrop: true` (ranges drawn behind the values they hold, which a label beside
// its value must cross: float-format-explorer's format ranges). Colours come from options.plugins.pointLabels { color, haloColor },
// set by figures/shared/chart-config.js from the theme: the halo (a stroke of the figure's
// background around the glyphs) keeps the text readable over grid lines and other series.
//
// placeLabel is pure (node-tested). It tries places in rings around the point: first right,
// left, above and below it (clear of its marker, radius pt.r), then the four corners, then
// above and below again but ending or starting at the point, then the same twelve places a
// text height further out, and so on for RINGS rings. It takes the first
// place whose box lies inside the plot area, overlaps neither a label placed before nor
// another point's marker (`markers`, boxes) and crosses no drawn line (`lines`, segments
// {x1, y1, x2, y2}). Otherwise the place inside the area that overlaps no label and costs
// least: a covered marker costs more than any other place, a crossed line as much as going
// LINE_COST rings further out (a label that stays by its point may cross a line under its
// halo rather than wander far off); among equals the nearest. Failing that,
// the first of them moved into the area that overlaps no label; failing that, the right-hand
// one moved into the area. A label placed beyond the first ring says so (`far`); the plugin
// draws a thin leader from its point to such a label, and to one that another point's marker
// is as close to as its own point (closerMarker), so that no label seems to name another point.
const GAP = 6; // px between the point and its text
const RINGS = 8;
const PER_RING = 12;
const LINE_COST = 4; // rings a label may move out to keep off a line

export function placeLabel(pt, size, area, placed, markers = [], lines = []) {
  const { w, h } = size;
  const near = GAP + (pt.r ?? 0); // clear of the marker
  const candidates = [];
  for (let ring = 0; ring < RINGS; ring += 1) {
    const d = near + ring * h;
    const c = (d * 3) / 4; // a corner's offset: diagonal, still clear of the marker
    candidates.push(
      { x: pt.x + d, y: pt.y - h / 2 },
      { x: pt.x - d - w, y: pt.y - h / 2 },
      { x: pt.x - w / 2, y: pt.y - d - h },
      { x: pt.x - w / 2, y: pt.y + d },
      { x: pt.x + c, y: pt.y - c - h },
      { x: pt.x + c, y: pt.y + c },
      { x: pt.x - c - w, y: pt.y - c - h },
      { x: pt.x - c - w, y: pt.y + c },
      // Above and below, ending or starting at the point.
      { x: pt.x - w, y: pt.y - d - h },
      { x: pt.x, y: pt.y - d - h },
      { x: pt.x - w, y: pt.y + d },
      { x: pt.x, y: pt.y + d },
    );
    candidates.slice(-PER_RING).forEach((b) => { b.far = ring > 0; b.ring = ring; });
  }
  const inside = (b) => b.x >= area.left && b.x + w <= area.right && b.y >= area.top && b.y + h <= area.bottom;
  const meets = (b) => (p) => b.x < p.x + p.w && p.x < b.x + w && b.y < p.y + p.h && p.y < b.y + h;
  const overlaps = (b) => placed.some(meets(b));
  const covered = (b) => markers.filter(meets(b)).length;
  // Moved into the area (the left/top edge wins when the text is wider than the area).
  const clamp = (b) => ({
    x: Math.max(area.left, Math.min(b.x, area.right - w)),
    y: Math.max(area.top, Math.min(b.y, area.bottom - h)),
    far: b.far,
  });
  const crossed = (b) => lines.filter((l) => segmentMeetsBox(l, { x: b.x, y: b.y, w, h })).length;
  const cost = (b) => covered(b) * RINGS * PER_RING + crossed(b) * LINE_COST + b.ring;
  let best;
  for (const b of candidates) {
    if (!inside(b) || overlaps(b)) continue;
    const c = cost(b);
    if (c === 0) { best = b; break; }
    if (!best || c < best.cost) best = { ...b, cost: c };
  }
  const box = best
    ?? candidates.slice(0, PER_RING).map(clamp).find((b) => !overlaps(b))
    ?? clamp(candidates[0]);
  return { x: box.x, y: box.y, w, h, far: Boolean(box.far) };
}

// Whether a segment {x1, y1, x2, y2} passes through a box {x, y, w, h} (Liang–Barsky clipping).
export function segmentMeetsBox(l, box) {
  const dx = l.x2 - l.x1;
  const dy = l.y2 - l.y1;
  let t0 = 0;
  let t1 = 1;
  const sides = [[-dx, l.x1 - box.x], [dx, box.x + box.w - l.x1], [-dy, l.y1 - box.y], [dy, box.y + box.h - l.y1]];
  for (const [p, q] of sides) {
    if (p === 0) {
      if (q < 0) return false;
    } else {
      const t = q / p;
      if (p < 0) t0 = Math.max(t0, t);
      else t1 = Math.min(t1, t);
      if (t0 > t1) return false;
    }
  }
  return true;
}

// The text of each point of a dataset that asked for labels ('' or null: no label).
export function labelText(dataset, raw, index) {
  const spec = dataset.pointLabels;
  if (!spec || raw === null || raw === undefined) return '';
  const text = typeof spec === 'function' ? spec(raw, index) : raw.label;
  return text === undefined || text === null ? '' : String(text);
}

// Distance from a box to a point (0 inside it).
const gapTo = (box, x, y) => Math.hypot(Math.max(box.x - x, 0, x - box.x - box.w), Math.max(box.y - y, 0, y - box.y - box.h));

// Whether another point's marker is about as close to the label as its own point, within half
// a text height (then the reader could take the label for that point's: the plugin draws a
// leader).
export function closerMarker(pt, box, markers) {
  const own = gapTo(box, pt.x, pt.y) - (pt.r ?? 0);
  return markers.some((m) => gapTo(box, m.x + m.w / 2, m.y + m.h / 2) - m.w / 2 <= own + box.h / 2);
}

// A thin line from a point to the nearest edge of its label, for a label placed away from it
// or nearer another marker than its own.
function leader(ctx, pt, box, colour) {
  const x = Math.max(box.x, Math.min(pt.x, box.x + box.w));
  const y = Math.max(box.y, Math.min(pt.y, box.y + box.h));
  const len = Math.hypot(x - pt.x, y - pt.y);
  if (len <= pt.r + 1) return;
  const k = (pt.r + 1) / len; // from the marker's edge, not its centre
  ctx.save();
  ctx.globalAlpha = 0.6;
  ctx.lineWidth = 1;
  ctx.strokeStyle = colour;
  ctx.beginPath();
  ctx.moveTo(pt.x + (x - pt.x) * k, pt.y + (y - pt.y) * k);
  ctx.lineTo(x, y);
  ctx.stroke();
  ctx.restore();
}

// The segments a line dataset draws between its consecutive drawn points (a stepped line
// through its corner as Chart.js draws it; a curved one as its chords).
function segmentsOf(elements, stepped) {
  const pts = elements.filter((el) => !el.skip && Number.isFinite(el.x) && Number.isFinite(el.y));
  const out = [];
  for (let i = 1; i < pts.length; i += 1) {
    const a = pts[i - 1];
    const b = pts[i];
    if (!stepped) { out.push({ x1: a.x, y1: a.y, x2: b.x, y2: b.y }); continue; }
    const corner = stepped === 'middle' ? null : stepped === 'after' ? { x: a.x, y: b.y } : { x: b.x, y: a.y };
    if (corner) out.push({ x1: a.x, y1: a.y, x2: corner.x, y2: corner.y }, { x1: corner.x, y1: corner.y, x2: b.x, y2: b.y });
    else {
      const mid = (a.x + b.x) / 2;
      out.push({ x1: a.x, y1: a.y, x2: mid, y2: a.y }, { x1: mid, y1: a.y, x2: mid, y2: b.y }, { x1: mid, y1: b.y, x2: b.x, y2: b.y });
    }
  }
  return out;
}

// The box a bar covers (Chart.js BarElement: x, y its value's end, base its start, width or
// height its thickness), or null for a bar of no length.
function barBox(el) {
  const { x, y, base, width, height, horizontal } = el.getProps(['x', 'y', 'base', 'width', 'height', 'horizontal'], true);
  if (![x, y, base].every(Number.isFinite) || base === (horizontal ? x : y)) return null;
  return horizontal
    ? { x: Math.min(x, base), y: y - height / 2, w: Math.abs(x - base), h: height }
    : { x: x - width / 2, y: Math.min(y, base), w: width, h: Math.abs(base - y) };
}

// Where the labels of a chart went: {labels: [{text, x, y, w, h, marker}], markers: [{x, y, w,
// h}], bars: [{x, y, w, h}]} (marker: the index of the label's own point's marker, -1 if it has none),
// kept on the chart as chart.$pointLabels after each draw, for the browser test that no two
// labels overlap and no label covers a marker (tests/web/point-labels.test.mjs).
export const pointLabelsPlugin = {
  id: 'pointLabels',
  afterDatasetsDraw(chart, _args, opts) {
    const { ctx, chartArea } = chart;
    const placed = [];
    ctx.save();
    const size = Math.max(10, (chart.options.font?.size ?? 12) - 1);
    ctx.font = `${size}px ${chart.options.font?.family ?? 'sans-serif'}`;
    ctx.textBaseline = 'top';
    ctx.lineJoin = 'round';
    ctx.lineWidth = 3;
    const labelled = [];
    const points = []; // every drawn marker: [point, its box]
    const bars = []; // every drawn bar's box
    const lines = []; // every drawn line's segments
    const markerOf = (pt) => ({ x: pt.x - pt.r, y: pt.y - pt.r, w: 2 * pt.r, h: 2 * pt.r });
    chart.data.datasets.forEach((ds, di) => {
      if (!chart.isDatasetVisible(di)) return;
      const meta = chart.getDatasetMeta(di);
      if (ds.showLine ?? chart.options.showLine ?? meta.type === 'line') lines.push(...segmentsOf(meta.data, ds.stepped));
      meta.data.forEach((el, i) => {
        if (el.skip || !Number.isFinite(el.x) || !Number.isFinite(el.y)) return;
        const r = meta.type === 'bar' ? 0 : el.options?.radius ?? 0; // a bar is no marker: its box is below
        const pt = { x: el.x, y: el.y, r };
        if (r > 0) points.push([pt, markerOf(pt)]);
        if (meta.type === 'bar' && !ds.labelBackdrop) {
          const b = barBox(el);
          if (b) bars.push(b);
        }
        const text = labelText(ds, ds.data[i], i);
        if (text) labelled.push({ text, pt });
      });
    });
    const shown = [];
    for (const item of labelled) {
      // Every other point's marker and every bar (its own too), which this label should not cover.
      const markers = points.filter(([p]) => p !== item.pt).map(([, b]) => b);
      const box = placeLabel(item.pt, { w: ctx.measureText(item.text).width, h: size + 2 }, chartArea, placed, [...markers, ...bars], lines);
      placed.push(box);
      shown.push({ text: item.text, ...box, marker: points.findIndex(([p]) => p === item.pt) });
      if (box.far || closerMarker(item.pt, box, markers)) leader(ctx, item.pt, box, opts.color ?? '#000');
      ctx.lineWidth = 3;
      ctx.strokeStyle = opts.haloColor ?? '#fff';
      ctx.fillStyle = opts.color ?? '#000';
      ctx.strokeText(item.text, box.x, box.y);
      ctx.fillText(item.text, box.x, box.y);
    }
    chart.$pointLabels = { labels: shown, markers: points.map(([, b]) => b), bars, lines };
    ctx.restore();
  },
};
