// /calculators/ generic over the engine: every calculator's form renders
// from its schema and computes at its starting values without a message; one changed input of
// each survives the permalink (the hash, opened in a new page); the command line shown gives
// the same output from the native CLI (build/native/bin/mlsys) as the page shows; a rejected
// input shows its message beside its field; search and the header lead to the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { openPage, useSite } from '../../web/test/browser.js';
import { loadNodeEngine } from '../../web/src/runtime/engine-node.js';

let browser, base;
useSite((s) => ({ browser, base } = s));
const { engine } = await loadNodeEngine();
const names = engine.list();
const cli = path.resolve(import.meta.dirname, '../../build/native/bin/mlsys');

// Searches on /search/ (as tests/web/search.test.mjs does) and returns the results' hrefs.
async function searchLinks(page, origin, query) {
  await page.goto(`${origin}/search/?q=${encodeURIComponent(query)}`);
  await page.waitForFunction(() => ['done', 'failed'].includes(document.querySelector('[data-search]').dataset.state), null, { timeout: 20000 });
  return page.$$eval('.search-results a', (as) => as.map((a) => a.getAttribute('href')));
}

async function openCalc(page, name, query = '') {
  await page.evaluate((h) => { location.hash = h; }, `#${name}${query}`);
  await waitCalc(page, name);
}

async function waitCalc(page, name) {
  await page.waitForFunction((n) => {
    const p = document.querySelector('.calcs-panel');
    return p.dataset.calc === n && ['ready', 'error', 'unavailable'].includes(p.dataset.state);
  }, name, { timeout: 20000 }).catch(async (err) => {
    const p = await page.$eval('.calcs-panel', (e) => `${e.dataset.calc} ${e.dataset.state} ${location.hash}`);
    throw new Error(`${name}: the panel shows ${p}: ${err.message}`);
  });
}

const panelState = (page) => page.evaluate(() => {
  const p = document.querySelector('.calcs-panel');
  return {
    state: p.dataset.state,
    note: p.querySelector('.fig-message')?.hidden === false ? p.querySelector('.fig-message').textContent : '',
    fieldMessages: [...p.querySelectorAll('.calcs-field-msg')].map((m) => m.textContent),
    controls: p.querySelectorAll('.calc-controls .ctl').length,
    results: [...p.querySelectorAll('.calc-out dd')].map((d) => d.textContent),
    command: p.querySelector('.calcs-command')?.textContent ?? '',
    json: p.querySelector('.calcs-json pre')?.textContent ?? '',
  };
});

test('every calculator of the engine is listed and computes at its starting values', async () => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(`${base}/calculators/`);
  const listed = await page.$$eval('a[data-calc]', (as) => as.map((a) => a.dataset.calc));
  assert.deepEqual([...listed].sort(), [...names].sort());
  for (const name of names) {
    await openCalc(page, name);
    const s = await panelState(page);
    const schema = engine.schema(name);
    assert.equal(s.state, 'ready', `${name}: ${s.note} ${s.fieldMessages.join(' ')}`);
    assert.equal(s.note, '', name);
    assert.deepEqual(s.fieldMessages, [], name);
    assert.equal(s.controls, schema.fields.length, `${name}: one control per input field`);
    assert.ok(s.results.length > 0 && s.results.every((t) => t && !/NaN|undefined|Infinity/.test(t)), `${name}: ${s.results}`);
    assert.ok(s.command.startsWith(`mlsys calc ${name} '{`), `${name}: ${s.command}`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

// The first control whose change the engine accepts: another option, the other state, or a
// number moved within its range.
async function changeOne(page) {
  const ctls = await page.$$('.calcs-panel .calc-controls .ctl');
  for (const ctl of ctls) {
    const select = await ctl.$('select');
    const box = await ctl.$('input[type=checkbox]');
    const number = await ctl.$('input[type=number]');
    const list = await ctl.$('input[data-list]');
    const text = await ctl.$('input[data-text]');
    const before = await page.$eval('.calcs-panel', (p) => Number(p.dataset.computes));
    let key, value, restore;
    if (select) {
      const options = await select.$$eval('option', (os) => os.map((o) => o.value));
      const current = await select.inputValue();
      restore = current;
      value = options.find((o) => o !== current);
      if (value === undefined) continue;
      await select.selectOption(value);
    } else if (box) {
      value = String(!(await box.isChecked()));
      await box.setChecked(value === 'true');
    } else if (list) {
      // A list ("2, 3, 4"): its first item once more in front, or that item plus one.
      const text = await list.inputValue();
      if (text === '') continue;
      restore = text;
      const items = text.split(',').map((t) => t.trim());
      const candidates = [[items[0], ...items], [String(Number(items[0]) + 1), ...items.slice(1)]].map((c) => c.join(', '));
      for (const c of candidates) {
        await list.fill(c);
        await list.dispatchEvent('change');
        const t = await panelState(page);
        if (t.fieldMessages.length === 0 && t.note === '') break;
      }
      value = await list.inputValue();
    } else if (text) {
      // An expression: one term more.
      restore = await text.inputValue();
      if (restore === '') continue;
      value = `${restore} + 1`;
      await text.fill(value);
      await text.dispatchEvent('change');
    } else if (!number) {
      continue; // an object of values ({"x": 2}) is changed through the other controls
    } else {
      const text = await number.inputValue();
      if (text === '') continue;
      restore = text;
      const [min, max] = await Promise.all([number.getAttribute('min'), number.getAttribute('max')]);
      const v = Number(text);
      const next = [v + 1, v * 2, v / 2, v - 1].find((x) => (min === null || x >= Number(min)) && (max === null || x <= Number(max)) && x !== v);
      value = String(next);
      await number.fill(value);
      await number.dispatchEvent('change');
    }
    key = await (select ?? box ?? list ?? text ?? number).getAttribute('name');
    const s = await panelState(page);
    const after = await page.$eval('.calcs-panel', (p) => Number(p.dataset.computes));
    if (after > before && s.fieldMessages.length === 0 && s.note === '') return { key, value };
    // Rejected (e.g. a sequence no longer divisible by the ranks): put the value back, so
    // that the next try is not rejected for this one.
    if (select) await select.selectOption(restore);
    else if (box) await box.setChecked(value !== 'true');
    else {
      await (list ?? text ?? number).fill(restore);
      await (list ?? text ?? number).dispatchEvent('change');
    }
  }
  return null;
}

test('one changed input of every calculator round-trips through the permalink', async () => {
  const { context, page, problems } = await openPage(browser);
  const fresh = await context.newPage();
  await page.goto(`${base}/calculators/`);
  for (const name of names) {
    await openCalc(page, name);
    const changed = await changeOne(page);
    assert.ok(changed, `${name}: no input could be changed`);
    const hash = await page.evaluate(() => location.hash);
    assert.ok(hash.includes(`${encodeURIComponent(changed.key)}=`), `${name}: ${hash} lacks ${changed.key}`);
    await fresh.goto('about:blank'); // a same-document navigation would not start the page again
    await fresh.goto(`${base}/calculators/${hash}`);
    await waitCalc(fresh, name);
    const ctl = fresh.locator(`.calcs-panel [name="${changed.key}"]`);
    const shown = (await ctl.getAttribute('type')) === 'checkbox' ? String(await ctl.isChecked()) : await ctl.inputValue();
    assert.equal(Number.isNaN(Number(shown)) ? shown : Number(shown), Number.isNaN(Number(changed.value)) ? changed.value : Number(changed.value), `${name}: ${changed.key} after the permalink`);
    assert.equal((await panelState(fresh)).command, (await panelState(page)).command, `${name}: the same inputs`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

// Native and WASM builds give the same numbers (shared/API.md); a last-bit difference of a
// transcendental function is allowed.
function close(a, b, where) {
  if (typeof a === 'number' && typeof b === 'number') {
    assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b)), `${where}: ${a} vs ${b}`);
  } else if (a && typeof a === 'object') {
    assert.deepEqual(Object.keys(a).sort(), Object.keys(b ?? {}).sort(), where);
    for (const k of Object.keys(a)) close(a[k], b[k], `${where}.${k}`);
  } else {
    assert.equal(a, b, where);
  }
}

test('the command line shown gives the page\'s output from the native CLI', { skip: !fs.existsSync(cli) && 'no native build' }, async () => {
  const { context, page } = await openPage(browser);
  await page.goto(`${base}/calculators/`);
  for (const [name, query] of [['roofline', '?flops=3e%2B12&dtype=fp8-e4m3'], ['matmul', ''], ['kv-cache', ''], ['collective', ''], ['chinchilla', '']]) {
    await openCalc(page, name, query);
    const s = await panelState(page);
    const m = /^mlsys calc (\S+) '(.*)'$/.exec(s.command);
    assert.ok(m, s.command);
    const input = m[2].replaceAll("'\\''", "'");
    const native = JSON.parse(execFileSync(cli, ['calc', m[1], input], { encoding: 'utf8' }));
    const shown = JSON.parse(s.json.slice(s.json.indexOf('\n{') + 1));
    close(native, shown, name);
  }
  await context.close();
});

test('a rejected input shows its message beside its field; header and search lead here', async () => {
  const { context, page } = await openPage(browser);
  await page.goto(`${base}/calculators/`);
  await openCalc(page, 'roofline');
  const good = (await panelState(page)).results;
  const bytes = page.locator('.calcs-panel input[type=number][name="bytes"]');
  await bytes.fill('0');
  await bytes.dispatchEvent('change');
  const msg = page.locator('.calcs-panel .ctl:has([name="bytes"]) .calcs-field-msg');
  assert.match(await msg.textContent(), /greater than 0/);
  assert.equal(await bytes.getAttribute('aria-invalid'), 'true');
  assert.deepEqual((await panelState(page)).results, good, 'the last good result stays');
  await page.goto(`${base}/`);
  assert.equal(await page.locator('.site-header a[href="/calculators/"]').count(), 1);
  const links = await searchLinks(page, base, 'calculators');
  assert.ok(links.some((l) => l.startsWith('/calculators/')), links.join(' '));
  await context.close();
});
