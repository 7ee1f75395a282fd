// /systems-and-scaling/: the one-page overview (content/systems-and-scaling.yaml): the four
// limits, the five core topics with their lessons, how the pieces fit, and the six core
// equations, each beside a live <mlsys-calc> computed by the engine.
import { layout } from './_includes/layout.js';
import { lessonIndex, lessonLinks } from './_includes/links.js';
import { esc } from '../../scripts/markdown.js';
import { formatOutput } from '../runtime/calc-format.js';
import { NONE } from '../runtime/format.js';

export const data = { permalink: '/systems-and-scaling/index.html' };

// The widget's element: its settings as data attributes (build-time content, never reader
// input) and the first result computed at build time, in boxes of the final size.
function calcWidget(e) {
  const outputs = e.outputs.map((o) => `<div class="calc-out"><dt>${esc(o.label)}</dt><dd data-field="${esc(o.field)}">${e.result ? esc(formatOutput(e.result[o.field], o)) : NONE}</dd></div>`).join('');
  return `<mlsys-calc data-calc="${esc(e.calc)}" data-inputs="${esc(JSON.stringify(e.inputs))}" data-values="${esc(JSON.stringify(e.values))}" data-outputs="${esc(JSON.stringify(e.outputs))}" style="--rows:${e.inputs.length}">
  <div class="calc-controls fig-reserve"></div>
  <dl class="calc-results">${outputs}</dl>
  <p class="calc-status fig-status">${e.result ? 'Loading calculator…' : 'This calculator arrives with its lesson.'}</p>
</mlsys-calc>`;
}

export function render({ course }) {
  const o = course.overview;
  const index = lessonIndex(course.modules);
  const topics = o.topics.map((t, i) => `<li><strong>${esc(t.title)}.</strong> ${t.textHtml}<br><span class="topic-lessons">Lessons: ${lessonLinks(index, t.lessons)}</span></li>`).join('\n');
  const equations = o.equations.map((e, i) => `<section class="equation" id="${esc(e.id)}" aria-labelledby="eq-${esc(e.id)}">
  <h3 id="eq-${esc(e.id)}"><span class="num">${i + 1}.</span> ${esc(e.title)}</h3>
  <div class="equation-grid">
    <div class="equation-text">
      <div class="katex-block" tabindex="0" role="math" aria-label="${esc(e.title)}">${e.texHtml}</div>
      <p>${e.textHtml}</p>
      <p class="meta">In depth: ${lessonLinks(index, e.lessons)}</p>
    </div>
    ${calcWidget(e)}
  </div>
</section>`).join('\n');
  const seeAlso = o.seeAlso.map((s) => `<li><strong>${esc(s.title)}:</strong> ${lessonLinks(index, s.lessons)}</li>`).join('\n');
  const body = `<h1>${esc(o.title)}</h1>
<p class="lead">${esc(o.description)}</p>
<section aria-labelledby="model"><h2 id="model">The mental model</h2>
${o.modelHtml}</section>
<section aria-labelledby="core"><h2 id="core">The core sequence</h2>
<ol class="core-topics">
${topics}
</ol></section>
<section aria-labelledby="fit"><h2 id="fit">How the pieces fit</h2>
${o.fitHtml}</section>
<section aria-labelledby="equations"><h2 id="equations">Six core equations</h2>
<p>Each calculator runs the course's engine in your browser: change an input and the result follows.</p>
${equations}
</section>
<section aria-labelledby="see-also"><h2 id="see-also">See also</h2>
<ul>
${seeAlso}
</ul></section>`;
  return layout({ title: `${o.title} · ML systems`, description: o.description, body, katex: true, bodyClass: 'wide', current: '/systems-and-scaling/' });
}
