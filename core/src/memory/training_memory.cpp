// Training memory per GPU: model states (ZeRO, TP, PP, 8-bit Adam, fp32 gradients, ZeRO-Offload)
// and activations (Korthikanti et al. 2022, section 4.1 and Table 2, with the MLP terms of the
// model's MLP), the memory timeline of one step, and checkpointing strategies.
#include "mlsys/memory/training_memory.hpp"

#include <algorithm>
#include <cmath>

namespace mlsys {

StateBytes state_bytes_per_param(double weight_bytes, bool adam) {
  if (weight_bytes >= 4) return {4, 4, adam ? 8.0 : 4.0};  // pure fp32: no separate master copy
  return {weight_bytes, weight_bytes, adam ? 12.0 : 8.0};   // fp32 master (+ momentum, variance)
}

StateBytes state_bytes_per_param(const TrainingSetup& st) {
  StateBytes b = state_bytes_per_param(st.weight_bytes, st.adam);
  // 8-bit Adam: the two fp32 moments (8 bytes) become 2 bytes; the fp32 master copy stays.
  if (st.adam && st.adam_8bit) b.optimizer -= 6;
  if (st.fp32_grads) b.grads = 4;
  return b;
}

ModelStates model_states(double params, const StateBytes& per_param, int zero_stage, double dp) {
  ModelStates m{};
  m.weights_bytes = params * per_param.weights / (zero_stage >= 3 ? dp : 1);
  m.grads_bytes = params * per_param.grads / (zero_stage >= 2 ? dp : 1);
  m.optimizer_bytes = params * per_param.optimizer / (zero_stage >= 1 ? dp : 1);
  m.total_bytes = m.weights_bytes + m.grads_bytes + m.optimizer_bytes;
  return m;
}

double mlp_activation_units(double hidden, double ffn_hidden, bool gated) {
  return (gated ? 6 : 4) * ffn_hidden / hidden;
}

double mlp_activation_units(const ModelConfig& m) { return mlp_activation_units(m.hidden, m.ffn_hidden, m.gated_mlp); }

double activation_bytes_per_layer(double s, double b, double h, double a, double t, bool sequence_parallel,
                                  Recompute recompute, bool flash_attention, double mlp_units) {
  const double sbh = s * b * h;
  if (recompute == Recompute::Full) return 2 * sbh / (sequence_parallel ? t : 1);
  // Per s·b·h, Korthikanti section 4.1. Replicated under tensor parallelism (10): the two layer
  // norms' inputs (4), the inputs of the QKV and first MLP matmuls (2 + 2), the two dropout
  // masks after the attention and MLP output projections (1 + 1). Split over t: Q, K, V and
  // the output projection's input (8) and the MLP's inner tensors (mlp_units, 16 for a 4h GeLU MLP).
  const double replicated = 10, split = 8 + mlp_units;
  const double linear = sequence_parallel ? (replicated + split) / t : replicated + split / t;
  // Softmax output (2), its dropout mask (1) and the dropped-out scores (2): 5·a·s/h per s·b·h, split over heads.
  const double quadratic = (recompute == Recompute::Selective || flash_attention) ? 0 : 5 * a * s / (h * t);
  return sbh * (linear + quadratic);
}

namespace {

double stage_layers(const ModelConfig& m, double pp) { return std::ceil(m.layers / pp); }

// Parameters held by one GPU before ZeRO: the first pipeline stage (its layers and the input
// embedding; with pp = 1 also the final norm and an untied output head), split over tp.
double params_on_gpu(const ModelConfig& m, const ModelCounts& c, double params_override, double tp, double pp) {
  if (params_override > 0) return params_override / (tp * pp);
  double stage = stage_layers(m, pp) * c.params_per_layer + m.vocab * m.hidden;
  if (pp <= 1) stage += m.hidden + (m.tied_embeddings ? 0 : m.vocab * m.hidden);
  return stage / tp;
}

// The final norm, output projection and fp32 cross-entropy of one micro-batch (16-bit count),
// 4·s·b·h·(1 + v/h)/t; held only by a GPU with the output layer (pp = 1).
double output_layer_activations(const ModelConfig& m, const TrainingSetup& st) {
  return 4 * m.seq * st.micro_batch * m.hidden * (1 + m.vocab / m.hidden) / st.tp;
}

// Activations outside the layers (Korthikanti et al. section 4.3): the input embedding's
// dropout mask, s·b·h bytes per in-flight micro-batch (split over t with sequence
// parallelism), and with pp = 1 the output layer above.
double embedding_activations(const ModelConfig& m, const TrainingSetup& st) {
  const double sbh = m.seq * st.micro_batch * m.hidden;
  double bytes = st.pp * sbh / (st.sequence_parallel ? st.tp : 1);
  if (st.pp <= 1) bytes += output_layer_activations(m, st);
  return bytes;
}

}  // namespace

TrainingMemory training_memory(const ModelConfig& model, double params_override, const TrainingSetup& st) {
  const ModelCounts c = model_counts(model);
  TrainingMemory r{};
  r.params = params_override > 0 ? params_override : c.params;
  r.params_per_gpu = params_on_gpu(model, c, params_override, st.tp, st.pp);
  r.layers_per_stage = stage_layers(model, st.pp);
  r.inflight_microbatches = st.pp;
  const double act_scale = st.weight_bytes / 2;  // Korthikanti counts 16-bit activations
  r.activations_per_layer_bytes =
      act_scale * activation_bytes_per_layer(model.seq, st.micro_batch, model.hidden, model.heads, st.tp,
                                             st.sequence_parallel, st.recompute, st.flash_attention,
                                             mlp_activation_units(model));
  r.activations_layers_bytes = r.inflight_microbatches * r.layers_per_stage * r.activations_per_layer_bytes;
  r.activations_embedding_bytes = act_scale * embedding_activations(model, st);
  r.states = model_states(r.params_per_gpu, state_bytes_per_param(st), st.zero_stage, st.dp);
  if (st.cpu_offload) {
    // ZeRO-Offload (Ren et al. 2021, arXiv:2101.06840): gradients stream to CPU memory as the
    // backward pass makes them and the optimizer step runs there; the GPU keeps the 16-bit weights.
    r.states.offloaded_bytes = r.states.grads_bytes + r.states.optimizer_bytes;
    r.states.grads_bytes = r.states.optimizer_bytes = 0;
    r.states.total_bytes = r.states.weights_bytes;
  }
  // The backward pass re-makes one layer at a time on top of what is stored: with full
  // recomputation the whole layer (the M(k) count with k = 1), with selective recomputation its
  // attention scores (none with FlashAttention, whose kernel re-makes them tile by tile).
  const auto per_layer = [&](Recompute rc) {
    return act_scale * activation_bytes_per_layer(model.seq, st.micro_batch, model.hidden, model.heads, st.tp,
                                                  st.sequence_parallel, rc, st.flash_attention,
                                                  mlp_activation_units(model));
  };
  r.recompute_bytes = st.recompute == Recompute::Full        ? per_layer(Recompute::None)
                      : st.recompute == Recompute::Selective ? per_layer(Recompute::None) - per_layer(Recompute::Selective)
                                                             : 0;
  // The step's peak: the end of the forward pass (every stored activation and, with pp = 1, the
  // output layer) or the first layer re-made in the backward pass (the output layer freed), the
  // higher of the two; memory_timeline walks the same events.
  const double output_layer = st.pp <= 1 ? act_scale * output_layer_activations(model, st) : 0;
  r.activations_bytes = r.activations_layers_bytes + r.activations_embedding_bytes +
                        std::max(0.0, r.recompute_bytes - output_layer);
  r.total_bytes = r.states.total_bytes + r.activations_bytes;
  return r;
}

std::vector<MemoryPoint> memory_timeline(const ModelConfig& model, double params_override, TrainingSetup st) {
  const TrainingMemory tm = training_memory(model, params_override, st);
  const ModelStates& s = tm.states;
  const double L = tm.layers_per_stage;
  const double act_scale = st.weight_bytes / 2;
  const bool last_stage = st.pp <= 1;  // this GPU also holds the output layer
  // Gradients arrive in proportion to the parameters of the stage: output head and final norm
  // first (pp = 1), then the layers from last to first, the input embedding last.
  const ModelCounts c = model_counts(model);
  const double head = last_stage ? model.hidden + (model.tied_embeddings ? 0 : model.vocab * model.hidden) : 0;
  const double stage_params = L * c.params_per_layer + model.vocab * model.hidden + head;
  const double layer_share = c.params_per_layer / stage_params, head_share = head / stage_params;
  std::vector<MemoryPoint> out;
  // Persistent buffers (DDP buckets, Megatron-LM's main_grad, DeepSpeed) hold all gradients
  // from the start; PyTorch's zero_grad(set_to_none=True) allocates them during backward.
  const double grads_floor = st.persistent_grads ? s.grads_bytes : 0;
  const double embed_mask = act_scale * model.seq * st.micro_batch * model.hidden / (st.sequence_parallel ? st.tp : 1);
  const double out_layer = last_stage ? act_scale * output_layer_activations(model, st) : 0;  // logits and loss
  // With pp > 1 the walk is the first stage under 1F1B at its fullest: the pp − 1 micro-batches
  // sent on before this one still hold their stored activations while it runs forward and back.
  const double earlier = (st.pp - 1) * (embed_mask + L * tm.activations_per_layer_bytes);
  double grads = grads_floor, acts = earlier;
  auto push = [&](const char* phase, double layer) {
    out.push_back({phase, layer, s.weights_bytes, grads, s.optimizer_bytes, acts,
                   s.weights_bytes + grads + s.optimizer_bytes + acts});
  };
  push("start", 0);
  acts += embed_mask;
  for (int i = 1; i <= static_cast<int>(L); ++i) {
    acts += tm.activations_per_layer_bytes;
    push("forward", i);
  }
  if (last_stage) {
    acts += out_layer;
    push("forward", L);
    acts -= out_layer;
    if (!st.persistent_grads) grads += head_share * s.grads_bytes;
    push("backward", L);
  }
  for (int i = static_cast<int>(L); i >= 1; --i) {
    if (tm.recompute_bytes > 0) {  // the layer re-made before its backward (tm.recompute_bytes)
      acts += tm.recompute_bytes;
      push("recompute", i);
      acts -= tm.recompute_bytes;
    }
    acts -= tm.activations_per_layer_bytes;
    if (!st.persistent_grads) grads += layer_share * s.grads_bytes;
    push("backward", i);
  }
  acts = 0;  // the embedding's mask and, with pp > 1, the other micro-batches drained
  grads = s.grads_bytes;
  push("backward", 0);
  push("optimizer", 0);
  grads = grads_floor;
  push("zero-grad", 0);
  return out;
}

CheckpointResult checkpointing(const ModelConfig& model, double micro_batch, double tp, bool sequence_parallel,
                               bool flash_attention, const std::string& strategy, double k) {
  const ModelCounts c = model_counts(model);
  const double s = model.seq, b = micro_batch, h = model.hidden, a = model.heads, L = model.layers;
  const double mlp = mlp_activation_units(model);
  const double full_layer =
      activation_bytes_per_layer(s, b, h, a, tp, sequence_parallel, Recompute::None, flash_attention, mlp);
  const double sel_layer = activation_bytes_per_layer(s, b, h, a, tp, sequence_parallel, Recompute::Selective, false, mlp);
  const double input = activation_bytes_per_layer(s, b, h, a, tp, sequence_parallel, Recompute::Full, false, mlp);
  // Per micro-batch, FLOPs of one layer's forward pass (PaLM accounting: weights 2·P per token,
  // attention scores and weighted sum 4·s·a·d per token), split over tp GPUs.
  const double attn_fwd = 4 * b * s * s * a * model.head_dim / tp;
  const double layer_fwd = 2 * b * s * c.params_per_layer / tp + attn_fwd;
  CheckpointResult r{};
  r.training_flops = 3 * L * layer_fwd;
  if (strategy == "none") {
    r.stored_bytes = r.peak_bytes = L * full_layer;
  } else if (strategy == "selective") {
    r.stored_bytes = L * sel_layer;
    r.peak_bytes = r.stored_bytes + (full_layer - sel_layer);  // one layer's scores re-made in backward
    r.recompute_flops = flash_attention ? 0 : L * attn_fwd;    // FlashAttention's backward already re-makes them
  } else {
    const double kk = strategy == "full" ? 1 : std::min(k, L);
    r.checkpoints = std::ceil(L / kk);
    r.stored_bytes = r.checkpoints * input;
    r.peak_bytes = r.stored_bytes + kk * full_layer;  // one segment re-run before its backward
    r.recompute_flops = L * layer_fwd;                // every layer's forward runs twice
  }
  r.recompute_fraction = r.recompute_flops / r.training_flops;
  return r;
}

MemoryStep memory_step(const ModelConfig& model, double params_override, const TrainingSetup& setup) {
  MemoryStep r{memory_timeline(model, params_override, setup), 0, ""};
  for (const auto& p : r.points)
    if (p.total_bytes > r.peak_bytes) r.peak_bytes = p.total_bytes, r.peak_phase = p.phase;
  return r;
}

HbmFit hbm_fit(double total_bytes, double hbm_bytes) {
  return {hbm_bytes, total_bytes <= hbm_bytes, hbm_bytes - total_bytes};
}

}  // namespace mlsys
