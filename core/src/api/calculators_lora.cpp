// Calculators of the fine-tuning-lora lesson: `lora` (trainable parameters and memory of full
// fine-tuning, LoRA and QLoRA, shared/API.md), `low-rank` (an executed SVD and the best rank-r
// approximation, shared/API.md) and, beyond API.md, `lora-step` (FLOPs and time per training
// step of the three methods on an accelerator of the hardware table).
#include "mlsys/finetune/lora.hpp"
#include "mlsys/finetune/low_rank.hpp"
#include "model_inputs.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(FinetuneMemory,
               MLSYS_OUT(frozen_weights_bytes, "B", "Frozen weights kept in 16 bits (LoRA: the whole base; QLoRA: embeddings, output head, norm gains)"),
               MLSYS_OUT(quantized_weights_bytes, "B", "QLoRA: the blocks' linear layers at bits_per_base_param, quantization constants included"),
               MLSYS_OUT(trainable_weights_bytes, "B", "Trained weights in 16 bits (full: every weight; LoRA and QLoRA: the adapters)"),
               MLSYS_OUT(grads_bytes, "B", "Gradients of the trained weights"),
               MLSYS_OUT(optimizer_bytes, "B", "Optimizer states of the trained weights (Adam: fp32 master copy and two moments, 12 B each)"),
               MLSYS_OUT(activations_bytes, "B", "Activations stored for the backward pass (training-memory's model; the same for the three methods)"),
               MLSYS_OUT(pageable_bytes, "B", "With paged_optimizer: optimizer states that unified memory may evict to host memory under pressure"),
               MLSYS_OUT(total_bytes, "B", "Sum of the six parts above"));
MLSYS_DESCRIBE(LoraReport, MLSYS_OUT(params, "", "Parameters of the base model"),
               MLSYS_OUT(trainable_params, "", "Adapter parameters: r·(d_in + d_out) per adapted matrix, summed over matrices and layers"),
               MLSYS_OUT(trainable_fraction, "", "trainable_params / params"),
               MLSYS_OUT(adapted_matrices, "", "Weight matrices with an adapter in the whole model"),
               MLSYS_OUT(adapted_params, "", "Base parameters inside the adapted matrices"),
               MLSYS_OUT(quantized_params, "", "Base parameters QLoRA stores quantized (every linear layer of the blocks)"),
               MLSYS_OUT(bits_per_base_param, "bit", "Bits per quantized base parameter: nf4 4.5, with double quantization 4.127; int8 8 + 32/hidden; bf16 16"),
               MLSYS_OUT(adapter_file_bytes, "B", "The adapters saved in 16 bits"),
               MLSYS_OUT(full_finetune_bytes, "B", "Full fine-tuning: every weight trained (total of its breakdown)"),
               MLSYS_OUT(lora_bytes, "B", "LoRA: 16-bit frozen base + adapters (total of its breakdown)"),
               MLSYS_OUT(qlora_bytes, "B", "QLoRA: base in base_dtype + adapters (total of its breakdown)"),
               MLSYS_OUT(full_finetune_breakdown, "", "full_finetune_bytes by part"),
               MLSYS_OUT(lora_breakdown, "", "lora_bytes by part"), MLSYS_OUT(qlora_breakdown, "", "qlora_bytes by part"),
               MLSYS_OUT(lora_saving_factor, "", "full_finetune_bytes / lora_bytes"),
               MLSYS_OUT(qlora_saving_factor, "", "full_finetune_bytes / qlora_bytes"),
               MLSYS_OUT(adapters_per_base_copy, "", "2·params / adapter_file_bytes: adapters that fit in the memory of one 16-bit copy of the base"),
               MLSYS_OUT(adapter_load_s, "s", "adapter_file_bytes / host_link_Bps: one adapter copied from host memory to the GPU"),
               MLSYS_OUT(batch_adapter_bytes, "B", "batch_adapters · adapter_file_bytes: the adapters a decode step reads when its batch holds that many distinct ones"),
               MLSYS_OUT(batch_adapter_read_ratio, "", "batch_adapter_bytes / (2·params): read on top of the 16-bit base's weights each decode step"),
               MLSYS_OUT(optimizer_page_s, "s", "LoRA's optimizer states (lora_breakdown.optimizer_bytes) over the host link, one way: what a paged optimizer moves when it evicts or fetches them all"));
MLSYS_DESCRIBE(RankError, MLSYS_OUT(rank, "", "r"),
               MLSYS_OUT(relative_error, "", "‖A − A_r‖_F / ‖A‖_F of the best rank-r approximation: √(Σ_{i>r} σ_i²) / ‖A‖_F"));
MLSYS_DESCRIBE(LowRankReport, MLSYS_OUT(singular_values, "", "σ_1 ≥ σ_2 ≥ … of the matrix, by one-sided Jacobi SVD"),
               MLSYS_OUT(norm_frobenius, "", "‖A‖_F"),
               MLSYS_OUT(error_frobenius, "", "‖A − A_r‖_F of the truncated SVD, formed and measured entry by entry"),
               MLSYS_OUT(eckart_young_error, "", "√(Σ_{i>r} σ_i²): Eckart–Young's value of that error"),
               MLSYS_OUT(relative_error, "", "error_frobenius / ‖A‖_F"),
               MLSYS_OUT(energy_kept, "", "Σ_{i≤r} σ_i² / Σ σ_i²"),
               MLSYS_OUT(full_params, "", "rows·cols: numbers in the full matrix"),
               MLSYS_OUT(factor_params, "", "r·(rows + cols): numbers in the two rank-r factors"),
               MLSYS_OUT(sweeps, "", "Jacobi sweeps until no pair needed a rotation"),
               MLSYS_OUT(by_rank, "", "Relative error of the best rank-r approximation for r = 0 … min(rows, cols)"));
MLSYS_DESCRIBE(StepRow, MLSYS_OUT(method, "", "full, lora or qlora"),
               MLSYS_OUT(flops_per_token, "FLOP", "Training FLOPs per token"),
               MLSYS_OUT(flops_per_step, "FLOP", "flops_per_token · tokens_per_step"),
               MLSYS_OUT(compute_s, "s", "flops_per_step / (peak_flops · mfu)"),
               MLSYS_OUT(dequant_s, "s", "QLoRA: dequantizing the base to bf16 each pass, bytes / bandwidth"),
               MLSYS_OUT(time_s, "s", "compute_s + dequant_s"), MLSYS_OUT(tokens_per_s, "tokens/s", "tokens_per_step / time_s"));
MLSYS_DESCRIBE(LoraStep, MLSYS_OUT(tokens_per_step, "tokens", "batch · seq"),
               MLSYS_OUT(params_flops, "", "N of PaLM's 6N: every parameter in a token's matmuls"),
               MLSYS_OUT(adapter_params, "", "LoRA's trainable parameters"),
               MLSYS_OUT(attention_flops_per_token, "FLOP", "12·L·H·Q·T: attention over the context, forward and backward"),
               MLSYS_OUT(rows, "", "Per method: FLOPs and time of one step"),
               MLSYS_OUT(lora_flops_ratio, "", "LoRA FLOPs / full fine-tuning FLOPs per step"),
               MLSYS_OUT(lora_speedup, "", "Full fine-tuning step time / LoRA step time"),
               MLSYS_OUT(qlora_slowdown, "", "QLoRA step time / LoRA step time"));

namespace {

json lora_defaults() {
  json d = published_defaults("llama-2-7b");
  d["seq"] = 2048;
  return d;
}

Field targets_field() {
  return string_field("targets", "Matrices that get an adapter: qv (W_Q, W_V), qkvo (all attention), all-linear (also the MLP)",
                      "all-linear", {"qv", "qkvo", "all-linear"});
}

Field base_dtype_field() {
  return string_field("base_dtype", "QLoRA's frozen base: nf4 (4-bit NormalFloat), int8 or bf16", "nf4",
                      {"nf4", "int8", "bf16"});
}

}  // namespace

void add_lora_calculators(Calculators& out) {
  {
    std::vector<Field> f = transformer_fields(lora_defaults());
    f.push_back(optional(number_field("params", "", "Parameter count; overrides the config's (scaled over its parts)",
                                      json(), 1.0, 1e15)));
    f.push_back(integer_field("rank", "", "LoRA rank r", 16, 1, 4096));
    f.push_back(targets_field());
    f.push_back(base_dtype_field());
    f.push_back(boolean_field("double_quant", "Double quantization: the NF4 block constants in 8 bits", true));
    f.push_back(string_field("optimizer", "Optimizer of the trained weights: adam (12 B of states), adam-8bit (6 B) or sgd (8 B)",
                             "adam", {"adam", "adam-8bit", "sgd"}));
    f.push_back(boolean_field("paged_optimizer", "Paged optimizer: states in unified memory, evicted to host under pressure", false));
    f.push_back(integer_field("micro_batch", "", "Sequences per micro-batch", 1, 1, 1024));
    f.push_back(recompute_field("none"));
    f.push_back(boolean_field("flash_attention", "FlashAttention: the attention scores are never stored", true));
    f.push_back(number_field("host_link_Bps", "B/s",
                             "Host-to-GPU link, one direction (default PCIe 5.0 x16, the interconnect table's pcie5-x16)",
                             32e9 * 16 * 128.0 / 130 / 8, 0.0, 1e13, true));
    f.push_back(integer_field("batch_adapters", "", "Distinct adapters in one serving batch", 32, 1, 1000000));
    out.add("lora",
            "Trainable parameters and memory of full fine-tuning, LoRA and QLoRA. LoRA adds r·(d_in + d_out) parameters "
            "per adapted matrix and freezes the 16-bit base; QLoRA stores the blocks' linear layers in 4-bit NormalFloat "
            "(blocks of 64, 4.5 bits, or 4.127 with double quantization). Trained weights cost bf16 weights and gradients "
            "plus the optimizer's states; activations follow training-memory.",
            f, [](const Inputs& in) {
              LoraSetup s;
              s.rank = static_cast<double>(in.integer("rank"));
              s.targets = in.str("targets");
              s.base_dtype = in.str("base_dtype");
              s.double_quant = in.boolean("double_quant");
              s.optimizer = in.str("optimizer");
              s.paged_optimizer = in.boolean("paged_optimizer");
              s.micro_batch = static_cast<double>(in.integer("micro_batch"));
              s.recompute = recompute_from(in);
              s.flash_attention = in.boolean("flash_attention");
              s.host_link_Bps = in.num("host_link_Bps");
              s.batch_adapters = static_cast<double>(in.integer("batch_adapters"));
              return lora_report(model_config_from(in), in.has("params") ? in.num("params") : 0, s);
            });
  }

  out.add("low-rank",
          "An executed SVD (one-sided Jacobi) of a seeded rows × cols matrix with singular values decay^(i−1) for i ≤ "
          "true_rank plus Gaussian noise (entries noise/√max(rows, cols)): the singular values, the error of the best "
          "rank-r approximation (Eckart–Young: the root of the sum of the dropped σ²) and the error at every rank.",
          {integer_field("rows", "", "Rows of the matrix (d_out)", 96, 2, kMaxLowRankDim),
           integer_field("cols", "", "Columns of the matrix (d_in)", 64, 2, kMaxLowRankDim),
           integer_field("true_rank", "", "Singular values above the noise", 8, 1, kMaxLowRankDim),
           number_field("decay", "", "Ratio of each planted singular value to the one before", 0.7, 0.0, 1.0, true),
           number_field("noise", "", "Noise level: entries noise/√max(rows, cols), so σ of the noise ≈ noise·(1 + √(min/max))", 0.02, 0.0, 10.0),
           integer_field("rank", "", "Rank r of the approximation", 4, 0, kMaxLowRankDim), seed_field(1)},
          [](const Inputs& in) {
            return low_rank(in.integer("rows"), in.integer("cols"), in.integer("true_rank"), in.num("decay"),
                            in.num("noise"), in.integer("rank"), static_cast<std::uint64_t>(in.integer("seed")));
          });

  {
    std::vector<Field> f = transformer_fields(lora_defaults());
    f.push_back(integer_field("rank", "", "LoRA rank r", 16, 1, 4096));
    f.push_back(targets_field());
    f.push_back(integer_field("batch", "", "Sequences per step", 8, 1, 65536));
    f.push_back(base_dtype_field());
    f.push_back(boolean_field("double_quant", "Double quantization of the NF4 constants", true));
    f.push_back(boolean_field("full_recompute", "Full activation recomputation: one more forward pass (and dequantization)", false));
    f.push_back(hardware_field(true));
    f.push_back(dtype_field("bf16"));
    f.push_back(number_field("mfu", "", "Share of the peak the matmuls reach", 0.4, 0.0, 1.0, true));
    out.add("lora-step",
            "FLOPs and time of one training step of batch · seq tokens. Full fine-tuning: 6N + 12·L·H·Q·T per token. "
            "LoRA: 4N (no weight gradients for the frozen base) + 12·L·H·Q·T + 6 per adapter parameter. QLoRA: LoRA's "
            "FLOPs plus dequantizing the base each pass at the memory bandwidth. Time = FLOPs / (peak · mfu).",
            with_machine(f), [](const Inputs& in) {
              const Machine m = machine_from(in, in.str("dtype"));
              return lora_step(model_config_from(in), static_cast<double>(in.integer("rank")), in.str("targets"),
                               static_cast<double>(in.integer("batch")), in.str("base_dtype"), in.boolean("double_quant"),
                               in.boolean("full_recompute"), m.peak_flops, m.bandwidth_Bps, in.num("mfu"));
            });
  }
}

}  // namespace mlsys::api
