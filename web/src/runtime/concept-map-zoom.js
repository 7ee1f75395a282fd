// The concept map's zoom buttons (/concept-map/): the SVG is drawn at its natural size
// (labels 13 px) inside a scroll box; zooming changes its drawn width, in steps, between
// 50% and 200%. Without this script the buttons stay hidden and the box still scrolls.
const STEPS = [0.5, 0.67, 0.8, 1, 1.25, 1.5, 2];

export function initConceptMapZoom() {
  const bar = document.querySelector('.cm-zoom');
  const svg = document.querySelector('.cm-scroll svg.concept-map');
  if (!bar || !svg) return;
  const natural = Number(svg.getAttribute('width'));
  let step = STEPS.indexOf(1);
  const out = bar.querySelector('[data-zoom="out"]');
  const inn = bar.querySelector('[data-zoom="in"]');
  const apply = () => {
    svg.style.width = `${natural * STEPS[step]}px`;
    svg.style.height = 'auto';
    svg.dataset.zoom = String(STEPS[step]);
    out.disabled = step === 0;
    inn.disabled = step === STEPS.length - 1;
  };
  bar.addEventListener('click', (e) => {
    const what = e.target.closest('button')?.dataset.zoom;
    if (what === 'in') step = Math.min(step + 1, STEPS.length - 1);
    else if (what === 'out') step = Math.max(step - 1, 0);
    else if (what === 'reset') step = STEPS.indexOf(1);
    else return;
    apply();
  });
  bar.hidden = false;
  apply();
}
