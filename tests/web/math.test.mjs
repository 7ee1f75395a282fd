// Mathematics on every lesson, as rendered in Chromium with the site's KaTeX style sheet and
// fonts: each superscript and subscript is drawn smaller than its base (a style sheet of
// another KaTeX version leaves them full size), and at 1280 px no display formula is wider
// than its column (there it must never need scrolling; on phones it scrolls in its box).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, sitePages, useSite } from '../../web/test/browser.js';

const LESSONS = [...sitePages().filter((p) => /^\/lessons\/[a-z0-9-]+\/$/.test(p)), '/systems-and-scaling/'];
let browser, base;
useSite((s) => ({ browser, base } = s));

// Runs in the page: every script against its base, every display formula against its column.
function measure() {
  const size = (el) => parseFloat(getComputedStyle(el).fontSize);
  // The largest font size of the text inside el (its own text nodes' elements).
  const textSize = (el) => {
    let most = 0;
    const walk = (e) => {
      if ([...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) most = Math.max(most, size(e));
      for (const c of e.children) walk(c);
    };
    walk(el);
    return most;
  };
  const problems = [];
  let scripts = 0;
  for (const s of document.querySelectorAll('.katex-html .msupsub')) {
    const base = s.previousElementSibling;
    const formula = s.closest('.katex')?.querySelector('annotation')?.textContent ?? '?';
    if (!base) continue; // a script with an empty base ({}^2): nothing to compare
    const [b, t] = [textSize(base), textSize(s)];
    scripts += 1;
    if (!(t > 0 && b > 0 && t < 0.9 * b)) problems.push(`script ${JSON.stringify(s.textContent)} drawn at ${t}px on a base of ${b}px in ${formula}`);
  }
  const blocks = [...document.querySelectorAll('.katex-block')];
  for (const box of blocks) {
    const formula = box.querySelector('annotation')?.textContent ?? '?';
    const column = box.parentElement.getBoundingClientRect().width;
    const drawn = box.querySelector('.katex-html').getBoundingClientRect().width;
    if (box.scrollWidth > box.clientWidth + 1 || drawn > column + 1) {
      problems.push(`display formula ${Math.round(drawn)}px wide (content ${box.scrollWidth}px) in a ${Math.round(column)}px column: ${formula}`);
    }
  }
  return { problems, scripts, blocks: blocks.length };
}

test(`every lesson's formulas (${LESSONS.length} pages): scripts smaller than their base, display formulas within the column at 1280 px`, async () => {
  assert.ok(LESSONS.length >= 13, `lessons found: ${LESSONS.join(' ')}`);
  const { context, page, problems: errors } = await openPage(browser, { width: 1280 });
  const all = [];
  let scripts = 0;
  for (const lesson of LESSONS) {
    await page.goto(`${base}${lesson}`);
    await page.evaluate(() => document.fonts.ready);
    const r = await page.evaluate(measure);
    scripts += r.scripts;
    assert.ok(r.blocks > 0 || lesson === '/lessons/gpu-architecture/', `${lesson}: no display formula found`);
    all.push(...r.problems.map((p) => `${lesson}: ${p}`));
  }
  assert.ok(scripts > 100, `only ${scripts} scripts checked`);
  assert.deepEqual(all, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test(`on a phone (${LESSONS.length} pages) the page never scrolls sideways, and a wide display formula scrolls inside its box, focusable and with a cue`, async () => {
  const { context, page } = await openPage(browser, { width: 390, height: 800 });
  const all = [];
  let wide = 0;
  for (const lesson of LESSONS) {
    await page.goto(`${base}${lesson}`);
    await page.evaluate(() => document.fonts.ready);
    const r = await page.evaluate(() => {
      const boxes = [...document.querySelectorAll('.katex-block')];
      const wide = boxes.filter((b) => b.scrollWidth > b.clientWidth + 1);
      return {
        wide: wide.length,
        pageScrolls: document.documentElement.scrollWidth > innerWidth,
        unfocusable: boxes.filter((b) => b.tabIndex !== 0).length,
        noCue: wide.filter((b) => !/radial-gradient/.test(getComputedStyle(b).backgroundImage)).length,
      };
    });
    wide += r.wide;
    if (r.pageScrolls) all.push(`${lesson}: the page scrolls sideways`);
    if (r.unfocusable) all.push(`${lesson}: ${r.unfocusable} formula boxes cannot take focus`);
    if (r.noCue) all.push(`${lesson}: ${r.noCue} wide formulas without a scroll cue`);
  }
  assert.ok(wide > 0, 'some formula is wider than a phone (else this test checks no cue)');
  assert.deepEqual(all, []);
  await context.close();
});
