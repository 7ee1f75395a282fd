// Eleventy 3: pages are JavaScript templates in src/site; lesson Markdown is rendered by
// scripts/markdown.js (through src/site/_data/course.js), not by Eleventy's template engines.
import { siteDir } from './scripts/paths.js';

export default function (eleventyConfig) {
  eleventyConfig.setTemplateFormats(['11ty.js']);
  eleventyConfig.addPassthroughCopy({ 'src/site/favicon.svg': 'favicon.svg' });
  // The licence files at the repository root, linked from the footer.
  eleventyConfig.addPassthroughCopy({ '../LICENSE': 'LICENSE.txt', '../LICENSE-content': 'LICENSE-content.txt' });
  eleventyConfig.setQuietMode(true);
  return {
    dir: { input: 'src/site', output: siteDir, data: '_data', includes: '_includes' },
    markdownTemplateEngine: false,
    htmlTemplateEngine: false,
  };
}
