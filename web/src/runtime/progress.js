// "Mark as read" and the "N of M read" progress line, kept in localStorage. A missing,
// corrupted or foreign store resets cleanly instead of breaking the page. Where the browser
// blocks the site's storage (reading localStorage throws a SecurityError: site data blocked,
// some private modes, a third-party frame), the page says that progress cannot be kept, and
// "mark as read" lasts as long as the page.
const KEY = 'mlsys:progress:v1';

// localStorage if this page may use it, else null (probed once per page).
let probed;
export function siteStorage() {
  if (probed === undefined) {
    try {
      const storage = globalThis.localStorage;
      storage.setItem('mlsys:probe', '1');
      storage.removeItem('mlsys:probe');
      probed = storage;
    } catch {
      probed = null;
    }
  }
  return probed;
}

// Progress of this page only, where storage is blocked.
const inMemory = { getItem: () => inMemory.value ?? null, setItem: (k, v) => { inMemory.value = v; } };
const store = () => siteStorage() ?? inMemory;

export function readProgress(storage = store()) {
  try {
    const parsed = JSON.parse(storage.getItem(KEY) ?? '{}');
    const read = parsed && typeof parsed === 'object' && parsed.read && typeof parsed.read === 'object' ? parsed.read : {};
    const clean = {};
    for (const [slug, when] of Object.entries(read)) {
      if (/^[a-z0-9-]{1,80}$/.test(slug) && typeof when === 'number' && Number.isFinite(when)) clean[slug] = when;
    }
    // The lesson opened last, for "continue where you left off".
    const last = parsed?.last && typeof parsed.last === 'object' && /^[a-z0-9-]{1,80}$/.test(parsed.last.slug ?? '')
      && Number.isFinite(parsed.last.when) ? { slug: parsed.last.slug, when: parsed.last.when } : null;
    return last ? { read: clean, last } : { read: clean };
  } catch {
    return { read: {} };
  }
}

export function setLastVisited(slug) {
  const p = readProgress();
  p.last = { slug, when: Date.now() };
  write(p);
}

// The lesson to continue with: the last one opened if it is not read yet, else the next
// unread one after it in `order` (published lessons in course order), else null.
export function continueTarget(progress, order) {
  const last = progress.last?.slug;
  if (!last || !order.includes(last)) return null;
  if (!progress.read[last]) return last;
  const i = order.indexOf(last);
  return [...order.slice(i + 1), ...order.slice(0, i)].find((s) => !progress.read[s]) ?? null;
}

// Fills a [data-continue] paragraph with a link to the lesson to continue with (the home
// page lists the published lessons as .lesson-row links, in course order).
function showContinue(root, progress) {
  const box = root.querySelector('[data-continue]');
  if (!box) return;
  const links = new Map([...root.querySelectorAll('.lesson-row[data-lesson-status] > a')].map((a) => [a.closest('.lesson-row').dataset.lessonStatus, a]));
  const target = continueTarget(progress, [...links.keys()]);
  if (!target) {
    box.hidden = true;
    return;
  }
  const a = document.createElement('a');
  a.href = links.get(target).getAttribute('href');
  a.textContent = links.get(target).textContent;
  box.replaceChildren(target === progress.last.slug ? 'Continue where you left off: ' : 'Up next: ', a);
  box.hidden = false;
}

function write(progress, storage = store()) {
  try {
    storage.setItem(KEY, JSON.stringify(progress));
  } catch {
    /* storage full or blocked: progress stays in memory for this page */
  }
}

export function setRead(slug, isRead) {
  const p = readProgress();
  if (isRead) p.read[slug] = Date.now();
  else delete p.read[slug];
  write(p);
  return p;
}

const NOT_KEPT = 'Reading progress cannot be kept: this browser blocks the site\'s storage.';

// Wires [data-mark-read] buttons and [data-progress] lines present on the page.

export function initProgress(root = document) {
  const kept = Boolean(siteStorage());
  root.documentElement?.setAttribute('data-progress-kept', String(kept));
  // A lesson page (it has the one "mark as read" button) is remembered as the last visited.
  const marks = root.querySelectorAll('[data-mark-read]');
  if (marks.length === 1) setLastVisited(marks[0].dataset.markRead);
  const update = () => {
    const p = readProgress();
    showContinue(root, p);
    for (const line of root.querySelectorAll('[data-progress]')) {
      if (!kept) {
        // Said once per page: the home page's per-module lines go.
        if (line.closest('.module-progress')) line.hidden = true;
        else line.textContent = NOT_KEPT;
        continue;
      }
      const slugs = (line.dataset.progress || '').split(' ').filter(Boolean);
      const total = Number(line.dataset.total || slugs.length);
      const n = slugs.filter((s) => p.read[s]).length;
      line.textContent = `${n} of ${total} read`;
    }
    for (const item of root.querySelectorAll('[data-lesson-status]')) {
      item.dataset.read = p.read[item.dataset.lessonStatus] ? 'true' : 'false';
    }
    for (const btn of root.querySelectorAll('[data-mark-read]')) {
      const done = Boolean(p.read[btn.dataset.markRead]);
      btn.setAttribute('aria-pressed', String(done));
      btn.textContent = done ? `✓ Read${kept ? '' : ' (this visit)'}` : 'Mark as read';
    }
  };
  for (const btn of root.querySelectorAll('[data-mark-read]')) {
    btn.addEventListener('click', () => {
      setRead(btn.dataset.markRead, btn.getAttribute('aria-pressed') !== 'true');
      update();
    });
  }
  update();
}
