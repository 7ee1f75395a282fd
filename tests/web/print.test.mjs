// Print (web/src/styles/print.css): in print media a lesson loses the
// header, footer, figure controls and toolbars, every button and the exercises' answer forms;
// figures and exercises are never split across pages; an exercise prints its prompt and worked
// solution; the glossary prints in columns. Chromium's PDF of a lesson has a sane page count.
// PRINT_PDF_DIR=<dir> also writes the PDFs there (to look at their pages).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openPage, drawAll, useSite } from '../../web/test/browser.js';

let browser, base;
useSite((s) => ({ browser, base } = s));

const LESSON = '/lessons/roofline/';
const HIDDEN = ['.site-header', '.site-footer', '.skip', '.fig-controls', '.fig-toolbar', '.ex-form', '.ex-actions', '.read-mark', 'button', 'form', 'input',
  '.lesson-toc', '.lesson-pager']; // the lesson's contents and previous/next links

// Pages of a PDF: its page objects ("/Type /Page", not "/Pages").
const pdfPages = (pdf) => (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length;

async function printed(p, colorScheme = 'light') {
  const { context, page, problems } = await openPage(browser, { colorScheme });
  await page.goto(`${base}${p}`);
  await drawAll(page, { timeout: 60000 });
  await page.emulateMedia({ media: 'print' });
  return { context, page, problems };
}

const shown = (page, selector) => page.$$eval(selector, (els) => els.filter((e) => getComputedStyle(e).display !== 'none' && e.getClientRects().length > 0).length);

test('a printed lesson: no header, controls, buttons or forms; whole figures; prompts with their solutions', async () => {
  const { context, page, problems } = await printed(LESSON);
  for (const s of HIDDEN) {
    assert.ok(await page.locator(s).count() > 0, `${s} is on the lesson page`); // the check below is not vacuous
    assert.equal(await shown(page, s), 0, `${s} shows in print`);
  }
  const figures = await page.$$eval('mlsys-figure', (els) => els.map((e) => getComputedStyle(e).breakInside));
  assert.ok(figures.length > 0);
  assert.deepEqual([...new Set(figures)], ['avoid']);
  assert.deepEqual([...new Set(await page.$$eval('mlsys-exercise', (els) => els.map((e) => getComputedStyle(e).breakInside)))], ['avoid']);
  // Every exercise prints its prompt and its worked solution.
  const exercises = await page.$$eval('mlsys-exercise', (els) => els.map((e) => ({
    prompt: getComputedStyle(e.querySelector('.ex-prompt')).display !== 'none' && e.querySelector('.ex-prompt').textContent.length > 20,
    solution: getComputedStyle(e.querySelector('.ex-solution')).display !== 'none' && /^Solution: \S/.test(e.querySelector('.ex-solution').textContent),
  })));
  assert.ok(exercises.length > 0);
  assert.deepEqual(exercises.filter((x) => !x.prompt || !x.solution), []);
  // The chart fits the printed column.
  const over = await page.$$eval('mlsys-figure canvas', (els) => els.filter((c) => c.getBoundingClientRect().right > document.documentElement.clientWidth + 1).length);
  assert.equal(over, 0, 'a chart is wider than the page');
  const pdf = await page.pdf({ format: 'A4' });
  if (process.env.PRINT_PDF_DIR) fs.writeFileSync(path.join(process.env.PRINT_PDF_DIR, 'roofline.pdf'), pdf);
  const pages = pdfPages(pdf);
  // The roofline lesson is some 2,500 words with 4 figures and 5 exercises: a handful of A4 pages.
  assert.ok(pages >= 3 && pages <= 20, `the lesson prints on ${pages} pages`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the screen is unchanged: the print rules apply to print only', async () => {
  const { context, page } = await openPage(browser);
  await page.goto(`${base}${LESSON}`);
  await drawAll(page);
  assert.ok(await shown(page, '.site-header') === 1 && await shown(page, '.ex-form') > 0);
  assert.equal(await shown(page, '.ex-solution'), 0);
  await context.close();
});

test('a reader in the dark scheme prints dark text on white paper', async () => {
  const { context, page } = await printed(LESSON, 'dark');
  const colours = await page.evaluate(() => [document.body, document.querySelector('.ex-prompt'), document.querySelector('.fig-caption')]
    .map((e) => getComputedStyle(e).color));
  assert.deepEqual(colours.filter((c) => !/^rgb\((\d{1,2}), (\d{1,2}), (\d{1,2})\)$/.test(c) || c.match(/\d+/g).some((n) => n > 100)), [], 'light text in print');
  // Its charts, drawn in the dark scheme's colours, keep their dark panel.
  assert.equal(await page.$eval('.fig-chart', (e) => getComputedStyle(e).backgroundColor), 'rgb(15, 20, 25)');
  const pdf = await page.pdf({ format: 'A4' });
  if (process.env.PRINT_PDF_DIR) fs.writeFileSync(path.join(process.env.PRINT_PDF_DIR, 'roofline-dark.pdf'), pdf);
  await context.close();
});

test('the glossary prints compactly, in two columns', async () => {
  const { context, page } = await printed('/glossary/');
  assert.equal(await page.$eval('.glossary', (e) => getComputedStyle(e).columnCount), '2');
  assert.equal(await shown(page, '.gloss-filter'), 0);
  const pdf = await page.pdf({ format: 'A4' });
  if (process.env.PRINT_PDF_DIR) fs.writeFileSync(path.join(process.env.PRINT_PDF_DIR, 'glossary.pdf'), pdf);
  const pages = pdfPages(pdf);
  const terms = await page.locator('.gloss-entry').count();
  // Two columns of small type: at least 12 terms a page.
  assert.ok(pages >= 2 && pages <= Math.ceil(terms / 12), `${terms} terms print on ${pages} pages`);
  await context.close();
});
