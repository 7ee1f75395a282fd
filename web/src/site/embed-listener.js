// The few lines a page that embeds /embed/<id>/ iframes adds so that each iframe takes its
// figure's height (the page posts {type: 'mlsys-figure-height', id, height}:
// web/src/runtime/embed-height.js). Shown on /embedding/ and served by the embedding test.
// It accepts messages only from the course's origin, and sizes the iframe that sent each one.
export function embedListener(origin) {
  return `addEventListener('message', (e) => {
  if (e.origin !== '${origin}' || e.data?.type !== 'mlsys-figure-height') return;
  for (const f of document.querySelectorAll('iframe')) {
    if (f.contentWindow === e.source) f.height = e.data.height;
  }
});`;
}
