// Glossary links in lessons: the definition (rendered at build time beside the link) shows
// on hover and keyboard focus through CSS; on touch, the first tap shows it and a second
// tap follows the link.
export function initGlossary(root = document) {
  let open = null;
  const close = () => {
    open?.classList.remove('show');
    open = null;
  };
  for (const link of root.querySelectorAll('a.term')) {
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
      }
    });
  }
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') close();
  });
  document.addEventListener('pointerdown', (e) => {
    if (open && !open.contains(e.target)) close();
  });
}
