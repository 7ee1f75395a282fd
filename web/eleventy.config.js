// Eleventy 3: pages are JavaScript templates in src/site; lesson Markdown is rendered by
// build/markdown.js (through src/site/_data/course.js), not by Eleventy's template engines.
export default function (eleventyConfig) {
  eleventyConfig.setTemplateFormats(['11ty.js']);
  eleventyConfig.addPassthroughCopy({ 'src/site/favicon.svg': 'favicon.svg' });
  eleventyConfig.setQuietMode(true);
  return {
    dir: { input: 'src/site', output: '../build/site', data: '_data', includes: '_includes' },
    markdownTemplateEngine: false,
    htmlTemplateEngine: false,
  };
}
