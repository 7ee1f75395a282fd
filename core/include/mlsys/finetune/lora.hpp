// Memory and compute of fine-tuning a transformer three ways: full fine-tuning (every weight
// trained with mixed-precision Adam), LoRA (Hu et al. 2021, arXiv:2106.09685: the base frozen
// in 16 bits, each adapted d_in × d_out matrix gains B·A with A r × d_in and B d_out × r, so
// r·(d_in + d_out) trainable parameters) and QLoRA (Dettmers et al. 2023, arXiv:2305.14314:
// the base's linear layers stored in 4-bit NormalFloat, blocks of 64 with an fp32 absmax each,
// 4.5 bits per parameter; double quantization stores those absmax constants in 8 bits with one
// fp32 constant per 256 of them, 4 + 8/64 + 32/(64·256) = 4.127 bits). Embeddings, the output
// head and norm gains stay in 16 bits. Trainable parameters cost the model states of
// memory/training_memory.hpp (bf16 weights and gradients, fp32 master copy and Adam moments: 16
// bytes). Activations are those of training_memory (Korthikanti et al. 2022): a frozen base still
// stores them to propagate gradients to the adapters; the adapters' own r-wide activations and
// QLoRA's one dequantized matrix at a time are left out. All sizes in bytes.
#pragma once
#include <string>
#include <vector>

#include "mlsys/memory/training_memory.hpp"
#include "mlsys/transformer/model_config.hpp"

namespace mlsys {

// Which weight matrices of each layer get an adapter: "qv" (W_Q, W_V, Hu et al.'s choice),
// "qkvo" (the four attention matrices) or "all-linear" (also every MLP matrix, QLoRA's choice).
struct AdaptedMatrix {
  std::string name;  // "q", "k", "v", "o", "gate", "up", "down"
  double d_in, d_out;
};
std::vector<AdaptedMatrix> adapted_matrices(const ModelConfig& c, const std::string& targets);

// Bits per parameter of the frozen base's linear layers: bf16 16; int8 8 + 32/hidden (one fp32
// scale per row, LLM.int8()'s vector-wise quantization); nf4 4 + 32/64 = 4.5, with double
// quantization 4 + 8/64 + 32/(64·256) = 4.127 (QLoRA section 3).
double base_bits_per_param(const std::string& base_dtype, bool double_quant, double hidden);

struct FinetuneMemory {
  double frozen_weights_bytes;     // 16-bit frozen weights (LoRA: all; QLoRA: embeddings, head, norms)
  double quantized_weights_bytes;  // QLoRA: linear layers at base_bits_per_param, constants included
  double trainable_weights_bytes;  // full: every weight; (Q)LoRA: the adapters A and B
  double grads_bytes;              // of the trainable weights only
  double optimizer_bytes;          // fp32 master copy + Adam moments of the trainable weights
  double activations_bytes;        // stored for the backward pass (the same for all three)
  double pageable_bytes;           // with paged optimizers: optimizer states that may move to host
  double total_bytes;              // the six above (pageable is part of optimizer)
};

struct LoraSetup {
  double rank = 16;
  std::string targets = "all-linear";
  std::string base_dtype = "nf4";  // QLoRA's base; LoRA's base is always 16-bit
  bool double_quant = true;
  std::string optimizer = "adam";  // "adam", "adam-8bit", "sgd" (training_memory's state bytes)
  bool paged_optimizer = false;
  double micro_batch = 1;
  Recompute recompute = Recompute::None;
  bool flash_attention = true;
  // Serving and paging: the host link adapters and paged optimizer states cross (bytes/s, one
  // direction; the calculator takes it from the interconnect table, PCIe 5.0 x16 by default)
  // and the distinct adapters one decode batch carries (S-LoRA and Punica batch them together).
  double host_link_Bps = 32e9 * 16 * 128.0 / 130 / 8;  // 63.0 GB/s
  double batch_adapters = 32;
};

struct LoraReport {
  double params;             // the base model's parameters
  double trainable_params;   // adapter parameters: Σ r·(d_in + d_out) over adapted matrices and layers
  double trainable_fraction; // trainable_params / params
  double adapted_matrices;   // adapted matrices in the whole model
  double adapted_params;     // base parameters inside adapted matrices
  double quantized_params;   // base parameters stored quantized in QLoRA (every linear layer of the blocks)
  double bits_per_base_param;  // of the quantized part
  double adapter_file_bytes;   // the adapters saved in 16 bits
  double full_finetune_bytes, lora_bytes, qlora_bytes;
  FinetuneMemory full_finetune_breakdown, lora_breakdown, qlora_breakdown;
  double lora_saving_factor;   // full_finetune_bytes / lora_bytes
  double qlora_saving_factor;  // full_finetune_bytes / qlora_bytes
  // Serving many adapters on one 16-bit base, and paging.
  double adapters_per_base_copy;    // 2·params / adapter_file_bytes: adapters in the memory of one base copy
  double adapter_load_s;            // adapter_file_bytes / host_link_Bps: one adapter from host to GPU
  double batch_adapter_bytes;       // batch_adapters · adapter_file_bytes: the adapters one decode step reads
  double batch_adapter_read_ratio;  // batch_adapter_bytes / (2·params): on top of the base's weight reads
  double optimizer_page_s;          // lora_breakdown.optimizer_bytes / host_link_Bps: the states paged one way
};

// `params_override` > 0 replaces the config's parameter count (scaled across the parts in
// proportion). Throws InputError naming rank, targets, base_dtype, optimizer, host_link or
// batch_adapters.
LoraReport lora_report(const ModelConfig& c, double params_override, const LoraSetup& s);

// FLOPs and time of one training step of `tokens` tokens. Full fine-tuning: PaLM's 6·N +
// 12·L·H·Q·T per token (transformer/model_config.hpp). LoRA: the frozen base still runs its
// forward pass (2N) and the backward pass through the activations (2N), but computes no weight
// gradients (the other 2N), so 4N, plus the attention over the context unchanged (12·L·H·Q·T: every
// term of its backward is an activation gradient) and 6 per adapter parameter. QLoRA: the same
// FLOPs plus dequantizing every quantized weight to bf16 twice per step (forward, backward; three
// times with full recomputation): reading bits/8 bytes and writing and reading back 2 bytes per
// parameter, at the memory bandwidth. Compute time = FLOPs / (peak · mfu).
struct StepRow {
  std::string method;  // "full", "lora", "qlora"
  double flops_per_token, flops_per_step, compute_s, dequant_s, time_s, tokens_per_s;
};
struct LoraStep {
  double tokens_per_step;
  double params_flops;    // N of PaLM's formula
  double adapter_params;  // trainable parameters of LoRA
  double attention_flops_per_token;  // 12·L·H·Q·T
  std::vector<StepRow> rows;
  double lora_flops_ratio;   // LoRA / full FLOPs per step
  double lora_speedup;       // full time / LoRA time
  double qlora_slowdown;     // QLoRA time / LoRA time
};
LoraStep lora_step(const ModelConfig& c, double rank, const std::string& targets, double batch,
                   const std::string& base_dtype, bool double_quant, bool full_recompute, double peak_flops,
                   double bandwidth_Bps, double mfu);

}  // namespace mlsys
