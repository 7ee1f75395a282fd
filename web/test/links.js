// Internal links of the built site, checked without a browser: every <a href> that points
// into the site must reach a page or file that exists, and its #anchor an id on that page.
import fs from 'node:fs';
import path from 'node:path';
import { sitePages } from './browser.js';

const decode = (s) => s.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

function fileOf(root, urlPath) {
  const p = decodeURIComponent(urlPath);
  const file = p.endsWith('/') ? path.join(root, p, 'index.html') : path.join(root, p);
  return fs.existsSync(file) && fs.statSync(file).isFile() ? file : null;
}

// Returns ["page: problem", ...] (empty when every internal link and anchor resolves).
export function brokenLinks(root) {
  const pages = sitePages(root);
  const html = new Map(pages.map((p) => [p, fs.readFileSync(fileOf(root, p), 'utf8')]));
  const ids = new Map([...html].map(([p, text]) => [p, new Set([...text.matchAll(/\sid="([^"]+)"/g)].map((m) => decode(m[1])))]));
  const problems = [];
  for (const [page, text] of html) {
    for (const m of text.matchAll(/<a\s[^>]*?href="([^"]*)"/g)) {
      const href = decode(m[1]);
      if (/^(https?:|mailto:|data:|blob:)/.test(href)) continue;
      if (!href) {
        problems.push(`${page}: empty href`);
        continue;
      }
      const url = new URL(href, `http://site${page}`);
      const target = url.pathname;
      if (!fileOf(root, target)) {
        problems.push(`${page}: link to missing ${target}`);
        continue;
      }
      const anchor = decodeURIComponent(url.hash.slice(1));
      if (anchor && target.endsWith('/') && !ids.get(target)?.has(anchor)) {
        // A figure permalink (#figure-id:settings) is read by the figure, not an element id.
        if (!anchor.includes(':')) problems.push(`${page}: link to ${target}#${anchor}, which has no such id`);
      }
    }
  }
  return problems;
}
