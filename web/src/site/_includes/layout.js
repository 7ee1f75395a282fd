// The HTML shell of every page: strict CSP, styles, the page script, favicon, header and
// footer. Pages pass already-escaped HTML for `body`.
import { esc } from '../../../scripts/markdown.js';
import { CSP } from './csp.js';

export function layout({ title, description, body, bodyClass = '', katex = false, embed = false }) {
  const nav = embed ? '' : `
  <a class="skip" href="#main">Skip to content</a>
  <header class="site-header">
    <a class="brand" href="/">ML Systems, computed</a>
    <nav aria-label="Site">
      <a href="/">Course</a>
      <a href="/glossary/">Glossary</a>
    </nav>
  </header>`;
  const footer = embed ? '' : `
  <footer class="site-footer">
    <p>Every number on these pages is computed by the course's C++ engine, running in your browser as WebAssembly.</p>
  </footer>`;
  return `<!doctype html>
<html lang="en" data-sw="on">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta http-equiv="Content-Security-Policy" content="${CSP}">
  <meta name="color-scheme" content="light dark">
  <title>${esc(title)}</title>
  <meta name="description" content="${esc(description)}">
  <link rel="icon" href="/favicon.svg" type="image/svg+xml">
  ${katex ? '<link rel="stylesheet" href="/assets/katex/katex.min.css">' : ''}
  <link rel="stylesheet" href="/assets/site.css">
  <script type="module" async src="/assets/js/main.js"></script>
</head>
<body class="${bodyClass}">${nav}
  <main id="main">
${body}
  </main>${footer}
</body>
</html>
`;
}
