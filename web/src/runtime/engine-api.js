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

export function wrapEngine(raw) {
  const schemas = new Map();
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
      return parse(raw.calc(String(name), text ?? 'null'));
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
