// /programs/: every lesson's companion program (content/programs, web/scripts/programs.js):
// what it computes, how to run it, its options and what it prints, with a download link.
import { layout } from './_includes/layout.js';
import { esc } from '../../scripts/markdown.js';
import { pad2 } from '../../scripts/track.js';

export const data = { permalink: '/programs/index.html' };

// The download's size as the page shows it (tests/wasm/programs.test.mjs reads it back).
export const programSize = (p) => `${p.lines} lines · ${(p.bytes / 1e3).toFixed(1)} kB`;

// The block a lesson page and this page share: download (with the downloaded file's size),
// command, output and --help.
export function programBlock(p, id) {
  return `<p class="program-run"><a class="fig-btn" href="/programs/${esc(p.file)}" download>Download ${esc(p.file)}</a>
    <code>python3 ${esc(p.file)}</code> <span class="meta"><span class="program-size" data-bytes="${p.bytes}">${programSize(p)}</span> · Python 3.10 or newer · standard library only · runs offline</span></p>
  <details class="program-output" id="${esc(id)}-output"><summary>What it prints</summary><pre tabindex="0"><code>${esc(p.output)}</code></pre></details>
  <details class="program-help"><summary>Its options (<code>--help</code>)</summary><pre tabindex="0"><code>${esc(p.help)}</code></pre></details>`;
}

export function render({ course }) {
  const rows = course.programs.map((p) => `<section class="program" data-slug="${esc(p.slug)}" aria-labelledby="program-${esc(p.slug)}">
  <h2 id="program-${esc(p.slug)}"><a href="/lessons/${esc(p.slug)}/">${esc(p.title)}</a></h2>
  <p class="meta">${p.track ? `Track ${pad2(p.track)} · ` : ''}${esc(p.module)}</p>
  <p>${esc(p.summary)}</p>
  ${programBlock(p, `program-${p.slug}`)}
</section>`).join('\n');
  const body = `<h1>Programs</h1>
<p class="lead">Every lesson comes with one small Python program that reproduces its central model in plain, commented code and prints the numbers of its worked example. They need Python 3.10 or newer and nothing else: only the standard library, no network, and GPU behaviour is simulated with arithmetic. Download one, run <code>python3 &lt;name&gt;.py</code>, then change its flags or its code. Their hardware and model numbers are the course's own tables, written into each file when the site was built, and the course's tests check that they print the engine's numbers.</p>
${rows}`;
  return layout({ title: 'Programs · ML systems', description: 'A small standard-library Python program for every lesson.', body, current: '/programs/' });
}
