// Calculators of the training-memory lesson: `transformer` (parameter and FLOP counts of a
// config), `training-memory` (bytes per GPU by component, shared/API.md),
// `training-memory-timeline` (memory across one step) and `activation-checkpointing`.
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/memory/training_memory.hpp"
#include "model_inputs.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(ModelCounts, MLSYS_OUT(params, "", "All parameters, embeddings included"),
               MLSYS_OUT(params_embedding, "", "Token embedding vocab·h, twice when the output head is untied"),
               MLSYS_OUT(params_per_layer, "", "Attention and MLP matrices plus two norm gains of one layer"),
               MLSYS_OUT(params_non_embedding, "", "layers · params_per_layer + final norm (no embedding, no output head)"),
               MLSYS_OUT(params_flops, "",
                         "N of the training FLOPs: params_non_embedding + vocab·hidden (the output head); tied: all "
                         "parameters, untied: all but the input embedding"),
               MLSYS_OUT(flops_per_token_forward, "FLOP", "Forward FLOPs per token: a third of training"),
               MLSYS_OUT(flops_per_token_training, "FLOP", "Training FLOPs per token: 6·params_flops + 12·layers·heads·head_dim·seq"));
MLSYS_DESCRIBE(ParamBreakdown, MLSYS_OUT(embedding, "", "Input token embedding vocab·hidden (tied: also the output head)"),
               MLSYS_OUT(attention, "", "layers · (W_Q, W_K, W_V, W_O): h·(heads + 2·kv_heads)·head_dim + heads·head_dim·h each"),
               MLSYS_OUT(mlp, "", "layers · MLP matrices: 3·h·ffn_hidden gated, 2·h·ffn_hidden not"),
               MLSYS_OUT(norms, "", "Norm gains: 2·hidden per layer + the final norm's hidden"),
               MLSYS_OUT(head, "", "Untied output head vocab·hidden; 0 when tied (the embedding serves)"));
MLSYS_DESCRIBE(TokenFlopsBreakdown,
               MLSYS_OUT(attention_projections, "FLOP", "6 · layers · attention matrices (Q, K, V, O projections)"),
               MLSYS_OUT(mlp, "FLOP", "6 · layers · MLP matrices"),
               MLSYS_OUT(head, "FLOP", "6 · vocab · hidden: the output head's matmul (tied or not)"),
               MLSYS_OUT(norms, "FLOP", "6 · norm gains (part of PaLM's N; elementwise, not a matmul)"),
               MLSYS_OUT(attention, "FLOP", "12 · layers · heads · head_dim · seq: QKᵀ and AV over the context"));
MLSYS_DESCRIBE(TokenFlops, MLSYS_OUT_AS("flops_per_token_matmul", matmul, "FLOP", "Training FLOPs per token in the weight matmuls: 6 · params_flops"),
               MLSYS_OUT_AS("flops_per_token_attention", attention, "FLOP",
                            "Training FLOPs per token of attention over the context: 12 · layers · heads · head_dim · seq"),
               MLSYS_OUT_AS("attention_flops_share", attention_share, "", "flops_per_token_attention / flops_per_token_training"),
               MLSYS_OUT(attention_equals_matmul_seq, "tokens",
                         "Context length at which attention FLOPs equal the matmul FLOPs: params_flops / (2 · layers · heads · head_dim)"),
               MLSYS_OUT_AS("flops_per_token_breakdown", breakdown, "",
                            "Training FLOPs per token by part (FLOP each); they sum to flops_per_token_training"));

namespace {

// `transformer`'s result: the counts (their fields unchanged) plus the breakdowns.
struct TransformerReport {
  ModelCounts counts;
  ParamBreakdown params_breakdown;
  double embedding_share;
  TokenFlops flops;
};

TransformerReport transformer_report(const ModelConfig& c) {
  const ModelCounts n = model_counts(c);
  return {n, param_breakdown(c), n.params_embedding / n.params, token_flops(c)};
}

}  // namespace

MLSYS_DESCRIBE(TransformerReport, MLSYS_FLAT(counts),
               MLSYS_OUT(params_breakdown, "",
                         "Parameters by component {embedding, attention, mlp, norms, head}; they sum to params"),
               MLSYS_OUT(embedding_share, "", "params_embedding / params: the share held by embedding tables"),
               MLSYS_FLAT(flops));
MLSYS_DESCRIBE(ModelStates, MLSYS_OUT(weights_bytes, "B", "Weights held by one GPU"),
               MLSYS_OUT(grads_bytes, "B", "Gradients held by one GPU"),
               MLSYS_OUT(optimizer_bytes, "B", "Optimizer states (master copy, moments) held by one GPU"),
               MLSYS_OUT_AS("model_states_bytes", total_bytes, "B", "Weights + gradients + optimizer states on the GPU"),
               MLSYS_OUT(offloaded_bytes, "B", "Gradients and optimizer states held in CPU memory (cpu_offload)"));
MLSYS_DESCRIBE(TrainingMemory, MLSYS_FLAT(states),
               MLSYS_OUT(activations_bytes, "B",
                         "Activations of the first pipeline stage at the step's peak: the stored ones, plus "
                         "recompute_bytes where it exceeds the output layer's (freed before the backward pass)"),
               MLSYS_OUT(total_bytes, "B", "Model states + activations on one GPU: the step's peak with gradient buffers kept"),
               MLSYS_OUT(params, "", "Parameters of the whole model"),
               MLSYS_OUT(params_per_gpu, "", "Parameters of the first pipeline stage / tp, before ZeRO sharding"),
               MLSYS_OUT(layers_per_stage, "", "ceil(layers / pp)"),
               MLSYS_OUT(inflight_microbatches, "", "Micro-batches whose activations the first stage holds (1F1B: pp)"),
               MLSYS_OUT(activations_per_layer_bytes, "B",
                         "Activations stored by one layer for one micro-batch: s·b·h·(18 + m + 5·a·s/h) with m = 4·f/h "
                         "(non-gated MLP of width f) or 6·f/h (gated), 34 + 5·a·s/h for f = 4h, before TP/SP/recompute"),
               MLSYS_OUT(activations_layers_bytes, "B", "inflight · layers_per_stage · per layer"),
               MLSYS_OUT(activations_embedding_bytes, "B",
                         "Input-embedding dropout mask (and the output layer and loss when pp = 1)"),
               MLSYS_OUT(recompute_bytes, "B",
                         "One layer re-made in the backward pass on top of the stored activations: the whole layer "
                         "(full), its attention scores (selective; 0 with FlashAttention), 0 without recomputation"));
MLSYS_DESCRIBE(HbmFit, MLSYS_OUT(hbm_bytes, "B", "HBM of the accelerator"),
               MLSYS_OUT(fits, "", "total_bytes ≤ hbm_bytes"),
               MLSYS_OUT(headroom_bytes, "B", "hbm_bytes − total_bytes (negative: does not fit)"));
MLSYS_DESCRIBE(MemoryPoint, MLSYS_OUT(phase, "", "start, forward, backward, recompute, optimizer or zero-grad"),
               MLSYS_OUT(layer, "", "Layer just processed (0 where none)"),
               MLSYS_OUT(weights_bytes, "B", "Weights"), MLSYS_OUT(grads_bytes, "B", "Gradients"),
               MLSYS_OUT(optimizer_bytes, "B", "Optimizer states"), MLSYS_OUT(activations_bytes, "B", "Stored activations"),
               MLSYS_OUT(total_bytes, "B", "Sum of the four"));
MLSYS_DESCRIBE(MemoryStep, MLSYS_OUT(points, "", "Memory after each event of the step"),
               MLSYS_OUT(peak_bytes, "B", "Highest total over the step"),
               MLSYS_OUT(peak_phase, "", "Phase of the first point at the peak"));
MLSYS_DESCRIBE(CheckpointResult, MLSYS_OUT(stored_bytes, "B", "Activations held at the end of the forward pass"),
               MLSYS_OUT(peak_bytes, "B", "Stored + the largest segment re-materialized during the backward pass"),
               MLSYS_OUT(recompute_flops, "FLOP", "Extra forward FLOPs per micro-batch"),
               MLSYS_OUT(training_flops, "FLOP", "Forward + backward FLOPs of the layers per micro-batch, no recompute"),
               MLSYS_OUT(recompute_fraction, "", "recompute_flops / training_flops"),
               MLSYS_OUT(checkpoints, "", "Layer inputs kept"));

namespace {

struct TrainingMemoryOut {
  TrainingMemory memory;
  std::optional<HbmFit> hbm;  // with hardware
};

}  // namespace

MLSYS_DESCRIBE(TrainingMemoryOut, MLSYS_FLAT(memory), MLSYS_FLAT(hbm));

namespace {

// The transformer configuration (defaults: a 7B-class model of width 4096).
std::vector<Field> config_fields() {
  return transformer_fields(training_defaults());
}

std::vector<Field> training_fields(bool with_pp) {
  std::vector<Field> f = config_fields();
  f.push_back(optional(number_field("params", "", "Parameter count; overrides the config's count for the model states",
                                    json(), 1.0, 1e15)));
  f.push_back(integer_field("micro_batch", "", "Sequences per micro-batch b", 1, 1, 4096));
  f.push_back(string_field("dtype", "Weight and gradient type: bf16/fp16 mixed precision (fp32 master copy) or pure fp32",
                           "bf16", {"bf16", "fp16", "fp32"}));
  f.push_back(string_field("optimizer",
                           "adam (fp32 momentum + variance), adam-8bit (bitsandbytes: 1 byte each) or sgd (with momentum)",
                           "adam", {"adam", "adam-8bit", "sgd"}));
  f.push_back(boolean_field("fp32_grads", "Gradients in an fp32 buffer (Megatron-LM, DeepSpeed): 4 bytes per parameter",
                            false));
  f.push_back(boolean_field("cpu_offload", "ZeRO-Offload: gradients and optimizer states in CPU memory, the step on the CPU",
                            false));
  f.push_back(integer_field("zero_stage", "", "ZeRO stage: 1 shards optimizer states, 2 also gradients, 3 also weights",
                            0, 0, 3));
  f.push_back(integer_field("dp", "", "Data-parallel degree (ZeRO shards over it)", 1, 1, 1048576));
  f.push_back(integer_field("tp", "", "Tensor-parallel degree t", 1, 1, 1024));
  if (with_pp) f.push_back(integer_field("pp", "", "Pipeline-parallel degree (first stage, 1F1B)", 1, 1, 1024));
  f.push_back(boolean_field("sequence_parallel", "Sequence parallelism: shard the non-matmul activations over tp", false));
  f.push_back(recompute_field("none"));
  f.push_back(boolean_field("flash_attention", "FlashAttention: the s×s attention scores are never stored", false));
  return f;
}

TrainingSetup setup_from(const Inputs& in, const ModelConfig& c, bool with_pp) {
  TrainingSetup st;
  st.micro_batch = static_cast<double>(in.integer("micro_batch"));
  st.weight_bytes = in.str("dtype") == "fp32" ? 4 : 2;
  st.adam = in.str("optimizer") != "sgd";
  st.adam_8bit = in.str("optimizer") == "adam-8bit";
  st.fp32_grads = in.boolean("fp32_grads");
  st.cpu_offload = in.boolean("cpu_offload");
  st.zero_stage = static_cast<int>(in.integer("zero_stage"));
  st.dp = static_cast<double>(in.integer("dp"));
  st.tp = static_cast<double>(in.integer("tp"));
  st.pp = with_pp ? static_cast<double>(in.integer("pp")) : 1;
  st.sequence_parallel = in.boolean("sequence_parallel");
  st.recompute = recompute_from(in);
  st.flash_attention = in.boolean("flash_attention");
  if (static_cast<long long>(c.heads) % in.integer("tp") != 0) throw InputError("tp", "'tp' must divide 'heads'.");
  if (st.pp > c.layers) throw InputError("pp", "'pp' cannot exceed 'layers'.");
  return st;
}

std::vector<Field> timeline_fields() {
  std::vector<Field> f = training_fields(true);
  f.push_back(boolean_field("persistent_grads",
                            "Gradient buffers allocated before the step and kept (DDP buckets, Megatron-LM, DeepSpeed); "
                            "false: allocated during backward and freed by zero_grad(set_to_none=True)",
                            false));
  return f;
}

double params_override(const Inputs& in) { return in.has("params") ? in.num("params") : 0; }

}  // namespace

void add_memory_calculators(Calculators& out) {
  out.add("transformer",
          "Parameter count and training FLOPs per token of a decoder-only transformer. Parameters: attention and MLP "
          "matrices (a gated MLP has three of width ffn_hidden), two norm gains per layer, a final norm, the token "
          "embedding and, when untied, the output head; no biases or learned position embeddings. Training FLOPs per "
          "token are PaLM's 6·N + 12·layers·heads·head_dim·seq with N = params_flops, every parameter in a token's "
          "matmuls: all layers, the final norm and the output head (vocab·hidden), i.e. all parameters when tied, all "
          "but the input embedding when untied; forward is a third of that. Also the parameters by component (embedding, "
          "attention, MLP, norms, untied head), the embedding share, and the training FLOPs per token split into the "
          "weight matmuls (6·N, by part) and attention over the context (12·layers·heads·head_dim·seq), with the "
          "context length at which the two are equal.",
          config_fields(), [](const Inputs& in) { return transformer_report(model_config_from(in)); });

  std::vector<Field> tm_fields = training_fields(true);
  tm_fields.push_back(hardware_field(false));
  out.add("training-memory",
          "Bytes per GPU while training: weights, gradients and optimizer states (mixed-precision Adam 2 + 2 + 12 bytes "
          "per parameter; SGD with momentum 2 + 2 + 8; pure fp32 4 + 4 + 8 or 4 + 4 + 4), sharded by ZeRO over dp and "
          "split by tp and pp (the first pipeline stage: its layers plus the embedding), and the activations of the "
          "first stage under 1F1B after Korthikanti et al. 2022 (pp micro-batches in flight, 16-bit activations, the "
          "embedding dropout mask and, with pp = 1, the output layer and loss). Per layer the attention block and norms "
          "store 15·s·b·h + 5·a·s²·b and the MLP its input and dropout mask (3·s·b·h) plus, non-gated, the first "
          "matmul's and the activation's outputs (4·s·b·f), gated, the gate and up projections and their product "
          "(6·s·b·f), f = ffn_hidden: 34·s·b·h + 5·a·s²·b for a 4h non-gated MLP. adam-8bit keeps 1-byte moments "
          "(6 bytes of optimizer state with the fp32 master copy), fp32_grads 4-byte gradients, cpu_offload moves "
          "gradients and optimizer states to offloaded_bytes. Weights, gradients, optimizer states and activations "
          "count at once, as with gradient buffers kept all step. With hardware, whether it fits in HBM.",
          tm_fields, [](const Inputs& in) {
            const ModelConfig c = model_config_from(in);
            TrainingMemoryOut r{training_memory(c, params_override(in), setup_from(in, c, true)), std::nullopt};
            if (in.has("hardware"))
              r.hbm = hbm_fit(r.memory.total_bytes, find_accelerator(in.str("hardware"))->hbm_bytes);
            return r;
          });

  out.add("training-memory-timeline",
          "Memory on one GPU across one training step of one micro-batch: weights and optimizer states throughout; "
          "the forward pass adds each layer's activations, the backward pass frees them and builds the gradients "
          "(with recomputation each layer's re-made activations, training-memory's recompute_bytes, briefly "
          "reappear), the optimizer updates in place, and zero_grad(set_to_none) frees the gradients. With pp > 1 "
          "it is the first stage under 1F1B: its layers, no output layer, and the pp − 1 micro-batches sent before "
          "this one still holding their activations. With persistent_grads the gradient buffers exist all step "
          "(DDP, Megatron-LM, DeepSpeed) and the peak equals training-memory's total. Same model and setup fields "
          "as training-memory.",
          timeline_fields(), [](const Inputs& in) {
            const ModelConfig c = model_config_from(in);
            if (c.layers > 512) throw InputError("layers", "The timeline is limited to 512 layers.");
            TrainingSetup st = setup_from(in, c, true);
            st.persistent_grads = in.boolean("persistent_grads");
            return memory_step(c, params_override(in), st);
          });

  std::vector<Field> ck = config_fields();
  ck.push_back(integer_field("micro_batch", "", "Sequences per micro-batch b", 1, 1, 4096));
  ck.push_back(integer_field("tp", "", "Tensor-parallel degree t", 1, 1, 1024));
  ck.push_back(boolean_field("sequence_parallel", "Sequence parallelism over tp", false));
  ck.push_back(boolean_field("flash_attention", "FlashAttention: the s×s scores are never stored", false));
  ck.push_back(string_field("strategy", "none, selective (attention core), every-k (keep every k-th layer input) or full",
                            "full", {"none", "selective", "every-k", "full"}));
  ck.push_back(integer_field("k", "", "Layers per checkpointed segment (every-k)", 4, 1, 1024));
  out.add("activation-checkpointing",
          "Activation memory of one GPU's layers for one micro-batch (16-bit, Korthikanti et al. 2022) and the extra "
          "forward FLOPs each checkpointing strategy spends: stored bytes at the end of the forward pass, the peak "
          "during the backward pass (stored + the segment being re-run), recompute FLOPs and their fraction of the "
          "layers' training FLOPs (forward + backward = 3 × forward).",
          ck, [](const Inputs& in) {
            const ModelConfig c = model_config_from(in);
            if (static_cast<long long>(c.heads) % in.integer("tp") != 0) throw InputError("tp", "'tp' must divide 'heads'.");
            return checkpointing(c, static_cast<double>(in.integer("micro_batch")),
                                 static_cast<double>(in.integer("tp")), in.boolean("sequence_parallel"),
                                 in.boolean("flash_attention"), in.str("strategy"), static_cast<double>(in.integer("k")));
          });
}

}  // namespace mlsys::api
