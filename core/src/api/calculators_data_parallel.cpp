// Calculators of the data-parallel-zero-fsdp lesson: `data-parallel` (step time with the
// gradient all-reduce overlapped or not, scaling efficiency over GPU counts), `zero`
// (memory and communication of ZeRO stages 0–3) and `fsdp-overlap` (tokens per GPU per
// step that hide FSDP's collectives behind compute). Models in parallel/data_parallel.hpp.
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/parallel/data_parallel.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(DpStep, MLSYS_OUT(compute_time_s, "s", "Forward and backward of every micro-batch: 6·params·tokens / (peak·mfu)"),
               MLSYS_OUT(forward_time_s, "s", "A third of the compute"),
               MLSYS_OUT(backward_time_s, "s", "Two thirds of the compute"),
               MLSYS_OUT(last_backward_time_s, "s", "Backward of the last micro-batch, the only one the all-reduce can hide behind"),
               MLSYS_OUT(gradient_bytes, "B", "params · size of grad_dtype"),
               MLSYS_OUT(allreduce_time_s, "s", "One all-reduce of the whole gradient: a ring inside a node, the hierarchical algorithm across nodes with its NVLink and network phases as `phases` says"),
               MLSYS_OUT(allreduce_time_sequential_s, "s", "The same with the NVLink and network phases one after the other (the conservative bound)"),
               MLSYS_OUT(allreduce_time_pipelined_s, "s", "The same with the two phases pipelined: every step's latency plus the slower phase's bandwidth term"),
               MLSYS_OUT(bucket_count, "", "ceil(gradient_bytes / bucket_bytes)"),
               MLSYS_OUT(bucket_allreduce_time_s, "s", "All-reduce of one bucket on an idle stream: bucket_latency_s + its bandwidth term"),
               MLSYS_OUT(bucket_latency_s, "s", "Latency of one bucket's all-reduce with the faster of the (hierarchical) ring, 2(g−1) + 2(N−1) steps, and NCCL's trees, 2(g−1) + 2⌈log2 N⌉ steps"),
               MLSYS_OUT(bucketed_comm_time_s, "s", "All buckets queued back to back on one stream, pipelined: one latency plus every bucket's bandwidth term"),
               MLSYS_OUT(exposed_comm_s, "s", "Communication not hidden behind compute"),
               MLSYS_OUT(step_time_s, "s", "compute + exposed communication"),
               MLSYS_OUT(link_bandwidth_Bps, "B/s", "Effective bus bandwidth of the group, latency aside (nccl-tests' busbw): NVLink per direction inside a node; across N nodes of g GPUs, whose g NICs work together, (p−1)/p / [(g−1)/(g·B_intra) + (N−1)/(g·N·B_inter)]"),
               MLSYS_OUT(bus_bandwidth_overlapped_Bps, "B/s", "The same if the NVLink and network phases overlapped completely: (p−1)/p / max of the two terms"),
               MLSYS_OUT(inter_node, "", "The group spans nodes"));
MLSYS_DESCRIBE(DpScaling, MLSYS_FLAT(step), MLSYS_OUT(efficiency, "", "Weak-scaling efficiency T(1) / T(gpus)"),
               MLSYS_OUT(step_time_no_overlap_s, "s", "compute + the whole all-reduce (no overlap)"),
               MLSYS_OUT(efficiency_phases_sequential, "", "Efficiency with the same overlap but the NVLink and network phases one after the other (equals efficiency inside a node or with phases = sequential)"));
MLSYS_DESCRIBE(DpSeriesPoint, MLSYS_OUT(gpus, "", "Data-parallel replicas"), MLSYS_FLAT(at),
               MLSYS_OUT(efficiency_no_overlap, "", "T(1) / step_time_no_overlap_s"));
MLSYS_DESCRIBE(DpTraining, MLSYS_FLAT(at), MLSYS_OUT(tokens_per_gpu, "tokens", "seq · micro_batch · accumulation"),
               MLSYS_OUT(global_batch_sequences, "", "micro_batch · gpus · accumulation"),
               MLSYS_OUT(global_batch_tokens, "tokens", "tokens_per_gpu · gpus"),
               MLSYS_OUT(tokens_per_s, "tokens/s", "global_batch_tokens / step_time_s"),
               MLSYS_OUT(peak_flops, "FLOP/s", "Peak FLOP/s used"),
               MLSYS_OUT(intra_bandwidth_Bps, "B/s", "Intra-node bandwidth per direction used"),
               MLSYS_OUT(inter_bandwidth_Bps, "B/s", "Inter-node bandwidth per direction used"),
               MLSYS_OUT(series, "", "With series_max_gpus: the step at 1, 2, 4, ... GPUs"));
MLSYS_DESCRIBE(ZeroStage, MLSYS_OUT(stage, "", "ZeRO stage (0: plain data parallelism)"),
               MLSYS_OUT(weights_bytes, "B", "Weights per GPU"), MLSYS_OUT(grads_bytes, "B", "Gradients per GPU"),
               MLSYS_OUT(optimizer_bytes, "B", "Optimizer states per GPU"),
               MLSYS_OUT(model_states_bytes, "B", "Weights + gradients + optimizer states per GPU"),
               MLSYS_OUT(volume_psi, "", "Elements sent per GPU per step in units of Ψ (2, 2, 2, 3)"),
               MLSYS_OUT(volume_elements, "", "Exact ring count: volume_psi · Ψ · (p−1)/p"),
               MLSYS_OUT(volume_bytes, "B", "volume_elements · size of comm_dtype"),
               MLSYS_OUT(comm_time_s, "s", "Time of the stage's collectives"),
               MLSYS_OUT(allgather_time_s, "s", "Parameter all-gathers"),
               MLSYS_OUT(reducescatter_time_s, "s", "Gradient reduce-scatter"),
               MLSYS_OUT(comm_vs_baseline, "", "comm_time_s / stage 0's"));
MLSYS_DESCRIBE(ZeroStages, MLSYS_OUT(stages, "", "Stages 0 to 3"),
               MLSYS_OUT(link_bandwidth_Bps, "B/s", "Effective bus bandwidth of the dp group (as in data-parallel)"));
MLSYS_DESCRIBE(FsdpOverlap, MLSYS_OUT(comm_time_s, "s", "Two all-gathers and one reduce-scatter per unit, every unit"),
               MLSYS_OUT(allgather_time_s, "s", "One unit's all-gather"),
               MLSYS_OUT(compute_time_s, "s", "6·params·tokens_per_gpu / (peak·mfu)"),
               MLSYS_OUT(tokens_min, "tokens", "Tokens per GPU per step at which compute equals communication"),
               MLSYS_OUT(tokens_min_bandwidth, "tokens", "Its bandwidth term: bytes·(p−1)/p·peak·mfu / (2·B), B the group's bus bandwidth (link_bandwidth_Bps); across N nodes of g GPUs bytes·peak·mfu/2 · [(g−1)/(g·B_intra) + (N−1)/(g·N·B_inter)]"),
               MLSYS_OUT(tokens_limit, "tokens", "Its limit for many nodes: bytes·peak·mfu/2 · [(g−1)/(g·B_intra) + 1/(g·B_inter)]"),
               MLSYS_OUT(tokens_min_network, "tokens", "The network phase alone, bytes·peak·mfu/2 · (N−1)/(g·N·B_inter): the threshold if the NVLink phase overlapped it; 0 inside one node"),
               MLSYS_OUT(tokens_limit_network, "tokens", "Its limit for many nodes, bytes·peak·mfu / (2·g·B_inter): the node's egress g·B_inter alone"),
               MLSYS_OUT(hidden, "", "Compute covers the communication"),
               MLSYS_OUT(exposed_comm_s, "s", "Communication not hidden behind compute"),
               MLSYS_OUT(step_time_s, "s", "compute + exposed communication"),
               MLSYS_OUT(link_bandwidth_Bps, "B/s", "Effective bus bandwidth of the sharding group (as in data-parallel)"),
               MLSYS_OUT(peak_flops, "FLOP/s", "Peak FLOP/s used"));

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
                       "Per-GPU, per-direction bandwidth across nodes: one NIC per GPU (50 GB/s = one 400 Gb/s NDR "
                       "InfiniBand NIC); a node's gpus_per_node NICs work together (rail-aligned), so a node sends "
                       "gpus_per_node times this",
                       kInterDefault_Bps, 0.0, 1e14, true),
          number_field("latency_s", "s", "Latency α of one communication step (NVLink or network)", kLatencyDefault_s, 0.0, 1.0)};
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

// Across nodes, the NVLink and network phases of each collective: pipelined by default (the
// model that meets NCCL's measured cross-node bus bandwidth), or one after the other.
Field phases_field() {
  return string_field("phases",
                      "Across nodes, the NVLink and network phases of each collective: pipelined (NCCL streams chunks "
                      "through both at once, so the slower phase sets the time) or sequential (one after the other, "
                      "the conservative bound)",
                      "pipelined", {"pipelined", "sequential"});
}

DpNetwork network_from(const Inputs& in) {
  DpNetwork n{};
  n.gpus_per_node = static_cast<int>(in.integer("gpus_per_node"));
  n.inter_bandwidth_Bps = in.num("inter_bandwidth_Bps");
  n.latency_s = in.num("latency_s");
  if (in.has("intra_bandwidth_Bps")) {
    n.intra_bandwidth_Bps = in.num("intra_bandwidth_Bps");
  } else {
    n.intra_bandwidth_Bps = find_accelerator(in.str("hardware"))->scaleup_per_direction_Bps("intra_bandwidth_Bps");
  }
  return n;
}

}  // namespace

void add_data_parallel_calculators(Calculators& out) {
  std::vector<Field> dp = join(compute_fields(), network_fields());
  dp.push_back(integer_field("gpus", "", "Data-parallel replicas (GPUs); across nodes a multiple of gpus_per_node", 64, 1, 1048576));
  dp.push_back(integer_field("seq", "tokens", "Tokens per sequence", 4096, 1, 1048576));
  dp.push_back(integer_field("micro_batch", "", "Sequences per GPU per micro-batch", 1, 1, 65536));
  dp.push_back(integer_field("accumulation", "", "Micro-batches per optimizer step (gradient accumulation)", 1, 1, 65536));
  dp.push_back(string_field("grad_dtype", "Type of the all-reduced gradients", "bf16", {"bf16", "fp16", "fp32"}));
  dp.push_back(number_field("bucket_bytes", "B", "Gradient bucket size (PyTorch DDP's default bucket_cap_mb = 25 MiB)",
                            26214400.0, 1e3, 1e13));
  dp.push_back(boolean_field("overlap", "All-reduce gradient buckets during the backward pass", true));
  dp.push_back(phases_field());
  dp.push_back(optional(integer_field("series_max_gpus", "",
                                      "Also return the step at 1, 2, 4, … GPUs up to this count (weak scaling)", json(), 1,
                                      1048576)));
  out.add(
      "data-parallel",
       "One data-parallel training step per GPU: compute 6·params·tokens / (peak·mfu), a third forward and two thirds "
       "backward; an all-reduce of the gradients over `gpus` replicas (a ring over NVLink within a node; across "
       "nodes the hierarchical algorithm, NVLink inside each node and every GPU's own NIC between nodes), either "
       "after the backward pass or overlapped with the last micro-batch's backward in pipelined buckets; the "
       "exposed communication, the step time and the weak-scaling efficiency T(1)/T(gpus) at a fixed "
       "per-GPU batch. Global batch = micro_batch × gpus × accumulation sequences.",
       dp, [](const Inputs& in) {
         DpCompute c{};
         c.params = in.num("params");
         c.accumulation = static_cast<double>(in.integer("accumulation"));
         const double mb = static_cast<double>(in.integer("micro_batch"));
         c.tokens_per_gpu = dp_tokens_per_gpu(static_cast<double>(in.integer("seq")), mb, c.accumulation);
         c.peak_flops = peak_from(in, in.str("dtype"));
         c.mfu = in.num("mfu");
         DpNetwork net = network_from(in);
         net.pipelined_phases = in.str("phases") == "pipelined";
         return dp_training(c, mb, dtype_bytes(in.str("grad_dtype")), in.num("bucket_bytes"), in.boolean("overlap"),
                            static_cast<int>(in.integer("gpus")), net,
                            in.has("series_max_gpus") ? std::optional(in.integer("series_max_gpus")) : std::nullopt);
       });

  std::vector<Field> zf = {number_field("params", "", "Parameters Ψ of the model", 7.5e9, 1e6, 1e13),
                           integer_field("dp", "", "Data-parallel degree N_d (ZeRO shards over it)", 64, 1, 1048576),
                           string_field("optimizer", "adam (12 bytes of fp32 states per parameter) or sgd with momentum (8)",
                                        "adam", {"adam", "sgd"}),
                           string_field("comm_dtype", "Type of the communicated gradients and parameters", "bf16",
                                        {"bf16", "fp16", "fp32"})};
  zf = join(zf, network_fields());
  zf.push_back(phases_field());
  out.add(
      "zero",
       "ZeRO stages 0–3 (Rajbhandari et al. 2020) over `dp` ranks with mixed precision: model-state bytes per GPU "
       "(2 + 2 + K bytes per parameter, K = 12 for Adam; stage 1 shards the optimizer states, 2 also the gradients, 3 "
       "also the weights) and communication per GPU per step: 2Ψ elements for stages 0–2 (a reduce-scatter of the "
       "gradients and an all-gather of the parameters, an all-reduce for stage 0) and 3Ψ for stage 3 (parameters "
       "all-gathered for the forward and again for the backward), exactly 2Ψ(p−1)/p or 3Ψ(p−1)/p with ring "
       "collectives, and their time in the alpha-beta model (a ring inside a node, the hierarchical algorithm across "
       "nodes).",
       zf, [](const Inputs& in) {
         DpNetwork net = network_from(in);
         net.pipelined_phases = in.str("phases") == "pipelined";
         return zero_stages(in.num("params"), in.str("optimizer") == "adam", static_cast<int>(in.integer("dp")),
                            dtype_bytes(in.str("comm_dtype")), net);
       });

  std::vector<Field> ff = join(compute_fields(), network_fields());
  ff.push_back(integer_field("gpus", "", "GPUs the parameters are sharded over (FSDP's sharding group)", 64, 1, 1048576));
  ff.push_back(integer_field("tokens_per_gpu", "tokens", "Tokens one GPU processes per optimizer step", 8192, 1,
                             1000000000000LL));
  ff.push_back(integer_field("units", "", "FSDP units (usually one per transformer layer)", 32, 1, 100000));
  ff.push_back(string_field("param_dtype", "Type of the gathered parameters and reduced gradients", "bf16",
                            {"bf16", "fp16", "fp32"}));
  ff.push_back(boolean_field("prefetch", "Gather the next unit's parameters while the current unit computes", true));
  out.add(
      "fsdp-overlap",
       "FSDP (Zhao et al. 2023) with the model split into `units`: per unit two all-gathers of its parameters "
       "(forward, backward) and one reduce-scatter of its gradients (a ring inside a node, the hierarchical "
       "algorithm across nodes, in the alpha-beta model), against compute 6·params·tokens_per_gpu / (peak·mfu). Returns the tokens per GPU per step at which compute "
       "equals communication (tokens_min, with latency), its bandwidth term bytes·(p−1)/p·peak·mfu / (2·B) with "
       "B the group's bus bandwidth (independent of the model size), its limit for many nodes and the network "
       "phase's share, and the exposed communication and step time with "
       "or without prefetching.",
       ff, [](const Inputs& in) {
         DpCompute c{};
         c.params = in.num("params");
         c.tokens_per_gpu = static_cast<double>(in.integer("tokens_per_gpu"));
         c.accumulation = 1;
         c.peak_flops = peak_from(in, in.str("dtype"));
         c.mfu = in.num("mfu");
         return fsdp_overlap(c, dtype_bytes(in.str("param_dtype")), static_cast<int>(in.integer("units")),
                             in.boolean("prefetch"), static_cast<int>(in.integer("gpus")), network_from(in));
       });
}

}  // namespace mlsys::api
