// /calculators/: every calculator of the engine, grouped as the course teaches them (the
// index, web/scripts/calculators.js), and the chosen one as a live form
// (web/src/runtime/calc-page.js) whose inputs, outputs, units and ranges come from the
// engine's schema. The index is plain HTML so that search finds every calculator by name
// and description and a heading's anchor opens its calculator.
import { layout } from './_includes/layout.js';
import { esc } from '../../scripts/markdown.js';

export const data = { permalink: '/calculators/index.html' };

function entry(c) {
  return `<li><h3 id="${esc(c.name)}" class="calcs-name"><a href="#${esc(c.name)}" data-calc="${esc(c.name)}" data-start="${esc(JSON.stringify(c.start))}" data-lessons="${esc(JSON.stringify(c.lessons))}">${esc(c.name)}</a></h3>
  <p>${esc(c.description)}</p></li>`;
}

export function render({ course }) {
  const count = course.calculators.reduce((n, g) => n + g.calcs.length, 0);
  const groups = course.calculators.map((g) => `<section aria-labelledby="group-${esc(g.group)}">
  <h2 id="group-${esc(g.group)}">${esc(g.title)}</h2>
  <ul class="calcs-list">
  ${g.calcs.map(entry).join('\n  ')}
  </ul>
</section>`).join('\n');
  const body = `<h1>Calculators</h1>
<p class="lead">All ${count} calculators of the course's engine, each a form built from the engine's own description of its inputs and results. Every result is computed in your browser by the same engine the lessons use; the address is a permalink to the inputs, and the command line gives the same result from <code>mlsys</code>, the engine's command-line tool.</p>
<div class="calcs-page" data-calculators>
  <section class="calcs-panel" aria-labelledby="calc-title" aria-live="polite">
    <h2 id="calc-title">Calculator</h2>
    <p class="fig-status">The calculators need JavaScript; the list below says what each one computes.</p>
  </section>
  <nav class="calcs-index" aria-label="Calculators">
${groups}
  </nav>
</div>`;
  return layout({ title: 'Calculators · ML systems', description: 'Every calculator of the course engine as a form, with permalinks and command lines.', body, bodyClass: 'wide', current: '/calculators/' });
}
