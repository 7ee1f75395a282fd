// Search (Pagefind over the built site, /search/ page): finds a glossary term, a lesson's
// heading (with its anchor) and a figure, under the site's CSP, with no console errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, useSite } from '../../web/test/browser.js';

let browser, base;
useSite((s) => ({ browser, base } = s));

// Searches on /search/ and returns the result links' hrefs.
export async function searchLinks(page, origin, query) {
  await page.goto(`${origin}/search/?q=${encodeURIComponent(query)}`);
  await page.waitForFunction(() => ['done', 'failed'].includes(document.querySelector('[data-search]').dataset.state), null, { timeout: 20000 });
  assert.equal(await page.locator('[data-search]').getAttribute('data-state'), 'done', await page.locator('.search-status').textContent());
  return page.$$eval('.search-results a', (as) => as.map((a) => a.getAttribute('href')));
}

test('search finds a glossary term, a lesson heading and a figure', async () => {
  const { context, page, problems } = await openPage(browser);
  assert.ok((await searchLinks(page, base, 'arithmetic intensity')).includes('/glossary/#arithmetic-intensity'));
  const heading = await searchLinks(page, base, 'roofline bound');
  assert.ok(heading.includes('/lessons/roofline/#the-roofline-bound'), heading.join(' '));
  assert.ok((await searchLinks(page, base, 'roofline')).some((h) => h === '/lessons/roofline/#roofline-plot'));
  // Results are links and text, never markup from the query.
  await searchLinks(page, base, '<img src=x id=pwned>');
  assert.equal(await page.locator('#pwned').count(), 0);
  // The header's search box leads to the search page.
  await page.goto(`${base}/`);
  await page.fill('#site-search-q', 'bandwidth');
  await Promise.all([page.waitForURL(/\/search\/\?q=bandwidth/), page.press('#site-search-q', 'Enter')]);
  await page.waitForFunction(() => document.querySelector('[data-search]').dataset.state === 'done');
  assert.ok(await page.locator('.search-result').count() > 0);
  assert.deepEqual(problems, []);
  await context.close();
});
