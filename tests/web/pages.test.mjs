// The site pages beside the lessons, against the content they are generated from: the course
// page and the track page equal course.yaml (and the course page's start is above the fold),
// the recap holds every lesson's takeaways, the concept map's nodes and edges equal the
// lessons' front matter and content/concept-map.yaml, the glossary filter works, the Systems and
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
import { conceptGraph } from '../../web/scripts/concept-map.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const yaml = createRequire(path.join(root, 'web/package.json'))('js-yaml');
const course = yaml.load(fs.readFileSync(path.join(root, 'content/course.yaml'), 'utf8'));
// The front matter as the pages show it: takeaways and summaries with the engine's numbers.
const { engine } = await loadNodeEngine();
const lessons = fs.readdirSync(path.join(root, 'content/lessons')).filter((f) => f.endsWith('.md')).sort()
  .map((f) => yaml.load(/^---\n([\s\S]*?)\n---\n/.exec(fs.readFileSync(path.join(root, 'content/lessons', f), 'utf8'))[1]))
  .map((l) => ({ ...l, takeaways: l.takeaways.map((t) => calcValues(t, engine, l.slug)),
    summary: l.summary && calcValues(l.summary, engine, l.slug) }));
// Calculators written by the lessons of other parts of the course; until their engine code
// lands the widgets say so, and these tests skip them with a message.
const PENDING = new Set(['kv-cache', 'quantize']);

let browser, base;
useSite((s) => ({ browser, base } = s));

const text = (s) => s.replace(/\s+/g, ' ').trim();

// The course outline as the pages show it: every lesson in course order, with its module,
// whether it is written, and its track number (its place in track.parts).
const written = new Set(lessons.map((l) => l.slug));
const trackOrder = course.track.parts.flatMap((p) => p.lessons);
const outline = course.modules.flatMap((m) => m.lessons.map((l) => ({ ...l, module: m.title, available: written.has(l.slug),
  track: trackOrder.includes(l.slug) ? String(trackOrder.indexOf(l.slug) + 1).padStart(2, '0') : null })));
const bySlug = new Map(outline.map((l) => [l.slug, l]));
const meta = (l) => `${l.minutes} min · ${l.figures} figures · ${l.level}`;
// The track's pages and their one-line descriptions, as CURRICULUM.md quotes them.
const TRACK_PAGES = [
  ['/recap/', 'Quick recap', 'The key takeaways of all lessons on one page'],
  ['/figures/', 'All interactive figures', 'Every figure of the track on one page'],
  ['/videos-and-books/', 'Videos and books', 'The best free courses'],
  ['/glossary/', 'Glossary', 'Every technical term of the track with a short definition'],
  ['/concept-map/', 'Concept map', 'How the lessons of this track connect to each other and to other tracks.'],
  ['/offline/', 'Keep for offline reading', 'Keeps every lesson page and figure of this track in this browser, so you can read it without internet.'],
];

test('track: its 4 parts with their descriptions, 13 rows numbered in the parts\' order', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/track/`);
  assert.equal(await page.locator('h1').textContent(), course.track.title);
  const parts = await page.$$eval('.track-part', (els) => els.map((el) => ({
    title: el.querySelector('h2').textContent, desc: el.querySelector('.track-part-desc').textContent,
    rows: [...el.querySelectorAll('.track-row')].map((r) => ({
      slug: r.dataset.slug, num: r.querySelector('.track-num').textContent, title: r.querySelector('.track-title').textContent,
      href: r.querySelector('.track-title a')?.getAttribute('href'), meta: r.querySelector('.track-meta').textContent,
      desc: r.querySelector('.track-desc').textContent })),
  })));
  assert.equal(parts.length, course.track.parts.length);
  assert.equal(trackOrder.length, 13);
  course.track.parts.forEach((p, i) => {
    assert.equal(text(parts[i].title), `Part ${i + 1}. ${p.title}`);
    assert.equal(text(parts[i].desc), p.description);
    assert.deepEqual(parts[i].rows.map((r) => r.slug), p.lessons, `part ${i + 1}'s lessons`);
  });
  const rows = parts.flatMap((p) => p.rows);
  assert.deepEqual(rows.map((r) => r.num), trackOrder.map((_, i) => String(i + 1).padStart(2, '0')));
  for (const r of rows) {
    const l = bySlug.get(r.slug);
    assert.equal(text(r.title), `${r.num}. ${l.title}${l.available ? '' : ' not written yet'}`);
    assert.equal(r.href, l.available ? `/lessons/${l.slug}/` : undefined, `${l.slug}: link`);
    assert.equal(text(r.meta), meta(l));
    const lesson = lessons.find((x) => x.slug === l.slug);
    assert.ok(!lesson || lesson.summary, `${l.slug} has no summary`);
    assert.equal(text(r.desc), text(lesson?.summary ?? ''));
  }
  // The header paragraph: the assumed topics, each a link to the lesson that teaches it once
  // that lesson is written, plain text before; "No GPU is needed".
  const intro = page.locator('.track-intro');
  const introText = text(await intro.textContent());
  assert.match(introText, /No GPU is needed/);
  assert.doesNotMatch(introText, /\{assumes\}/);
  for (const a of course.track.assumes) {
    assert.ok(introText.includes(a.topic), `track intro lacks "${a.topic}"`);
    const link = intro.locator('a', { hasText: a.topic });
    if (a.lesson && written.has(a.lesson)) assert.equal(await link.getAttribute('href'), `/lessons/${a.lesson}/`);
    else assert.equal(await link.count(), 0, `"${a.topic}" is linked, but no written lesson teaches it`);
  }
  // The track's pages, each with its one-line description.
  const pages = await page.$$eval('.track-page-list li', (els) => els.map((li) => [li.querySelector('a').getAttribute('href'),
    li.querySelector('a').textContent, li.querySelector('.track-page-desc').textContent]));
  for (const p of TRACK_PAGES) assert.deepEqual(pages.find((x) => x[0] === p[0]), p);
  const overview = pages.find((x) => x[0] === '/systems-and-scaling/');
  assert.ok(overview && overview[2].length > 20, 'Systems and scaling is listed with a description');
  assert.deepEqual(problems, []);
  await context.close();
});

test('home: title, line, progress, the two paragraphs, what you need, the 7 modules with every lesson in order', async () => {
  const { home } = course;
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/`);
  assert.equal(text(await page.locator('h1').textContent()), home.title);
  assert.equal(text(await page.locator('.hero .lead').textContent()), home.line);
  assert.match(text(await page.locator('.progress-line').textContent()), /^0 of 30 read/);
  assert.deepEqual((await page.locator('.about p').allTextContents()).map(text), home.about);
  assert.equal(await page.locator('h2', { hasText: /^What you need$/ }).count(), 1);
  assert.deepEqual((await page.locator('.needs li').allTextContents()).map(text), home.needs.items);
  assert.equal(text(await page.locator('#modules-heading').textContent()), home.modules);
  const modules = await page.$$eval('section.module', (els) => els.map((el) => ({
    title: el.querySelector('h3').textContent, desc: el.querySelector('.module-desc').textContent, compact: el.classList.contains('compact'),
    progress: el.querySelector('.module-progress')?.textContent,
    rows: [...el.querySelectorAll('.lesson-row')].map((r) => ({ slug: r.dataset.lessonStatus, text: r.textContent,
      href: r.querySelector(':scope > a')?.getAttribute('href'), links: r.querySelectorAll('a').length,
      meta: r.querySelector('.meta')?.textContent, track: r.querySelector('.track')?.textContent })),
  })));
  assert.deepEqual(modules.map((m) => text(m.title)), course.modules.map((m, i) => `${i + 1}. ${m.title}`));
  assert.deepEqual(modules.map((m) => text(m.desc)), course.modules.map((m) => m.description));
  assert.deepEqual(modules.flatMap((m) => m.rows.map((r) => r.slug)), outline.map((l) => l.slug), 'every lesson, in course order');
  course.modules.forEach((cm, i) => {
    const m = modules[i];
    const any = cm.lessons.some((l) => written.has(l.slug));
    assert.equal(m.compact, !any, `${cm.title}: compact exactly when no lesson is written`);
    assert.equal(m.progress, any ? `0 of ${cm.lessons.length} read` : undefined, `${cm.title}: its own progress`);
  });
  for (const r of modules.flatMap((m) => m.rows)) {
    const l = bySlug.get(r.slug);
    if (l.available) {
      assert.equal(r.href, `/lessons/${l.slug}/`);
      assert.equal(text(r.meta), meta(l));
      assert.equal(r.track && text(r.track), l.track ? `Track ${l.track}` : undefined, `${l.slug}: track badge`);
    } else {
      assert.equal(r.links, 0, `${l.slug} is not written but is a link`);
      assert.ok(text(r.text).includes(home.unwritten), `${l.slug} is not marked "${home.unwritten}"`);
    }
  }
  // Unwritten rows (while any remain) are smaller than written ones, and a compact module takes a few lines.
  const size = (sel) => page.$eval(sel, (el) => parseFloat(getComputedStyle(el).fontSize));
  if (await page.locator('.lesson-row[data-available="false"]').count()) {
    assert.ok(await size('.lesson-row[data-available="false"]') < await size('.lesson-row[data-available="true"]'));
  }
  const rowHeight = (await page.locator('.lesson-row[data-available="true"]').first().boundingBox()).height;
  for (const list of await page.locator('section.module.compact .lessons').all()) {
    const n = await list.locator('.lesson-row').count();
    assert.ok((await list.boundingBox()).height < n * rowHeight / 2, 'a module with no written lesson is compact');
  }
  assert.deepEqual(problems, []);
  await context.close();
});

for (const [width, height] of [[1280, 800], [390, 844]]) test(`home at ${width}×${height}: where to start is above the fold, no sideways scroll`, async () => {
  const { context, page, problems } = await openPage(browser, { width, height });
  await page.goto(`${base}/`);
  const first = outline.find((l) => l.available);
  const links = page.locator('.start-links a');
  assert.deepEqual(await links.evaluateAll((as) => as.map((a) => a.getAttribute('href'))),
    [`/lessons/${first.slug}/`, '/track/', '/systems-and-scaling/']);
  assert.equal(text(await links.first().textContent()), first.title);
  for (const a of await links.all()) {
    assert.ok(await a.isVisible());
    const box = await a.boundingBox();
    assert.ok(box.y >= 0 && box.y + box.height <= height, `${await a.getAttribute('href')} ends at ${box.y + box.height} px, below the fold (${height})`);
  }
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.equal(overflow, 0, `${overflow} px of sideways scroll`);
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

test('concept map: all 30 lessons, edges from the front matter and concept-map.yaml, readable, keyboard links', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/concept-map/`);
  const graph = conceptGraph(lessons, course.modules, yaml.load(fs.readFileSync(path.join(root, 'content/concept-map.yaml'), 'utf8')));
  const edges = await page.$$eval('path.cm-edge', (els) => els.map((e) => `${e.dataset.from}>${e.dataset.to}`));
  assert.deepEqual(edges.sort(), graph.edges.filter((e) => !e.implied).map((e) => `${e.from}>${e.to}`).sort());
  const slugs = course.modules.flatMap((m) => m.lessons.map((l) => l.slug));
  const written = new Set(lessons.map((l) => l.slug));
  assert.deepEqual((await page.$$eval('.cm-node', (els) => els.map((n) => n.dataset.node))).filter((id) => !id.startsWith('topic-')).sort(), [...slugs].sort());
  const links = await page.$$eval('a.cm-node', (els) => els.map((a) => a.getAttribute('href')).sort());
  assert.deepEqual(links, [...written].map((s) => `/lessons/${s}/`).sort());
  // Lessons not written yet are not links, and say so to a screen reader.
  const planned = await page.$$eval('.cm-planned', (els) => els.map((n) => [n.tagName, n.getAttribute('aria-label')]));
  assert.equal(planned.length, 30 - written.size);
  for (const [tag, label] of planned) { assert.equal(tag, 'g'); assert.match(label, /\(lesson not written yet\)$/); }
  // The list covers every lesson, grouped by module, with every prerequisite.
  assert.equal(await page.locator('.cm-list li').count(), 30);
  assert.equal(await page.locator('.cm-list').count(), course.modules.length);
  const dp = await page.locator('.cm-list li[data-slug="data-parallel-zero-fsdp"]').textContent();
  for (const t of ['Gradients by backpropagation', 'SGD, momentum and Adam', 'Collective communication']) assert.match(dp, new RegExp(t));
  // Labels at least 12 px as drawn at 1280 px wide.
  const smallest = await page.$eval('svg.concept-map', (svg) => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return Math.min(...[...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale));
  });
  assert.ok(smallest >= 12, `smallest label ${smallest} px`);
  // Zoom: in, out, back to the actual size.
  const width = () => page.$eval('svg.concept-map', (svg) => svg.getBoundingClientRect().width);
  const natural = await width();
  await page.getByRole('button', { name: 'Zoom in' }).click();
  assert.ok(await width() > natural * 1.2);
  await page.getByRole('button', { name: 'Zoom out' }).click();
  await page.getByRole('button', { name: 'Zoom out' }).click();
  assert.ok(await width() < natural * 0.9);
  await page.getByRole('button', { name: 'Actual size' }).click();
  assert.equal(await width(), natural);
  // A click on a written lesson's node opens it.
  await Promise.all([page.waitForURL('**/lessons/roofline/'), page.locator('a.cm-node[data-node="roofline"] rect').click()]);
  // Tab reaches a lesson node, and Enter opens it.
  await page.goto(`${base}/concept-map/`);
  await page.locator('.cm-scroll').focus();
  await page.keyboard.press('Tab');
  const href = await page.evaluate(() => document.activeElement.getAttribute('href'));
  assert.match(href ?? '', /^\/lessons\//);
  await Promise.all([page.waitForURL(`**${href}`), page.keyboard.press('Enter')]);
  assert.deepEqual(problems, []);
  await context.close();
});

test('concept map on a phone: the map scrolls in its own box, the page does not', async () => {
  const { context, page, problems } = await openPage(browser, { width: 390, colorScheme: 'dark' });
  await page.goto(`${base}/concept-map/`);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390);
  const box = await page.$eval('.cm-scroll', (el) => [el.scrollWidth, el.clientWidth]);
  assert.ok(box[0] > box[1], 'the box scrolls sideways');
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
