// What the collectives lesson computes from the alpha-beta model (comm/cost_model.hpp) and the
// executor (comm/executor.hpp): one collective on a one- or two-level network with its
// algorithm and nccl-tests' bus bandwidth (nccl-tests doc/PERFORMANCE.md), an executed run
// against the model, time against message size per algorithm with the crossovers with the
// ring, and the hierarchical all-reduce against one flat ring. Throws InputError naming the
// input field.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mlsys/comm/cost_model.hpp"
#include "mlsys/comm/executor.hpp"

namespace mlsys {

// A flat network (gpus_per_node 0) or nodes of gpus_per_node GPUs joined by `intra`, with
// `inter` across nodes.
struct CommTopology {
  Link intra, inter;
  int gpus_per_node = 0;
};

// The link a flat algorithm runs at: across nodes every step waits for the slower link.
Link flat_link(const CommTopology& t, int ranks);

// The algorithms that can run `op` on `ranks` (hierarchical only with gpus_per_node > 0).
std::vector<CollectiveAlgorithm> collective_candidates(Collective op, int ranks, int gpus_per_node);

struct AlgorithmTime {
  std::string algorithm;
  double time_s;
};

struct CollectiveRun {
  CollectiveCost cost;
  double algbw_Bps;   // bytes / time (0 with no communication)
  double busbw_Bps;   // algbw · bus factor
  double bus_factor;  // bus_bandwidth_factor(op, ranks)
  std::string algorithm;
  std::optional<std::vector<AlgorithmTime>> candidates;  // auto: every candidate's time
  std::optional<int> chunks;                               // ring broadcast / reduce: the chain's chunk count
};
// `algorithm` empty: auto, the cheapest candidate.
CollectiveRun run_collective(Collective op, std::optional<CollectiveAlgorithm> algorithm, int ranks, double bytes,
                             const CommTopology& t);

// One executed step (step 0: the initial state): its messages and, per rank and chunk, the
// contributor mask as a number.
struct CommSnapshot {
  std::size_t step;
  std::vector<CommMessage> messages;
  std::vector<std::vector<double>> holds;
};

struct CollectiveExecution {
  std::string op, algorithm;
  int ranks, elements, chunks;
  double bytes, steps;
  std::vector<CommSnapshot> snapshots;
  std::vector<double> bytes_sent_by_rank;
  double bytes_sent_per_rank;
  double time_s;  // executed steps on their links
  bool equals_direct;
  double max_abs_error;
  CollectiveCost model;  // the cost model of the same run
  std::vector<std::vector<double>> inputs, outputs;  // per rank: the seeded buffer, and after the collective
};
// Executes `op` with `algorithm` (comm/executor.hpp): the ring broadcast and reduce as a chain
// of `chain_chunks` chunks, `elements` doubles per rank (default 2 per chunk), inputs from
// `seed`; timed on `t`'s links and compared with the cost model.
CollectiveExecution execute_with_model(Collective op, CollectiveAlgorithm algorithm, int ranks,
                                       std::optional<int> elements, int chain_chunks, std::uint64_t seed,
                                       const CommTopology& t);

struct SweepPoint {
  double bytes, time_s, busbw_Bps;
};
struct SweepSeries {
  std::string algorithm;
  std::vector<SweepPoint> points;
};
struct Crossover {
  std::string algorithm, versus;  // versus: "ring"
  bool closed_form;               // linear costs (else a bisection on log S for the chain)
  bool exists;
  std::string faster_small;       // the faster of the two at 1 byte
  std::optional<double> bytes;    // the crossing size; empty when none
};
struct CollectiveSweep {
  std::string op;
  int ranks;
  std::vector<SweepSeries> series;
  std::vector<Crossover> crossovers;
  double half_bandwidth_bytes;  // n_1/2 = α·B
};
// `points` log-spaced sizes from min_bytes to max_bytes for every flat candidate on `link`.
CollectiveSweep collective_sweep(Collective op, int ranks, Link link, double min_bytes, double max_bytes, int points);

struct HierarchicalVsFlat {
  int ranks;
  double intra_bandwidth_Bps;
  double time_s, steps;
  double intra_time_s, inter_time_s, intra_steps, inter_steps, intra_bytes_per_rank, inter_bytes_per_rank;
  double busbw_Bps;
  double flat_ring_time_s, flat_ring_steps, flat_ring_bytes_per_rank, flat_ring_busbw_Bps;
  double speedup;  // flat ring time / hierarchical time
  // The phases pipelined chunk by chunk, as NCCL runs them: no faster than the slower phase,
  // max(intra, inter), a bound rather than a prediction (chunking's own costs left out).
  double overlapped_time_s, overlapped_busbw_Bps;
  double flat_inter_bytes_per_rank;  // the baseline's bytes across nodes from its busiest GPU
  // What NCCL runs instead of one ring (all-reduce): g flat rings (channels), each carrying S/g
  // and leaving every node through a different GPU's adapter, so all adapters work at once. Each
  // of the 2(p − 1) steps lasts as long as the slower load: one chunk S/(g·p) on the adapter, or
  // the g − 1 chunks the GPU passes on over NVLink. Latency as NCCL's tuning model counts a ring:
  // α_inter on the 2(N − 1) steps that cross nodes, α_intra on the others. All-to-all: NCCL sends
  // point to point, so this is the direct exchange (flat_ring_time_s).
  double nccl_rings_time_s, nccl_rings_busbw_Bps;
  double nccl_rings_inter_bytes_per_rank;  // each adapter's bytes: 2(p − 1)/p · S/g
};
// Hierarchical `op` (all-reduce or all-to-all) of `bytes` on nodes × gpus_per_node against
// one flat ring over every GPU at the slower link, the naive baseline (all-to-all: the direct
// exchange, local blocks over NVLink while remote ones leave through the GPU's own adapter), and
// against NCCL's flat rings, one per adapter.
HierarchicalVsFlat hierarchical_vs_flat(int nodes, int gpus_per_node, double bytes, Link intra, Link inter,
                                        Collective op = Collective::AllReduce);

}  // namespace mlsys
