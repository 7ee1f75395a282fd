// Calculators of the data-parallel-zero-fsdp lesson: `data-parallel` (step time with the
// gradient all-reduce overlapped or not, scaling efficiency over GPU counts), `zero`
// (memory and communication of ZeRO stages 0–3) and `fsdp-overlap` (tokens per GPU per
// step that hide FSDP's collectives behind compute). Models in parallel/data_parallel.hpp.
#include <algorithm>
#include <cmath>

#include "mlsys/foundations/dtype.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/parallel/data_parallel.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

constexpr double kInterDefault_Bps = 50e9;  // 400 Gb/s NDR InfiniBand per GPU (DGX H100), per direction
constexpr double kLatencyDefault_s = 1e-6;  // α per ring step (an assumption; the lesson discusses it)


std::vector<Field> network_fields() {
  return {hardware_field(true),
          integer_field("gpus_per_node", "", "GPUs joined by the scale-up link (NVLink) in one node", 8, 1, 1024),
          optional(number_field("intra_bandwidth_Bps", "B/s",
                                "Per-GPU, per-direction bandwidth inside a node; default half the hardware's "
                                "scale-up bandwidth (datasheets sum both directions)",
                                json(), 0.0, 1e14, true)),
          number_field("inter_bandwidth_Bps", "B/s",
                       "Per-GPU, per-direction bandwidth across nodes (50 GB/s = one 400 Gb/s NDR InfiniBand NIC)",
                       kInterDefault_Bps, 0.0, 1e14, true),
          number_field("latency_s", "s", "Latency α of one ring step", kLatencyDefault_s, 0.0, 1.0)};
}

std::vector<Field> compute_fields() {
  return {number_field("params", "", "Parameters Ψ of the model", 7e9, 1e6, 1e13),
          dtype_field("bf16"),
          optional(number_field("peak_flops", "FLOP/s", "Peak FLOP/s; overrides the hardware table", json(), 0.0, 1e21,
                                true)),
          number_field("mfu", "", "Model FLOPs utilization: fraction of peak the step reaches", 0.4, 0.0, 1.0, true)};
}

std::vector<Field> join(std::vector<Field> a, std::vector<Field> b) {
  for (auto& f : b) a.push_back(std::move(f));
  return a;
}

DpNetwork network_from(const Inputs& in) {
  DpNetwork n{};
  n.gpus_per_node = static_cast<int>(in.integer("gpus_per_node"));
  n.inter_bandwidth_Bps = in.num("inter_bandwidth_Bps");
  n.latency_s = in.num("latency_s");
  if (in.has("intra_bandwidth_Bps")) {
    n.intra_bandwidth_Bps = in.num("intra_bandwidth_Bps");
  } else {
    const Accelerator* hw = find_accelerator(in.str("hardware"));
    const auto& row = hw->json();
    if (!row.contains("scaleup_bandwidth_Bps") || !row["scaleup_bandwidth_Bps"].is_number())
      throw InputError("hardware", hw->name + " has no scale-up bandwidth in the hardware table; give 'intra_bandwidth_Bps'.");
    n.intra_bandwidth_Bps = row["scaleup_bandwidth_Bps"].get<double>() / 2;
  }
  return n;
}

double peak_from(const Inputs& in) {
  if (in.has("peak_flops")) return in.num("peak_flops");
  const Accelerator* hw = find_accelerator(in.str("hardware"));
  const std::string dtype = in.str("dtype");
  if (auto peak = hw->peak_for(dtype)) return *peak;
  throw InputError("dtype", hw->name + " has no dense " + dtype + " rate in the hardware table; choose another dtype or give 'peak_flops'.");
}

json step_json(const DpStep& s, double t1) {
  return {{"compute_time_s", s.compute_time_s},
          {"forward_time_s", s.forward_time_s},
          {"backward_time_s", s.backward_time_s},
          {"last_backward_time_s", s.last_backward_time_s},
          {"gradient_bytes", s.gradient_bytes},
          {"allreduce_time_s", s.allreduce_time_s},
          {"bucket_count", s.bucket_count},
          {"bucket_allreduce_time_s", s.bucket_allreduce_time_s},
          {"bucketed_comm_time_s", s.bucketed_comm_time_s},
          {"exposed_comm_s", s.exposed_comm_s},
          {"step_time_s", s.step_time_s},
          {"link_bandwidth_Bps", s.link_bandwidth_Bps},
          {"inter_node", s.inter_node},
          {"efficiency", t1 / s.step_time_s}};
}

json states_json(const ModelStates& m) {
  return {{"weights_bytes", m.weights_bytes},
          {"grads_bytes", m.grads_bytes},
          {"optimizer_bytes", m.optimizer_bytes},
          {"model_states_bytes", m.total_bytes}};
}

}  // namespace

void add_data_parallel_calculators(Calculators& out) {
  std::vector<Field> dp = join(compute_fields(), network_fields());
  dp.push_back(integer_field("gpus", "", "Data-parallel replicas (GPUs)", 64, 1, 1048576));
  dp.push_back(integer_field("seq", "tokens", "Tokens per sequence", 4096, 1, 1048576));
  dp.push_back(integer_field("micro_batch", "", "Sequences per GPU per micro-batch", 1, 1, 65536));
  dp.push_back(integer_field("accumulation", "", "Micro-batches per optimizer step (gradient accumulation)", 1, 1, 65536));
  dp.push_back(string_field("grad_dtype", "Type of the all-reduced gradients", "bf16", {"bf16", "fp16", "fp32"}));
  dp.push_back(number_field("bucket_bytes", "B", "Gradient bucket size (PyTorch DDP's default bucket_cap_mb = 25 MiB)",
                            26214400.0, 1e3, 1e13));
  dp.push_back(boolean_field("overlap", "All-reduce gradient buckets during the backward pass", true));
  dp.push_back(optional(integer_field("series_max_gpus", "",
                                      "Also return the step at 1, 2, 4, … GPUs up to this count (weak scaling)", json(), 1,
                                      1048576)));
  out.push_back(
      {"data-parallel",
       "One data-parallel training step per GPU: compute 6·params·tokens / (peak·mfu), a third forward and two thirds "
       "backward; a ring all-reduce of the gradients over `gpus` replicas (NVLink within a node, the inter-node link "
       "once the ring spans nodes), either after the backward pass or overlapped with the last micro-batch's backward "
       "in buckets; the exposed communication, the step time and the weak-scaling efficiency T(1)/T(gpus) at a fixed "
       "per-GPU batch. Global batch = micro_batch × gpus × accumulation sequences.",
       dp, [](const Inputs& in) -> json {
         DpCompute c{};
         c.params = in.num("params");
         c.accumulation = static_cast<double>(in.integer("accumulation"));
         const double seq = static_cast<double>(in.integer("seq")), mb = static_cast<double>(in.integer("micro_batch"));
         c.tokens_per_gpu = seq * mb * c.accumulation;
         if (c.tokens_per_gpu > 1e12) throw InputError("accumulation", "More than 1e12 tokens per GPU per step is out of range.");
         c.peak_flops = peak_from(in);
         c.mfu = in.num("mfu");
         const DpNetwork net = network_from(in);
         const double gb = dtype_bytes(in.str("grad_dtype")), bucket = in.num("bucket_bytes");
         const bool overlap = in.boolean("overlap");
         const int gpus = static_cast<int>(in.integer("gpus"));
         const double t1 = dp_step(c, gb, bucket, overlap, 1, net).step_time_s;
         const DpStep s = dp_step(c, gb, bucket, overlap, gpus, net);
         json r = step_json(s, t1);
         r["step_time_no_overlap_s"] = s.compute_time_s + s.allreduce_time_s;
         r["tokens_per_gpu"] = c.tokens_per_gpu;
         r["global_batch_sequences"] = mb * gpus * c.accumulation;
         r["global_batch_tokens"] = c.tokens_per_gpu * gpus;
         r["tokens_per_s"] = c.tokens_per_gpu * gpus / s.step_time_s;
         r["peak_flops"] = c.peak_flops;
         r["intra_bandwidth_Bps"] = net.intra_bandwidth_Bps;
         r["inter_bandwidth_Bps"] = net.inter_bandwidth_Bps;
         if (in.has("series_max_gpus")) {
           json series = json::array();
           const long long max = in.integer("series_max_gpus");
           for (long long g = 1; g <= max; g *= 2) {
             json p = step_json(dp_step(c, gb, bucket, overlap, static_cast<int>(g), net), t1);
             p["gpus"] = g;
             p["step_time_no_overlap_s"] = p["compute_time_s"].get<double>() + p["allreduce_time_s"].get<double>();
             p["efficiency_no_overlap"] = t1 / p["step_time_no_overlap_s"].get<double>();
             series.push_back(p);
           }
           r["series"] = series;
         }
         return r;
       }});

  std::vector<Field> zf = {number_field("params", "", "Parameters Ψ of the model", 7.5e9, 1e6, 1e13),
                           integer_field("dp", "", "Data-parallel degree N_d (ZeRO shards over it)", 64, 1, 1048576),
                           string_field("optimizer", "adam (12 bytes of fp32 states per parameter) or sgd with momentum (8)",
                                        "adam", {"adam", "sgd"}),
                           string_field("comm_dtype", "Type of the communicated gradients and parameters", "bf16",
                                        {"bf16", "fp16", "fp32"})};
  zf = join(zf, network_fields());
  out.push_back(
      {"zero",
       "ZeRO stages 0–3 (Rajbhandari et al. 2020) over `dp` ranks with mixed precision: model-state bytes per GPU "
       "(2 + 2 + K bytes per parameter, K = 12 for Adam; stage 1 shards the optimizer states, 2 also the gradients, 3 "
       "also the weights) and communication per GPU per step: 2Ψ elements for stages 0–2 (a reduce-scatter of the "
       "gradients and an all-gather of the parameters, an all-reduce for stage 0) and 3Ψ for stage 3 (parameters "
       "all-gathered for the forward and again for the backward), exactly 2Ψ(p−1)/p or 3Ψ(p−1)/p with ring "
       "collectives, and their time in the alpha-beta model.",
       zf, [](const Inputs& in) -> json {
         const int dpn = static_cast<int>(in.integer("dp"));
         const auto stages = zero_stages(in.num("params"), in.str("optimizer") == "adam", dpn,
                                         dtype_bytes(in.str("comm_dtype")), network_from(in));
         json arr = json::array();
         for (const auto& z : stages) {
           json j = states_json(z.memory);
           j["stage"] = z.stage;
           j["volume_psi"] = z.volume_psi;
           j["volume_elements"] = z.volume_elements;
           j["volume_bytes"] = z.volume_bytes;
           j["comm_time_s"] = z.comm_time_s;
           j["allgather_time_s"] = z.allgather_time_s;
           j["reducescatter_time_s"] = z.reducescatter_time_s;
           j["comm_vs_baseline"] = z.comm_time_s / std::max(stages[0].comm_time_s, 1e-300);
           if (dpn == 1) j["comm_vs_baseline"] = 1.0;
           arr.push_back(j);
         }
         return {{"stages", arr}, {"link_bandwidth_Bps", ring_link(network_from(in), dpn).bandwidth_Bps}};
       }});

  std::vector<Field> ff = join(compute_fields(), network_fields());
  ff.push_back(integer_field("gpus", "", "GPUs the parameters are sharded over (FSDP's sharding group)", 64, 1, 1048576));
  ff.push_back(integer_field("tokens_per_gpu", "tokens", "Tokens one GPU processes per optimizer step", 8192, 1,
                             1000000000000LL));
  ff.push_back(integer_field("units", "", "FSDP units (usually one per transformer layer)", 32, 1, 100000));
  ff.push_back(string_field("param_dtype", "Type of the gathered parameters and reduced gradients", "bf16",
                            {"bf16", "fp16", "fp32"}));
  ff.push_back(boolean_field("prefetch", "Gather the next unit's parameters while the current unit computes", true));
  out.push_back(
      {"fsdp-overlap",
       "FSDP (Zhao et al. 2023) with the model split into `units`: per unit two all-gathers of its parameters "
       "(forward, backward) and one reduce-scatter of its gradients, ring collectives in the alpha-beta model, "
       "against compute 6·params·tokens_per_gpu / (peak·mfu). Returns the tokens per GPU per step at which compute "
       "equals communication (tokens_min, with latency), its bandwidth term bytes·(p−1)/p·peak·mfu / (2·B) "
       "(independent of the model size) and the limit for large p, and the exposed communication and step time with "
       "or without prefetching.",
       ff, [](const Inputs& in) -> json {
         DpCompute c{};
         c.params = in.num("params");
         c.tokens_per_gpu = static_cast<double>(in.integer("tokens_per_gpu"));
         c.accumulation = 1;
         c.peak_flops = peak_from(in);
         c.mfu = in.num("mfu");
         const FsdpOverlap f = fsdp_overlap(c, dtype_bytes(in.str("param_dtype")), static_cast<int>(in.integer("units")),
                                            in.boolean("prefetch"), static_cast<int>(in.integer("gpus")), network_from(in));
         return {{"comm_time_s", f.comm_time_s},
                 {"allgather_time_s", f.allgather_time_s},
                 {"compute_time_s", f.compute_time_s},
                 {"tokens_min", f.tokens_min},
                 {"tokens_min_bandwidth", f.tokens_min_bandwidth},
                 {"tokens_limit", f.tokens_limit},
                 {"hidden", f.compute_time_s >= f.comm_time_s},
                 {"exposed_comm_s", f.exposed_comm_s},
                 {"step_time_s", f.step_time_s},
                 {"link_bandwidth_Bps", f.link_bandwidth_Bps},
                 {"peak_flops", c.peak_flops}};
       }});
}

}  // namespace mlsys::api
