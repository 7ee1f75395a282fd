// Memory of one GPU while training a transformer: model states (weights, gradients,
// optimizer states; mixed-precision Adam is 2 + 2 + 12 bytes per parameter, Micikevicius et
// al. 2018, Rajbhandari et al. 2020 "ZeRO", arXiv:1910.02054) sharded by ZeRO stage, tensor
// and pipeline parallelism, and activations per layer after Korthikanti et al. 2022
// ("Reducing Activation Recomputation in Large Transformer Models", arXiv:2205.05198, Table 2)
// for the first pipeline stage under the 1F1B schedule. All sizes in bytes.
#pragma once
#include <string>
#include <vector>

#include "mlsys/transformer/model_config.hpp"

namespace mlsys {

enum class Recompute { None, Selective, Full };

struct TrainingSetup {
  double micro_batch = 1;        // b, sequences per micro-batch
  double weight_bytes = 2;       // 2: bf16/fp16 mixed precision (fp32 master copy); 4: pure fp32
  bool adam = true;              // false: SGD with momentum
  bool adam_8bit = false;        // 8-bit Adam (bitsandbytes): momentum and variance 1 byte each
  bool fp32_grads = false;       // gradients in an fp32 buffer (Megatron-LM main_grad): 4 bytes
  bool cpu_offload = false;      // ZeRO-Offload: gradients and optimizer states live in CPU memory
  int zero_stage = 0;            // 0..3
  double dp = 1, tp = 1, pp = 1;  // data, tensor, pipeline parallel degrees
  bool sequence_parallel = false;
  Recompute recompute = Recompute::None;
  bool flash_attention = false;  // the s² attention scores are never stored (like selective)
  bool persistent_grads = false;  // timeline: gradient buffers allocated before the forward pass
};

// Bytes per parameter of each model state before sharding.
struct StateBytes {
  double weights, grads, optimizer;
};
// Mixed precision (weight_bytes 2): weights 2, grads 2, optimizer 12 for Adam (fp32 master,
// momentum, variance) or 8 for SGD with momentum (fp32 master, momentum). Pure fp32
// (weight_bytes 4): 4, 4, and 8 (Adam: momentum, variance) or 4 (SGD: momentum).
StateBytes state_bytes_per_param(double weight_bytes, bool adam);
// The same with the setup's options: 8-bit Adam keeps its two moments in 1 byte each
// (Dettmers et al. 2022, arXiv:2110.02861; block-wise scales ignored), so 4 + 2 = 6 bytes of
// optimizer state in mixed precision; fp32 gradient buffers (Megatron-LM's main_grad, 18 bytes
// per parameter for bf16 weights with Adam in its distributed-optimizer guide) make the
// gradients 4 bytes.
StateBytes state_bytes_per_param(const TrainingSetup& setup);

struct ModelStates {
  double weights_bytes, grads_bytes, optimizer_bytes, total_bytes;
  double offloaded_bytes = 0;  // gradients and optimizer states kept in CPU memory (ZeRO-Offload)
};
// Model states of `params` parameters held by one data-parallel rank, sharded over `dp` by
// ZeRO: stage 1 the optimizer states, stage 2 also the gradients, stage 3 also the weights.
ModelStates model_states(double params, const StateBytes& per_param, int zero_stage, double dp);

// Bytes per s·b·h that the MLP stores beyond its input and dropout mask (3·s·b·h): non-gated,
// the first matmul's output and the activation's output, 2·f each (4·f/h); gated (SwiGLU, as
// Megatron-LM's fused kernel), the gate and up projections and their product (6·f/h). With
// f = 4h non-gated this is Korthikanti's 16, so the MLP block stores 19·s·b·h.
double mlp_activation_units(double hidden, double ffn_hidden, bool gated);
double mlp_activation_units(const ModelConfig& model);

// Korthikanti et al. section 4.1 and Table 2, bytes of activations stored by one layer for one
// micro-batch of b sequences of s tokens, width h, a heads, tensor-parallel degree t (16-bit
// activations, 1-byte dropout masks). With m = mlp_activation_units (16 for a 4h GeLU MLP):
// s·b·h·(18 + m + 5·a·s/h) at t = 1, that is s·b·h·(34 + 5·a·s/h); with tensor parallelism the
// 10 of norms, dropout masks and the QKV and MLP inputs is replicated, s·b·h·(10 + (8 + m)/t +
// 5·a·s/(h·t)); sequence parallelism divides it too, s·b·h·((18 + m)/t + 5·a·s/(h·t)).
// Selective recomputation and FlashAttention drop the 5·a·s/h term; full recomputation keeps
// only the layer's input, 2·s·b·h.
double activation_bytes_per_layer(double s, double b, double h, double a, double t, bool sequence_parallel,
                                  Recompute recompute, bool flash_attention, double mlp_units = 16);

struct TrainingMemory {
  double params;            // parameters of the whole model
  double params_per_gpu;    // before ZeRO sharding: first pipeline stage / tp
  double layers_per_stage;  // ceil(layers / pp)
  double inflight_microbatches;  // 1F1B, first stage: pp
  double activations_per_layer_bytes;
  double activations_layers_bytes;  // inflight · layers_per_stage · per layer
  double activations_embedding_bytes;  // input-embedding dropout mask (and the output layer when pp = 1)
  ModelStates states;
  // Activations of the one layer that recomputation re-makes in the backward pass, on top of the
  // stored ones: the whole layer (full), its attention scores (selective, 0 with FlashAttention), 0 (none).
  double recompute_bytes;
  // activations_bytes is the step's peak: stored layers and embedding terms, plus whatever
  // recompute_bytes exceeds the output layer's activations (freed before the backward pass
  // re-makes a layer). total_bytes = states + activations_bytes = memory_step's peak with
  // persistent gradient buffers.
  double activations_bytes, total_bytes;
};

// `params_override` > 0 replaces the count of `model` for the model states (activations
// still use its shape). Sizes scale by weight_bytes / 2 for the activations in fp32.
TrainingMemory training_memory(const ModelConfig& model, double params_override, const TrainingSetup& setup);

// Memory on the GPU across one training step of one micro-batch: the forward pass stores
// activations layer by layer, the backward frees them and builds the gradients (with
// recomputation each layer's re-made activations, recompute_bytes, reappear briefly), the
// optimizer step
// updates in place, and zero_grad(set_to_none) frees the gradients. With persistent_grads the
// gradient buffers exist throughout (DDP buckets, Megatron-LM, DeepSpeed) and the peak is the
// training_memory() total. With pp > 1 it walks the first stage (its layers, no output layer)
// with the pp − 1 micro-batches sent before this one holding their activations, as under 1F1B.
struct MemoryPoint {
  std::string phase;  // "start", "forward", "backward", "recompute", "optimizer", "zero-grad"
  double layer;       // the layer just processed (0 where none)
  double weights_bytes, grads_bytes, optimizer_bytes, activations_bytes, total_bytes;
};
std::vector<MemoryPoint> memory_timeline(const ModelConfig& model, double params_override, TrainingSetup setup);

// The timeline and its highest point (the first phase that reaches it; 0 and "" if none is above 0).
struct MemoryStep {
  std::vector<MemoryPoint> points;
  double peak_bytes;
  std::string peak_phase;
};
MemoryStep memory_step(const ModelConfig& model, double params_override, const TrainingSetup& setup);

// Whether `total_bytes` fits in `hbm_bytes` of HBM, and what is left (negative: over).
struct HbmFit {
  double hbm_bytes;
  bool fits;
  double headroom_bytes;
};
HbmFit hbm_fit(double total_bytes, double hbm_bytes);

// Activation checkpointing strategies for the layers of one GPU (one micro-batch):
// "none" stores everything; "selective" recomputes the attention core; "every-k" stores the
// input of every k-th layer and re-runs each k-layer segment in the backward pass (Chen et al.
// 2016, arXiv:1604.06174); "full" is every-k with k = 1.
struct CheckpointResult {
  double stored_bytes;   // activations held at the end of the forward pass
  double peak_bytes;     // stored + the largest segment re-materialized during backward
  double recompute_flops;  // extra FLOPs per micro-batch
  double training_flops;   // forward + backward FLOPs of the layers per micro-batch, without recompute
  double recompute_fraction;  // recompute_flops / training_flops
  double checkpoints;         // layer inputs kept
};
CheckpointResult checkpointing(const ModelConfig& model, double micro_batch, double tp, bool sequence_parallel,
                               bool flash_attention, const std::string& strategy, double k);

}  // namespace mlsys
