// The companion programs as a reader gets them: downloaded from the lesson page's "Run it
// yourself" (not taken from the repository), run with the system Python, they print exactly
// what the page says they print, and their size is the one the page shows beside the download.
// /programs/ lists every program; each is kept for offline reading. (Their numbers against the
// engine: tests/wasm/programs.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPage, useSite } from '../../web/test/browser.js';
import { siteDir } from '../../web/scripts/paths.js';
import { programFiles } from '../../web/scripts/programs.js';

let browser, base;
useSite((s) => ({ browser, base } = s));

const slugs = programFiles().map((f) => f.slice(0, -3));

test('each lesson\'s program, downloaded from its page, prints what the page shows', async () => {
  assert.ok(slugs.length > 0);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mlsys-programs-'));
  const { context, page, problems } = await openPage(browser);
  try {
    for (const slug of slugs) {
      await page.goto(`${base}/lessons/${slug}/`);
      const section = page.locator('section.run-it');
      await assert.doesNotReject(section.waitFor({ timeout: 5000 }), `${slug}: no "Run it yourself" section`);
      assert.equal(await section.locator('h2').textContent(), 'Run it yourself');
      assert.equal(await section.locator('.program-run code').textContent(), `python3 ${slug}.py`);
      const [download] = await Promise.all([page.waitForEvent('download'), section.locator('a[download]').click()]);
      assert.equal(download.suggestedFilename(), `${slug}.py`);
      const file = path.join(dir, `${slug}.py`);
      await download.saveAs(file);
      const size = section.locator('.program-size');
      const bytes = fs.statSync(file).size;
      assert.equal(Number(await size.getAttribute('data-bytes')), bytes, `${slug}: the page's size is not the downloaded file's`);
      assert.match(await size.textContent(), new RegExp(`^\\d+ lines · ${(bytes / 1e3).toFixed(1).replace('.', '\\.')} kB$`));
      const run = spawnSync('python3', [file], { encoding: 'utf8', cwd: dir, timeout: 120_000 });
      assert.equal(run.status, 0, `${slug}.py: ${run.stderr}`);
      const shown = await section.locator('.program-output pre').textContent();
      assert.equal(run.stdout, shown, `${slug}: the page's "What it prints" differs from the downloaded program's output`);
      assert.ok(shown.trim().split('\n').length >= 3, `${slug}: the program prints its worked example`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('/programs/ lists every program with its lesson and a download; each is kept offline', async () => {
  const { context, page, problems } = await openPage(browser, { width: 390, height: 844 });
  await page.goto(`${base}/programs/`);
  const rows = await page.$$eval('section.program', (els) => els.map((el) => ({
    slug: el.dataset.slug, lesson: el.querySelector('h2 a').getAttribute('href'), file: el.querySelector('a[download]').getAttribute('href'),
  })));
  assert.deepEqual(rows.map((r) => r.slug).sort(), slugs);
  for (const r of rows) {
    assert.equal(r.lesson, `/lessons/${r.slug}/`);
    assert.equal(r.file, `/programs/${r.slug}.py`);
  }
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scroll at 390 px');
  const kept = JSON.parse(fs.readFileSync(path.join(siteDir, 'offline-manifest.json'), 'utf8')).files.map((f) => f.url);
  for (const slug of slugs) assert.ok(kept.includes(`/programs/${slug}.py`), `${slug}.py is not kept for offline reading`);
  assert.ok(kept.includes('/programs/'));
  assert.deepEqual(problems, []);
  await context.close();
});
