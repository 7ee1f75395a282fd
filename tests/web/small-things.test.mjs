// Small things readers hit: Reset clears the figure's permalink from the
// address bar; search pages past 20 results with a "Show more" button; Videos and books lists
// MLSysBook, d2l.ai's computational-performance chapter, the LLM Inference Handbook and the GPU
// Glossary; the footer names the licences (served from the repository's LICENSE files).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, drawAll, useSite } from '../../web/test/browser.js';

let browser, base;
useSite((s) => ({ browser, base } = s));

test('Reset clears the permalink of its figure, and only of its figure', async () => {
  const { context, page, problems } = await openPage(browser);
  const id = 'smoothquant-migration';
  await page.goto(`${base}/lessons/quantization/#${id}:alpha=0.7`);
  await drawAll(page);
  const fig = page.locator(`mlsys-figure[data-id="${id}"]`);
  assert.equal(await fig.locator('input[name="alpha"]').inputValue(), '0.7');
  await fig.getByRole('button', { name: 'Reset' }).click();
  assert.equal(await page.evaluate(() => location.hash), '');
  assert.notEqual(await fig.locator('input[name="alpha"]').inputValue(), '0.7');
  // A reload now starts from the defaults, not the old link.
  await page.reload();
  await drawAll(page);
  assert.notEqual(await fig.locator('input[name="alpha"]').inputValue(), '0.7');
  // A section anchor, or another figure's permalink, is left alone.
  await page.goto(`${base}/lessons/quantization/#references`);
  await drawAll(page);
  await fig.getByRole('button', { name: 'Reset' }).click();
  assert.equal(await page.evaluate(() => location.hash), '#references');
  assert.deepEqual(problems, []);
  await context.close();
});

test('search shows 20 results, then 20 more per "Show more"', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/search/?q=gpu`);
  await page.waitForFunction(() => document.querySelector('[data-search]').dataset.state === 'done', null, { timeout: 20000 });
  const total = Number((await page.locator('.search-status').textContent()).match(/^(\d+) results/)[1]);
  assert.ok(total > 40, `${total} results for "gpu": too few to page twice`);
  assert.equal(await page.locator('.search-result').count(), 20);
  const more = page.locator('button.search-more');
  assert.equal(await more.textContent(), 'Show 20 more');
  await more.click();
  await page.waitForFunction(() => document.querySelectorAll('.search-result').length === 40);
  assert.match(await page.locator('.search-status').textContent(), /the first 40 shown/);
  while (await more.isVisible()) {
    const n = await page.locator('.search-result').count();
    await more.click();
    await page.waitForFunction((k) => document.querySelectorAll('.search-result').length > k, n);
  }
  assert.equal(await page.locator('.search-result').count(), total);
  assert.doesNotMatch(await page.locator('.search-status').textContent(), /shown/);
  // A new query starts again from its first page.
  await page.fill('#search-q', 'roofline');
  await page.press('#search-q', 'Enter');
  await page.waitForFunction(() => document.querySelector('[data-search]').dataset.state === 'done'
    && document.querySelector('.search-status').textContent.includes('roofline'));
  assert.ok(await page.locator('.search-result').count() <= 20);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Videos and books lists the peers readers know', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/videos-and-books/`);
  const hrefs = await page.$$eval('.resource-title a', (as) => as.map((a) => a.getAttribute('href')));
  // Addresses checked to exist (each site's own front page) on 2026-12-01.
  for (const url of ['https://mlsysbook.ai/', 'https://d2l.ai/chapter_computational-performance/index.html',
    'https://bentoml.com/llm/', 'https://modal.com/gpu-glossary']) assert.ok(hrefs.includes(url), url);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the footer names the licences and links to the licence files', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/`);
  const footer = page.locator('.site-footer .footer-licence');
  assert.match(await footer.textContent(), /MIT.*CC BY 4\.0/);
  for (const [name, text] of [['MIT licence', /MIT License/], ['CC BY 4.0', /Attribution 4\.0 International/]]) {
    const href = await footer.getByRole('link', { name }).getAttribute('href');
    assert.ok(!/^https?:/.test(href), `${href}: a link inside the site`);
    const res = await page.request.get(new URL(href, base).href);
    assert.equal(res.status(), 200, href);
    assert.match(await res.text(), text);
  }
  assert.deepEqual(problems, []);
  await context.close();
});
