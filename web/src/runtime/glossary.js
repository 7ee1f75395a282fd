// Glossary links in lessons: the definition (rendered at build time beside the link) shows
// on hover and keyboard focus through CSS; on touch, the first tap shows it and a second
// tap follows the link. Escape and a tap or click outside close it. Before a tip shows it
// is shifted sideways so that it stays inside the viewport (a term near the right edge of
// a 390-px phone would otherwise push its tip off screen).
const MARGIN = 8; // px kept free between a tip and the viewport's edges

// Shift a visible tip back inside the viewport; the shift is relative to its term.
export function placeTip(tip) {
  tip.style.left = '0px';
  const box = tip.getBoundingClientRect();
  if (box.width === 0) return; // not shown
  const room = document.documentElement.clientWidth;
  let shift = 0;
  if (box.right > room - MARGIN) shift = room - MARGIN - box.right;
  if (box.left + shift < MARGIN) shift = MARGIN - box.left;
  tip.style.left = `${Math.round(shift)}px`;
}

export function initGlossary(root = document) {
  let open = null;
  const close = () => {
    open?.classList.remove('show');
    open = null;
  };
  for (const link of root.querySelectorAll('a.term')) {
    const wrap = link.closest('.term-wrap') ?? link.parentElement;
    const tip = link.nextElementSibling?.classList.contains('term-tip') ? link.nextElementSibling : null;
    const show = () => {
      wrap.classList.remove('dismissed');
      if (tip) placeTip(tip);
    };
    wrap.addEventListener('mouseenter', show);
    link.addEventListener('focus', show);
    // A tip closed with Escape stays closed until the pointer or the focus leaves its term.
    wrap.addEventListener('mouseleave', () => wrap.classList.remove('dismissed'));
    link.addEventListener('blur', () => wrap.classList.remove('dismissed'));
    link.addEventListener('pointerdown', (e) => {
      link.dataset.touch = e.pointerType === 'touch' ? 'true' : 'false';
    });
    link.addEventListener('click', (e) => {
      if (link.dataset.touch !== 'true') return;
      if (open !== link) {
        e.preventDefault();
        close();
        link.classList.add('show');
        open = link;
        show();
      }
    });
  }
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape') return;
    close();
    for (const w of root.querySelectorAll('.term-wrap:hover, .term-wrap:focus-within')) w.classList.add('dismissed');
  });
  document.addEventListener('pointerdown', (e) => {
    if (open && !open.parentElement.contains(e.target)) close();
  });
}
