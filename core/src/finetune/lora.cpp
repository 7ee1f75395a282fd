#include "mlsys/finetune/lora.hpp"

#include <cmath>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

std::vector<AdaptedMatrix> adapted_matrices(const ModelConfig& c, const std::string& targets) {
  const double h = c.hidden, q = c.heads * c.head_dim, kv = c.kv_heads * c.head_dim, f = c.ffn_hidden;
  std::vector<AdaptedMatrix> m;
  if (targets == "qv") {
    m = {{"q", h, q}, {"v", h, kv}};
  } else if (targets == "qkvo" || targets == "all-linear") {
    m = {{"q", h, q}, {"k", h, kv}, {"v", h, kv}, {"o", q, h}};
    if (targets == "all-linear") {
      if (c.gated_mlp) m.push_back({"gate", h, f});
      m.push_back({"up", h, f});
      m.push_back({"down", f, h});
    }
  } else {
    throw InputError("targets", "targets must be qv, qkvo or all-linear");
  }
  return m;
}

double base_bits_per_param(const std::string& base_dtype, bool double_quant, double hidden) {
  if (base_dtype == "bf16") return 16;
  if (base_dtype == "int8") return 8 + 32 / hidden;
  if (base_dtype == "nf4") return double_quant ? 4 + 8.0 / 64 + 32.0 / (64 * 256) : 4 + 32.0 / 64;
  throw InputError("base_dtype", "base_dtype must be bf16, int8 or nf4");
}

namespace {

StateBytes trainable_state_bytes(const std::string& optimizer) {
  TrainingSetup st;
  if (optimizer == "adam") {
  } else if (optimizer == "adam-8bit") {
    st.adam_8bit = true;
  } else if (optimizer == "sgd") {
    st.adam = false;
  } else {
    throw InputError("optimizer", "optimizer must be adam, adam-8bit or sgd");
  }
  return state_bytes_per_param(st);
}

FinetuneMemory memory(double frozen16, double quantized, double trainable, const StateBytes& sb, double activations,
                      bool paged) {
  FinetuneMemory m{};
  m.frozen_weights_bytes = 2 * frozen16;
  m.quantized_weights_bytes = quantized;
  m.trainable_weights_bytes = sb.weights * trainable;
  m.grads_bytes = sb.grads * trainable;
  m.optimizer_bytes = sb.optimizer * trainable;
  m.activations_bytes = activations;
  m.pageable_bytes = paged ? m.optimizer_bytes : 0;
  m.total_bytes = m.frozen_weights_bytes + m.quantized_weights_bytes + m.trainable_weights_bytes + m.grads_bytes +
                  m.optimizer_bytes + m.activations_bytes;
  return m;
}

}  // namespace

LoraReport lora_report(const ModelConfig& c, double params_override, const LoraSetup& s) {
  if (!(s.rank >= 1) || s.rank > 65536) throw InputError("rank", "rank must be between 1 and 65,536");
  if (!(s.host_link_Bps > 0) || !std::isfinite(s.host_link_Bps))
    throw InputError("host_link", "the host link's bandwidth must be a positive number of bytes per second");
  if (!(s.batch_adapters >= 1) || s.batch_adapters > 1e6)
    throw InputError("batch_adapters", "batch_adapters must be between 1 and 1,000,000");
  const std::vector<AdaptedMatrix> mats = adapted_matrices(c, s.targets);
  const double bits = base_bits_per_param(s.base_dtype, s.double_quant, c.hidden);
  const StateBytes sb = trainable_state_bytes(s.optimizer);

  const ModelCounts counts = model_counts(c);
  const double scale = params_override > 0 ? params_override / counts.params : 1.0;
  double adapter = 0, adapted = 0;
  for (const auto& m : mats) {
    if (s.rank > std::min(m.d_in, m.d_out)) throw InputError("rank", "rank must not exceed the smaller side of an adapted matrix");
    adapter += s.rank * (m.d_in + m.d_out);
    adapted += m.d_in * m.d_out;
  }
  adapter *= c.layers;
  adapted *= c.layers * scale;
  const double params = counts.params * scale;
  const double quantized = c.layers * (attention_params_per_layer(c) + mlp_params_per_layer(c)) * scale;
  const double other16 = params - quantized;  // embeddings, output head, norm gains

  TrainingSetup ts;
  ts.micro_batch = s.micro_batch;
  ts.recompute = s.recompute;
  ts.flash_attention = s.flash_attention;
  ts.adam = s.optimizer != "sgd";
  ts.adam_8bit = s.optimizer == "adam-8bit";
  const double activations = training_memory(c, params_override, ts).activations_bytes;

  LoraReport r{};
  r.params = params;
  r.trainable_params = adapter;
  r.trainable_fraction = adapter / params;
  r.adapted_matrices = c.layers * static_cast<double>(mats.size());
  r.adapted_params = adapted;
  r.quantized_params = quantized;
  r.bits_per_base_param = bits;
  r.adapter_file_bytes = 2 * adapter;
  r.full_finetune_breakdown = memory(0, 0, params, sb, activations, s.paged_optimizer);
  r.lora_breakdown = memory(params, 0, adapter, sb, activations, s.paged_optimizer);
  r.qlora_breakdown = memory(other16, quantized * bits / 8, adapter, sb, activations, s.paged_optimizer);
  r.full_finetune_bytes = r.full_finetune_breakdown.total_bytes;
  r.lora_bytes = r.lora_breakdown.total_bytes;
  r.qlora_bytes = r.qlora_breakdown.total_bytes;
  r.lora_saving_factor = r.full_finetune_bytes / r.lora_bytes;
  r.qlora_saving_factor = r.full_finetune_bytes / r.qlora_bytes;
  r.adapters_per_base_copy = 2 * params / r.adapter_file_bytes;
  r.adapter_load_s = r.adapter_file_bytes / s.host_link_Bps;
  r.batch_adapter_bytes = s.batch_adapters * r.adapter_file_bytes;
  r.batch_adapter_read_ratio = r.batch_adapter_bytes / (2 * params);
  r.optimizer_page_s = r.lora_breakdown.optimizer_bytes / s.host_link_Bps;
  return r;
}

LoraStep lora_step(const ModelConfig& c, double rank, const std::string& targets, double batch,
                   const std::string& base_dtype, bool double_quant, bool full_recompute, double peak_flops,
                   double bandwidth_Bps, double mfu) {
  if (!(mfu > 0) || mfu > 1) throw InputError("mfu", "mfu must be in (0, 1]");
  if (!(batch >= 1)) throw InputError("batch", "batch must be at least 1");
  LoraSetup s;
  s.rank = rank;
  s.targets = targets;
  s.base_dtype = base_dtype;
  s.double_quant = double_quant;
  const LoraReport lr = lora_report(c, 0, s);
  const ModelCounts n = model_counts(c);
  const TokenFlops tf = token_flops(c);
  LoraStep out{};
  out.tokens_per_step = batch * c.seq;
  out.params_flops = n.params_flops;
  out.adapter_params = lr.trainable_params;
  out.attention_flops_per_token = tf.attention;
  // Full recomputation repeats the forward pass: +2N (+ a third of attention) for every method.
  const double recompute = full_recompute ? 2 * n.params_flops + tf.attention / 3 : 0;
  const double full = tf.matmul + tf.attention + recompute;
  const double lora = 4 * n.params_flops + tf.attention + 6 * lr.trainable_params + recompute;
  const double passes = full_recompute ? 3 : 2;
  const double dequant_bytes = passes * lr.quantized_params * (lr.bits_per_base_param / 8 + 2 + 2);
  const double rate = peak_flops * mfu;
  auto row = [&](const std::string& method, double per_token, double dequant_s) {
    StepRow r{method, per_token, per_token * out.tokens_per_step, per_token * out.tokens_per_step / rate, dequant_s, 0, 0};
    r.time_s = r.compute_s + r.dequant_s;
    r.tokens_per_s = out.tokens_per_step / r.time_s;
    return r;
  };
  out.rows = {row("full", full, 0), row("lora", lora, 0), row("qlora", lora, dequant_bytes / bandwidth_Bps)};
  out.lora_flops_ratio = lora / full;
  out.lora_speedup = out.rows[0].time_s / out.rows[1].time_s;
  out.qlora_slowdown = out.rows[2].time_s / out.rows[1].time_s;
  return out;
}

}  // namespace mlsys
