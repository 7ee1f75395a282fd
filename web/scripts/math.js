// Mathematics in the course's Markdown, rendered at build time by the installed KaTeX (the
// same version whose style sheet and fonts the site ships: web/scripts/build.mjs copies them
// from node_modules/katex):
//   $...$          inline: the opening $ is not followed by a space, the closing $ is not
//                  preceded by one nor followed by a digit ("costs $2 and $3" stays text);
//                  \$ is a literal dollar sign
//   $$...$$        display: a block that starts with $$ on its own line and ends with $$ at
//                  the end of a line (one line or several)
// A formula KaTeX cannot parse fails the build with the file and the formula.
import katex from 'katex';

// One formula as HTML (with MathML for screen readers). `where`: the file, for messages.
export function renderTex(tex, { display = false, where = 'math' } = {}) {
  try {
    return katex.renderToString(tex, { displayMode: display, output: 'htmlAndMathml', throwOnError: true, strict: 'error' });
  } catch (err) {
    throw new Error(`${where}: formula $${tex}$ does not render: ${err.message}`);
  }
}

const isSpace = (c) => c === ' ' || c === '\t' || c === '\n';

function inlineMath(state, silent) {
  const { src, pos } = state;
  if (src[pos] !== '$' || src[pos + 1] === '$' || isSpace(src[pos + 1] ?? ' ')) return false;
  let end = pos + 1;
  for (; end < state.posMax; end += 1) {
    if (src[end] === '\\') end += 1;
    else if (src[end] === '$') break;
  }
  if (end >= state.posMax || isSpace(src[end - 1]) || /[0-9]/.test(src[end + 1] ?? '')) return false;
  if (!silent) state.push('math_inline', 'math', 0).content = src.slice(pos + 1, end);
  state.pos = end + 1;
  return true;
}

function displayMath(state, startLine, endLine, silent) {
  const lineText = (n) => state.src.slice(state.bMarks[n] + state.tShift[n], state.eMarks[n]);
  if (state.sCount[startLine] - state.blkIndent >= 4) return false;
  const first = lineText(startLine);
  if (!first.startsWith('$$')) return false;
  let last = startLine;
  if (!(first.length > 4 && first.trimEnd().endsWith('$$'))) {
    for (last = startLine + 1; last < endLine && !lineText(last).trimEnd().endsWith('$$'); last += 1);
    if (last >= endLine) return false;
  }
  if (silent) return true;
  const text = [first, ...Array.from({ length: last - startLine }, (_, k) => lineText(startLine + 1 + k))].join('\n').trim();
  const token = state.push('math_display', 'math', 0);
  token.content = text.slice(2, -2).trim();
  token.map = [startLine, last + 1];
  token.block = true;
  state.line = last + 1;
  return true;
}

// The markdown-it plugin. Display formulas sit in a box that scrolls sideways when it is wider
// than the column (phones), with edge shadows as the cue (site.css, .katex-block); the box is
// focusable so that keyboard readers can scroll it.
export function mathPlugin(md, { where = 'math' } = {}) {
  md.inline.ruler.after('escape', 'math_inline', inlineMath);
  md.block.ruler.after('blockquote', 'math_display', displayMath, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
  md.renderer.rules.math_inline = (tokens, idx) => renderTex(tokens[idx].content, { where });
  md.renderer.rules.math_display = (tokens, idx) =>
    `<div class="katex-block" tabindex="0">${renderTex(tokens[idx].content, { display: true, where })}</div>\n`;
}
