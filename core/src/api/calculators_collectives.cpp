// Calculators of the collectives lesson: `collective` (shared/API.md), `collective-execute`
// (an algorithm run step by step on simulated ranks), `collective-sweep` (time against
// message size per algorithm, with the crossover sizes) and `hierarchical-allreduce`
// (nodes × GPUs, NVLink inside and InfiniBand across, against one flat ring).
// Models: comm/collective_analysis.hpp (alpha-beta model comm/cost_model.hpp; bus bandwidth:
// nccl-tests doc/PERFORMANCE.md).
#include "mlsys/comm/collective_analysis.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "registry.hpp"

namespace mlsys::api {

// A crossover that does not exist keeps its key, as null (an empty optional is left out elsewhere).

MLSYS_DESCRIBE(CollectiveCost, MLSYS_OUT(time_s, "s", "Alpha-beta time on the critical path"),
               MLSYS_OUT(steps, "", "Communication steps on the critical path"),
               MLSYS_OUT(bytes_sent_per_rank, "B", "The most bytes any rank sends"));
MLSYS_DESCRIBE(AlgorithmTime, MLSYS_OUT(algorithm, "", "A candidate algorithm"),
               MLSYS_OUT(time_s, "s", "Its alpha-beta time"));
MLSYS_DESCRIBE(CollectiveRun, MLSYS_FLAT(cost), MLSYS_OUT(algbw_Bps, "B/s", "Algorithm bandwidth: bytes / time"),
               MLSYS_OUT(busbw_Bps, "B/s", "nccl-tests bus bandwidth: algbw · bus_factor"),
               MLSYS_OUT(bus_factor, "", "busbw / algbw: 2(p−1)/p all-reduce, (p−1)/p gathers and scatters, 1 else"),
               MLSYS_OUT(algorithm, "", "The algorithm timed (the cheapest with auto)"),
               MLSYS_OUT(candidates, "", "With auto: every algorithm that can run the collective and its time"),
               MLSYS_OUT(chunks, "", "Ring broadcast or reduce: pipeline chunks of the chain"));
MLSYS_DESCRIBE(CommMessage, MLSYS_OUT(src, "", "Sending rank"), MLSYS_OUT(dst, "", "Receiving rank"),
               MLSYS_OUT(chunks, "", "Chunk ids written at the receiver"), MLSYS_OUT(bytes, "B", "Message size"),
               MLSYS_OUT(reduce, "", "Added into the receiver's chunks (else copied over them)"),
               MLSYS_OUT(inter_node, "", "Crosses nodes (hierarchical)"));
MLSYS_DESCRIBE(CommSnapshot, MLSYS_OUT(step, "", "Step number (0: before the first step)"),
               MLSYS_OUT(messages, "", "Messages of the step"),
               MLSYS_OUT(holds, "", "Per rank and chunk, the bitmask of ranks whose inputs it contains after the step"));
MLSYS_DESCRIBE(CollectiveExecution, MLSYS_OUT(op, "", "The collective"), MLSYS_OUT(algorithm, "", "Its algorithm"),
               MLSYS_OUT(ranks, "", "Simulated ranks"), MLSYS_OUT(elements, "", "Doubles per rank buffer"),
               MLSYS_OUT(chunks, "", "Chunks the buffer is cut into"),
               MLSYS_OUT(bytes, "B", "Size S in nccl-tests' convention (elements × 8)"),
               MLSYS_OUT(steps, "", "Executed steps"), MLSYS_OUT(snapshots, "", "The state before and after every step"),
               MLSYS_OUT(bytes_sent_by_rank, "B", "Bytes each rank sent"),
               MLSYS_OUT(bytes_sent_per_rank, "B", "The most bytes any rank sent"),
               MLSYS_OUT(time_s, "s", "Σ over steps of α + largest message / B, each step on its link"),
               MLSYS_OUT(equals_direct, "", "The result equals the direct computation"),
               MLSYS_OUT(max_abs_error, "", "Largest |result − direct| over the elements that hold a result"),
               MLSYS_OUT(model, "", "The cost model's steps, bytes per rank and time for the same run"),
               MLSYS_OUT(inputs, "", "Per rank, its buffer before the collective (seeded small integers, so sums are exact)"),
               MLSYS_OUT(outputs, "", "Per rank, its buffer after the collective"));
MLSYS_DESCRIBE(SweepPoint, MLSYS_OUT(bytes, "B", "Message size S"), MLSYS_OUT(time_s, "s", "Alpha-beta time"),
               MLSYS_OUT(busbw_Bps, "B/s", "Bus bandwidth"));
MLSYS_DESCRIBE(SweepSeries, MLSYS_OUT(algorithm, "", "The algorithm"),
               MLSYS_OUT(points, "", "Time and bus bandwidth at each size"));
MLSYS_DESCRIBE(Crossover, MLSYS_OUT(algorithm, "", "The algorithm compared"),
               MLSYS_OUT(versus, "", "The algorithm it is compared with (ring)"),
               MLSYS_OUT(closed_form, "", "Linear costs: closed form (else a bisection on log S)"),
               MLSYS_OUT(exists, "", "The two times cross at a positive size"),
               MLSYS_OUT(faster_small, "", "The faster of the two at 1 byte"),
               MLSYS_OUT_NULLABLE(bytes, "B", "Size where the two take the same time; null when they do not cross"));
MLSYS_DESCRIBE(CollectiveSweep, MLSYS_OUT(op, "", "The collective"), MLSYS_OUT(ranks, "", "Number of ranks"),
               MLSYS_OUT(series, "", "Per algorithm, time against message size"),
               MLSYS_OUT(crossovers, "", "Where each algorithm crosses the ring"),
               MLSYS_OUT(half_bandwidth_bytes, "B", "n_1/2 = α·B: size at which one message reaches half the bandwidth"));
MLSYS_DESCRIBE(HierarchicalVsFlat, MLSYS_OUT(ranks, "", "GPUs: nodes · gpus_per_node"),
               MLSYS_OUT(intra_bandwidth_Bps, "B/s", "Intra-node bandwidth per direction used"),
               MLSYS_OUT(time_s, "s", "Hierarchical time, phases one after another"), MLSYS_OUT(steps, "", "Its steps"),
               MLSYS_OUT(intra_time_s, "s", "Time on intra-node links"),
               MLSYS_OUT(inter_time_s, "s", "Time on inter-node links"),
               MLSYS_OUT(intra_steps, "", "Steps inside nodes"), MLSYS_OUT(inter_steps, "", "Steps across nodes"),
               MLSYS_OUT(intra_bytes_per_rank, "B", "Bytes a rank sends inside its node"),
               MLSYS_OUT(inter_bytes_per_rank, "B", "Bytes a rank sends across nodes"),
               MLSYS_OUT(busbw_Bps, "B/s", "Bus bandwidth of the hierarchical algorithm"),
               MLSYS_OUT(flat_ring_time_s, "s",
                         "One ring over every GPU at the slower link (all-to-all: the direct exchange, local "
                         "blocks over NVLink while the others leave through the GPU's adapter)"),
               MLSYS_OUT(flat_ring_steps, "", "Its steps"),
               MLSYS_OUT(flat_ring_bytes_per_rank, "B", "Bytes a rank sends in the flat ring"),
               MLSYS_OUT(flat_ring_busbw_Bps, "B/s", "Bus bandwidth of the flat ring"),
               MLSYS_OUT(speedup, "", "flat_ring_time_s / time_s"),
               MLSYS_OUT(overlapped_time_s, "s",
                         "Bound with the phases pipelined chunk by chunk: max(intra_time_s, inter_time_s)"),
               MLSYS_OUT(overlapped_busbw_Bps, "B/s", "Bus bandwidth at overlapped_time_s"),
               MLSYS_OUT(flat_inter_bytes_per_rank, "B",
                         "Bytes the flat baseline's busiest GPU sends across nodes (0 on one node)"),
               MLSYS_OUT(nccl_rings_time_s, "s",
                         "NCCL's flat rings, one per GPU's adapter, each carrying S/g (all-to-all: the direct "
                         "exchange)"),
               MLSYS_OUT(nccl_rings_busbw_Bps, "B/s", "Bus bandwidth of NCCL's flat rings"),
               MLSYS_OUT(nccl_rings_inter_bytes_per_rank, "B",
                         "Bytes each adapter sends in NCCL's flat rings: 2(p − 1)/p · S/g (0 on one node)"));

namespace {

const std::vector<std::string> kOps = {"allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall"};
constexpr double kMaxBytes = 1e15, kMaxBandwidth = 1e15;
constexpr double kDefaultLatency = 2e-6, kDefaultInterLatency = 5e-6;
constexpr double kDefaultBandwidth = 450e9, kDefaultInterBandwidth = 50e9;

Field latency_field(const std::string& name, double def, const std::string& what) {
  return number_field(name, "s", what, def, 0.0, 1.0);
}
Field bandwidth_field(const std::string& name, json def, const std::string& what) {
  return number_field(name, "B/s", what, def, 0.0, kMaxBandwidth, true);
}

CommTopology topology_from(const Inputs& in) {
  CommTopology t;
  t.intra = {in.num("latency_s"), in.num("bandwidth_Bps")};
  t.inter = {in.has("inter_latency_s") ? in.num("inter_latency_s") : t.intra.latency_s, in.num("inter_bandwidth_Bps")};
  if (in.has("gpus_per_node")) t.gpus_per_node = static_cast<int>(in.integer("gpus_per_node"));
  return t;
}

std::vector<Field> collective_fields(bool with_auto) {
  std::vector<std::string> algs = {"ring", "tree", "recursive-doubling", "halving-doubling", "hierarchical"};
  if (with_auto) algs.push_back("auto");
  return {string_field("op", "The collective", "allreduce", kOps),
          string_field("algorithm", "Algorithm (auto: the cheapest modelled one)", "ring", algs),
          integer_field("ranks", "", "Number of ranks (GPUs) taking part", 8, 1, 1 << 20),
          number_field("bytes", "B",
                       "Size S as nccl-tests reports it: the buffer for all-reduce, broadcast and reduce; the whole "
                       "array (ranks × per-rank block) for all-gather, reduce-scatter and all-to-all",
                       1e9, 0.0, kMaxBytes),
          latency_field("latency_s", kDefaultLatency, "Latency α per message (intra-node link)"),
          bandwidth_field("bandwidth_Bps", kDefaultBandwidth, "Bandwidth B = 1/β per direction (intra-node link)"),
          optional(integer_field("gpus_per_node", "", "GPUs per node (two-level network)", json(), 1, 1024)),
          bandwidth_field("inter_bandwidth_Bps", kDefaultInterBandwidth,
                          "Inter-node bandwidth per GPU per direction (with gpus_per_node)"),
          latency_field("inter_latency_s", kDefaultInterLatency, "Inter-node latency per message (with gpus_per_node)")};
}

// Intra-node bandwidth per direction: given, or half the table's scale-up bandwidth (it sums both directions).
double intra_bandwidth_from(const Inputs& in) {
  if (in.has("bandwidth_Bps")) return in.num("bandwidth_Bps");
  return find_accelerator(in.str("hardware"))->scaleup_per_direction_Bps("bandwidth_Bps");
}

}  // namespace

void add_collectives_calculators(Calculators& out) {
  out.add("collective",
          "Alpha-beta time of a collective (all-reduce, all-gather, reduce-scatter, broadcast, reduce, all-to-all) by "
          "ring, tree, recursive doubling, halving-doubling or hierarchical algorithms, with nccl-tests' algorithm and "
          "bus bandwidth; auto picks the cheapest.",
          collective_fields(true), [](const Inputs& in) {
            const std::string alg = in.str("algorithm");
            return run_collective(collective_from_name(in.str("op")),
                                  alg == "auto" ? std::nullopt : std::optional(algorithm_from_name(alg)),
                                  static_cast<int>(in.integer("ranks")), in.num("bytes"), topology_from(in));
          });

  auto exec_fields = collective_fields(false);
  exec_fields[2] = integer_field("ranks", "", "Number of simulated ranks", 8, 1, 16);
  exec_fields.erase(exec_fields.begin() + 3);  // no bytes: the buffer is `elements` doubles
  exec_fields.push_back(optional(integer_field("elements", "",
                                               "Doubles per rank buffer (whole array for all-gather, reduce-scatter, "
                                               "all-to-all); a multiple of the chunk count; default 2 per chunk",
                                               json(), 1, 4096)));
  exec_fields.push_back(integer_field("chunks", "", "Pipeline chunks of the ring (chain) broadcast and reduce", 4, 1, 64));
  exec_fields.push_back(seed_field());
  out.add("collective-execute",
          "Runs a collective step by step on simulated ranks holding real buffers: messages and which rank holds which "
          "chunk after every step, counted steps and bytes against the model, and the result checked against the "
          "direct computation.",
          exec_fields, [](const Inputs& in) {
            return execute_with_model(
                collective_from_name(in.str("op")), algorithm_from_name(in.str("algorithm")),
                static_cast<int>(in.integer("ranks")),
                in.has("elements") ? std::optional(static_cast<int>(in.integer("elements"))) : std::nullopt,
                static_cast<int>(in.integer("chunks")), static_cast<std::uint64_t>(in.integer("seed")),
                topology_from(in));
          });

  out.add("collective-sweep",
          "Alpha-beta time and bus bandwidth against message size for every algorithm that can run the collective on "
          "this many ranks, and the size where each crosses the ring.",
          {string_field("op", "The collective", "allreduce", kOps),
           integer_field("ranks", "", "Number of ranks", 16, 2, 1 << 20),
           latency_field("latency_s", kDefaultLatency, "Latency α per message"),
           bandwidth_field("bandwidth_Bps", kDefaultBandwidth, "Bandwidth B per direction"),
           number_field("min_bytes", "B", "Smallest message size", 1e3, 0.0, kMaxBytes, true),
           number_field("max_bytes", "B", "Largest message size", 1e10, 0.0, kMaxBytes, true),
           integer_field("points", "", "Sizes sampled (log-spaced)", 61, 2, 400)},
          [](const Inputs& in) {
            return collective_sweep(collective_from_name(in.str("op")), static_cast<int>(in.integer("ranks")),
                                      {in.num("latency_s"), in.num("bandwidth_Bps")}, in.num("min_bytes"),
                                      in.num("max_bytes"), static_cast<int>(in.integer("points")));
          });

  out.add("hierarchical-allreduce",
          "Hierarchical all-reduce on nodes × GPUs (ring reduce-scatter inside each node, ring all-reduce of the shards "
          "across nodes, ring all-gather inside) against one flat ring over every GPU and against NCCL's flat rings, one "
          "per adapter; with op alltoall, the "
          "rail-aligned two-phase all-to-all against the flat pairwise exchange.",
          {string_field("op", "The collective", "allreduce", {"allreduce", "alltoall"}),
           integer_field("nodes", "", "Number of nodes", 4, 1, 4096),
           integer_field("gpus_per_node", "", "GPUs per node", 8, 1, 64),
           number_field("bytes", "B", "Size S: the all-reduce buffer, or each GPU's all-to-all buffer (p blocks)", 1e9, 0.0, kMaxBytes), hardware_field(true),
           optional(bandwidth_field("bandwidth_Bps", json(),
                                    "Intra-node bandwidth per direction (default: half the table's scale-up "
                                    "bandwidth)")),
           latency_field("latency_s", kDefaultLatency, "Intra-node latency per message"),
           bandwidth_field("inter_bandwidth_Bps", kDefaultInterBandwidth,
                           "Inter-node bandwidth per GPU per direction (one 400 Gb/s NIC per GPU: 50 GB/s)"),
           latency_field("inter_latency_s", kDefaultInterLatency, "Inter-node latency per message")},
          [](const Inputs& in) {
            return hierarchical_vs_flat(static_cast<int>(in.integer("nodes")),
                                        static_cast<int>(in.integer("gpus_per_node")), in.num("bytes"),
                                        {in.num("latency_s"), intra_bandwidth_from(in)},
                                        {in.num("inter_latency_s"), in.num("inter_bandwidth_Bps")},
                                        collective_from_name(in.str("op")));
          });
}

}  // namespace mlsys::api
