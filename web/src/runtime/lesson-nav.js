// A lesson page's navigation (markup: web/src/site/_includes/lesson-nav.js):
// - the contents: open as a sidebar on wide screens, with the section being read marked;
// - previous/next: course order as served; track order while the reader follows the track.
// "Following the track" is remembered for the browser tab in sessionStorage: set by a click
// on a lesson link of /track/ or on a track-order link, ended by a click on any other lesson
// link. The URL stays as it is, so the service worker's cached pages serve both orders;
// where storage is blocked the page keeps its course-order links.
const KEY = 'mlsys:lesson-order';
const WIDE = '(min-width: 68.75rem)'; // site.css: the contents as a sidebar

function session() {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null; // storage blocked: reading sessionStorage throws
  }
}

export function followingTrack() {
  try {
    return session()?.getItem(KEY) === 'track';
  } catch {
    return false;
  }
}

function setFollowing(on) {
  try {
    if (on) session()?.setItem(KEY, 'track');
    else session()?.removeItem(KEY);
  } catch {
    /* blocked or full: the next page shows course order */
  }
}

// A click on a link to a lesson says which order the reader is following.
function watchLessonLinks(root) {
  root.addEventListener('click', (e) => {
    const a = e.target instanceof Element ? e.target.closest('a[href]') : null;
    if (!a || !/^\/lessons\/[a-z0-9-]+\/$/.test(new URL(a.href, location.href).pathname)) return;
    setFollowing(Boolean(a.closest('.track-row, [data-order="track"]')));
  });
}

function link(rel, value) {
  const [slug, title, place] = value.split('|');
  const a = document.createElement('a');
  a.className = `pager-${rel}`;
  a.rel = rel;
  a.href = `/lessons/${slug}/`;
  a.dataset.order = 'track';
  const span = (cls, text) => Object.assign(document.createElement('span'), { className: cls, textContent: text });
  a.append(span('pager-dir', rel === 'prev' ? '← Previous' : 'Next →'), span('pager-title', title), span('pager-meta', place));
  return a;
}

// Swaps the course-order links for the track's (a lesson outside the track keeps them).
function showTrackOrder(pager) {
  if (!pager.dataset.trackPlace) return;
  const links = pager.querySelector('.pager-links');
  const { trackPrev, trackNext } = pager.dataset;
  links.replaceChildren(...[trackPrev && link('prev', trackPrev), trackNext && link('next', trackNext)].filter(Boolean));
  const order = pager.querySelector('[data-pager-order]');
  const track = Object.assign(document.createElement('a'), { href: '/track/', textContent: 'the ML Systems track' });
  order.replaceChildren(`${pager.dataset.trackPlace} · following `, track);
  order.hidden = false;
  pager.dataset.order = 'track';
}

// Marks the contents' link of the section being read: the last heading above 30% of the
// viewport's height. Checked once per frame while the page scrolls (an IntersectionObserver
// misses a heading that a jump carries past its line without ever touching it).
function markCurrent(toc) {
  const links = new Map([...toc.querySelectorAll('a[href^="#"]')].map((a) => [decodeURIComponent(a.hash.slice(1)), a]));
  const heads = [...links.keys()].map((id) => document.getElementById(id)).filter(Boolean);
  if (!heads.length) return;
  let queued = false;
  const update = () => {
    queued = false;
    const line = innerHeight * 0.3;
    const current = heads.filter((h) => h.getBoundingClientRect().top <= line + 1).pop() ?? heads[0];
    for (const [id, a] of links) {
      if (id === current.id) a.setAttribute('aria-current', 'true');
      else a.removeAttribute('aria-current');
    }
  };
  const queue = () => {
    if (!queued) requestAnimationFrame(update);
    queued = true;
  };
  addEventListener('scroll', queue, { passive: true });
  addEventListener('resize', queue, { passive: true });
  update();
}

// Open as a sidebar on wide screens, closed (on demand) on narrow ones.
function placeContents(toc) {
  const mq = globalThis.matchMedia?.(WIDE);
  if (!mq) return;
  if (mq.matches) toc.open = true;
  mq.addEventListener?.('change', () => { toc.open = mq.matches; });
}

export function initLessonNav(root = document) {
  watchLessonLinks(root);
  const pager = root.querySelector('[data-lesson-pager]');
  if (pager && followingTrack()) showTrackOrder(pager);
  const toc = root.querySelector('[data-lesson-toc]');
  if (toc) {
    placeContents(toc);
    markCurrent(toc);
  }
}
