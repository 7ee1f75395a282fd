// Checks lessons without building the site, with the full engine of build/wasm/engine: front
// matter against content/course.yaml, every {{calc}} number, formula, figure, exercise and
// glossary link, as the site build does (content.js, reading only these lessons), then prints
// each lesson's prose words against its minutes (about 50 words a minute).
//   node web/scripts/check-lessons.mjs SLUG [SLUG ...] [--html DIR]   (DIR/<slug>.html: the rendered body)
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const at = args.indexOf('--html');
const htmlDir = at >= 0 ? args.splice(at, 2)[1] : null;
if (!args.length || args.some((a) => a.startsWith('-')) || (at >= 0 && !htmlDir)) {
  console.error('usage: node web/scripts/check-lessons.mjs SLUG [SLUG ...] [--html DIR]');
  process.exit(2);
}
process.env.MLSYS_LESSONS = args.join(',');
const { loadContent } = await import('./content.js');
const { lessons } = await loadContent();
for (const slug of args) {
  const l = lessons.find((x) => x.slug === slug);
  if (!l) {
    console.error(`${slug}: no content/lessons/${slug}.md`);
    process.exit(1);
  }
  console.log(`${slug}: ${l.words} words for ${l.minutes} min (${Math.round(l.words / l.minutes)} a minute), `
    + `${l.figures.length} figures, ${l.exercises.length} exercises, ${l.takeaways.length} takeaways`);
  if (htmlDir) {
    fs.mkdirSync(htmlDir, { recursive: true });
    fs.writeFileSync(path.join(htmlDir, `${slug}.html`), l.html);
  }
}
