// Calculators of the profiling-mfu lesson (shared/API.md): `mfu` (PaLM's accounting),
// `training-time` (C = 6·N·D), `chinchilla` (Hoffmann et al. 2022, approach 3),
// `checkpoint-interval` (Young 1974, Daly 2006), and the synthetic trace of one training step,
// `step-profile`, with its waterfall from peak to achieved FLOP/s, `mfu-waterfall`.
#include <cmath>

#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/profiling/step_profile.hpp"
#include "mlsys/profiling/training_compute.hpp"
#include "mlsys/transformer/model_config.hpp"
#include "model_inputs.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {


// The fields of a transformer configuration, as in the training-memory calculators.
std::vector<Field> config_fields(long long max_layers) {
  return {integer_field("layers", "", "Transformer layers L", 32, 1, max_layers),
          integer_field("hidden", "", "Model width h", 4096, 64, 131072),
          integer_field("heads", "", "Attention (query) heads H", 32, 1, 1024),
          optional(integer_field("kv_heads", "", "Key/value heads (grouped-query attention); default heads", json(), 1, 1024)),
          optional(integer_field("head_dim", "", "Size of one head Q; default hidden / heads", json(), 8, 1024)),
          optional(integer_field("ffn_hidden", "", "MLP inner width; default 4·hidden", json(), 1, 1048576)),
          integer_field("seq", "tokens", "Tokens per sequence T", 2048, 1, 1048576),
          integer_field("vocab", "", "Vocabulary size (not in PaLM's N)", 32000, 1, 4194304),
          boolean_field("gated_mlp", "Gated MLP (SwiGLU): three matrices of width ffn_hidden instead of two", false),
          boolean_field("tied_embeddings", "Output head shares the input embedding matrix", true)};
}


// Peak FLOP/s of one device: explicit peak_flops, else the table's dense rate for dtype.
double peak_from(const Inputs& in) {
  if (in.has("peak_flops")) return in.num("peak_flops");
  if (!in.has("hardware")) throw InputError("hardware", "Give 'hardware' (an accelerator id) or 'peak_flops'.");
  const Accelerator* hw = find_accelerator(in.str("hardware"));
  const std::string dtype = in.str("dtype");
  if (auto peak = hw->peak_for(dtype)) return *peak;
  throw InputError("dtype", hw->name + " has no dense " + dtype +
                                " rate in the hardware table; choose another dtype or give 'peak_flops'.");
}

Field peak_field() {
  return optional(number_field("peak_flops", "FLOP/s", "Peak FLOP/s of one device; overrides the hardware table", json(),
                               0.0, 1e21, true));
}

// ---- step-profile / mfu-waterfall ------------------------------------------------------
constexpr long long kMaxStepLayers = 128;  // about 6,500 kernels: a few ms in WASM
constexpr std::size_t kMaxListedKernels = 8000;

std::vector<Field> step_fields() {
  std::vector<Field> f = config_fields(kMaxStepLayers);
  f[0].default_value = 24;   // a 1.3B-class layer stack
  f[1].default_value = 2048;
  f[2].default_value = 16;
  f.push_back(integer_field("micro_batch", "", "Sequences per GPU per step", 8, 1, 1024));
  f.push_back(hardware_field(true));
  f.push_back(dtype_field("bf16"));
  for (auto& m : machine_override_fields()) f.push_back(std::move(m));
  f.push_back(number_field("matmul_efficiency", "", "Share of peak reached by matmul and attention kernels", 0.75, 0.05,
                           0.95));
  f.push_back(number_field("launch_s", "s", "CPU time to dispatch and launch one kernel in eager mode", 10e-6, 0.0,
                           1e-3));
  f.push_back(number_field("graph_node_s", "s", "GPU-side gap between consecutive kernels, eager or replayed from a CUDA graph", 1e-6, 0.0, 1e-4));
  f.push_back(integer_field("dp", "", "Data-parallel ranks in the gradient all-reduce (1: none)", 16, 1, 1048576));
  f.push_back(number_field("comm_bandwidth_Bps", "B/s", "Per-GPU bandwidth of the all-reduce, one direction", 50e9, 1e6,
                           1e13));
  f.push_back(number_field("comm_latency_s", "s", "Latency of one ring step", 5e-6, 0.0, 1e-2));
  f.push_back(integer_field("buckets", "", "Gradient buckets (at most one per layer)", 8, 1, 1024));
  f.push_back(boolean_field("fusion", "Fuse each elementwise chain (and the optimizer) into one kernel", false));
  f.push_back(boolean_field("overlap", "All-reduce each bucket while the backward pass continues", true));
  f.push_back(boolean_field("cuda_graphs", "Capture the step as one CUDA graph (no per-kernel launch cost)", false));
  return f;
}

StepProfile run_step(const Inputs& in) {
  const ModelConfig c = model_config_from(in);
  StepSetup st;
  const auto m = machine_from(in, in.str("dtype"));
  st.micro_batch = static_cast<double>(in.integer("micro_batch"));
  st.peak_flops = m.peak_flops;
  st.bandwidth_Bps = m.bandwidth_Bps;
  st.element_bytes = 2;
  st.matmul_efficiency = in.num("matmul_efficiency");
  st.launch_s = in.num("launch_s");
  st.graph_node_s = in.num("graph_node_s");
  st.dp = static_cast<double>(in.integer("dp"));
  st.comm_bandwidth_Bps = in.num("comm_bandwidth_Bps");
  st.comm_latency_s = in.num("comm_latency_s");
  st.buckets = static_cast<double>(in.integer("buckets"));
  st.fusion = in.boolean("fusion");
  st.overlap = in.boolean("overlap");
  st.cuda_graphs = in.boolean("cuda_graphs");
  return step_profile(c, st);
}

json waterfall_json(const StepProfile& p) {
  const Waterfall& w = p.waterfall;
  const double peak = w.peak_flops;
  json steps = json::array();
  double level = peak;
  const auto add = [&](const char* id, const char* label, double loss) {
    steps.push_back({{"id", id}, {"label", label}, {"from_flops", level}, {"to_flops", level - loss},
                     {"loss_flops", loss}, {"share_of_peak", loss / peak}});
    level -= loss;
  };
  add("launch_gaps", "Launch gaps (compute stream waits for the CPU)", w.launch_gaps);
  add("exposed_comm", "Exposed communication (waits for the all-reduce)", w.exposed_comm);
  add("memory_bound", "Memory-bound kernels (elementwise ops, optimizer)", w.memory_bound);
  add("matmul_inefficiency", "Matmuls and attention below peak", w.matmul_inefficiency);
  return {{"peak_flops", peak},
          {"achieved_flops", w.achieved_flops},
          {"mfu", p.mfu},
          {"step_time_s", p.step_time_s},
          {"ideal_time_s", p.ideal_time_s},
          {"steps", steps}};
}

}  // namespace

void add_profiling_calculators(Calculators& out) {
  // ---- mfu --------------------------------------------------------------------------------
  std::vector<Field> mf = config_fields(1024);
  mf.push_back(optional(number_field("params", "", "N of PaLM's formula; replaces the config's non-embedding count",
                                     json(), 1.0, 1e15)));
  mf.push_back(number_field("tokens_per_s", "tokens/s", "Training throughput of the whole job", json(), 0.0, 1e12, true));
  mf.push_back(integer_field("devices", "", "Accelerators in the job", 1, 1, 10000000));
  mf.push_back(hardware_field(true));
  mf.push_back(dtype_field("bf16"));
  mf.push_back(peak_field());
  mf.push_back(number_field("recompute_fraction", "",
                            "Share of the forward pass recomputed in the backward pass (1: full recomputation); "
                            "counts toward HFU only",
                            0.0, 0.0, 1.0));
  out.push_back(
      {"mfu",
       "Model FLOPs utilization with PaLM's accounting (Chowdhery et al. 2022, appendix B): FLOPs per token = 6·N + "
       "12·L·H·Q·T, N the non-embedding parameters (or 'params'), achieved FLOP/s per device = tokens/s × FLOPs per "
       "token / devices, MFU = achieved / peak. HFU also counts the recomputed forward FLOPs.",
       mf, [](const Inputs& in) -> json {
         const ModelConfig c = model_config_from(in);
         const double n = in.has("params") ? in.num("params") : model_counts(c).params_non_embedding;
         const double peak = peak_from(in);
         const MfuResult r = mfu(n, c.layers, c.heads, c.head_dim, c.seq, in.num("tokens_per_s"),
                                 static_cast<double>(in.integer("devices")), peak, in.num("recompute_fraction"));
         return {{"params_counted", n},
                 {"flops_per_token", r.flops_per_token},
                 {"flops_per_token_params", r.flops_per_token_params},
                 {"flops_per_token_attention", r.flops_per_token_attention},
                 {"attention_share", r.attention_share},
                 {"hardware_flops_per_token", r.hardware_flops_per_token},
                 {"achieved_flops_per_device", r.achieved_flops_per_device},
                 {"peak_flops_per_device", peak},
                 {"mfu", r.mfu},
                 {"hfu", r.hfu}};
       }});

  // ---- training-time ------------------------------------------------------------------------
  out.push_back(
      {"training-time",
       "Wall-clock time to train N parameters on D tokens: total FLOPs = (6·N + attention FLOPs per token)·D (PaLM's "
       "accounting; 6ND alone ignores attention), sustained at devices × peak × MFU.",
       {number_field("params", "", "Parameters N", 7e10, 1.0, 1e15),
        number_field("tokens", "tokens", "Training tokens D", 2e12, 1.0, 1e17),
        integer_field("devices", "", "Accelerators", 1024, 1, 10000000), hardware_field(true), dtype_field("bf16"),
        peak_field(), number_field("mfu", "", "Model FLOPs utilization sustained over the run", 0.4, 0.0, 1.0, true),
        number_field("attention_flops_per_token", "FLOP", "12·L·H·Q·T of PaLM's formula (0: plain 6ND)", 0.0, 0.0,
                     1e18)},
       [](const Inputs& in) -> json {
         const TrainingTime t = training_time(in.num("params"), in.num("tokens"), static_cast<double>(in.integer("devices")),
                                              peak_from(in), in.num("mfu"), in.num("attention_flops_per_token"));
         return {{"total_flops", t.total_flops}, {"cluster_flops", t.cluster_flops}, {"tokens_per_s", t.tokens_per_s},
                 {"time_s", t.time_s},           {"time_days", t.time_days},         {"device_hours", t.device_hours}};
       }});

  // ---- chinchilla ---------------------------------------------------------------------------
  out.push_back(
      {"chinchilla",
       "Hoffmann et al. 2022, approach 3: L(N, D) = 1.69 + 406.4/N^0.34 + 410.7/D^0.28. Given compute_flops: the "
       "compute-optimal N and D under C = 6·N·D and their loss (with the 20-tokens-per-parameter rule beside it); "
       "given params and tokens: the loss and C.",
       {optional(number_field("compute_flops", "FLOP", "Training compute budget C", json(), 1e6, 1e32)),
        optional(number_field("params", "", "Parameters N", json(), 1.0, 1e16)),
        optional(number_field("tokens", "tokens", "Training tokens D", json(), 1.0, 1e18))},
       [](const Inputs& in) -> json {
         const bool c = in.has("compute_flops"), n = in.has("params"), d = in.has("tokens");
         if (c && (n || d))
           throw InputError(n ? "params" : "tokens", "Give either 'compute_flops' alone or 'params' and 'tokens'.");
         if (c) {
           const double flops = in.num("compute_flops");
           const ComputeOptimal o = chinchilla_optimal(flops);
           const double n20 = std::sqrt(flops / 120);  // 6·N·(20·N) = C
           return {{"params", o.params},
                   {"tokens", o.tokens},
                   {"loss", o.loss},
                   {"tokens_per_param", o.tokens / o.params},
                   {"compute_flops", flops},
                   {"exponent_params", o.a},
                   {"exponent_tokens", o.b},
                   {"params_20_tokens_per_param", n20},
                   {"tokens_20_tokens_per_param", 20 * n20},
                   {"loss_20_tokens_per_param", chinchilla_loss(n20, 20 * n20)}};
         }
         if (!n) throw InputError("params", "Give 'params' and 'tokens', or 'compute_flops'.");
         if (!d) throw InputError("tokens", "Give 'tokens' with 'params', or 'compute_flops' alone.");
         const double np = in.num("params"), nt = in.num("tokens");
         return {{"loss", chinchilla_loss(np, nt)}, {"compute_flops", 6 * np * nt}, {"tokens_per_param", nt / np}};
       }});

  // ---- checkpoint-interval ------------------------------------------------------------------
  out.push_back(
      {"checkpoint-interval",
       "Optimal time between checkpoints: Young (1974) sqrt(2·δ·M); Daly (2006) sqrt(2δM)·[1 + (1/3)·sqrt(δ/(2M)) + "
       "δ/(18M)] − δ for δ < 2M, else M. Waste at the Daly interval τ: δ/τ (writing checkpoints) + (τ + δ)/(2M) "
       "(rework after a failure) + R/M (restarts), at most 1; goodput = 1 − waste. waste_fraction_exact: Daly's complete model for exponential "
       "failures, 1 − τ / (M·e^(R/M)·(e^((τ+δ)/M) − 1)).",
       {number_field("mtbf_s", "s", "Mean time between failures M of the whole job", json(), 1.0, 1e10),
        number_field("checkpoint_s", "s", "Time to write one checkpoint δ", json(), 1e-3, 1e7),
        number_field("restart_s", "s", "Time to restart after a failure R", 0.0, 0.0, 1e7)},
       [](const Inputs& in) -> json {
         const CheckpointInterval c = checkpoint_interval(in.num("mtbf_s"), in.num("checkpoint_s"), in.num("restart_s"));
         return {{"young_interval_s", c.young_interval_s},
                 {"daly_interval_s", c.daly_interval_s},
                 {"waste_fraction", c.waste_fraction},
                 {"goodput", c.goodput},
                 {"young_waste_fraction", c.young_waste_fraction},
                 {"waste_fraction_exact", c.waste_fraction_exact}};
       }});

  // ---- step-profile -------------------------------------------------------------------------
  out.push_back(
      {"step-profile",
       "Synthetic profiler trace of one data-parallel training step of a transformer layer stack on one GPU: the CPU "
       "launching kernels, the compute stream (matmuls and attention at a share of peak, elementwise chains at HBM "
       "bandwidth, Adam), and the gradient all-reduce on a communication stream (ring, bytes / bandwidth). Toggles: "
       "fusion, overlap, CUDA graphs. Executed for up to 128 layers.",
       step_fields(), [](const Inputs& in) -> json {
         const StepProfile p = run_step(in);
         json kernels = json::array();
         for (std::size_t i = 0; i < p.kernels.size() && i < kMaxListedKernels; ++i) {
           const TraceKernel& k = p.kernels[i];
           kernels.push_back({{"stream", k.stream}, {"name", k.name},   {"kind", k.kind},     {"phase", k.phase},
                              {"start_s", k.start_s}, {"end_s", k.end_s}, {"layer", k.layer}, {"flops", k.flops},
                              {"bytes", k.bytes}});
         }
         const double st = p.step_time_s;
         return {{"kernels", kernels},
                 {"kernels_total", static_cast<double>(p.kernels.size())},
                 {"kernels_listed", static_cast<double>(kernels.size())},
                 {"step_time_s", st},
                 {"ideal_time_s", p.ideal_time_s},
                 {"model_flops", p.model_flops},
                 {"tokens", p.tokens},
                 {"tokens_per_s", p.tokens / st},
                 {"params", p.params},
                 {"compute_kernels", p.compute_kernels},
                 {"comm_kernels", p.comm_kernels},
                 {"busy_fraction", {{"cpu", p.cpu_busy_s / st}, {"compute", p.compute_busy_s / st}, {"comm", p.comm_busy_s / st}}},
                 {"matmul_time_s", p.matmul_time_s},
                 {"memory_bound_time_s", p.memory_time_s},
                 {"launch_gap_s", p.launch_gap_s},
                 {"exposed_comm_s", p.exposed_comm_s},
                 {"comm_time_s", p.comm_busy_s},
                 {"gaps", p.gap_count},
                 {"mfu", p.mfu},
                 {"waterfall", waterfall_json(p)}};
       }});

  out.push_back(
      {"comm-tail",
       "Exposed communication in closed form: a backward pass of backward_s produces equal gradient buckets at even "
       "intervals, each all-reduced in allreduce_s on one stream, overlapped (start when ready) or after the backward "
       "pass; exposed = max(0, end of the last all-reduce − backward_s).",
       {number_field("backward_s", "s", "Duration of the backward pass", json(), 0.0, 1e6, true),
        integer_field("buckets", "", "Equal gradient buckets", 8, 1, 100000),
        number_field("allreduce_s", "s", "Time of one bucket's all-reduce", json(), 0.0, 1e6),
        boolean_field("overlap", "Start each bucket's all-reduce as soon as it is ready", true)},
       [](const Inputs& in) -> json {
         const CommTail t = comm_tail(in.num("backward_s"), static_cast<int>(in.integer("buckets")),
                                      in.num("allreduce_s"), in.boolean("overlap"));
         return {{"comm_end_s", t.comm_end_s}, {"exposed_s", t.exposed_s}, {"hidden_s", t.hidden_s}};
       }});

  out.push_back({"mfu-waterfall",
                 "From peak to achieved FLOP/s per GPU for the step of step-profile: peak minus launch gaps, exposed "
                 "communication, memory-bound kernels and matmul inefficiency, each its share of the step time × "
                 "peak; what is left is model FLOPs / step time (MFU × peak).",
                 step_fields(), [](const Inputs& in) -> json { return waterfall_json(run_step(in)); }});
}

}  // namespace mlsys::api
