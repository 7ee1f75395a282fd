// The script embed's light or dark: the host page's color-scheme (CSS on the element's parent,
// else its <meta name="color-scheme">); where the host allows both or says nothing, the
// reader's system setting. The course's dark colours sit in the stylesheet's
// "@media (prefers-color-scheme: dark)" rules; in the embed's own copy of the sheet (its
// shadow root's) those rules are switched on or off to match the host.
const SYSTEM_DARK = '(prefers-color-scheme: dark)';

function tokens(value) {
  const t = String(value ?? '').split(/\s+/);
  if (t.includes('dark') && !t.includes('light')) return 'dark';
  if (t.includes('light') && !t.includes('dark')) return 'light';
  return '';
}

export function hostScheme(el) {
  const css = getComputedStyle(el.parentElement ?? document.documentElement).colorScheme;
  const meta = document.querySelector('meta[name="color-scheme"]')?.content;
  const chosen = tokens(css) || (css && css !== 'normal' ? '' : tokens(meta));
  return chosen || (window.matchMedia(SYSTEM_DARK).matches ? 'dark' : 'light');
}

// The sheet's dark rules, found once: once switched, their condition no longer names the scheme.
const darkRules = new WeakMap();

function darkRulesOf(sheet) {
  if (!darkRules.has(sheet)) {
    darkRules.set(sheet, [...sheet.cssRules].filter((rule) => rule instanceof CSSMediaRule
      && /prefers-color-scheme:\s*dark/.test(rule.media.mediaText)));
  }
  return darkRules.get(sheet);
}

export function applyScheme(sheet, view, scheme) {
  view.style.colorScheme = scheme; // form controls and scrollbars too
  let rules;
  try {
    rules = sheet ? darkRulesOf(sheet) : [];
  } catch {
    return; // a sheet served without CORS cannot be read: the system setting applies
  }
  for (const rule of rules) rule.media.mediaText = scheme === 'dark' ? 'all' : 'not all';
}
