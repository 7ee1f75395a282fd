// Calculators of the tensor-pipeline-parallel lesson: `tensor-parallel` (Megatron all-reduces of
// one layer against its compute), `pipeline` (the schedule simulator, shared/API.md) and `layout`
// (TP × PP × DP search, shared/API.md).
#include <algorithm>
#include <cmath>

#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/parallel/layout_search.hpp"
#include "mlsys/parallel/pipeline_schedule.hpp"
#include "mlsys/parallel/tensor_parallel.hpp"
#include "model_inputs.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

constexpr double kInterBandwidth = 50e9;  // 400 Gb/s NDR InfiniBand per GPU per direction (DGX H100)


// Per-direction bandwidth of the scale-up link (NVLink-class) of a GPU: the table quotes both
// directions summed.
double scaleup_per_direction(const Accelerator& hw) {
  const auto it = hw.json().find("scaleup_bandwidth_Bps");
  const double both = it != hw.json().end() && it->is_number() ? it->get<double>() : 0.0;
  if (!(both > 0))
    throw InputError("hardware", hw.name + " has no scale-up (NVLink-class) link in the hardware table; choose another "
                                           "accelerator or give 'link_bandwidth_Bps'.");
  return both / 2;
}

const Accelerator& accelerator(const Inputs& in) { return *find_accelerator(in.str("hardware")); }

double bf16_peak(const Accelerator& hw) {
  if (auto p = hw.peak_for("bf16")) return *p;
  throw InputError("hardware", hw.name + " has no dense bf16 rate in the hardware table.");
}

// --- tensor-parallel -------------------------------------------------------------------

json tensor_parallel_run(const Inputs& in) {
  TensorParallelLayer l;
  l.hidden = static_cast<double>(in.integer("hidden"));
  l.ffn_hidden = in.has("ffn_hidden") ? static_cast<double>(in.integer("ffn_hidden")) : 4 * l.hidden;
  l.seq = static_cast<double>(in.integer("seq"));
  l.micro_batch = static_cast<double>(in.integer("micro_batch"));
  l.tp = static_cast<int>(in.integer("tp"));
  const long long gpn = in.integer("gpus_per_node");
  const Accelerator& hw = accelerator(in);
  const double peak = in.has("peak_flops") ? in.num("peak_flops") : bf16_peak(hw);
  const bool in_node = l.tp <= gpn;
  Link link{};
  if (in_node) {
    link = {in.num("latency_s"), in.has("link_bandwidth_Bps") ? in.num("link_bandwidth_Bps") : scaleup_per_direction(hw)};
  } else {
    link = {in.num("inter_latency_s"), in.num("inter_bandwidth_Bps")};
  }
  const TensorParallelCost c = tensor_parallel_layer(l, peak, link);
  return {{"allreduce_bytes", c.allreduce_bytes},
          {"allreduces_forward", c.allreduces_forward},
          {"allreduces_backward", c.allreduces_backward},
          {"allreduce_bytes_per_layer", c.allreduce_bytes_per_layer},
          {"sent_bytes_per_gpu", c.sent_bytes_per_gpu},
          {"flops_forward_per_gpu", c.flops_forward_per_gpu},
          {"flops_per_gpu", c.flops_per_gpu},
          {"comm_time_s", c.comm_time_s},
          {"compute_time_s", c.compute_time_s},
          {"ratio", c.ratio},
          {"link", in_node ? "intra-node" : "inter-node"},
          {"link_bandwidth_Bps", link.bandwidth_Bps},
          {"peak_flops", peak},
          {"qkv_cols_per_gpu", c.qkv_cols_per_gpu},
          {"mlp_cols_per_gpu", c.mlp_cols_per_gpu},
          {"mlp_rows_per_gpu", c.mlp_rows_per_gpu},
          {"weight_params_per_gpu", c.weight_params_per_gpu}};
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
      number_field("inter_bandwidth_Bps", "B/s", "Inter-node bandwidth per GPU per direction (400 Gb/s InfiniBand)",
                   kInterBandwidth, 0.0, 1e15, true),
      number_field("inter_latency_s", "s", "Latency α of one inter-node message", 5e-6, 0.0, 1.0)};
  return f;
}

// --- pipeline --------------------------------------------------------------------------

json pipeline_run(const Inputs& in) {
  PipelineConfig c;
  c.schedule = parse_pipeline_schedule(in.str("schedule"));
  c.stages = static_cast<int>(in.integer("stages"));
  c.microbatches = static_cast<int>(in.integer("microbatches"));
  c.chunks = static_cast<int>(in.integer("chunks"));
  c.forward_s = in.num("forward_s");
  c.backward_s = in.num("backward_s");
  c.p2p_s = in.num("p2p_s");
  const PipelineResult r = simulate_pipeline(c);
  json timeline = json::array();
  for (const auto& op : r.timeline)
    timeline.push_back({{"stage", op.stage},
                        {"microbatch", op.microbatch},
                        {"chunk", op.chunk},
                        {"kind", std::string(1, op.kind)},
                        {"start_s", op.start_s},
                        {"end_s", op.end_s}});
  const double ideal = c.microbatches * (c.forward_s + c.backward_s);
  return {{"step_time_s", r.step_time_s},
          {"ideal_time_s", ideal},
          {"bubble_time_s", r.step_time_s - ideal},
          {"bubble_fraction", r.bubble_fraction},
          {"bubble_ratio", r.bubble_ratio},
          {"bubble_ratio_formula", (c.stages - 1.0) / (static_cast<double>(c.chunks) * c.microbatches)},
          {"peak_inflight_microbatches", r.peak_inflight_per_stage.front()},
          {"peak_inflight_per_stage", r.peak_inflight_per_stage},
          {"peak_inflight_chunks_per_stage", r.peak_inflight_chunks_per_stage},
          {"method", r.executed ? "executed" : "closed-form"},
          {"timeline", timeline}};
}

// --- layout ----------------------------------------------------------------------------

// The transformer fields of `training-memory`, with a Llama-2-70B-like default.
std::vector<Field> layout_fields() {
  return {integer_field("layers", "", "Transformer layers L", 80, 1, 1024),
          integer_field("hidden", "", "Model width h", 8192, 64, 131072),
          integer_field("heads", "", "Attention (query) heads a", 64, 1, 1024),
          integer_field("kv_heads", "", "Key/value heads (grouped-query attention)", 8, 1, 1024),
          optional(integer_field("head_dim", "", "Size of one head; default hidden / heads", json(), 8, 1024)),
          integer_field("ffn_hidden", "", "MLP inner width", 28672, 1, 1048576),
          integer_field("seq", "tokens", "Tokens per sequence s", 4096, 1, 1048576),
          integer_field("vocab", "", "Vocabulary size", 32000, 1, 4194304),
          boolean_field("gated_mlp", "Gated MLP (SwiGLU): three matrices of width ffn_hidden", true),
          boolean_field("tied_embeddings", "Output head shares the input embedding matrix", false),
          integer_field("gpus", "", "GPUs to lay out", 64, 1, 4096),
          integer_field("gpus_per_node", "", "GPUs per node (joined by NVLink); tensor parallelism stays inside", 8, 1, 256),
          hardware_field(true),
          integer_field("global_batch", "", "Sequences per optimizer step", 512, 1, 1048576),
          integer_field("micro_batch", "", "Sequences per micro-batch b", 1, 1, 4096),
          optional(integer_field("tp", "", "List only layouts with this tensor-parallel degree", json(), 1, 4096)),
          optional(integer_field("pp", "", "List only layouts with this pipeline-parallel degree", json(), 1, 4096)),
          integer_field("zero_stage", "", "ZeRO stage over the data-parallel group", 1, 0, 3),
          string_field("recompute", "Activation recomputation: none, selective (attention core) or full", "selective",
                       {"none", "selective", "full"}),
          boolean_field("sequence_parallel", "Megatron sequence parallelism inside the tensor-parallel group", true),
          number_field("matmul_efficiency", "", "Fraction of the bf16 peak the layers' matmuls reach", 0.6, 0.01, 1.0),
          number_field("latency_s", "s", "Latency α of one NVLink message", 2e-6, 0.0, 1.0),
          number_field("inter_bandwidth_Bps", "B/s", "Inter-node bandwidth per GPU per direction (400 Gb/s InfiniBand)",
                       kInterBandwidth, 0.0, 1e15, true),
          number_field("inter_latency_s", "s", "Latency α of one inter-node message", 5e-6, 0.0, 1.0)};
}

json layout_json(const Layout& L) {
  return {{"tp", L.tp},
          {"pp", L.pp},
          {"dp", L.dp},
          {"microbatches", L.microbatches},
          {"memory_per_gpu_bytes", L.memory_per_gpu_bytes},
          {"model_states_bytes", L.model_states_bytes},
          {"activations_bytes", L.activations_bytes},
          {"fits", L.fits},
          {"step_time_s", L.step_time_s},
          {"compute_s", L.compute_s},
          {"tp_comm_s", L.tp_comm_s},
          {"p2p_s", L.p2p_s},
          {"forward_s", L.forward_s},
          {"backward_s", L.backward_s},
          {"pipeline_s", L.pipeline_s},
          {"bubble_fraction", L.bubble_fraction},
          {"dp_comm_s", L.dp_comm_s},
          {"tokens_per_s", L.tokens_per_s},
          {"mfu", L.mfu},
          {"pipeline_method", L.pipeline_executed ? "executed" : "closed-form"}};
}

json layout_run(const Inputs& in) {
  LayoutProblem pr;
  pr.model = model_config_from(in);
  const ModelConfig& c = pr.model;
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
  pr.intra = {in.num("latency_s"), pr.gpus_per_node > 1 ? scaleup_per_direction(hw) : in.num("inter_bandwidth_Bps")};
  pr.inter = {in.num("inter_latency_s"), in.num("inter_bandwidth_Bps")};
  pr.zero_stage = static_cast<int>(in.integer("zero_stage"));
  pr.sequence_parallel = in.boolean("sequence_parallel");
  const std::string r = in.str("recompute");
  pr.recompute = r == "full" ? Recompute::Full : r == "selective" ? Recompute::Selective : Recompute::None;
  pr.only_tp = in.has("tp") ? static_cast<int>(in.integer("tp")) : 0;
  pr.only_pp = in.has("pp") ? static_cast<int>(in.integer("pp")) : 0;
  int skipped = 0;
  const std::vector<Layout> layouts = search_layouts(pr, &skipped);
  if (layouts.empty() && (pr.only_tp > 0 || pr.only_pp > 0))
    throw InputError(pr.only_tp > 0 ? "tp" : "pp", "No valid layout of " + std::to_string(pr.gpus) +
                                                      " GPUs has the requested tp / pp (tp ≤ gpus_per_node and divides "
                                                      "heads and kv_heads, pp divides layers, tp·pp divides gpus).");
  if (layouts.empty())
    throw InputError("gpus", "No TP × PP × DP layout of " + std::to_string(pr.gpus) +
                                 " GPUs satisfies the constraints (tp ≤ gpus_per_node and divides heads and kv_heads, pp "
                                 "divides layers, dp · micro_batch divides global_batch).");
  json list = json::array();
  for (const auto& L : layouts) list.push_back(layout_json(L));
  const auto fitting = std::count_if(layouts.begin(), layouts.end(), [](const Layout& L) { return L.fits; });
  return {{"layouts", list},
          {"hbm_bytes", pr.hbm_bytes},
          {"params", model_counts(c).params},
          {"valid_layouts", static_cast<int>(layouts.size())},
          {"fitting_layouts", static_cast<int>(fitting)},
          {"skipped_factorizations", skipped},
          {"intra_bandwidth_Bps", pr.intra.bandwidth_Bps},
          {"assumptions",
           "bf16 mixed-precision Adam, ZeRO stage as given over dp, memory of the first pipeline stage under 1F1B "
           "(training-memory), matmuls at matmul_efficiency × the bf16 peak, TP all-reduces and PP messages not "
           "overlapped with compute, the data-parallel gradient exchange after the backward pass, ring collectives"}};
}

}  // namespace

void add_model_parallel_calculators(Calculators& out) {
  out.push_back(
      {"tensor-parallel",
       "Megatron tensor parallelism of one transformer layer and micro-batch: the column-then-row split needs two "
       "all-reduces of the s·b·h bf16 activations in the forward pass and two in the backward pass; their ring time "
       "(scale-up link inside a node, InfiniBand beyond gpus_per_node) against the layer's compute per GPU, "
       "3·(2·b·s·(4h² + 2hf) + 4·b·s²·h)/t FLOPs at the dense bf16 peak.",
       tensor_parallel_fields(), tensor_parallel_run});

  out.push_back(
      {"pipeline",
       "Executes a pipeline schedule (gpipe, 1f1b or interleaved-1f1b) op by op against its dependencies and returns "
       "the timeline, step time, bubble and activations in flight. forward_s and backward_s are one micro-batch "
       "through one whole stage (each of the v chunks takes 1/v of it); p2p_s is one message between stages. Above "
       "stages·microbatches·chunks = 4096 the closed form is used (method says which).",
       {string_field("schedule", "gpipe, 1f1b or interleaved-1f1b", "1f1b", {"gpipe", "1f1b", "interleaved-1f1b"}),
        integer_field("stages", "", "Pipeline stages p (GPUs in the pipeline)", 4, 1, 256),
        integer_field("microbatches", "", "Micro-batches m per step", 8, 1, 4096),
        integer_field("chunks", "", "Model chunks v per stage (interleaved-1f1b only)", 1, 1, 64),
        number_field("forward_s", "s", "Forward time of one micro-batch on one stage", 1e-3, 0.0, 1e4, true),
        number_field("backward_s", "s", "Backward time of one micro-batch on one stage", 2e-3, 0.0, 1e4, true),
        number_field("p2p_s", "s", "Time of one point-to-point message between stages", 0.0, 0.0, 1e4)},
       pipeline_run});

  out.push_back(
      {"layout",
       "Every TP × PP × DP layout of the GPUs that Megatron can run (tp within a node and dividing heads and kv_heads, "
       "pp dividing layers, dp · micro_batch dividing global_batch), sorted best first: fitting layouts by step time, "
       "then those that do not fit (tp or pp, when given, restrict the list). Memory per GPU is the training-memory model's first pipeline stage (bf16 Adam, "
       "ZeRO over dp, sequence parallelism and recomputation as given). Step time = the executed 1F1B schedule of "
       "global_batch / (dp · micro_batch) micro-batches, whose forward and backward times are compute at "
       "matmul_efficiency × the bf16 peak plus the tensor-parallel all-reduces (ring over NVLink), with the stage "
       "messages over InfiniBand, plus the data-parallel gradient exchange (ring, not overlapped).",
       layout_fields(), layout_run});
}

}  // namespace mlsys::api
