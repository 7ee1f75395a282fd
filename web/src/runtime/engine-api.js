// Wraps the raw Embind module (text in, text out) into the JavaScript calculator API of
// shared/API.md: calc(name, object) -> object, throwing an EngineError {field, message}.

export class EngineError extends Error {
  constructor(field, message) {
    super(message);
    this.name = 'EngineError';
    this.field = field;
  }
}

function parse(text) {
  const value = JSON.parse(text);
  if (value && typeof value === 'object' && !Array.isArray(value) && value.error) {
    throw new EngineError(value.error.field ?? '', value.error.message ?? 'Rejected input.');
  }
  return value;
}

// Calculators are pure: the same name and input always give the same output (kernels run on
// seeded inputs). A figure's redraw repeats most of its calls (a control change touches few
// of them), so each engine keeps the outputs of its recent calls, as text, up to about
// CACHE_CHARS characters, and drops the oldest first. A repeated call parses the kept text:
// the caller gets a new object each time, and a rejected input throws the same error again.
// `uncached(fn)` runs fn with every call computed by the engine again (and kept as usual).
export const CACHE_CHARS = 4_000_000;

function outputCache(limit) {
  const texts = new Map();
  let chars = 0;
  // again: compute even when an output is kept (the same text, so it is not kept twice).
  return (key, compute, again) => {
    const kept = texts.get(key);
    if (kept !== undefined && !again) return kept;
    const text = compute();
    if (kept !== undefined) return text;
    texts.set(key, text);
    chars += key.length + text.length;
    for (const [old, value] of texts) {
      if (chars <= limit) break;
      texts.delete(old);
      chars -= old.length + value.length;
    }
    return text;
  };
}

export function wrapEngine(raw, cacheChars = CACHE_CHARS) {
  const schemas = new Map();
  const cached = outputCache(cacheChars);
  let again = false; // inside uncached()
  return {
    calc(name, input = {}) {
      let text;
      try {
        // JSON has no NaN or Infinity (JSON.stringify would turn them into null silently).
        text = JSON.stringify(input, (key, value) => {
          if (typeof value === 'number' && !Number.isFinite(value)) {
            throw new EngineError(key, `Field '${key}' must be a finite number.`);
          }
          return value;
        });
      } catch (err) {
        if (err instanceof EngineError) throw err;
        throw new EngineError('', 'The input cannot be written as JSON.');
      }
      const calcName = String(name);
      text ??= 'null';
      return parse(cached(`${calcName}\u0000${text}`, () => raw.calc(calcName, text), again));
    },
    uncached(fn) {
      const outer = again;
      again = true;
      try {
        return fn();
      } finally {
        again = outer;
      }
    },
    list() {
      return JSON.parse(raw.calcNames());
    },
    schema(name) {
      if (!schemas.has(name)) schemas.set(name, parse(raw.calcSchema(String(name))));
      return schemas.get(name);
    },
    // [[id, name], ...] of the hardware table.
    acceleratorNames() {
      return JSON.parse(raw.acceleratorNames());
    },
    exerciseIds() {
      return JSON.parse(raw.exerciseIds());
    },
    exercise(id, seed) {
      return parse(raw.exercise(String(id), Number(seed) >>> 0));
    },
    checkExercise(id, seed, answer) {
      return parse(raw.checkExercise(String(id), Number(seed) >>> 0, String(answer)));
    },
  };
}
