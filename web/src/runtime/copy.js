// Copy buttons: <button data-copy="ID"> copies the text of the element with that id.
export function initCopyButtons() {
  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.addEventListener('click', async () => {
      const source = document.getElementById(button.dataset.copy);
      if (!source) return;
      try {
        await navigator.clipboard.writeText(source.textContent);
        button.textContent = 'Copied';
      } catch {
        getSelection()?.selectAllChildren(source);
        button.textContent = 'Selected: press Ctrl+C';
      }
    });
  }
}
