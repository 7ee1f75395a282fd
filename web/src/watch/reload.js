// `./tools/dev serve --watch` only (web/scripts/watch.mjs adds it to every page it serves):
// reloads the page once the site has been rebuilt, says so when a rebuild failed (the last
// good site stays served), and removes a service worker that an earlier `serve` left, since
// its cached pages would hide the rebuilt ones.
navigator.serviceWorker?.getRegistrations?.().then((regs) => regs.forEach((r) => r.unregister())).catch(() => {});
document.documentElement.dataset.watch = 'on';

const events = new EventSource('/__mlsys/events');
events.addEventListener('reload', () => location.reload());
events.addEventListener('failed', () => {
  let bar = document.querySelector('.watch-notice');
  if (!bar) {
    bar = document.createElement('p');
    bar.className = 'update-notice watch-notice';
    bar.setAttribute('role', 'status');
    (document.querySelector('main') ?? document.body).prepend(bar);
  }
  bar.textContent = 'The rebuild failed (its error is in the terminal); this is the last good build.';
});
