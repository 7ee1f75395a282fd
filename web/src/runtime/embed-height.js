// /embed/<figure-id>/ inside an iframe: tells the parent page how tall it is, whenever that
// changes, so the parent can size the iframe (the listener documented on /embedding/,
// web/src/site/embed-listener.js). The message is {type: 'mlsys-figure-height', id, height}
// (height in CSS pixels, an integer); it carries nothing private, so any parent may read it.
export const HEIGHT_MESSAGE = 'mlsys-figure-height';

// An iframe snippet's default height, for a page that cannot run the listener: the /embed/
// pages of all 58 figures measured 800-1,127 px tall at 720 px wide (a column of a desktop
// page), 973-1,781 px at 390 px (tests/web/embed.test.mjs checks the desktop bound).
export const EMBED_HEIGHT = 1140;
// The /embed/ page around its figure: the credit line and the page's padding (Embed button:
// the figure's own height plus this).
export const EMBED_CHROME = 60;

export function initEmbedHeight() {
  if (!document.body.classList.contains('embed') || window.parent === window) return;
  const id = document.querySelector('mlsys-figure')?.dataset.id ?? '';
  let last = 0;
  const post = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: HEIGHT_MESSAGE, id, height }, '*');
  };
  new ResizeObserver(post).observe(document.documentElement);
  post();
}
