// The site pages beside the lessons, against the content they are generated from: the track
// rows equal course.yaml, the recap holds every lesson's takeaways, the concept map's nodes
// and edges equal the lessons' front matter, the glossary filter works, the Systems and
// scaling calculators compute, and the home page offers "continue where you left off".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { openPage, drawAll, useSite } from '../../web/test/browser.js';
import { loadNodeEngine } from '../../web/src/runtime/engine-node.js';
import { calcValues } from '../../web/scripts/markdown.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const yaml = createRequire(path.join(root, 'web/package.json'))('js-yaml');
const course = yaml.load(fs.readFileSync(path.join(root, 'content/course.yaml'), 'utf8'));
// The front matter as the pages show it: takeaways and summaries with the engine's numbers.
const { engine } = await loadNodeEngine();
const lessons = fs.readdirSync(path.join(root, 'content/lessons')).filter((f) => f.endsWith('.md')).sort()
  .map((f) => yaml.load(/^---\n([\s\S]*?)\n---\n/.exec(fs.readFileSync(path.join(root, 'content/lessons', f), 'utf8'))[1]))
  .map((l) => ({ ...l, takeaways: l.takeaways.map((t) => calcValues(t, engine, l.slug)),
    summary: l.summary && calcValues(l.summary, engine, l.slug) }));
const topicId = (t) => `topic-${String(t).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;
// Calculators written by the lessons of other parts of the course; until their engine code
// lands the widgets say so, and these tests skip them with a message.
const PENDING = new Set(['kv-cache', 'quantize']);

let browser, base;
useSite((s) => ({ browser, base } = s));

const text = (s) => s.replace(/\s+/g, ' ').trim();

test('track: 13 lessons in 4 parts, each row as in course.yaml', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/track/`);
  const expected = course.modules.flatMap((m) => m.lessons.filter((l) => l.track).map((l) => ({ ...l, part: m.title })));
  assert.equal(expected.length, 13);
  assert.equal(await page.locator('.track-part').count(), 4);
  const rows = await page.$$eval('.track-row', (els) => els.map((el) => ({
    slug: el.dataset.slug, num: el.querySelector('.track-num').textContent, title: el.querySelector('.track-title').textContent,
    meta: el.querySelector('.track-meta').textContent, desc: el.querySelector('.track-desc').textContent,
    part: el.closest('.track-part').querySelector('h2').textContent,
  })));
  assert.deepEqual(rows.map((r) => r.num), expected.map((l) => String(l.track).padStart(2, '0')).sort());
  for (const l of expected) {
    const r = rows.find((x) => x.slug === l.slug);
    assert.ok(r, `${l.slug} missing`);
    assert.equal(r.num, String(l.track).padStart(2, '0'));
    assert.match(text(r.title), new RegExp(l.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.equal(text(r.meta), `${l.minutes} min · ${l.figures} figures · ${l.level}`);
    assert.ok(text(r.part).endsWith(l.part), `${l.slug} is in part "${r.part}", expected ${l.part}`);
    const written = lessons.find((x) => x.slug === l.slug);
    assert.equal(text(r.desc), text(written ? written.summary : l.description));
  }
  // The assumed background, linked to the lessons that teach it once they exist.
  const intro = await page.locator('main').textContent();
  for (const a of course.track.assumes) assert.ok(intro.includes(a.topic), `track intro lacks "${a.topic}"`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('recap: every lesson with all its takeaways, linked to the lesson', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/recap/`);
  assert.equal(await page.locator('section.recap').count(), lessons.length);
  for (const l of lessons) {
    const section = page.locator(`section.recap[data-slug="${l.slug}"]`);
    assert.deepEqual((await section.locator('.recap-takeaways li').allTextContents()).map(text), l.takeaways.map(text));
    assert.equal(await section.locator(`h2 a[href="/lessons/${l.slug}/"]`).count(), 1);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('concept map: nodes and edges equal the front matter; nodes are keyboard links', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/concept-map/`);
  const edges = new Set(await page.$$eval('path.cm-edge', (els) => els.map((e) => `${e.dataset.from}>${e.dataset.to}`)));
  const expected = new Set();
  for (const l of lessons) {
    for (const p of l.prerequisites.lessons ?? []) expected.add(`${p}>${l.slug}`);
    for (const t of l.prerequisites.topics ?? []) expected.add(`${topicId(t)}>${l.slug}`);
  }
  assert.deepEqual([...edges].sort(), [...expected].sort());
  const links = await page.$$eval('a.cm-node', (els) => els.map((a) => a.getAttribute('href')).sort());
  assert.deepEqual(links, lessons.map((l) => `/lessons/${l.slug}/`).sort());
  const topics = new Set(lessons.flatMap((l) => (l.prerequisites.topics ?? []).map(topicId)));
  assert.equal(await page.locator('g.cm-topic').count(), topics.size);
  // Tab reaches a lesson node, and Enter opens it.
  await page.locator('.cm-scroll').focus();
  await page.keyboard.press('Tab');
  const href = await page.evaluate(() => document.activeElement.getAttribute('href'));
  assert.match(href ?? '', /^\/lessons\//);
  await Promise.all([page.waitForURL(`**${href}`), page.keyboard.press('Enter')]);
  assert.deepEqual(problems, []);
  await context.close();
});

test('glossary: the filter box narrows the list and counts what it shows', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/glossary/`);
  const total = await page.locator('.gloss-entry').count();
  const input = page.getByLabel('Filter terms');
  await input.fill('bandwidth');
  const shown = page.locator('.gloss-entry:not([hidden])');
  const n = await shown.count();
  assert.ok(n > 0 && n < total, `${n} of ${total} shown`);
  for (const t of await shown.allTextContents()) assert.match(t.toLowerCase(), /bandwidth/);
  assert.equal(await page.locator('.gloss-count').textContent(), `${n} of ${total} terms shown`);
  await input.fill('zzzz-no-such-term');
  assert.equal(await shown.count(), 0);
  await input.fill('');
  assert.equal(await shown.count(), total);
  // Every entry lists the lessons that link it.
  assert.equal(await page.locator('.gloss-entry .gloss-meta a[href^="/lessons/"]').count() >= total, true);
  assert.deepEqual(problems, []);
  await context.close();
});

test('systems and scaling: six equations, each calculator recomputes when an input changes', async (t) => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/systems-and-scaling/`);
  assert.equal(await page.locator('section.equation').count(), 6);
  assert.equal(await page.locator('section.equation .katex-display').count(), 6);
  await drawAll(page);
  for (const calc of await page.$$('mlsys-calc')) {
    const name = await calc.getAttribute('data-calc');
    if (await calc.getAttribute('data-state') === 'unavailable') {
      assert.ok(PENDING.has(name), `calculator ${name} is unavailable`);
      t.diagnostic(`skipped ${name}: not in this engine build yet (it lands with its lesson)`);
      continue;
    }
    const before = await calc.$$eval('dd[data-field]', (dds) => dds.map((d) => d.textContent));
    assert.ok(before.every((v) => v && v !== '—'), `${name} shows no result`);
    const box = await calc.$('input[type=number]');
    const value = Number(await box.inputValue());
    await box.fill(String(value * 2));
    await box.press('Enter');
    await page.waitForFunction((el) => Number(el.dataset.computes) >= 2, calc);
    const after = await calc.$$eval('dd[data-field]', (dds) => dds.map((d) => d.textContent));
    assert.notDeepEqual(after, before, `${name} did not change`);
    // Rejected input: a message, the last results stay.
    await box.fill('-5');
    await box.press('Enter');
    assert.ok(await (await calc.$('.fig-message')).isVisible(), `${name} shows no message for -5`);
    assert.deepEqual(await calc.$$eval('dd[data-field]', (dds) => dds.map((d) => d.textContent)), after);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('home: "continue where you left off" links the last lesson opened', async () => {
  const { context, page, problems } = await openPage(browser);
  const slug = lessons[lessons.length - 1].slug;
  await page.goto(`${base}/lessons/${slug}/`);
  await page.goto(`${base}/`);
  const line = page.locator('[data-continue]');
  await line.waitFor({ state: 'visible' });
  assert.match(await line.textContent(), /Continue where you left off/);
  assert.equal(await line.locator('a').getAttribute('href'), `/lessons/${slug}/`);
  assert.deepEqual(problems, []);
  await context.close();
});
