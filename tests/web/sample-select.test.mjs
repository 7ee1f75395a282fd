// A text box with `samples` comes with a select of them (runtime/controls.js): on every lesson
// page, each figure's sample select is labelled, reachable by keyboard, and each of its samples,
// chosen, fills the box and draws (or shows the engine's message); the box's own text selects
// "Your own". On bpe-merges, chosen by keyboard, the accented sample draws one base symbol per
// code point, its permalink names the text, and opening that permalink selects the sample again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPage, drawAll, useSite } from '../../web/test/browser.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LESSONS = fs.readdirSync(path.join(root, 'content/lessons')).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3));
let browser, base;
useSite((s) => ({ browser, base } = s));

test('every sample select is labelled, and each sample fills its box and draws', async () => {
  let seen = 0;
  for (const slug of LESSONS) {
    const { context, page, problems } = await openPage(browser);
    await page.goto(`${base}/lessons/${slug}/`);
    if ((await page.locator('mlsys-figure').count()) === 0) { await context.close(); continue; }
    await drawAll(page);
    const results = await page.evaluate(async () => {
      const out = [];
      for (const fig of document.querySelectorAll('mlsys-figure')) {
        for (const select of fig.querySelectorAll('select[name$="-sample"]')) {
          const key = select.name.replace(/-sample$/, '');
          const box = fig.querySelector(`input[name="${key}"]`);
          const label = fig.querySelector(`label[for="${select.id}"]`)?.textContent ?? '';
          const chosen = [];
          for (const o of [...select.options].filter((x) => !x.disabled)) {
            const draws = Number(fig.dataset.draws);
            const rejected = Number(fig.dataset.rejected ?? 0);
            select.value = o.value;
            select.dispatchEvent(new Event('change'));
            chosen.push({ option: o.textContent, box: box.value, drew: Number(fig.dataset.draws) > draws, rejected: Number(fig.dataset.rejected ?? 0) > rejected,
              message: fig.querySelector('.fig-message').textContent, still: select.value === o.value });
          }
          box.value = `${box.value} `.repeat(2).trim();
          box.dispatchEvent(new Event('change'));
          out.push({ id: fig.dataset.id, key, label, chosen, own: select.selectedOptions[0]?.textContent ?? '' });
        }
      }
      return out;
    });
    for (const r of results) {
      seen += 1;
      assert.ok(r.label.length > 3, `${r.id}: the sample select of ${r.key} has a label`);
      assert.ok(r.chosen.length >= 2, `${r.id}: ${r.key} offers at least two samples`);
      for (const c of r.chosen) {
        assert.ok(c.box.length > 0 && c.still, `${r.id}: “${c.option}” fills the box and stays selected`);
        assert.ok(c.drew || (c.rejected && c.message.length > 10) || c === r.chosen[0], `${r.id}: “${c.option}” draws or is explained (${c.message})`);
      }
      const boxes = r.chosen.map((c) => c.box);
      assert.equal(new Set(boxes).size, boxes.length, `${r.id}: each sample puts its own text in the box: ${boxes.join(' | ')}`);
      assert.match(r.own, /^Your own/, `${r.id}: text of the reader's own selects "Your own"`);
    }
    assert.deepEqual(problems, [], slug);
    await context.close();
  }
  assert.ok(seen >= 6, `${seen} sample selects found`);
});

test('bpe-merges: the accented sample by keyboard, its permalink, and the permalink restored', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/lessons/tokens-and-embeddings/`);
  await drawAll(page);
  const fig = page.locator('mlsys-figure[data-id="bpe-merges"]');
  const select = fig.locator('select[name="text-sample"]');
  assert.equal(await fig.locator(`label[for="${await select.getAttribute('id')}"]`).textContent(), 'Sample text');
  await fig.locator('input[name="merges"][type="number"]').fill('0');
  await fig.locator('input[name="merges"][type="number"]').press('Enter');
  // Keyboard only: focus the select and move down to the accented sample.
  await select.focus();
  for (let i = 0; i < 5 && !(await select.evaluate((s) => s.selectedOptions[0].textContent)).startsWith('Accented'); i += 1) {
    await page.keyboard.press('ArrowDown');
  }
  assert.equal(await select.evaluate((s) => s.selectedOptions[0].textContent), 'Accented words, emoji and Chinese');
  const text = await fig.locator('input[name="text"]').inputValue();
  assert.match(text, /café/);
  // One base symbol per code point: c a f é n ï v e ü b r 🙂 日 本 語 (and the end-of-word marker).
  const symbols = await fig.evaluate((el) => el.data.base_symbols);
  for (const s of ['é', 'ï', 'ü', '🙂', '日', '本', '語']) assert.ok(symbols.includes(s), `base symbol ${s}`);
  await fig.getByRole('button', { name: 'Permalink' }).click();
  const url = page.url();
  assert.match(decodeURIComponent(url), /bpe-merges:.*text=caf/);
  await context.close();

  const again = await openPage(browser);
  await again.page.goto(url);
  await drawAll(again.page);
  const fig2 = again.page.locator('mlsys-figure[data-id="bpe-merges"]');
  assert.equal(await fig2.locator('select[name="text-sample"]').evaluate((s) => s.selectedOptions[0].textContent), 'Accented words, emoji and Chinese');
  assert.equal(await fig2.locator('input[name="text"]').inputValue(), text);
  assert.deepEqual([...problems, ...again.problems], []);
  await again.context.close();
});

// The page's placeholder reserves a row for each sample select (markdown.js figureShell), so the
// controls take the same height before and after the runtime builds them.
for (const width of [1280, 390]) {
  test(`no layout shift from sample selects (${width} px)`, async () => {
    for (const slug of ['tokens-and-embeddings', 'backpropagation']) { // five figures with samples among nine
      const controls = async (javaScriptEnabled) => {
        const context = await browser.newContext({ viewport: { width, height: 900 }, javaScriptEnabled });
        const page = await context.newPage();
        await page.goto(`${base}/lessons/${slug}/`);
        if (javaScriptEnabled) await drawAll(page);
        const h = await page.$$eval('mlsys-figure', (els) => els
          .map((e) => `${e.dataset.id} ${Math.round(e.querySelector('.fig-controls').getBoundingClientRect().height)}`));
        await context.close();
        return h;
      };
      assert.deepEqual(await controls(true), await controls(false), slug);
    }
  });
}
