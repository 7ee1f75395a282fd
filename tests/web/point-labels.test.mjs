// Point labels stay readable: in every chart figure of every lesson, no two labels overlap, no
// label covers another point's marker and none covers a bar (its own included), at the defaults and at each option of each select
// the reader sees (sample selects included), on a 1280 px desktop and a 390 px phone. The
// boxes are the ones the runtime placed and drew (chart.$pointLabels, runtime/point-labels.js:
// its text measured by the canvas), so the check needs a browser's layout and text metrics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPage, drawAll, useSite } from '../../web/test/browser.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// MLSYS_LESSONS=slug,slug narrows the run to those lessons (while fixing one figure).
const LESSONS = fs.readdirSync(path.join(root, 'content/lessons')).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3))
  .filter((slug) => !process.env.MLSYS_LESSONS || process.env.MLSYS_LESSONS.split(',').includes(slug));
let browser, base;
useSite((s) => ({ browser, base } = s));

// Runs in the page: for each chart figure, the overlaps at the defaults and at each option of
// each shown select, as "figure-id (setting): what overlaps what".
function overlapsInPage() {
  // Boxes meet only with some area in common (touching edges are fine); half a pixel is rounding.
  const meet = (a, b) => a.x < b.x + b.w - 0.5 && b.x < a.x + a.w - 0.5 && a.y < b.y + b.h - 0.5 && b.y < a.y + a.h - 0.5;
  const centre = (b) => [b.x + b.w / 2, b.y + b.h / 2];
  const frame = () => new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); });
  const found = [];
  const check = (fig, setting) => {
    const placed = fig.chart?.$pointLabels;
    if (!placed) return;
    const { labels, markers, bars } = placed;
    labels.forEach((a, i) => {
      for (const b of labels.slice(i + 1)) if (meet(a, b)) found.push(`${fig.dataset.id} (${setting}): labels “${a.text}” and “${b.text}” overlap`);
      const own = a.marker >= 0 ? centre(markers[a.marker]) : null;
      markers.forEach((m, j) => {
        if (j === a.marker) return;
        // A marker drawn on the label's own point (two series meeting there) is its own.
        const [cx, cy] = centre(m);
        if (own && Math.abs(cx - own[0]) < 1 && Math.abs(cy - own[1]) < 1) return;
        if (meet(a, m)) found.push(`${fig.dataset.id} (${setting}): label “${a.text}” covers the marker at (${Math.round(cx)}, ${Math.round(cy)})`);
      });
      for (const b of bars) {
        if (meet(a, b)) found.push(`${fig.dataset.id} (${setting}): label “${a.text}” covers the bar at (${Math.round(b.x)}, ${Math.round(b.y)}) ${Math.round(b.w)} × ${Math.round(b.h)}`);
      }
    });
  };
  return (async () => {
    for (const fig of document.querySelectorAll('mlsys-figure')) {
      if (!fig.chart) continue;
      check(fig, 'defaults');
      const selects = [...fig.querySelectorAll('.fig-controls .ctl:not([hidden]) select')];
      for (const select of selects) {
        const start = select.value;
        for (const option of [...select.options].filter((o) => !o.disabled && o.value !== start)) {
          select.value = option.value;
          select.dispatchEvent(new Event('change'));
          await frame();
          check(fig, `${select.name} = ${option.textContent}`);
        }
        select.value = start;
        select.dispatchEvent(new Event('change'));
        await frame();
      }
    }
    return [...new Set(found)];
  })();
}

for (const width of [1280, 390]) {
  test(`point labels overlap neither each other nor other markers (${width} px)`, async () => {
    const problems = [];
    for (const slug of LESSONS) {
      const { context, page, problems: errors } = await openPage(browser, { width });
      await page.goto(`${base}/lessons/${slug}/`);
      await drawAll(page);
      problems.push(...(await page.evaluate(overlapsInPage)).map((p) => `${slug}: ${p}`));
      assert.deepEqual(errors, [], slug);
      await context.close();
    }
    assert.deepEqual(problems, []);
  });
}
