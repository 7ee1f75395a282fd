// Screenshots of the kernels lesson's changed figures (not part of the site).
import { launch, startServer, openPage, drawAll } from './test/browser.js';
const out = '/work/notes/shots/kernels';
const { server, url } = await startServer(0);
const browser = await launch();
for (const colorScheme of ['light', 'dark']) {
  for (const width of [1280, 390]) {
    const { context, page, problems } = await openPage(browser, { colorScheme, width, height: 1000 });
    await page.goto(`${url}/lessons/kernels-tiling-fusion/`);
    await drawAll(page, { timeout: 60000 });
    for (const id of ['tiled-matmul-traffic', 'launch-overhead-size']) {
      const fig = await page.$(`mlsys-figure[data-id="${id}"]`);
      await fig.scrollIntoViewIfNeeded();
      await fig.screenshot({ path: `${out}/${id}-${colorScheme}-${width}.png` });
    }
    // The closed-form size in bf16: the case the issue names.
    const fig = await page.$('mlsys-figure[data-id="tiled-matmul-traffic"]');
    const selects = await fig.$$('select');
    for (const sel of selects) {
      const opts = await sel.$$eval('option', (os) => os.map((o) => o.value));
      if (opts.includes('4096')) await sel.selectOption('4096');
      if (opts.includes('bf16')) await sel.selectOption('bf16');
    }
    await page.waitForTimeout(1500);
    await fig.screenshot({ path: `${out}/tiled-matmul-traffic-4096-bf16-${colorScheme}-${width}.png` });
    if (problems.length) console.log(colorScheme, width, problems);
    await context.close();
  }
}
await browser.close();
server.close();
console.log('done');
