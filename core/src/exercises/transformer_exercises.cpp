// Exercises of the transformer-block lesson: the parameter count of a drawn configuration,
// the share of it in the embedding tables, training FLOPs per token at a drawn context (PaLM's
// 6N + 12·L·H·Q·T) and the days of a published training run from 6·N·D. Answers come from the
// models the `transformer` and `training-time` calculators use.
#include <cmath>
#include <string>

#include "generators.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/profiling/training_compute.hpp"
#include "mlsys/transformer/model_config.hpp"
#include "mlsys/transformer/published_models.hpp"

namespace mlsys::exercises {

namespace {

// A multi-head configuration (K and V as wide as Q) of a small to mid-size model. Gated MLPs
// take Llama's width rule (default_ffn_hidden): 8h/3 rounded up to a multiple of 256.
ModelConfig draw_config(Rng& rng) {
  ModelConfig c;
  c.layers = rng.pick(std::vector<double>{12, 16, 20, 24, 28, 32, 40, 48});
  c.hidden = rng.pick(std::vector<double>{768, 1024, 1536, 2048, 2560, 3072, 4096});
  c.head_dim = 64;
  c.heads = c.kv_heads = c.hidden / c.head_dim;
  c.gated_mlp = rng.integer(0, 1) == 1;
  c.ffn_hidden = default_ffn_hidden(c.hidden, c.gated_mlp);
  c.vocab = rng.pick(std::vector<double>{32000, 50257, 65536, 128256, 256000});
  c.tied_embeddings = rng.integer(0, 1) == 1;
  return c;
}

// What every drawn configuration must satisfy: heads of 64 tile the width, a gated MLP's width
// is a multiple of 256, and the bf16 weights fit in one H100 SXM.
void require_buildable(Exercise& e, const ModelConfig& c, double params) {
  require(e, c.heads * c.head_dim == c.hidden, "width = heads \u00D7 head size");
  require(e, !c.gated_mlp || std::fmod(c.ffn_hidden, 256) == 0, "the gated MLP width is a multiple of 256");
  require_fits(e, 2 * params, find_accelerator("h100-sxm")->hbm_bytes, "the bf16 weights in one H100 SXM");
}

std::string describe(const ModelConfig& c) {
  return "A decoder-only transformer has " + format_int(c.layers) + " layers of width h = " + format_int(c.hidden) +
         ". Each layer has multi-head attention (the Q, K, V and output projections, each h × h), " +
         (c.gated_mlp ? "a gated (SwiGLU) MLP of three h × f matrices" : "an MLP of two h × f matrices") +
         " with f = " + format_int(c.ffn_hidden) + ", and two norm gains of h; a final norm of h follows the last layer. "
         "The vocabulary has V = " + format_int(c.vocab) + " tokens and the output head " +
         (c.tied_embeddings ? "shares the input embedding matrix (tied)." : "has its own V × h matrix (untied).") +
         " There are no biases.";
}

Exercise config_params(Rng& rng) {
  const ModelConfig c = draw_config(rng);
  const ModelCounts n = model_counts(c);
  const ParamBreakdown b = param_breakdown(c);
  Exercise e;
  e.title = "Parameters of a configuration";
  e.params = {{"layers", c.layers}, {"hidden", c.hidden}, {"heads", c.heads}, {"ffn_hidden", c.ffn_hidden},
              {"vocab", c.vocab}, {"gated_mlp", c.gated_mlp}, {"tied_embeddings", c.tied_embeddings}};
  e.prompt = describe(c) + " How many parameters does it have, in billions?";
  e.unit = "billion";
  e.answer = n.params / 1e9;
  e.hint = "Per layer: attention 4·h², MLP " + std::string(c.gated_mlp ? "3" : "2") +
           "·h·f, norms 2·h. Multiply by the layers, add the final norm and V·h for the embedding (twice when untied).";
  e.solution = "Attention " + format_int(c.layers) + " × 4 × " + format_int(c.hidden) + "² = " +
               format_number(b.attention / 1e9, 4) + "B; MLP " + format_int(c.layers) + " × " +
               (c.gated_mlp ? "3" : "2") + " × " + format_int(c.hidden) + " × " + format_int(c.ffn_hidden) + " = " +
               format_number(b.mlp / 1e9, 4) + "B; norms " + format_int(b.norms) + "; embedding " +
               format_number(b.embedding / 1e9, 4) + "B" +
               (c.tied_embeddings ? "" : " and as much again for the head") + ". Total " + format_number(e.answer, 4) +
               "B parameters.";
  require_buildable(e, c, n.params);
  const double table = c.vocab * c.hidden;
  if (c.tied_embeddings)
    reject_mistake(e, (n.params + table) / 1e9, "counted the tied head as a second matrix");
  else
    reject_mistake(e, (n.params - table) / 1e9, "forgot the untied output head");
  if (c.gated_mlp) reject_mistake(e, (n.params - c.layers * c.hidden * c.ffn_hidden) / 1e9, "counted two MLP matrices, not three");
  reject_mistake_where_distinct(e, (12 * c.layers * c.hidden * c.hidden + n.params_embedding) / 1e9,
                                "used 12\u00B7L\u00B7h\u00B2, which assumes a 4h non-gated MLP");
  return e;
}

Exercise embedding_share(Rng& rng) {
  const ModelConfig c = draw_config(rng);
  const ModelCounts n = model_counts(c);
  Exercise e;
  e.title = "Share of the embeddings";
  e.params = {{"layers", c.layers}, {"hidden", c.hidden}, {"heads", c.heads}, {"ffn_hidden", c.ffn_hidden},
              {"vocab", c.vocab}, {"gated_mlp", c.gated_mlp}, {"tied_embeddings", c.tied_embeddings}};
  e.prompt = describe(c) + " What percentage of its parameters sits in the embedding " +
             (c.tied_embeddings ? "table?" : "tables (input embedding and output head)?");
  e.unit = "%";
  e.answer = 100 * n.params_embedding / n.params;
  e.hint = "Embedding parameters: V·h, twice when untied. Divide by the total: layers × (4·h² + MLP + 2·h) + h + "
           "embeddings.";
  e.solution = "Embeddings " + format_number(n.params_embedding / 1e6, 4) + "M of " + format_number(n.params / 1e6, 4) +
               "M parameters. Small models spend much of their budget on the vocabulary; at a large width the layers "
               "dominate. Share " + format_number(e.answer, 3) + "%.";
  require_buildable(e, c, n.params);
  const double table = c.vocab * c.hidden;
  if (c.tied_embeddings)
    reject_mistake_where_distinct(e, 100 * 2 * table / (n.params + table), "counted the tied head as a second matrix");
  else
    reject_mistake_where_distinct(e, 100 * table / n.params, "counted one table, forgetting the untied head");
  return e;
}

// Dense published models of the table (the MoE rows' FLOPs depend on routing).
const PublishedModel& pick_dense(Rng& rng, bool with_run) {
  std::vector<const PublishedModel*> rows;
  for (const auto& m : published_models())
    if (!m.moe() && (!with_run || m.training_tokens > 0)) rows.push_back(&m);
  return *rng.pick(rows);
}

Exercise flops_at_context(Rng& rng) {
  const PublishedModel& m = pick_dense(rng, false);
  const ModelConfig& c = m.config;
  // Contexts up to the one the model was trained at, never beyond it.
  std::vector<double> contexts;
  for (double t : {512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0, 32768.0, 65536.0, 131072.0})
    if (t <= c.seq) contexts.push_back(t);
  const double seq = rng.pick(contexts);
  const double n_shown = round_sig(model_counts(c).params_flops, 4);
  const double width = c.heads * c.head_dim;
  const double per_token = 6 * n_shown + 12 * c.layers * width * seq;
  Exercise e;
  e.title = "Training FLOPs per token at a context";
  e.params = {{"model", m.id}, {"seq", seq}};
  e.prompt = m.name + " has N = " + format_number(n_shown / 1e9, 4) +
             "B parameters in its matmuls (the output head included), L = " + format_int(c.layers) + " layers and " +
             format_int(c.heads) + " query heads of " + format_int(c.head_dim) +
             ". It was trained at a context of " + format_int(c.seq) + " tokens; take sequences of T = " + format_int(seq) +
             " tokens. With PaLM's accounting, 6N for the weight matmuls plus 12·L·H·Q·T for attention over the "
             "context, how many training FLOPs does one token cost, in GFLOP?";
  e.unit = "GFLOP";
  e.answer = per_token / 1e9;
  e.hint = "6N covers each weight's multiply-add forward and twice backward; 12·L·H·Q·T is QKᵀ and AV over the T "
           "keys, forward and backward. Add them.";
  e.solution = "6N = " + format_number(6 * n_shown / 1e9, 4) + " GFLOP; 12 × " + format_int(c.layers) + " × " +
               format_int(width) + " × " + format_int(seq) + " = " +
               format_number(12 * c.layers * width * seq / 1e9, 4) + " GFLOP (attention is " +
               format_number(100 * 12 * c.layers * width * seq / per_token, 3) + "% of the total). Sum: " +
               format_number(e.answer, 4) + " GFLOP.";
  require(e, seq <= c.seq, "T = " + format_int(seq) + " is within the context " + m.name + " was trained at");
  require(e, find_published_model(m.id) != nullptr, m.id + " is a row of the model table");
  reject_mistake_where_distinct(e, 6 * n_shown / 1e9, "left out attention over the context (6N alone)");
  reject_mistake(e, e.answer / 3, "counted the forward pass only");
  return e;
}

struct Chip {
  const Accelerator* hw;
  double peak_tflops;  // bf16 dense, as shown (4 significant digits)
};

Chip pick_chip(Rng& rng) {
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200", "mi300x"};
  for (;;) {
    const Accelerator* hw = find_accelerator(rng.pick(ids));
    if (auto peak = hw->peak_for("bf16")) return {hw, round_sig(*peak / 1e12, 4)};
  }
}

// A pre-training run someone would plan: a cluster sized so that the run takes two weeks to four
// months of wall-clock time, not a 13B model spread over 16,384 GPUs for an hour or a 405B model
// on 1,024 GPUs for years.
constexpr double kShortestRunDays = 14, kLongestRunDays = 120;

Exercise published_run_days(Rng& rng) {
  const PublishedModel* pm = nullptr;
  Chip chip{};
  double devices = 0, mfu_shown = 0, n_shown = 0;
  TrainingTime t{};
  do {  // redraw clusters far too large or too small for the run
    pm = &pick_dense(rng, true);
    chip = pick_chip(rng);
    devices = rng.pick(std::vector<double>{256, 512, 1024, 2048, 4096, 8192, 16384});
    mfu_shown = rng.pick(std::vector<double>{0.3, 0.35, 0.4, 0.45, 0.5});
    n_shown = round_sig(pm->params, 4);
    t = training_time(n_shown, pm->training_tokens, devices, chip.peak_tflops * 1e12, mfu_shown, 0);
  } while (t.time_days < kShortestRunDays || t.time_days > kLongestRunDays);
  const PublishedModel& m = *pm;
  Exercise e;
  e.title = "Days of a published training run";
  e.params = {{"model", m.id}, {"params", n_shown}, {"tokens", m.training_tokens}, {"devices", devices},
              {"peak_flops", chip.peak_tflops * 1e12}, {"mfu", mfu_shown}};
  const std::string tokens_shown = m.training_tokens >= 1e12 ? format_number(m.training_tokens / 1e12, 4) + "T"
                                                              : format_number(m.training_tokens / 1e9, 4) + "B";
  e.prompt = m.name + " (" + format_number(n_shown / 1e9, 4) + "B parameters) was pre-trained on " + tokens_shown +
             " tokens. How many days would that run take on " +
             format_int(devices) + " \u00D7 " + chip.hw->name + ", each with a dense bf16 peak of " +
             format_number(chip.peak_tflops, 4) + " TFLOP/s, at an MFU of " + format_number(100 * mfu_shown, 3) +
             "%, counting C = 6·N·D and no failures?";
  e.unit = "days";
  e.answer = t.time_days;
  e.rel_tolerance = 0.02;
  e.hint = "C = 6·N·D. The cluster sustains GPUs × peak × MFU FLOP/s; divide C by it, then the seconds by 86,400.";
  e.solution = "C = 6 × " + format_number(n_shown, 4) + " × " + format_number(m.training_tokens, 4) + " = " +
               format_number(t.total_flops, 4) + " FLOP. The cluster sustains " + format_int(devices) + " × " +
               format_number(chip.peak_tflops, 4) + "e12 × " + format_number(mfu_shown, 3) + " = " +
               format_number(t.cluster_flops, 4) + " FLOP/s, so the run takes " + format_number(t.time_s, 4) +
               " s = " + format_number(e.answer, 4) + " days.";
  require_between(e, e.answer, kShortestRunDays, kLongestRunDays, "the run's length in days");
  require_from_table(e, chip.peak_tflops * 1e12, *chip.hw->peak_for("bf16"), "the bf16 peak shown");
  reject_mistake(e, e.answer * mfu_shown, "divided by the peak, not the sustained rate (MFU left out)");
  reject_mistake(e, e.answer / 3, "counted 2\u00B7N\u00B7D (the forward pass) instead of 6\u00B7N\u00B7D");
  return e;
}

}  // namespace

void add_transformer_exercises(std::vector<Generator>& out) {
  out.push_back({"tb-config-params", config_params});
  out.push_back({"tb-embedding-share", embedding_share});
  out.push_back({"tb-flops-at-context", flops_at_context});
  out.push_back({"tb-published-run-days", published_run_days});
}

}  // namespace mlsys::exercises
