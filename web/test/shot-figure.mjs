// A screenshot of one figure at chosen settings, for review:
// node test/shot-figure.mjs SLUG FIGURE-ID 'key=value&key=value' WIDTH dark|light OUT.png
import { launch, openPage, drawAll, startServer } from './browser.js';

const [slug, id, settings = '', width = '1280', scheme = 'light', out = '/tmp/figure.png'] = process.argv.slice(2);
const { server, url } = await startServer(0);
const browser = await launch();
try {
  const { context, page, problems } = await openPage(browser, { colorScheme: scheme, width: Number(width) });
  await page.goto(`${url}/lessons/${slug}/${settings ? `#${id}:${settings}` : ''}`);
  await drawAll(page);
  await page.locator(`mlsys-figure[data-id="${id}"]`).screenshot({ path: out });
  if (problems.length) console.log(problems);
  await context.close();
} finally {
  await browser.close();
  server.close();
}
