// The Content-Security-Policy of every page (shared/DESIGN.md): no inline script, no eval;
// WebAssembly compilation allowed; inline style attributes only for KaTeX's output.
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
  "style-src-attr 'unsafe-inline'; img-src 'self' data:";
