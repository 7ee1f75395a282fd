// The published model configurations shared by the figures. The select options (ids and
// names) come from content/data/models.json, imported at build time, because a figure's
// params are static at module load; the numbers come from the engine's `models` calculator,
// which compiles the same file in.
import table from '../../../../content/data/models.json' with { type: 'json' };
import { EngineError } from '../../runtime/engine-api.js';

const ROWS = new Map(table.models.map((m) => [m.id, m]));

// Configuration fields every transformer calculator takes (seq only where asked for).
const CONFIG_FIELDS = ['layers', 'hidden', 'heads', 'kv_heads', 'head_dim', 'ffn_hidden', 'vocab', 'gated_mlp', 'tied_embeddings'];

// Select options for these ids: {value: id, label: label(row)} with the row's published name,
// heads and so on (static, from the stored table).
export function modelOptions(ids, label = (m) => m.name) {
  return ids.map((id) => {
    const m = ROWS.get(id);
    if (!m) throw new Error(`content/data/models.json has no model "${id}"`);
    return { value: id, label: label(m) };
  });
}

// The engine's row for `id` (calc('models', {id})), an EngineError on the figure's `model`
// control when the id is unknown.
export function publishedModel(engine, id) {
  try {
    return engine.calc('models', { id });
  } catch (e) {
    if (e && e.field === 'id') throw new EngineError('model', `Unknown model "${id}"; choose one of ${[...ROWS.keys()].join(', ')}.`);
    throw e;
  }
}

// The calculator fields of a published model: the configuration columns, with seq (the
// trained context) when `withSeq`.
export function publishedConfig(engine, id, { withSeq = false } = {}) {
  const m = publishedModel(engine, id);
  const cfg = Object.fromEntries(CONFIG_FIELDS.map((k) => [k, m[k]]));
  if (withSeq) cfg.seq = m.seq;
  return cfg;
}
