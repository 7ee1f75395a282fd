// Text labels drawn beside chosen points of a chart, so a figure can name the points its
// caption talks about (the roofline's kernels, published models) without a hover.
// A dataset opts in with `pointLabels: true` (each point's raw.label) or a function
// (raw, index) => text. Colours come from options.plugins.pointLabels { color, haloColor },
// set by figures/shared/chart-config.js from the theme: the halo (a stroke of the figure's
// background around the glyphs) keeps the text readable over grid lines and other series.
//
// placeLabel is pure (node-tested): it tries right, left, above and below the point (clear of
// its marker, radius pt.r), then the four corners, and picks the first whose box lies inside
// the plot area and overlaps neither a label placed before nor another point's marker
// (`markers`, boxes); failing that, the first inside that overlaps no label; failing that, the
// first of them moved into the area that overlaps no label; failing that, the right-hand one
// moved into the area.
const GAP = 6; // px between the point and its text

export function placeLabel(pt, size, area, placed, markers = []) {
  const { w, h } = size;
  const d = GAP + (pt.r ?? 0); // clear of the marker
  const c = (d * 3) / 4; // a corner's offset: diagonal, still clear of the marker
  const candidates = [
    { x: pt.x + d, y: pt.y - h / 2 },
    { x: pt.x - d - w, y: pt.y - h / 2 },
    { x: pt.x - w / 2, y: pt.y - d - h },
    { x: pt.x - w / 2, y: pt.y + d },
    { x: pt.x + c, y: pt.y - c - h },
    { x: pt.x + c, y: pt.y + c },
    { x: pt.x - c - w, y: pt.y - c - h },
    { x: pt.x - c - w, y: pt.y + c },
  ];
  const inside = (b) => b.x >= area.left && b.x + w <= area.right && b.y >= area.top && b.y + h <= area.bottom;
  const hits = (boxes) => (b) => boxes.some((p) => b.x < p.x + p.w && p.x < b.x + w && b.y < p.y + p.h && p.y < b.y + h);
  const overlaps = hits(placed);
  const covers = hits(markers);
  // Moved into the area (the left/top edge wins when the text is wider than the area).
  const clamp = (b) => ({
    x: Math.max(area.left, Math.min(b.x, area.right - w)),
    y: Math.max(area.top, Math.min(b.y, area.bottom - h)),
  });
  const box = candidates.find((b) => inside(b) && !overlaps(b) && !covers(b))
    ?? candidates.find((b) => inside(b) && !overlaps(b))
    ?? candidates.map(clamp).find((b) => !overlaps(b))
    ?? clamp(candidates[0]);
  return { x: box.x, y: box.y, w, h };
}

// The text of each point of a dataset that asked for labels ('' or null: no label).
export function labelText(dataset, raw, index) {
  const spec = dataset.pointLabels;
  if (!spec || raw === null || raw === undefined) return '';
  const text = typeof spec === 'function' ? spec(raw, index) : raw.label;
  return text === undefined || text === null ? '' : String(text);
}

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
    chart.data.datasets.forEach((ds, di) => {
      if (!ds.pointLabels || !chart.isDatasetVisible(di)) return;
      chart.getDatasetMeta(di).data.forEach((el, i) => {
        const text = labelText(ds, ds.data[i], i);
        if (!text || el.skip || !Number.isFinite(el.x) || !Number.isFinite(el.y)) return;
        labelled.push({ text, pt: { x: el.x, y: el.y, r: el.options?.radius ?? 0 } });
      });
    });
    // Every labelled point's marker, which no other point's label should cover.
    const markerOf = ({ pt }) => ({ x: pt.x - pt.r, y: pt.y - pt.r, w: 2 * pt.r, h: 2 * pt.r });
    for (const item of labelled) {
      const markers = labelled.filter((o) => o !== item).map(markerOf);
      const box = placeLabel(item.pt, { w: ctx.measureText(item.text).width, h: size + 2 }, chartArea, placed, markers);
      placed.push(box);
      ctx.strokeStyle = opts.haloColor ?? '#fff';
      ctx.fillStyle = opts.color ?? '#000';
      ctx.strokeText(item.text, box.x, box.y);
      ctx.fillText(item.text, box.x, box.y);
    }
    ctx.restore();
  },
};
