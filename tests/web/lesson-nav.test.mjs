// Lesson navigation on every written lesson, against course.yaml: previous/next links in
// course order (track order after arriving from /track/, course order again after leaving
// it, and where storage is blocked), the contents equal the page's h2s and lead to existing
// ids (a sidebar at 1280 px, a closed "Contents" at 390 px), and "mark as read" comes right
// after the key takeaways.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { openPage, useSite } from '../../web/test/browser.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const yaml = createRequire(path.join(root, 'web/package.json'))('js-yaml');
const course = yaml.load(fs.readFileSync(path.join(root, 'content/course.yaml'), 'utf8'));
const written = new Set(fs.readdirSync(path.join(root, 'content/lessons')).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3)));
const courseOrder = course.modules.flatMap((m) => m.lessons.filter((l) => written.has(l.slug)).map((l) => ({ ...l, module: m.title })));
const courseSlugs = courseOrder.map((l) => l.slug);
const trackAll = course.track.parts.flatMap((p) => p.lessons);
const trackOrder = trackAll.filter((s) => written.has(s));
const pad2 = (n) => String(n).padStart(2, '0');

let browser, base;
useSite((s) => ({ browser, base } = s));

const text = (s) => s.replace(/\s+/g, ' ').trim();

// The pager's links of the page open in `page`: [{rel, slug, title, meta}].
const pagerLinks = (page) => page.$$eval('.lesson-pager .pager-links > a', (as) => as.map((a) => ({
  rel: a.rel, slug: new URL(a.href).pathname.split('/')[2], title: a.querySelector('.pager-title').textContent, meta: a.querySelector('.pager-meta').textContent,
})));

function expectedAround(order, slug) {
  const i = order.indexOf(slug);
  return [i > 0 && { rel: 'prev', slug: order[i - 1] }, i < order.length - 1 && { rel: 'next', slug: order[i + 1] }].filter(Boolean);
}

test('every lesson: previous/next in course order, with title and module; contents = h2s; mark as read after the takeaways', async () => {
  assert.ok(courseOrder.length >= 2);
  const { context, page, problems } = await openPage(browser);
  for (const l of courseOrder) {
    await page.goto(`${base}/lessons/${l.slug}/`);
    const links = await pagerLinks(page);
    assert.deepEqual(links.map(({ rel, slug }) => ({ rel, slug })), expectedAround(courseSlugs, l.slug), `${l.slug}: previous/next`);
    for (const a of links) {
      const target = courseOrder.find((x) => x.slug === a.slug);
      assert.equal(text(a.title), target.title, `${l.slug}: title of ${a.rel}`);
      assert.equal(text(a.meta), target.module, `${l.slug}: module of ${a.rel}`);
    }
    const toc = await page.$$eval('nav[aria-label="Contents"] > ol > li > a', (as) => as.map((a) => ({ text: a.textContent, id: a.hash.slice(1) })));
    const h2s = await page.$$eval('article.lesson h2', (hs) => hs.map((h) => ({ text: h.textContent, id: h.id })));
    assert.deepEqual(toc.map((t) => text(t.text)), h2s.map((h) => text(h.text)), `${l.slug}: contents vs h2s`);
    assert.deepEqual(toc.map((t) => t.id), h2s.map((h) => h.id), `${l.slug}: contents' links vs h2 ids`);
    const missing = await page.$$eval('nav[aria-label="Contents"] a', (as) => as.filter((a) => !document.getElementById(decodeURIComponent(a.hash.slice(1)))).map((a) => a.hash));
    assert.deepEqual(missing, [], `${l.slug}: contents' links to missing ids`);
    // "Mark as read" right after the takeaways, before the references.
    const order = await page.$eval('article.lesson', (a) => [...a.children].map((c) => c.className));
    const at = (cls) => order.findIndex((c) => c.split(' ').includes(cls));
    assert.equal(at('read-mark'), at('takeaways') + 1, `${l.slug}: mark as read right after the takeaways`);
    assert.ok(at('references') > at('read-mark'), `${l.slug}: references after mark as read`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

// A track lesson with written neighbours on both sides whose neighbours differ between the
// two orders, as do those of its next one (so that each check below tells the orders apart).
const differs = (s) => JSON.stringify(expectedAround(trackOrder, s)) !== JSON.stringify(expectedAround(courseSlugs, s));
const middle = trackOrder.find((s, i) => i > 0 && i < trackOrder.length - 2 && differs(s) && differs(trackOrder[i + 1]));

test('from /track/: previous/next follow the track, say "Track NN of 13", and course order returns after leaving it', async () => {
  assert.ok(middle, 'needs a track lesson whose neighbours differ from those in course order');
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/track/`);
  await page.click(`.track-row[data-slug="${middle}"] a`);
  await page.waitForURL(`**/lessons/${middle}/`);
  await page.waitForSelector('.lesson-pager[data-order="track"]');
  const links = await pagerLinks(page);
  assert.deepEqual(links.map(({ rel, slug }) => ({ rel, slug })), expectedAround(trackOrder, middle));
  for (const a of links) assert.equal(text(a.meta), `Track ${pad2(trackAll.indexOf(a.slug) + 1)} of ${pad2(trackAll.length)}`);
  assert.match(text(await page.locator('[data-pager-order]').textContent()), new RegExp(`^Track ${pad2(trackAll.indexOf(middle) + 1)} of ${trackAll.length} · following the ML Systems track$`));
  // Following the track's own links keeps track order.
  const next = links.find((a) => a.rel === 'next').slug;
  await page.click('.lesson-pager .pager-next');
  await page.waitForURL(`**/lessons/${next}/`);
  await page.waitForSelector('.lesson-pager[data-order="track"]');
  assert.deepEqual((await pagerLinks(page)).map(({ rel, slug }) => ({ rel, slug })), expectedAround(trackOrder, next));
  // A lesson opened from the home page: course order again.
  await page.goto(`${base}/`);
  await page.click(`a[href="/lessons/${middle}/"]`);
  await page.waitForURL(`**/lessons/${middle}/`);
  await page.waitForFunction(() => document.documentElement.dataset.progressKept); // the page script ran
  assert.deepEqual((await pagerLinks(page)).map(({ rel, slug }) => ({ rel, slug })), expectedAround(courseSlugs, middle));
  assert.equal(await page.locator('[data-pager-order]').isHidden(), true);
  assert.deepEqual(problems, []);
  await context.close();
});

function blockStorage() {
  const blocked = () => { throw new DOMException('Access is denied for this document.', 'SecurityError'); };
  for (const name of ['localStorage', 'sessionStorage']) Object.defineProperty(window, name, { get: blocked, configurable: true });
}

test('blocked storage: from /track/ the lesson keeps its course-order links, without errors', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.addInitScript(blockStorage);
  await page.goto(`${base}/track/`);
  await page.click(`.track-row[data-slug="${middle}"] a`);
  await page.waitForURL(`**/lessons/${middle}/`);
  await page.waitForFunction(() => document.documentElement.dataset.progressKept === 'false');
  assert.deepEqual((await pagerLinks(page)).map(({ rel, slug }) => ({ rel, slug })), expectedAround(courseSlugs, middle));
  assert.deepEqual(problems, []);
  await context.close();
});

test('contents: a sidebar beside the article at 1280 px marking the section read; a closed "Contents" at 390 px, no overflow', async () => {
  const slug = courseOrder.find((l) => l.slug === 'roofline')?.slug ?? courseOrder[0].slug;
  const wide = await openPage(browser, { width: 1280 });
  await wide.page.goto(`${base}/lessons/${slug}/`);
  await wide.page.waitForFunction(() => document.querySelector('[data-lesson-toc]').open);
  const box = await wide.page.evaluate(() => {
    const r = (s) => document.querySelector(s).getBoundingClientRect();
    return { toc: r('nav[aria-label="Contents"]'), article: r('article.lesson'), figure: r('mlsys-figure') };
  });
  assert.ok(box.toc.width > 100 && box.toc.height > 100, `contents shown: ${JSON.stringify(box.toc)}`);
  assert.ok(box.toc.right <= box.article.left && box.toc.left >= 0, 'contents left of the article, on screen');
  assert.ok(box.figure.left >= box.article.left - 20, 'figures keep their place');
  // Scrolled to the third h2: it stays in view (sticky) and its link is the current one.
  const third = await wide.page.$$eval('article.lesson h2', (hs) => hs[2].id);
  await wide.page.evaluate((id) => document.getElementById(id).scrollIntoView(), third);
  await wide.page.waitForFunction((id) => document.querySelector(`nav[aria-label="Contents"] a[href="#${id}"]`).getAttribute('aria-current') === 'true', third);
  assert.equal(await wide.page.locator('nav[aria-label="Contents"] a[aria-current]').count(), 1);
  // A jump from the top (no heading near the line) that carries headings past the line in one
  // step, none ending near it, still moves the mark.
  await wide.page.evaluate(() => new Promise((done) => { scrollTo(0, 0); requestAnimationFrame(() => requestAnimationFrame(done)); }));
  const expected = await wide.page.$$eval('article.lesson h2', (hs) => {
    scrollTo(0, hs[4].getBoundingClientRect().top + scrollY + 100);
    // The last heading of the contents above 30% of the viewport (an h3 of that section, or that h2).
    const heads = [...document.querySelectorAll('nav[aria-label="Contents"] a')].map((a) => document.getElementById(a.hash.slice(1)));
    return heads.filter((h) => h.getBoundingClientRect().top <= innerHeight * 0.3 + 1).pop().id;
  });
  await wide.page.waitForFunction((id) => document.querySelector(`nav[aria-label="Contents"] a[href="#${id}"]`).getAttribute('aria-current') === 'true', expected, { timeout: 3000 });
  const top = await wide.page.$eval('nav[aria-label="Contents"]', (n) => n.getBoundingClientRect().top);
  assert.ok(top >= 0 && top < 100, `sticky contents in view: top ${top}`);
  // A click on a contents link jumps to its heading.
  const last = await wide.page.$$eval('nav[aria-label="Contents"] > ol > li > a', (as) => as.at(-2).hash.slice(1));
  await wide.page.click(`nav[aria-label="Contents"] a[href="#${last}"]`);
  const headTop = await wide.page.$eval(`#${last}`, (h) => h.getBoundingClientRect().top);
  assert.ok(Math.abs(headTop) < 40, `jumped to #${last}: top ${headTop}`);
  assert.deepEqual(wide.problems, []);
  await wide.context.close();

  const phone = await openPage(browser, { width: 390, height: 844 });
  await phone.page.goto(`${base}/lessons/${slug}/`);
  await phone.page.waitForFunction(() => document.documentElement.dataset.progressKept);
  assert.equal(await phone.page.$eval('[data-lesson-toc]', (d) => d.open), false, 'closed on phones');
  assert.equal(await phone.page.locator('nav[aria-label="Contents"] a').first().isVisible(), false);
  // Keyboard: focus the summary, Enter opens it.
  await phone.page.focus('.lesson-toc summary');
  await phone.page.keyboard.press('Enter');
  assert.equal(await phone.page.locator('nav[aria-label="Contents"] a').first().isVisible(), true);
  const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `horizontal overflow at 390 px: ${overflow}`);
  assert.deepEqual(phone.problems, []);
  await phone.context.close();
});

test('search: a lesson is indexed without its contents and previous/next links', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/search/`);
  const content = await page.evaluate(async () => {
    const pf = await import('/pagefind/pagefind.js');
    const { results } = await pf.search('roofline');
    const pages = await Promise.all(results.map((r) => r.data()));
    return pages.find((d) => d.url === '/lessons/roofline/')?.content;
  });
  assert.ok(content && content.length > 1000, 'the roofline lesson is in the index');
  assert.ok(!content.includes('Previous') && !content.includes('Next →'), 'previous/next links indexed');
  assert.ok(!/\bContents\b/.test(content), 'the contents indexed');
  assert.deepEqual(problems, []);
  await context.close();
});
