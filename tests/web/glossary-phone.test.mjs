// Glossary tooltips on a 390-px phone: every term's definition fits the
// viewport (with 8 px to spare each side) when shown by keyboard focus, by hover and by a tap;
// Escape and a tap outside close it; a second tap follows the link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, useSite } from '../../web/test/browser.js';

let browser, base;
useSite((s) => ({ browser, base } = s));

const WIDTH = 390;
const LESSON = '/lessons/llm-serving/'; // the lesson with the most glossary terms (35)

// The visible tip's box, or null when no tip shows.
const shownTips = (page) => page.$$eval('.term-tip', (tips) => tips
  .filter((t) => getComputedStyle(t).display !== 'none')
  .map((t) => { const b = t.getBoundingClientRect(); return { id: t.id, left: b.left, right: b.right }; }));

const fits = (box) => box.left >= 7.5 && box.right <= WIDTH - 7.5;

test('glossary tips fit a 390-px screen: focus and hover, on every term of a lesson', async () => {
  const { context, page, problems } = await openPage(browser, { width: WIDTH, height: 800 });
  await page.goto(`${base}${LESSON}`);
  const terms = await page.$$('a.term');
  assert.ok(terms.length >= 30, `${terms.length} terms`);
  const bad = [];
  for (const [i, term] of terms.entries()) {
    await term.focus();
    let tips = await shownTips(page);
    assert.equal(tips.length, 1, `term ${i}: ${tips.length} tips shown on focus`);
    if (!fits(tips[0])) bad.push(`focus ${tips[0].id}: ${tips[0].left.toFixed(0)}..${tips[0].right.toFixed(0)}`);
    // Escape closes it while the term keeps the focus.
    await page.keyboard.press('Escape');
    assert.deepEqual(await shownTips(page), [], `term ${i}: Escape left a tip open`);
    await term.evaluate((a) => a.blur());
    await term.hover();
    tips = await shownTips(page);
    assert.equal(tips.length, 1, `term ${i}: ${tips.length} tips shown on hover`);
    if (!fits(tips[0])) bad.push(`hover ${tips[0].id}: ${tips[0].left.toFixed(0)}..${tips[0].right.toFixed(0)}`);
    await page.mouse.move(0, 0);
  }
  assert.deepEqual(bad, [], `${bad.length} of ${terms.length * 2} tips overflow`);
  // No term's tip widens the page.
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= WIDTH);
  assert.deepEqual(problems, []);
  await context.close();
});

test('glossary tips on touch: a tap shows, a tap outside or Escape closes, a second tap follows', async () => {
  const context = await browser.newContext({ viewport: { width: WIDTH, height: 800 }, hasTouch: true, isMobile: true, serviceWorkers: 'block' });
  const page = await context.newPage();
  await page.goto(`${base}${LESSON}`);
  const terms = await page.$$('a.term');
  const bad = [];
  for (const term of terms) {
    await term.scrollIntoViewIfNeeded();
    await term.tap();
    const tips = await shownTips(page);
    assert.equal(tips.length, 1, `${tips.length} tips shown on tap`);
    if (!fits(tips[0])) bad.push(tips[0].id);
    assert.match(page.url(), new RegExp(`${LESSON}$`), 'the first tap must not follow the link');
    // A tap outside (on the page's heading) closes it.
    await page.tap('h1');
    assert.deepEqual(await shownTips(page), [], 'a tap outside left a tip open');
  }
  assert.deepEqual(bad, [], `${bad.length} tapped tips overflow`);
  // Escape closes a tapped tip; a second tap follows the link to the glossary.
  await terms[0].scrollIntoViewIfNeeded();
  await terms[0].tap();
  await page.keyboard.press('Escape');
  assert.deepEqual(await shownTips(page), []);
  await terms[0].tap();
  await terms[0].tap();
  await page.waitForURL(/\/glossary\/#/);
  await context.close();
});
