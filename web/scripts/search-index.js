// The site's search index (Pagefind, https://pagefind.app), written to /pagefind/ after the
// pages are built. Pages whose <main> carries data-pagefind-body are indexed (lessons and the
// pages beside them; headings with an id become results of their own, with their anchor).
// Glossary terms and figures are added as records of their own, from /_search-records.json
// (web/src/site/search-records.11ty.js, removed here), so that a term leads to
// /glossary/#term and a figure to its place in its lesson.
import fs from 'node:fs';
import path from 'node:path';
import * as pagefind from 'pagefind';

export async function writeSearchIndex(siteDir) {
  const recordsFile = path.join(siteDir, '_search-records.json');
  const records = JSON.parse(fs.readFileSync(recordsFile, 'utf8'));
  fs.rmSync(recordsFile);
  const { index, errors } = await pagefind.createIndex({ forceLanguage: 'en', excludeSelectors: ['.term-tip', '.fig-status', '.sr-only table', '.katex-mathml'] });
  if (!index) throw new Error(`pagefind: ${errors.join('; ')}`);
  try {
    const dir = await index.addDirectory({ path: siteDir });
    if (dir.errors.length) throw new Error(`pagefind: ${dir.errors.join('; ')}`);
    for (const r of records) {
      const res = await index.addCustomRecord({ url: r.url, content: r.content, language: 'en', meta: r.meta });
      if (res.errors.length) throw new Error(`pagefind: ${r.url}: ${res.errors.join('; ')}`);
    }
    const out = await index.writeFiles({ outputPath: path.join(siteDir, 'pagefind') });
    if (out.errors.length) throw new Error(`pagefind: ${out.errors.join('; ')}`);
    // The site uses Pagefind's JavaScript API with its own UI (runtime/search.js): Pagefind's
    // ready-made UIs would only weigh on the offline copy.
    for (const f of fs.readdirSync(path.join(siteDir, 'pagefind'))) {
      if (/^pagefind-(component-ui|modular-ui|ui|highlight)\./.test(f)) fs.rmSync(path.join(siteDir, 'pagefind', f));
    }
    return { pages: dir.page_count, records: records.length };
  } finally {
    await pagefind.close();
  }
}
