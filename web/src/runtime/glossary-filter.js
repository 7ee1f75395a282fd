// The glossary page's filter box: shows only the entries whose term or definition contains
// every word typed, and says how many are shown. Works on the page's own markup
// ([data-glossary-filter] and .gloss-entry[data-text]); reader text is never inserted as markup.
export function initGlossaryFilter(root = document) {
  const box = root.querySelector('[data-glossary-filter]');
  if (!box) return;
  const input = box.querySelector('input');
  const count = box.querySelector('.gloss-count');
  const entries = [...root.querySelectorAll('.gloss-entry[data-text]')];
  const apply = () => {
    const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const e of entries) {
      const match = words.every((w) => e.dataset.text.includes(w));
      e.hidden = !match;
      if (match) shown += 1;
    }
    count.textContent = `${shown} of ${entries.length} terms shown`;
  };
  input.addEventListener('input', apply);
  if (input.value) apply();
}
