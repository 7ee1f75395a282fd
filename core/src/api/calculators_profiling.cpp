// Calculators of the profiling-mfu lesson (shared/API.md): `mfu` (PaLM's accounting),
// `training-time` (C = 6·N·D), `chinchilla` (Hoffmann et al. 2022, approach 3),
// `checkpoint-interval` (Young 1974, Daly 2006), and the synthetic trace of one training step,
// `step-profile`, with its waterfall from peak to achieved FLOP/s, `mfu-waterfall`.
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/profiling/step_profile.hpp"
#include "mlsys/profiling/training_compute.hpp"
#include "mlsys/transformer/published_models.hpp"
#include "model_inputs.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(MfuResult, MLSYS_OUT(flops_per_token, "FLOP", "Model FLOPs per token: 6·N + 12·L·H·Q·T"),
               MLSYS_OUT(flops_per_token_params, "FLOP", "6·N"),
               MLSYS_OUT(flops_per_token_attention, "FLOP", "12·L·H·Q·T"),
               MLSYS_OUT(attention_share, "", "Attention FLOPs / model FLOPs per token"),
               MLSYS_OUT(hardware_flops_per_token, "FLOP", "Model FLOPs + recomputed forward FLOPs per token"),
               MLSYS_OUT(achieved_flops_per_device, "FLOP/s", "tokens/s · flops_per_token / devices"),
               MLSYS_OUT(mfu, "", "Model FLOPs utilization: achieved / peak"),
               MLSYS_OUT(hfu, "", "Hardware FLOPs utilization: with the recomputed FLOPs"));
MLSYS_DESCRIBE(ModelMfu, MLSYS_OUT(params_counted, "", "N of PaLM's formula used: params, else the config's params_flops"), MLSYS_FLAT(mfu),
               MLSYS_OUT(peak_flops_per_device, "FLOP/s", "Peak FLOP/s of one device"));
MLSYS_DESCRIBE(TrainingTime, MLSYS_OUT(total_flops, "FLOP", "(6·N + attention FLOPs per token) · D"),
               MLSYS_OUT(cluster_flops, "FLOP/s", "Sustained: devices · peak · MFU"),
               MLSYS_OUT(tokens_per_s, "tokens/s", "cluster_flops / FLOPs per token"),
               MLSYS_OUT(time_s, "s", "Wall-clock training time"), MLSYS_OUT(time_days, "days", "time_s in days"),
               MLSYS_OUT(device_hours, "h", "devices · time in hours (GPU-hours)"));
namespace {

// `training-time`'s result: the time plus the N and D it used (a published run's, with `model`).
struct TrainingTimeOut {
  TrainingTime time;
  double params, tokens;
};

// The published models whose pre-training token count the table gives (models.json).
std::vector<std::string> published_runs() {
  std::vector<std::string> ids;
  for (const auto& m : published_models())
    if (m.training_tokens > 0) ids.push_back(m.id);
  return ids;
}

// 'fit': which constants of L(N, D) = E + A/N^α + B/D^β (training_compute.hpp).
Field chinchilla_fit_field() {
  return string_field("fit",
                      "Constants of the law: 'hoffmann-2022' (eq. 10 as printed, E 1.69, A 406.4, B 410.7, α 0.34, β "
                      "0.28) or 'besiroglu-2024' (their refit: E 1.8172, A 482.01, B 2085.43, α 0.3478, β 0.3658)",
                      "hoffmann-2022", {"hoffmann-2022", "besiroglu-2024"});
}

}  // namespace

MLSYS_DESCRIBE(TrainingTimeOut, MLSYS_FLAT(time), MLSYS_OUT(params, "", "Parameters N used (the model's published count with 'model')"),
               MLSYS_OUT(tokens, "tokens", "Training tokens D used (the model's published run with 'model')"));
MLSYS_DESCRIBE(ChinchillaOptimum, MLSYS_OUT(params, "", "Compute-optimal parameters N_opt"),
               MLSYS_OUT(tokens, "tokens", "Compute-optimal training tokens D_opt"),
               MLSYS_OUT(exponent_params, "", "a = β/(α+β): N_opt ∝ C^a"),
               MLSYS_OUT(exponent_tokens, "", "b = α/(α+β): D_opt ∝ C^b"),
               MLSYS_OUT(params_20_tokens_per_param, "", "N with 20 tokens per parameter: sqrt(C / 120)"),
               MLSYS_OUT(tokens_20_tokens_per_param, "tokens", "20 · params_20_tokens_per_param"),
               MLSYS_OUT(loss_20_tokens_per_param, "", "Loss at the 20-tokens-per-parameter point"));
MLSYS_DESCRIBE(Chinchilla, MLSYS_OUT(loss, "", "L(N, D) of the fit"), MLSYS_OUT(compute_flops, "FLOP", "C = 6·N·D"),
               MLSYS_OUT(tokens_per_param, "", "D / N"), MLSYS_FLAT(optimum));
MLSYS_DESCRIBE(CheckpointInterval, MLSYS_OUT(young_interval_s, "s", "Young: sqrt(2·δ·M)"),
               MLSYS_OUT(daly_interval_s, "s", "Daly's higher-order optimum τ"),
               MLSYS_OUT(waste_fraction, "", "δ/τ + (τ + δ)/(2M) + R/M at the Daly interval, at most 1"),
               MLSYS_OUT(checkpoint_fraction, "", "δ/τ: share of time writing checkpoints (before the cap)"),
               MLSYS_OUT(rework_fraction, "", "(τ + δ)/(2M): share of time redoing work lost to failures"),
               MLSYS_OUT(restart_fraction, "", "R/M: share of time restarting"),
               MLSYS_OUT(goodput, "", "1 − waste_fraction"),
               MLSYS_OUT(young_waste_fraction, "", "The same waste at the Young interval"),
               MLSYS_OUT(waste_fraction_exact, "", "Daly's complete model for exponential failures at τ"));
MLSYS_DESCRIBE(TraceKernel, MLSYS_OUT(stream, "", "cpu, compute or comm"), MLSYS_OUT(name, "", "Kernel name"),
               MLSYS_OUT(kind, "", "matmul, attention, elementwise, optimizer, allreduce or launch"),
               MLSYS_OUT(phase, "", "forward, backward, optimizer, comm or cpu"),
               MLSYS_OUT(start_s, "s", "Start time within the step"), MLSYS_OUT(end_s, "s", "End time within the step"),
               MLSYS_OUT(layer, "", "Layer of the kernel (−1: none)"), MLSYS_OUT(flops, "FLOP", "FLOPs of the kernel"),
               MLSYS_OUT(bytes, "B", "HBM bytes of the kernel (all-reduce: bytes sent)"));
MLSYS_DESCRIBE(WaterfallStep, MLSYS_OUT(id, "", "Loss id"), MLSYS_OUT(label, "", "Loss, in words"),
               MLSYS_OUT(from_flops, "FLOP/s", "Level before this loss"),
               MLSYS_OUT(to_flops, "FLOP/s", "Level after this loss"),
               MLSYS_OUT(loss_flops, "FLOP/s", "FLOP/s lost: its share of the step time × peak"),
               MLSYS_OUT(share_of_peak, "", "loss_flops / peak"));
MLSYS_DESCRIBE(WaterfallSteps, MLSYS_OUT(peak_flops, "FLOP/s", "Peak FLOP/s of one GPU"),
               MLSYS_OUT(achieved_flops, "FLOP/s", "Model FLOPs / step time"), MLSYS_OUT(mfu, "", "achieved / peak"),
               MLSYS_OUT(step_time_s, "s", "Time of the step"), MLSYS_OUT(ideal_time_s, "s", "Model FLOPs / peak"),
               MLSYS_OUT(steps, "", "The losses from peak down to achieved"));
MLSYS_DESCRIBE(BusyFraction, MLSYS_OUT(cpu, "", "CPU busy / step time"),
               MLSYS_OUT(compute, "", "Compute stream busy / step time"),
               MLSYS_OUT(comm, "", "Communication stream busy / step time"));
MLSYS_DESCRIBE(StepTrace, MLSYS_OUT(kernels, "", "Kernels and CPU launch intervals by start (at most 8,000)"),
               MLSYS_OUT(kernels_total, "", "Kernels in the step"), MLSYS_OUT(kernels_listed, "", "Kernels listed"),
               MLSYS_OUT(step_time_s, "s", "Time of the step"), MLSYS_OUT(ideal_time_s, "s", "Model FLOPs / peak"),
               MLSYS_OUT(model_flops, "FLOP", "(6N + 12·L·H·Q·T) · tokens, N with the output head (params_flops)"),
               MLSYS_OUT(tokens, "tokens", "micro_batch · seq"), MLSYS_OUT(tokens_per_s, "tokens/s", "tokens / step time"),
               MLSYS_OUT(params, "", "Parameters of the model (all-reduced)"),
               MLSYS_OUT(compute_kernels, "", "Kernels on the compute stream"),
               MLSYS_OUT(comm_kernels, "", "Kernels on the communication stream"),
               MLSYS_OUT(busy_fraction, "", "Busy share of the step per stream"),
               MLSYS_OUT(matmul_time_s, "s", "Compute-stream time in matmul and attention kernels"),
               MLSYS_OUT(memory_bound_time_s, "s", "Compute-stream time in elementwise and optimizer kernels"),
               MLSYS_OUT(launch_gap_s, "s", "Compute stream idle, waiting for a launch"),
               MLSYS_OUT(exposed_comm_s, "s", "Compute stream idle, waiting for the all-reduce"),
               MLSYS_OUT(comm_time_s, "s", "Communication stream busy time"),
               MLSYS_OUT(gaps, "", "Idle intervals on the compute stream longer than 1.5·graph_node_s"),
               MLSYS_OUT(mfu, "", "Model FLOPs utilization of the step"),
               MLSYS_OUT(waterfall, "", "From peak to achieved FLOP/s"));
MLSYS_DESCRIBE(CommTail, MLSYS_OUT(comm_end_s, "s", "End of the last all-reduce"),
               MLSYS_OUT(exposed_s, "s", "max(0, comm_end_s − backward_s)"),
               MLSYS_OUT(hidden_s, "s", "All-reduce time that ran under the backward pass"));

namespace {

// The fields of a transformer configuration, as in the training-memory calculators.
std::vector<Field> config_fields(long long max_layers, long long layers = 32, long long hidden = 4096,
                                 long long heads = 32) {
  json defaults = training_defaults();
  defaults.update({{"layers", layers}, {"hidden", hidden}, {"heads", heads}});
  return transformer_fields(defaults, max_layers);
}

Field peak_field() {
  return optional(number_field("peak_flops", "FLOP/s", "Peak FLOP/s of one device; overrides the hardware table", json(),
                               0.0, 1e21, true));
}

constexpr long long kMaxStepLayers = 128;  // about 6,500 kernels: a few ms in WASM
constexpr std::size_t kMaxListedKernels = 8000;

std::vector<Field> step_fields() {
  std::vector<Field> f = config_fields(kMaxStepLayers, 24, 2048, 16);  // a 1.3B-class layer stack
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

}  // namespace

void add_profiling_calculators(Calculators& out) {
  std::vector<Field> mf = config_fields(1024);
  mf.push_back(optional(number_field("params", "", "N of PaLM's formula; replaces the config's count (layers, final norm and output head)",
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
  out.add("mfu",
          "Model FLOPs utilization with PaLM's accounting (Chowdhery et al. 2022, appendix B): FLOPs per token = 6·N + "
          "12·L·H·Q·T, N the parameters in a token's matmuls (layers, final norm and output head: all parameters when "
          "tied, all but the input embedding when untied) or 'params', achieved FLOP/s per device = tokens/s × FLOPs per "
          "token / devices, MFU = achieved / peak. HFU also counts the recomputed forward FLOPs.",
          mf, [](const Inputs& in) {
            const ModelConfig c = model_config_from(in);
            return model_mfu(c, in.has("params") ? std::optional<double>(in.num("params")) : std::nullopt,
                             in.num("tokens_per_s"), static_cast<double>(in.integer("devices")), peak_from(in, in.str("dtype")),
                             in.num("recompute_fraction"));
          });

  out.add("training-time",
          "Wall-clock time to train N parameters on D tokens: total FLOPs = (6·N + attention FLOPs per token)·D (PaLM's "
          "accounting; 6ND alone ignores attention), sustained at devices × peak × MFU. With 'model', a published run: "
          "N its published parameter count and D its published training tokens (GPT-3, OPT, Llama 2 and 3, Gemma, "
          "PaLM), unless given.",
          {number_field("params", "", "Parameters N", 7e10, 1.0, 1e15),
           number_field("tokens", "tokens", "Training tokens D", 2e12, 1.0, 1e17),
           integer_field("devices", "", "Accelerators", 1024, 1, 10000000), hardware_field(true), dtype_field("bf16"),
           peak_field(), number_field("mfu", "", "Model FLOPs utilization sustained over the run", 0.4, 0.0, 1.0, true),
           number_field("attention_flops_per_token", "FLOP", "12·L·H·Q·T of PaLM's formula (0: plain 6ND)", 0.0, 0.0,
                        1e18),
           optional(string_field("model",
                                 "A published training run (content/data/models.json): its published parameter count "
                                 "and training tokens replace the defaults of 'params' and 'tokens' (given ones win)",
                                 json(), published_runs()))},
          [](const Inputs& in) {
            double params = in.num("params"), tokens = in.num("tokens");
            if (in.has("model")) {
              const PublishedModel* m = find_published_model(in.str("model"));
              if (!in.given("params")) params = m->params;
              if (!in.given("tokens")) tokens = m->training_tokens;
            }
            return TrainingTimeOut{training_time(params, tokens, static_cast<double>(in.integer("devices")),
                                                 peak_from(in, in.str("dtype")), in.num("mfu"),
                                                 in.num("attention_flops_per_token")),
                                   params, tokens};
          });

  out.add("chinchilla",
          "Hoffmann et al. 2022, approach 3: L(N, D) = 1.69 + 406.4/N^0.34 + 410.7/D^0.28. Given compute_flops: the "
          "compute-optimal N and D under C = 6·N·D and their loss (with the 20-tokens-per-parameter rule beside it); "
          "given params and tokens: the loss and C. fit 'besiroglu-2024': the same law refitted by Besiroglu et al. "
          "2024 (arXiv:2404.10102), L = 1.8172 + 482.01/N^0.3478 + 2085.43/D^0.3658.",
          {optional(number_field("compute_flops", "FLOP", "Training compute budget C", json(), 1e6, 1e32)),
           optional(number_field("params", "", "Parameters N", json(), 1.0, 1e16)),
           optional(number_field("tokens", "tokens", "Training tokens D", json(), 1.0, 1e18)),
           chinchilla_fit_field()},
          [](const Inputs& in) {
            const bool c = in.has("compute_flops"), n = in.has("params"), d = in.has("tokens");
            if (c && (n || d))
              throw InputError(n ? "params" : "tokens", "Give either 'compute_flops' alone or 'params' and 'tokens'.");
            const ChinchillaConstants k = chinchilla_fit(in.str("fit"));
            if (c) return chinchilla_budget(in.num("compute_flops"), k);
            if (!n) throw InputError("params", "Give 'params' and 'tokens', or 'compute_flops'.");
            if (!d) throw InputError("tokens", "Give 'tokens' with 'params', or 'compute_flops' alone.");
            return chinchilla_at(in.num("params"), in.num("tokens"), k);
          });

  out.add("checkpoint-interval",
          "Optimal time between checkpoints: Young (1974) sqrt(2·δ·M); Daly (2006) sqrt(2δM)·[1 + (1/3)·sqrt(δ/(2M)) + "
          "δ/(18M)] − δ for δ < 2M, else M. Waste at the Daly interval τ: δ/τ (writing checkpoints) + (τ + δ)/(2M) "
          "(rework after a failure) + R/M (restarts), at most 1; goodput = 1 − waste. waste_fraction_exact: Daly's complete model for exponential "
          "failures, 1 − τ / (M·e^(R/M)·(e^((τ+δ)/M) − 1)).",
          {number_field("mtbf_s", "s", "Mean time between failures M of the whole job", json(), 1.0, 1e10),
           number_field("checkpoint_s", "s", "Time to write one checkpoint δ", json(), 1e-3, 1e7),
           number_field("restart_s", "s", "Time to restart after a failure R", 0.0, 0.0, 1e7)},
          [](const Inputs& in) {
            return checkpoint_interval(in.num("mtbf_s"), in.num("checkpoint_s"), in.num("restart_s"));
          });

  out.add("step-profile",
          "Synthetic profiler trace of one data-parallel training step of a transformer (its layers, output head and loss) on one GPU: "
          "the CPU launching kernels, the compute stream (matmuls and attention at a share of peak, elementwise chains "
          "at HBM bandwidth, Adam), and the gradient all-reduce on a communication stream (ring, bytes / bandwidth). Toggles: "
          "fusion, overlap, CUDA graphs. Executed for up to 128 layers.",
          step_fields(), [](const Inputs& in) { return step_trace(run_step(in), kMaxListedKernels); });

  out.add("comm-tail",
          "Exposed communication in closed form: a backward pass of backward_s produces equal gradient buckets at even "
          "intervals, each all-reduced in allreduce_s on one stream, overlapped (start when ready) or after the backward "
          "pass; exposed = max(0, end of the last all-reduce − backward_s).",
          {number_field("backward_s", "s", "Duration of the backward pass", json(), 0.0, 1e6, true),
           integer_field("buckets", "", "Equal gradient buckets", 8, 1, 100000),
           number_field("allreduce_s", "s", "Time of one bucket's all-reduce", json(), 0.0, 1e6),
           boolean_field("overlap", "Start each bucket's all-reduce as soon as it is ready", true)},
          [](const Inputs& in) {
            return comm_tail(in.num("backward_s"), static_cast<int>(in.integer("buckets")), in.num("allreduce_s"),
                             in.boolean("overlap"));
          });

  out.add("mfu-waterfall",
          "From peak to achieved FLOP/s per GPU for the step of step-profile: peak minus launch gaps, exposed "
          "communication, memory-bound kernels and matmul inefficiency, each its share of the step time × "
          "peak; what is left is model FLOPs / step time (MFU × peak).",
          step_fields(), [](const Inputs& in) { return waterfall_steps(run_step(in)); });
}

}  // namespace mlsys::api
