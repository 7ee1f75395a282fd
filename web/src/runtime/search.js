// The /search/ page ([data-search]): Pagefind's JavaScript API (the index in /pagefind/,
// written by web/scripts/search-index.js) with a small UI of our own. Excerpts are rebuilt
// as text nodes and <mark> elements, never inserted as markup.
const MAX = 20;

let pagefind = null;
function loadPagefind() {
  if (!pagefind) {
    const url = new URL('/pagefind/pagefind.js', location.href).href;
    pagefind = import(/* @vite-ignore */ url).then(async (pf) => {
      await pf.options({ excerptLength: 24 });
      await pf.init();
      return pf;
    }).catch((err) => {
      pagefind = null;
      throw err;
    });
  }
  return pagefind;
}

// Pagefind's excerpt: text with <mark> around the matches.
function excerptNodes(html) {
  const doc = new DOMParser().parseFromString(`<p>${html}</p>`, 'text/html');
  return [...doc.body.firstChild.childNodes].map((n) => {
    if (n.nodeName === 'MARK') {
      const m = document.createElement('mark');
      m.textContent = n.textContent;
      return m;
    }
    return document.createTextNode(n.textContent);
  });
}

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  e.append(...children);
  return e;
}

function kindOf(r) {
  if (r.meta?.kind) return r.meta.kind;
  return r.url.startsWith('/lessons/') ? 'Lesson' : 'Page';
}

function resultItem(r) {
  const head = el('h2', { className: 'search-title' }, el('a', { href: r.url, textContent: r.meta?.title ?? r.url }));
  const item = el('li', { className: 'search-result' }, head,
    el('p', { className: 'search-kind', textContent: kindOf(r) }),
    el('p', { className: 'search-excerpt' }, ...excerptNodes(r.excerpt ?? '')));
  // Sections of a page (headings with an anchor) that match.
  const subs = (r.sub_results ?? []).filter((s) => s.url !== r.url && s.url.includes('#')).slice(0, 3);
  if (subs.length) {
    item.append(el('ul', { className: 'search-subs' }, ...subs.map((s) => el('li', {},
      el('a', { href: s.url, textContent: s.title }), ' — ', ...excerptNodes(s.excerpt ?? '')))));
  }
  return item;
}

export function initSearch() {
  const form = document.querySelector('[data-search]');
  if (!form) return;
  const input = form.querySelector('input[type=search]');
  const status = document.querySelector('.search-status');
  const list = document.querySelector('.search-results');
  let serial = 0;
  const more = el('button', { type: 'button', className: 'search-more fig-btn', hidden: true });
  list.after(more);
  const fail = (err) => {
    status.textContent = `Search is not available: ${err.message}`;
    form.dataset.state = 'failed';
  };
  const run = async (query) => {
    const mine = ++serial;
    const q = query.trim();
    if (!q) {
      list.replaceChildren();
      more.hidden = true;
      status.textContent = 'Type a word to search the lessons, the glossary and the figures.';
      form.dataset.state = 'idle';
      return;
    }
    form.dataset.state = 'busy';
    try {
      const pf = await loadPagefind();
      const found = await pf.search(q);
      if (mine !== serial) return;
      list.replaceChildren();
      more.hidden = true;
      const n = found.results.length;
      // Results come in pages of MAX; "Show more" loads the next page (each result's data
      // is fetched only when its page is shown).
      let shown = 0;
      const showPage = async () => {
        more.disabled = true;
        const data = await Promise.all(found.results.slice(shown, shown + MAX).map((r) => r.data()));
        if (mine !== serial) return;
        list.append(...data.map(resultItem));
        shown += data.length;
        const left = n - shown;
        status.textContent = n === 0 ? `Nothing found for “${q}”.` : `${n} result${n === 1 ? '' : 's'} for “${q}”${left > 0 ? ` (the first ${shown} shown)` : ''}.`;
        more.hidden = left <= 0;
        more.disabled = false;
        more.textContent = `Show ${Math.min(MAX, left)} more`;
        more.onclick = () => showPage().catch(fail);
      };
      await showPage();
      form.dataset.state = 'done';
    } catch (err) {
      if (mine === serial) fail(err);
    }
  };
  const params = new URLSearchParams(location.search);
  input.value = params.get('q') ?? '';
  let timer;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const url = new URL(location.href);
      url.searchParams.set('q', input.value);
      history.replaceState(null, '', url);
      run(input.value);
    }, 200);
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    clearTimeout(timer);
    run(input.value);
  });
  run(input.value);
}
