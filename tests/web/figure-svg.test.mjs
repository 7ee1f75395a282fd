// SVG figures and "Show data" in the browser, on the FlashAttention lesson: flash-tiling-causal
// draws as inline SVG in the chart box, redraws on a control change and on the light/dark
// switch, keeps its last drawing on rejected input; the keyboard walks its tiles (one tab
// stop) with each tile's tooltip shown and announced; "Show data" shows and hides the data
// table of an SVG and of a Chart.js figure, kept up to date; nothing moves when the runtime
// replaces the page's placeholder, on a desktop or a phone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createRequire } from 'node:module';
import { openPage, paintedPixels, canvasImage, axeViolations, useSite } from '../../web/test/browser.js';
import { tableText } from '../../web/src/runtime/table-text.js';

const axePath = createRequire(path.resolve('web/package.json')).resolve('axe-core/axe.min.js');

const LESSON = '/lessons/flashattention/';
const SVG_FIG = 'mlsys-figure[data-id="flash-tiling-causal"]';
const CHART_FIG = 'mlsys-figure[data-id="flash-hbm-traffic"]';
let browser, base;
useSite((s) => ({ browser, base } = s));

async function drawn(page, sel) {
  await page.locator(sel).scrollIntoViewIfNeeded();
  await page.waitForFunction((s) => document.querySelector(s).dataset.state === 'drawn', sel, { timeout: 20000 });
  return page.locator(sel);
}

// The fill of the first tile (Q block 0, K/V block 0: done at the default progress).
const firstTileFill = (fig) => fig.evaluate((el) => {
  const k = el.svgView.scene.nodes.findIndex((n) => n.cell && n.cell[0] === 0 && n.cell[1] === 0);
  return el.svgView.els[k].getAttribute('fill');
});

test('the SVG figure draws in the chart box, redraws on a control change, keeps its drawing on rejected input', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}${LESSON}`);
  const fig = await drawn(page, SVG_FIG);
  assert.equal(await fig.locator('canvas').isVisible(), false);
  const svg = fig.locator('.fig-chart .fig-svg svg');
  assert.equal(await svg.getAttribute('role'), 'img');
  assert.match(await svg.getAttribute('aria-label'), /^The tiling loop and causal block skipping: Map of the 256 × 256 score matrix/);
  assert.equal(await fig.locator('.fig-svg [data-k]').count(), 256);
  assert.ok(await paintedPixels(await fig.elementHandle()) > 2000);
  // The SVG fills the chart box.
  const [boxSize, svgSize] = await fig.evaluate((el) => [el.querySelector('.fig-chart'), el.querySelector('.fig-svg svg')]
    .map((e) => [e.clientWidth, Math.round(e.getBoundingClientRect().height)]));
  assert.deepEqual(svgSize, boxSize);
  // The progress slider, one step: the legend's count and the drawing change.
  const before = await canvasImage(await fig.elementHandle());
  const draws = Number(await fig.getAttribute('data-draws'));
  await fig.locator('input[type=range]').first().focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(([s, n]) => Number(document.querySelector(s).dataset.draws) > n, [SVG_FIG, draws]);
  assert.notEqual(await canvasImage(await fig.elementHandle()), before);
  assert.equal(await fig.locator('.fig-svg text', { hasText: /^Computed \(56 of 136 tiles\)$/ }).count(), 1);
  // Redrawn in place: every tile's element shows its new state (the current tile moved on).
  const mismatched = await fig.evaluate((el) => el.svgView.scene.nodes.map((n, k) => [n, el.svgView.els[k]])
    .filter(([n, e]) => n.cell && (e.getAttribute('fill') !== n.fill || (e.getAttribute('stroke') ?? undefined) !== n.stroke)).length);
  assert.equal(mismatched, 0);
  // Too many tiles: the message, the SRAM control marked, the last drawing kept.
  await fig.locator('select').selectOption('8');
  const seq = fig.locator('input[type=number]').nth(1);
  await seq.fill('1024');
  await seq.press('Enter');
  await page.waitForFunction((s) => document.querySelector(s).svgView.scene.grid.rows === 128, SVG_FIG);
  const kept = await canvasImage(await fig.elementHandle());
  const sram = fig.locator('input[type=number]').nth(2);
  await sram.fill('1024');
  await sram.press('Enter');
  await fig.locator('.fig-message').waitFor({ state: 'visible' });
  assert.match(await fig.locator('.fig-message').textContent(), /more than the 4,096 this map draws/);
  assert.equal(await sram.getAttribute('aria-invalid'), 'true');
  assert.equal(await canvasImage(await fig.elementHandle()), kept);
  assert.deepEqual(problems, []);
  await context.close();
});

test('keyboard: one tab stop, arrows walk the tiles, the focused tile shows and announces its tooltip', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}${LESSON}`);
  const fig = await drawn(page, SVG_FIG);
  await fig.locator('select').focus(); // the last control, just before the map
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.className), 'fig-svg');
  const map = fig.locator('.fig-svg');
  assert.equal(await map.getAttribute('role'), 'group');
  assert.match(await page.locator(`#${await map.getAttribute('aria-describedby')}`).textContent(), /Arrow keys move between the 16 × 16 cells/);
  const tip = fig.locator('.fig-tip');
  await tip.waitFor({ state: 'visible' });
  assert.match(await tip.textContent(), /^Tile 1 of 136: K\/V block 0 \(keys 0–15\), Q block 0 \(queries 0–15\), on the diagonal/);
  for (const k of ['ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowRight']) await page.keyboard.press(k);
  assert.match(await tip.textContent(), /K\/V block 1 \(keys 16–31\), Q block 3 \(queries 48–63\); done$/);
  assert.equal(await fig.locator('.fig-svg p[aria-live]').textContent(), await tip.textContent());
  // The tooltip sits by the focused tile: just below (or above) its outline.
  const ring = await fig.locator('.fig-svg svg .fig-ring').boundingBox();
  const box = await tip.boundingBox();
  assert.ok(Math.abs(box.y - (ring.y + ring.height)) < 12 || Math.abs(box.y + box.height - ring.y) < 12, 'the tooltip is by the tile');
  // End: the row's last tile that exists; Up stops at the edge; Home back to the first.
  await page.keyboard.press('End');
  assert.match(await tip.textContent(), /K\/V block 15 \(keys 240–255\), Q block 3 .*skipped/);
  await page.keyboard.press('Home');
  await page.keyboard.press('PageUp');
  await page.keyboard.press('ArrowUp');
  assert.match(await tip.textContent(), /^Tile 1 of 136/);
  await page.keyboard.press('Escape');
  await tip.waitFor({ state: 'hidden' });
  // A redraw while the map keeps the focus (here the dark theme) leaves the tooltip dismissed.
  const light = await firstTileFill(fig);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForFunction(([s, c]) => {
    const el = document.querySelector(s);
    return el.svgView.els[el.svgView.scene.nodes.findIndex((n) => n.cell)].getAttribute('fill') !== c;
  }, [SVG_FIG, light]);
  assert.equal(await tip.isHidden(), true, 'a redraw brought back the dismissed tooltip');
  await page.keyboard.press('ArrowRight');
  await tip.waitFor({ state: 'visible' });
  // Hover shows a tile's tooltip too; leaving the map with Tab hides it.
  await page.keyboard.press('Tab');
  await tip.waitFor({ state: 'hidden' });
  // (A tile on the diagonal: the line over it lets the pointer through.)
  const k = await fig.evaluate((el) => el.svgView.scene.nodes.findIndex((n) => n.cell && n.cell[0] === 2 && n.cell[1] === 2));
  await fig.locator(`.fig-svg [data-k="${k}"]`).hover();
  await tip.waitFor({ state: 'visible' });
  assert.match(await tip.textContent(), /K\/V block 2 \(keys 32–47\), Q block 2 \(queries 32–47\), on the diagonal/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('dark mode and resizing: the SVG is redrawn in the dark theme, and for a narrower box', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}${LESSON}`);
  const fig = await drawn(page, SVG_FIG);
  const light = await firstTileFill(fig);
  const lightText = await fig.locator('.fig-svg text').first().getAttribute('fill');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForFunction(([s, c]) => {
    const el = document.querySelector(s);
    const k = el.svgView.scene.nodes.findIndex((n) => n.cell);
    return el.svgView.els[k].getAttribute('fill') !== c;
  }, [SVG_FIG, light]);
  const css = (name) => page.evaluate((n) => getComputedStyle(document.documentElement).getPropertyValue(n).trim(), name);
  assert.equal(await firstTileFill(fig), await css('--fig-c1'));
  assert.equal(await fig.locator('.fig-svg text').first().getAttribute('fill'), await css('--fig-text'));
  assert.notEqual(await fig.locator('.fig-svg text').first().getAttribute('fill'), lightText);
  // A narrower window (a phone turned): the scene is laid out again for the new box.
  await page.setViewportSize({ width: 390, height: 900 });
  await page.waitForFunction((s) => {
    const el = document.querySelector(s);
    return Math.abs(el.svgView.scene.width - el.querySelector('.fig-chart').clientWidth) <= 8;
  }, SVG_FIG);
  assert.equal(await fig.evaluate((el) => el.svgView.scene.minFont), 11);
  assert.deepEqual(problems, []);
  await context.close();
});

for (const width of [1280, 390]) {
  test(`Show data (${width} px): shows and hides the table of a Chart.js and of an SVG figure, kept up to date`, async () => {
    const { context, page, problems } = await openPage(browser, { width });
    await page.goto(`${base}${LESSON}`);
    for (const sel of [CHART_FIG, SVG_FIG]) {
      const fig = await drawn(page, sel);
      const btn = fig.getByRole('button', { name: 'Show data' });
      const box = fig.locator(`#${await btn.getAttribute('aria-controls')}`);
      assert.equal(await btn.getAttribute('aria-pressed'), 'false');
      assert.equal(await box.getAttribute('class'), 'sr-only');
      assert.ok((await box.boundingBox()).height <= 1, 'hidden: the table only for screen readers');
      await btn.click();
      assert.equal(await btn.getAttribute('aria-pressed'), 'true');
      await fig.locator('.fig-data table tbody tr').first().waitFor({ state: 'visible' });
      assert.ok((await box.boundingBox()).height > 100);
      // The visible table follows a redraw.
      const draws = Number(await fig.getAttribute('data-draws'));
      const slider = fig.locator('input[type=range]').first();
      await slider.focus();
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(([s, n]) => {
        const el = document.querySelector(s);
        return Number(el.dataset.draws) > n && el.dataset.tableDraws === el.dataset.draws;
      }, [sel, draws]);
      const [shown, table] = await fig.evaluate((el) => [
        [...el.querySelectorAll('.fig-data tbody tr')].map((tr) => [...tr.cells].map((td) => td.textContent)),
        el.data.table,
      ]);
      // Counts exact with separators, other numbers with four significant digits (table-text.js).
      assert.deepEqual(shown, tableText(table));
      if (width === 390) {
        // A wide table scrolls inside its box; the page does not get wider.
        assert.ok(await box.evaluate((b) => b.scrollWidth > b.clientWidth), 'the table scrolls sideways');
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the page is wider than the screen');
      }
      // The toolbar's five buttons fit in its reserved height.
      assert.ok(await fig.locator('.fig-toolbar').evaluate((t) => t.scrollHeight <= t.clientHeight), 'the toolbar overflows');
      // A second press (by keyboard) hides it again.
      await btn.focus();
      await page.keyboard.press('Enter');
      assert.equal(await btn.getAttribute('aria-pressed'), 'false');
      assert.ok((await box.boundingBox()).height <= 1);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });

  test(`no layout shift (${width} px): the drawn figures take the placeholder's height`, async () => {
    const heights = async (javaScriptEnabled) => {
      const context = await browser.newContext({ viewport: { width, height: 900 }, javaScriptEnabled });
      const page = await context.newPage();
      await page.goto(`${base}${LESSON}`);
      if (javaScriptEnabled) for (const sel of [SVG_FIG, CHART_FIG]) await drawn(page, sel);
      const h = await page.$$eval([SVG_FIG, CHART_FIG].join(','), (els) => els.map((e) => Math.round(e.getBoundingClientRect().height)));
      await context.close();
      return h;
    };
    const [placeholder, built] = [await heights(false), await heights(true)];
    for (let k = 0; k < placeholder.length; k++) assert.ok(Math.abs(placeholder[k] - built[k]) <= 1, `${placeholder} -> ${built}`);
  });
}

test('embed page: permalink state, Reset and Download CSV work for the SVG figure; touch shows data and tooltips', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 900 }, hasTouch: true, isMobile: true, acceptDownloads: true });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${base}/embed/flash-tiling-causal/#flash-tiling-causal:progress=100&causal=false`);
  const fig = await drawn(page, 'mlsys-figure');
  const legend = () => fig.locator('.fig-svg text', { hasText: /^Computed/ }).textContent();
  assert.equal(await legend(), 'Computed (256 of 256 tiles)');
  assert.equal(await fig.locator('.fig-svg [data-k]').count(), 256);
  // Download CSV: the table's columns, one row per K/V block.
  const [download] = await Promise.all([page.waitForEvent('download'), fig.getByRole('button', { name: 'Download CSV' }).tap()]);
  const csv = (await (await download.createReadStream()).toArray()).join('').trim().split('\n');
  assert.match(csv[0], /^K\/V block j,Keys,Q blocks computed,/);
  assert.equal(csv.length, 17);
  // A tap on a tile shows its tooltip; a tap on Show data shows the table.
  const k = await fig.evaluate((el) => el.svgView.scene.nodes.findIndex((n) => n.cell && n.cell[0] === 0 && n.cell[1] === 5));
  await fig.locator(`.fig-svg [data-k="${k}"]`).tap();
  assert.match(await fig.locator('.fig-tip').textContent(), /K\/V block 5 \(keys 80–95\), Q block 0 \(queries 0–15\); done$/);
  await fig.getByRole('button', { name: 'Show data' }).tap();
  assert.equal(await fig.getByRole('button', { name: 'Show data' }).getAttribute('aria-pressed'), 'true');
  assert.ok((await fig.locator('.fig-data').boundingBox()).height > 100);
  // Reset: the defaults (40 %, causal).
  await fig.getByRole('button', { name: 'Reset' }).tap();
  await page.waitForFunction(() => /^Computed \(54 of 136/.test(document.querySelector('mlsys-figure').svgView.scene.legend[0].label));
  assert.equal(await legend(), 'Computed (54 of 136 tiles)');
  assert.deepEqual(problems, []);
  await context.close();
});

test('axe: no violations with the data table shown and a tile focused (its tooltip up)', async () => {
  const { context, page } = await openPage(browser, { bypassCSP: true, colorScheme: 'dark', width: 390 });
  await page.goto(`${base}${LESSON}`);
  const fig = await drawn(page, SVG_FIG);
  await fig.getByRole('button', { name: 'Show data' }).click();
  await fig.locator('.fig-svg').focus();
  await page.keyboard.press('ArrowDown');
  await fig.locator('.fig-tip').waitFor({ state: 'visible' });
  assert.deepEqual(await axeViolations(page, axePath), []);
  await context.close();
});

// A rejected typed value stays flagged while another control changes: the broadcast checker
// with a = "x" and then b = 5 keeps a's message and marks a, instead of silently drawing the
// old a; a = "0" (an empty dimension) is accepted and drawn as the engine's answer.
test('a rejected list stays flagged with its message while another control changes', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/lessons/tensors-and-layout/`);
  const fig = await drawn(page, 'mlsys-figure[data-id="broadcast-checker"]');
  const [a, b] = [fig.locator('input[name="a"]'), fig.locator('input[name="b"]')];
  await a.fill('x');
  await a.press('Enter');
  await b.fill('5');
  await b.press('Enter');
  await page.waitForTimeout(200);
  assert.match(await fig.locator('.fig-message').textContent(), /Shape of a: item 1, "x", is not a number\. The figure uses its last accepted value\./);
  assert.equal(await a.getAttribute('aria-invalid'), 'true');
  await a.fill('0');
  await a.press('Enter');
  await page.waitForFunction(() => /a \[0\] and b \[5\] do not broadcast/.test(document.querySelector('mlsys-figure[data-id="broadcast-checker"]').svgView.scene.nodes.filter((n) => n.kind === 'text').map((n) => n.text).join(' ')));
  assert.equal(await fig.locator('.fig-message').isVisible(), false);
  assert.equal(await a.getAttribute('aria-invalid'), null);
  assert.deepEqual(problems, []);
  await context.close();
});
