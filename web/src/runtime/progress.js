// "Mark as read" and the "N of M read" progress line, kept in localStorage. A missing,
// corrupted or foreign store resets cleanly instead of breaking the page.
const KEY = 'mlsys:progress:v1';

export function readProgress(storage = globalThis.localStorage) {
  try {
    const parsed = JSON.parse(storage.getItem(KEY) ?? '{}');
    const read = parsed && typeof parsed === 'object' && parsed.read && typeof parsed.read === 'object' ? parsed.read : {};
    const clean = {};
    for (const [slug, when] of Object.entries(read)) {
      if (/^[a-z0-9-]{1,80}$/.test(slug) && typeof when === 'number' && Number.isFinite(when)) clean[slug] = when;
    }
    return { read: clean };
  } catch {
    return { read: {} };
  }
}

function write(progress, storage = globalThis.localStorage) {
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

// Wires [data-mark-read] buttons and [data-progress] lines present on the page.
export function initProgress(root = document) {
  const update = () => {
    const p = readProgress();
    for (const line of root.querySelectorAll('[data-progress]')) {
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
      btn.textContent = done ? '✓ Read' : 'Mark as read';
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
