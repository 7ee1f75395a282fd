// Screenshots of /calculators/ (light/dark, 1280/390 px) for review: node test/shots-calculators.mjs OUTDIR
import { launch, openPage, startServer } from './browser.js';

const out = process.argv[2] ?? '/tmp';
const { server, url } = await startServer(0);
const browser = await launch();
try {
  for (const colorScheme of ['light', 'dark']) {
    for (const width of [1280, 390]) {
      const { context, page, problems } = await openPage(browser, { colorScheme, width });
      await page.goto(`${url}/calculators/#roofline?flops=1e%2B14&bytes=abc`);
      await page.waitForFunction(() => ['ready', 'error'].includes(document.querySelector('.calcs-panel').dataset.state));
      await page.locator('.calcs-panel').screenshot({ path: `${out}/calculators-panel-${colorScheme}-${width}.png` });
      await page.screenshot({ path: `${out}/calculators-${colorScheme}-${width}.png` });
      if (problems.length) console.log(problems);
      await context.close();
    }
  }
} finally {
  await browser.close();
  server.close();
}
