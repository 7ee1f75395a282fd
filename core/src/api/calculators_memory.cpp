// Calculators of the training-memory lesson: `transformer` (parameter and FLOP counts of a
// config), `training-memory` (bytes per GPU by component, shared/API.md),
// `training-memory-timeline` (memory across one step) and `activation-checkpointing`.
#include <cmath>

#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/memory/training_memory.hpp"
#include "mlsys/transformer/model_config.hpp"
#include "model_inputs.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {


// The fields of a transformer configuration (defaults: a 7B-class model of width 4096).
std::vector<Field> config_fields(bool with_vocab_flags) {
  std::vector<Field> f = {
      integer_field("layers", "", "Transformer layers L", 32, 1, 1024),
      integer_field("hidden", "", "Model width h", 4096, 64, 131072),
      integer_field("heads", "", "Attention (query) heads a", 32, 1, 1024),
      optional(integer_field("kv_heads", "", "Key/value heads (grouped-query attention); default heads", json(), 1, 1024)),
      optional(integer_field("head_dim", "", "Size of one head; default hidden / heads", json(), 8, 1024)),
      optional(integer_field("ffn_hidden", "", "MLP inner width; default 4·hidden", json(), 1, 1048576)),
      integer_field("seq", "tokens", "Tokens per sequence s", 2048, 1, 1048576)};
  if (with_vocab_flags) {
    f.push_back(integer_field("vocab", "", "Vocabulary size", 32000, 1, 4194304));
    f.push_back(boolean_field("gated_mlp", "Gated MLP (SwiGLU): three matrices of width ffn_hidden instead of two", false));
    f.push_back(boolean_field("tied_embeddings", "Output head shares the input embedding matrix", true));
  }
  return f;
}


std::vector<Field> training_fields(bool with_pp) {
  std::vector<Field> f = config_fields(true);
  f.push_back(optional(number_field("params", "", "Parameter count; overrides the config's count for the model states",
                                    json(), 1.0, 1e15)));
  f.push_back(integer_field("micro_batch", "", "Sequences per micro-batch b", 1, 1, 4096));
  f.push_back(string_field("dtype", "Weight and gradient type: bf16/fp16 mixed precision (fp32 master copy) or pure fp32",
                           "bf16", {"bf16", "fp16", "fp32"}));
  f.push_back(string_field("optimizer", "adam (momentum + variance) or sgd (with momentum)", "adam", {"adam", "sgd"}));
  f.push_back(integer_field("zero_stage", "", "ZeRO stage: 1 shards optimizer states, 2 also gradients, 3 also weights",
                            0, 0, 3));
  f.push_back(integer_field("dp", "", "Data-parallel degree (ZeRO shards over it)", 1, 1, 1048576));
  f.push_back(integer_field("tp", "", "Tensor-parallel degree t", 1, 1, 1024));
  if (with_pp) f.push_back(integer_field("pp", "", "Pipeline-parallel degree (first stage, 1F1B)", 1, 1, 1024));
  f.push_back(boolean_field("sequence_parallel", "Sequence parallelism: shard the non-matmul activations over tp", false));
  f.push_back(string_field("recompute", "Activation recomputation: none, selective (attention core) or full (layer input only)",
                           "none", {"none", "selective", "full"}));
  f.push_back(boolean_field("flash_attention", "FlashAttention: the s×s attention scores are never stored", false));
  return f;
}

TrainingSetup setup_from(const Inputs& in, const ModelConfig& c, bool with_pp) {
  TrainingSetup st;
  st.micro_batch = static_cast<double>(in.integer("micro_batch"));
  st.weight_bytes = in.str("dtype") == "fp32" ? 4 : 2;
  st.adam = in.str("optimizer") == "adam";
  st.zero_stage = static_cast<int>(in.integer("zero_stage"));
  st.dp = static_cast<double>(in.integer("dp"));
  st.tp = static_cast<double>(in.integer("tp"));
  st.pp = with_pp ? static_cast<double>(in.integer("pp")) : 1;
  st.sequence_parallel = in.boolean("sequence_parallel");
  const std::string r = in.str("recompute");
  st.recompute = r == "full" ? Recompute::Full : r == "selective" ? Recompute::Selective : Recompute::None;
  st.flash_attention = in.boolean("flash_attention");
  if (in.integer("heads") % in.integer("tp") != 0) throw InputError("tp", "'tp' must divide 'heads'.");
  if (st.pp > c.layers) throw InputError("pp", "'pp' cannot exceed 'layers'.");
  return st;
}

json states_json(const ModelStates& s) {
  return {{"weights_bytes", s.weights_bytes},
          {"grads_bytes", s.grads_bytes},
          {"optimizer_bytes", s.optimizer_bytes},
          {"model_states_bytes", s.total_bytes}};
}

}  // namespace

void add_memory_calculators(Calculators& out) {
  out.push_back(
      {"transformer",
       "Parameter count and training FLOPs per token of a decoder-only transformer. Parameters: attention and MLP "
       "matrices (a gated MLP has three of width ffn_hidden), two norm gains per layer, a final norm, the token "
       "embedding and, when untied, the output head; no biases or learned position embeddings. Training FLOPs per "
       "token are PaLM's 6·N + 12·layers·heads·head_dim·seq with N the non-embedding parameters (all layers and the "
       "final norm, neither the embedding nor the output head); forward is a third of that.",
       config_fields(true), [](const Inputs& in) -> json {
         const ModelCounts c = model_counts(model_config_from(in));
         return {{"params", c.params},
                 {"params_embedding", c.params_embedding},
                 {"params_per_layer", c.params_per_layer},
                 {"params_non_embedding", c.params_non_embedding},
                 {"flops_per_token_forward", c.flops_per_token_forward},
                 {"flops_per_token_training", c.flops_per_token_training}};
       }});

  std::vector<Field> tm_fields = training_fields(true);
  tm_fields.push_back(hardware_field(false));
  out.push_back(
      {"training-memory",
       "Bytes per GPU while training: weights, gradients and optimizer states (mixed-precision Adam 2 + 2 + 12 bytes "
       "per parameter; SGD with momentum 2 + 2 + 8; pure fp32 4 + 4 + 8 or 4 + 4 + 4), sharded by ZeRO over dp and "
       "split by tp and pp (the first pipeline stage: its layers plus the embedding), and the activations of the "
       "first stage under 1F1B after Korthikanti et al. 2022 (pp micro-batches in flight, 16-bit activations, the "
       "embedding dropout mask and, with pp = 1, the output layer and loss). With hardware, whether it fits in HBM.",
       tm_fields, [](const Inputs& in) -> json {
         const ModelConfig c = model_config_from(in);
         const TrainingSetup st = setup_from(in, c, true);
         const TrainingMemory m = training_memory(c, in.has("params") ? in.num("params") : 0, st);
         json r = states_json(m.states);
         r["activations_bytes"] = m.activations_bytes;
         r["total_bytes"] = m.total_bytes;
         r["params"] = m.params;
         r["params_per_gpu"] = m.params_per_gpu;
         r["layers_per_stage"] = m.layers_per_stage;
         r["inflight_microbatches"] = m.inflight_microbatches;
         r["activations_per_layer_bytes"] = m.activations_per_layer_bytes;
         r["activations_layers_bytes"] = m.activations_layers_bytes;
         r["activations_embedding_bytes"] = m.activations_embedding_bytes;
         if (in.has("hardware")) {
           const double hbm = find_accelerator(in.str("hardware"))->hbm_bytes;
           r["hbm_bytes"] = hbm;
           r["fits"] = m.total_bytes <= hbm;
           r["headroom_bytes"] = hbm - m.total_bytes;
         }
         return r;
       }});

  out.push_back(
      {"training-memory-timeline",
       "Memory on one GPU across one training step of one micro-batch (no pipeline): weights and optimizer states "
       "throughout; the forward pass adds each layer's activations, the backward pass frees them and builds the "
       "gradients (with full recomputation each layer's activations briefly reappear), the optimizer updates in "
       "place, and zero_grad(set_to_none) frees the gradients. Same model and setup fields as training-memory.",
       training_fields(false), [](const Inputs& in) -> json {
         const ModelConfig c = model_config_from(in);
         if (c.layers > 512) throw InputError("layers", "The timeline is limited to 512 layers.");
         const TrainingSetup st = setup_from(in, c, false);
         const auto points = memory_timeline(c, in.has("params") ? in.num("params") : 0, st);
         json series = json::array();
         double peak = 0;
         std::string peak_phase;
         for (const auto& p : points) {
           series.push_back({{"phase", p.phase},
                             {"layer", p.layer},
                             {"weights_bytes", p.weights_bytes},
                             {"grads_bytes", p.grads_bytes},
                             {"optimizer_bytes", p.optimizer_bytes},
                             {"activations_bytes", p.activations_bytes},
                             {"total_bytes", p.total_bytes}});
           if (p.total_bytes > peak) peak = p.total_bytes, peak_phase = p.phase;
         }
         return {{"points", series}, {"peak_bytes", peak}, {"peak_phase", peak_phase}};
       }});

  std::vector<Field> ck = config_fields(true);
  ck.push_back(integer_field("micro_batch", "", "Sequences per micro-batch b", 1, 1, 4096));
  ck.push_back(integer_field("tp", "", "Tensor-parallel degree t", 1, 1, 1024));
  ck.push_back(boolean_field("sequence_parallel", "Sequence parallelism over tp", false));
  ck.push_back(boolean_field("flash_attention", "FlashAttention: the s×s scores are never stored", false));
  ck.push_back(string_field("strategy", "none, selective (attention core), every-k (keep every k-th layer input) or full",
                            "full", {"none", "selective", "every-k", "full"}));
  ck.push_back(integer_field("k", "", "Layers per checkpointed segment (every-k)", 4, 1, 1024));
  out.push_back(
      {"activation-checkpointing",
       "Activation memory of one GPU's layers for one micro-batch (16-bit, Korthikanti et al. 2022) and the extra "
       "forward FLOPs each checkpointing strategy spends: stored bytes at the end of the forward pass, the peak "
       "during the backward pass (stored + the segment being re-run), recompute FLOPs and their fraction of the "
       "layers' training FLOPs (forward + backward = 3 × forward).",
       ck, [](const Inputs& in) -> json {
         const ModelConfig c = model_config_from(in);
         if (in.integer("heads") % in.integer("tp") != 0) throw InputError("tp", "'tp' must divide 'heads'.");
         const auto r = checkpointing(c, static_cast<double>(in.integer("micro_batch")),
                                      static_cast<double>(in.integer("tp")), in.boolean("sequence_parallel"),
                                      in.boolean("flash_attention"), in.str("strategy"),
                                      static_cast<double>(in.integer("k")));
         return {{"stored_bytes", r.stored_bytes},           {"peak_bytes", r.peak_bytes},
                 {"recompute_flops", r.recompute_flops},     {"training_flops", r.training_flops},
                 {"recompute_fraction", r.recompute_fraction}, {"checkpoints", r.checkpoints}};
       }});
}

}  // namespace mlsys::api
