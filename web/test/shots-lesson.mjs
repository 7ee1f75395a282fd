// Screenshots of one lesson's figures (1280 px light, 390 px dark) for review:
// node test/shots-lesson.mjs SLUG OUTDIR
import { launch, openPage, drawAll, startServer } from './browser.js';

const [slug, out = '/tmp'] = process.argv.slice(2);
const { server, url } = await startServer(0);
const browser = await launch();
try {
  for (const [colorScheme, width] of [['light', 1280], ['dark', 390]]) {
    const { context, page, problems } = await openPage(browser, { colorScheme, width });
    await page.goto(`${url}/lessons/${slug}/`);
    await drawAll(page);
    const figures = await page.$$('mlsys-figure');
    for (const [i, f] of figures.entries()) await f.screenshot({ path: `${out}/${slug}-${i}-${colorScheme}-${width}.png` });
    const exercises = await page.$$('mlsys-exercise');
    for (const [i, e] of exercises.entries()) await e.screenshot({ path: `${out}/${slug}-ex${i}-${colorScheme}-${width}.png` });
    if (problems.length) console.log(slug, colorScheme, problems);
    await context.close();
  }
} finally {
  await browser.close();
  server.close();
}
