// Calculators of the tensor-pipeline-parallel lesson: `tensor-parallel` (Megatron all-reduces of
// one layer against its compute), `pipeline` (the schedule simulator, shared/API.md) and `layout`
// (TP × PP × DP search, shared/API.md).
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/parallel/layout_search.hpp"
#include "mlsys/parallel/pipeline_schedule.hpp"
#include "mlsys/parallel/tensor_parallel.hpp"
#include "model_inputs.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

struct TensorParallelOut {
  TensorParallelCost cost;
  std::string link, algorithm;
  double link_bandwidth_Bps, nic_bandwidth_Bps, node_nic_bandwidth_Bps, peak_flops, flops_per_link_byte;
};

}  // namespace

// An op's kind is one letter, printed as a string.

MLSYS_DESCRIBE(TensorParallelCost, MLSYS_OUT(allreduce_bytes, "B", "S = s·b·h·2: the buffer of one all-reduce"),
               MLSYS_OUT(allreduces_forward, "", "All-reduces in the forward pass (after attention, after the MLP)"),
               MLSYS_OUT(allreduces_backward, "", "All-reduces in the backward pass"),
               MLSYS_OUT(allreduce_bytes_per_layer, "B", "(2 + 2)·S: all-reduce buffers of one layer"),
               MLSYS_OUT(sent_bytes_per_gpu, "B", "What one GPU sends for them: 4 · 2(t−1)/t · S (ring or hierarchical)"),
               MLSYS_OUT(flops_forward_per_gpu, "FLOP", "(2·b·s·(4h² + 2hf) + 4·b·s²·h) / t"),
               MLSYS_OUT(flops_per_gpu, "FLOP", "Forward + backward (3× forward) on one GPU"),
               MLSYS_OUT(comm_time_s, "s", "The four all-reduces (ring in a node, hierarchical across nodes)"),
               MLSYS_OUT(comm_intra_s, "s", "Their time on the scale-up link (NVLink)"),
               MLSYS_OUT(comm_inter_s, "s", "Their time on the NICs between nodes (0 inside one node)"),
               MLSYS_OUT(nodes, "", "Nodes the tensor-parallel group spans"),
               MLSYS_OUT(compute_time_s, "s", "flops_per_gpu / peak"), MLSYS_OUT(ratio, "", "comm_time_s / compute_time_s"),
               MLSYS_OUT(qkv_cols_per_gpu, "", "Columns of W_QKV per GPU: 3h/t"),
               MLSYS_OUT(mlp_cols_per_gpu, "", "Columns of the first MLP matrix per GPU: f/t"),
               MLSYS_OUT(mlp_rows_per_gpu, "", "Rows of the second MLP matrix per GPU: f/t"),
               MLSYS_OUT(weight_params_per_gpu, "", "Weights per GPU: (4h² + 2hf) / t"));
MLSYS_DESCRIBE(TensorParallelOut, MLSYS_FLAT(cost),
               MLSYS_OUT(link, "", "intra-node (the group in one node) or inter-node (it spans nodes)"),
               MLSYS_OUT(algorithm, "", "ring (inside a node) or hierarchical (across nodes, every GPU on its own NIC)"),
               MLSYS_OUT(link_bandwidth_Bps, "B/s", "Scale-up (NVLink) bandwidth per GPU per direction used (the NIC's with one GPU per node)"),
               MLSYS_OUT(nic_bandwidth_Bps, "B/s", "One GPU's NIC per direction (inter_bandwidth_Bps)"),
               MLSYS_OUT(node_nic_bandwidth_Bps, "B/s",
                         "A node's NICs together per direction, inter_bandwidth_Bps × gpus_per_node (rail-aligned)"),
               MLSYS_OUT(peak_flops, "FLOP/s", "Peak FLOP/s used"),
               MLSYS_OUT(flops_per_link_byte, "FLOP/B", "P/B: peak FLOP/s per byte/s of the scale-up link, per direction"));
MLSYS_DESCRIBE(PipelineOp, MLSYS_OUT(stage, "", "Stage (GPU)"), MLSYS_OUT(microbatch, "", "Micro-batch"),
               MLSYS_OUT(chunk, "", "Model chunk"), MLSYS_OUT(kind, "", "F (forward) or B (backward)"),
               MLSYS_OUT(start_s, "s", "Start"), MLSYS_OUT(end_s, "s", "End"));
MLSYS_DESCRIBE(PipelineResult, MLSYS_OUT(step_time_s, "s", "End of the last op"),
               MLSYS_OUT_AS("ideal_time_s", busy_per_stage_s, "s", "m·(forward_s + backward_s): the step with no bubble"),
               MLSYS_OUT(bubble_time_s, "s", "step_time_s − ideal_time_s"),
               MLSYS_OUT(bubble_fraction, "", "Idle share of the stages' time"),
               MLSYS_OUT(bubble_ratio, "", "Idle time / ideal time per stage"),
               MLSYS_OUT(bubble_ratio_formula, "", "(p−1)/(v·m), exact with p2p_s = 0"),
               MLSYS_OUT(peak_inflight_microbatches, "", "Most micro-batch activations stage 0 holds"),
               MLSYS_OUT(peak_inflight_per_stage, "", "Per stage, the most micro-batch activations held"),
               MLSYS_OUT(peak_inflight_chunks_per_stage, "", "Per stage, the most chunk activations held"),
               MLSYS_OUT(method, "", "executed or closed-form"),
               MLSYS_OUT(timeline, "", "Executed ops by stage then start time (empty for the closed form)"));
MLSYS_DESCRIBE(Layout, MLSYS_OUT(tp, "", "Tensor-parallel degree"), MLSYS_OUT(pp, "", "Pipeline-parallel degree"),
               MLSYS_OUT(dp, "", "Data-parallel degree"),
               MLSYS_OUT(microbatches, "", "Micro-batches per pipeline per step: global_batch / (dp · micro_batch)"),
               MLSYS_OUT(memory_per_gpu_bytes, "B", "Memory of the first pipeline stage's GPU"),
               MLSYS_OUT(model_states_bytes, "B", "Its weights, gradients and optimizer states"),
               MLSYS_OUT(activations_bytes, "B", "Its stored activations"),
               MLSYS_OUT(fits, "", "memory_per_gpu_bytes ≤ hbm_bytes"), MLSYS_OUT(step_time_s, "s", "pipeline_s + dp_comm_s"),
               MLSYS_OUT(compute_s, "s", "Compute of a step on one GPU, without communication"),
               MLSYS_OUT(tp_comm_s, "s", "Tensor-parallel all-reduces of a step on one GPU"),
               MLSYS_OUT(p2p_s, "s", "One activation message between stages"),
               MLSYS_OUT(forward_s, "s", "One micro-batch forward through one stage, all-reduces included"),
               MLSYS_OUT(backward_s, "s", "The same backward"),
               MLSYS_OUT(pipeline_s, "s", "The 1F1B schedule of the step, bubble and messages included"),
               MLSYS_OUT(bubble_fraction, "", "Idle share of the pipeline time"),
               MLSYS_OUT(dp_comm_s, "s",
                         "Gradient reduce-scatter + parameter all-gather (ring in a node, hierarchical across nodes), "
                         "not overlapped"),
               MLSYS_OUT(dp_ranks_per_node, "", "Ranks of one data-parallel group on one node (gpus_per_node / tp across nodes)"),
               MLSYS_OUT(tokens_per_s, "tokens/s", "global_batch · seq / step_time_s"),
               MLSYS_OUT(mfu, "", "Model FLOPs per second / (gpus · peak)"),
               MLSYS_OUT(pipeline_method, "", "executed or closed-form"));
MLSYS_DESCRIBE(LayoutSearch, MLSYS_OUT(layouts, "", "Valid layouts, best first"),
               MLSYS_OUT(hbm_bytes, "B", "Memory of one GPU"), MLSYS_OUT(params, "", "Parameters of the model"),
               MLSYS_OUT(valid_layouts, "", "Layouts listed"), MLSYS_OUT(fitting_layouts, "", "Those that fit in memory"),
               MLSYS_OUT(skipped_factorizations, "", "Factorizations rejected by the constraints"),
               MLSYS_OUT(intra_bandwidth_Bps, "B/s", "Intra-node bandwidth per direction used"),
               MLSYS_OUT(assumptions, "", "What the model assumes"));

namespace {

constexpr double kInterBandwidth = 50e9;  // 400 Gb/s NDR InfiniBand per GPU per direction (DGX H100)



const Accelerator& accelerator(const Inputs& in) { return *find_accelerator(in.str("hardware")); }

double bf16_peak(const Accelerator& hw) {
  if (auto p = hw.peak_for("bf16")) return *p;
  throw InputError("hardware", hw.name + " has no dense bf16 rate in the hardware table.");
}

// --- tensor-parallel -------------------------------------------------------------------

TensorParallelOut tensor_parallel_run(const Inputs& in) {
  TensorParallelLayer l;
  l.hidden = static_cast<double>(in.integer("hidden"));
  l.ffn_hidden = in.has("ffn_hidden") ? static_cast<double>(in.integer("ffn_hidden")) : 4 * l.hidden;
  l.seq = static_cast<double>(in.integer("seq"));
  l.micro_batch = static_cast<double>(in.integer("micro_batch"));
  l.tp = static_cast<int>(in.integer("tp"));
  const Accelerator& hw = accelerator(in);
  const double peak = in.has("peak_flops") ? in.num("peak_flops") : bf16_peak(hw);
  // A ring on the scale-up link inside a node; across nodes the hierarchical algorithm, NVLink
  // inside each node and every GPU's own NIC between them. Nodes of one GPU have no scale-up
  // link: every step is on the NICs.
  const int per_node = static_cast<int>(in.integer("gpus_per_node"));
  const Link inter{in.num("inter_latency_s"), in.num("inter_bandwidth_Bps")};
  const Link intra = per_node == 1 ? inter
                     : in.has("link_bandwidth_Bps")
                         ? Link{in.num("latency_s"), in.num("link_bandwidth_Bps")}
                         : Link{in.num("latency_s"), hw.scaleup_per_direction_Bps("link_bandwidth_Bps")};
  const TensorParallelCost cost = tensor_parallel_layer(l, peak, per_node, intra, inter);
  const bool in_node = cost.nodes == 1;
  return {cost,
          in_node ? "intra-node" : "inter-node",
          in_node ? "ring" : "hierarchical",
          intra.bandwidth_Bps,
          inter.bandwidth_Bps,
          inter.bandwidth_Bps * per_node,
          peak,
          peak / intra.bandwidth_Bps};
}

std::vector<Field> tensor_parallel_fields() {
  std::vector<Field> f = {
      integer_field("hidden", "", "Model width h", 8192, 64, 131072),
      optional(integer_field("ffn_hidden", "", "MLP inner width f; default 4·hidden", json(), 1, 1048576)),
      integer_field("seq", "tokens", "Tokens per sequence s", 4096, 1, 1048576),
      integer_field("micro_batch", "", "Sequences per micro-batch b", 1, 1, 4096),
      integer_field("tp", "", "Tensor-parallel degree t (GPUs sharing each layer)", 8, 1, 256),
      integer_field("gpus_per_node", "", "GPUs joined by the scale-up link; a larger t crosses nodes", 8, 1, 256),
      hardware_field(true),
      optional(number_field("peak_flops", "FLOP/s", "Peak FLOP/s; overrides the hardware's dense bf16 peak", json(), 0.0,
                            1e21, true)),
      optional(number_field("link_bandwidth_Bps", "B/s",
                            "Scale-up bandwidth per direction; default half the hardware's (both directions summed)",
                            json(), 0.0, 1e15, true)),
      number_field("latency_s", "s", "Latency α of one message on the scale-up link", 2e-6, 0.0, 1.0),
      number_field("inter_bandwidth_Bps", "B/s", "One GPU's NIC, per direction (400 Gb/s InfiniBand; one NIC per GPU, rail-aligned, as in a DGX H100)",
                   kInterBandwidth, 0.0, 1e15, true),
      number_field("inter_latency_s", "s", "Latency α of one inter-node message", 5e-6, 0.0, 1.0)};
  return f;
}

// --- pipeline --------------------------------------------------------------------------

PipelineResult pipeline_run(const Inputs& in) {
  PipelineConfig c;
  c.schedule = parse_pipeline_schedule(in.str("schedule"));
  c.stages = static_cast<int>(in.integer("stages"));
  c.microbatches = static_cast<int>(in.integer("microbatches"));
  c.chunks = static_cast<int>(in.integer("chunks"));
  c.forward_s = in.num("forward_s");
  c.backward_s = in.num("backward_s");
  c.p2p_s = in.num("p2p_s");
  return simulate_pipeline(c);
}

// --- layout ----------------------------------------------------------------------------

// The transformer fields of `training-memory`, with Llama 2 70B as the default.
std::vector<Field> layout_fields() {
  // Llama 2 70B's configuration, its 8 KV heads and 4,096-token sequences included; head_dim
  // follows hidden / heads.
  json defaults = model_defaults("llama-2-70b");
  defaults["head_dim"] = nullptr;
  std::vector<Field> f = transformer_fields(defaults);
  for (Field g : {integer_field("gpus", "", "GPUs to lay out", 64, 1, 4096),
                  integer_field("gpus_per_node", "", "GPUs per node (joined by NVLink); tensor parallelism stays inside",
                                8, 1, 256),
                  hardware_field(true), integer_field("global_batch", "", "Sequences per optimizer step", 512, 1, 1048576),
                  integer_field("micro_batch", "", "Sequences per micro-batch b", 1, 1, 4096),
                  optional(integer_field("tp", "", "List only layouts with this tensor-parallel degree", json(), 1, 4096)),
                  optional(integer_field("pp", "", "List only layouts with this pipeline-parallel degree", json(), 1, 4096)),
                  integer_field("zero_stage", "", "ZeRO stage over the data-parallel group", 1, 0, 3),
                  recompute_field("selective"),
                  boolean_field("sequence_parallel", "Megatron sequence parallelism inside the tensor-parallel group", true),
                  number_field("matmul_efficiency", "", "Fraction of the bf16 peak the layers' matmuls reach", 0.6, 0.01, 1.0),
                  number_field("latency_s", "s", "Latency α of one NVLink message", 2e-6, 0.0, 1.0),
                  number_field("inter_bandwidth_Bps", "B/s", "One GPU's NIC, per direction (400 Gb/s InfiniBand; one NIC per GPU, rail-aligned, as in a DGX H100)",
                               kInterBandwidth, 0.0, 1e15, true),
                  number_field("inter_latency_s", "s", "Latency α of one inter-node message", 5e-6, 0.0, 1.0)})
    f.push_back(std::move(g));
  return f;
}

LayoutSearch layout_run(const Inputs& in) {
  LayoutProblem pr;
  pr.model = model_config_from(in);
  pr.gpus = static_cast<int>(in.integer("gpus"));
  pr.gpus_per_node = static_cast<int>(in.integer("gpus_per_node"));
  pr.global_batch = static_cast<double>(in.integer("global_batch"));
  pr.micro_batch = static_cast<double>(in.integer("micro_batch"));
  if (in.integer("micro_batch") > in.integer("global_batch"))
    throw InputError("micro_batch", "'micro_batch' cannot exceed 'global_batch'.");
  const Accelerator& hw = accelerator(in);
  pr.peak_flops = bf16_peak(hw);
  pr.hbm_bytes = hw.hbm_bytes;
  pr.matmul_efficiency = in.num("matmul_efficiency");
  pr.intra = {in.num("latency_s"),
              pr.gpus_per_node > 1 ? hw.scaleup_per_direction_Bps("link_bandwidth_Bps") : in.num("inter_bandwidth_Bps")};
  pr.inter = {in.num("inter_latency_s"), in.num("inter_bandwidth_Bps")};
  pr.zero_stage = static_cast<int>(in.integer("zero_stage"));
  pr.sequence_parallel = in.boolean("sequence_parallel");
  pr.recompute = recompute_from(in);
  pr.only_tp = in.has("tp") ? static_cast<int>(in.integer("tp")) : 0;
  pr.only_pp = in.has("pp") ? static_cast<int>(in.integer("pp")) : 0;
  return layout_search(pr);
}

}  // namespace

void add_model_parallel_calculators(Calculators& out) {
  out.add(
      "tensor-parallel",
       "Megatron tensor parallelism of one transformer layer and micro-batch: the column-then-row split needs two "
       "all-reduces of the s·b·h bf16 activations in the forward pass and two in the backward pass; their time (a "
       "ring on the scale-up link inside a node; beyond gpus_per_node the hierarchical algorithm, NVLink inside the "
       "nodes and every GPU's own NIC between them, on whole nodes) against the layer's compute per GPU, "
       "3·(2·b·s·(4h² + 2hf) + 4·b·s²·h)/t FLOPs at the dense bf16 peak.",
       tensor_parallel_fields(), tensor_parallel_run);

  out.add(
      "pipeline",
       "Executes a pipeline schedule (gpipe, 1f1b or interleaved-1f1b) op by op against its dependencies and returns "
       "the timeline, step time, bubble and activations in flight. forward_s and backward_s are one micro-batch "
       "through one whole stage (each of the v chunks takes 1/v of it); p2p_s is one message between stages, during "
       "which it holds its sender's link (each stage sends one message at a time). Above "
       "stages·microbatches·chunks = 4096 the closed form is used (method says which).",
       {string_field("schedule", "gpipe, 1f1b or interleaved-1f1b", "1f1b", {"gpipe", "1f1b", "interleaved-1f1b"}),
        integer_field("stages", "", "Pipeline stages p (GPUs in the pipeline)", 4, 1, 256),
        integer_field("microbatches", "", "Micro-batches m per step", 8, 1, 4096),
        integer_field("chunks", "", "Model chunks v per stage (interleaved-1f1b only)", 1, 1, 64),
        number_field("forward_s", "s", "Forward time of one micro-batch on one stage", 1e-3, 0.0, 1e4, true),
        number_field("backward_s", "s", "Backward time of one micro-batch on one stage", 2e-3, 0.0, 1e4, true),
        number_field("p2p_s", "s", "Time of one point-to-point message between stages; it holds the sender's link", 0.0, 0.0, 1e4)},
       pipeline_run);

  out.add(
      "layout",
       "Every TP × PP × DP layout of the GPUs that Megatron can run (tp within a node and dividing heads and kv_heads, "
       "pp dividing layers, dp · micro_batch dividing global_batch; across nodes the groups on whole nodes: tp dividing "
       "gpus_per_node, tp · dp dividing it or a multiple of it), sorted best first: fitting layouts by step time, "
       "then those that do not fit (tp or pp, when given, restrict the list). Memory per GPU is the training-memory model's first pipeline stage (bf16 Adam, "
       "ZeRO over dp, sequence parallelism and recomputation as given). Step time = the executed 1F1B schedule of "
       "global_batch / (dp · micro_batch) micro-batches, whose forward and backward times are compute at "
       "matmul_efficiency × the bf16 peak plus the tensor-parallel all-reduces (ring over NVLink), with the stage "
       "messages over InfiniBand, plus the data-parallel gradient exchange (not overlapped; ranks tensor-fastest, then "
       "data, then pipeline, so a data-parallel group has gpus_per_node / tp ranks on each of its nodes: a ring on "
       "NVLink inside a node, the hierarchical algorithm across nodes with every GPU on its own NIC).",
       layout_fields(), layout_run);
}

}  // namespace mlsys::api
