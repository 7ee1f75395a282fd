// Collectives executed on simulated ranks that hold real buffers (std::vector<double>), one
// algorithm step at a time: in each step every rank sends at most one message, all messages
// read the state before the step, and a receiver either overwrites its chunks or adds into
// them (reductions are sums). Every step records its messages and, per rank and chunk, the
// set of ranks whose inputs the chunk now contains (a bitmask; 0 = the rank holds no valid
// data there), so a figure can replay the run. The final buffers are compared with the
// direct computation, and the counted steps and bytes per rank with comm/cost_model.hpp.
// Algorithms as in cost_model.hpp (ring / pipelined chain, binomial tree, recursive doubling
// and halving, halving-doubling, hierarchical); sources: Thakur, Rabenseifner & Gropp,
// "Optimization of Collective Communication Operations in MPICH", IJHPCA 19(1), 2005;
// Patarasuk & Yuan, "Bandwidth optimal all-reduce algorithms for clusters of workstations",
// JPDC 69(2), 2009.
#pragma once
#include <cstdint>
#include <vector>

#include "mlsys/comm/cost_model.hpp"

namespace mlsys {

constexpr int kMaxExecRanks = 64;         // masks are 64-bit
constexpr int kMaxExecElements = 1 << 16;  // per rank buffer, keeps one run fast

struct CommMessage {
  int src = 0, dst = 0;
  std::vector<int> chunks;  // chunk ids written at the receiver
  double bytes = 0;         // elements × 8 (doubles)
  bool reduce = false;      // added into the receiver's chunks (else copied over them)
  bool inter_node = false;  // hierarchical: crosses nodes
};

struct CommStep {
  std::vector<CommMessage> messages;
  std::vector<std::vector<std::uint64_t>> holds;  // [rank][chunk] contributors after the step
};

struct ExecutedCollective {
  Collective op;
  CollectiveAlgorithm algorithm;
  int ranks = 0, elements = 0, chunks = 0;  // buffer of `elements` doubles in `chunks` equal chunks
  double bytes = 0;                         // S in nccl-tests' convention (elements × 8)
  std::vector<std::vector<std::uint64_t>> initial_holds;
  std::vector<CommStep> steps;
  std::vector<double> bytes_sent;   // per rank
  double max_bytes_sent = 0;
  std::vector<std::vector<double>> inputs, outputs;  // per rank
  double max_abs_error = 0;  // |output − direct| over every element that must hold a result
  bool equals_direct = false;

  // Σ over steps of (α + largest message / B), each step on its link.
  double time_s(Link intra, Link inter) const;
};

// Runs `op` with `algorithm` on `ranks` ranks holding `elements` doubles each (for all-gather,
// reduce-scatter and all-to-all, `elements` is the whole array, ranks × the per-rank block).
// Inputs are drawn from `seed` (small integers, so sums are exact). Broadcast and reduce
// use rank 0 as root. `chain_chunks` is the pipeline depth of the ring (chain) broadcast and
// reduce (0: ranks chunks); `gpus_per_node` is for hierarchical. `elements` must be a
// positive multiple of the chunk count (ranks, or chain_chunks for the chain). Throws
// InputError naming the field.
ExecutedCollective execute_collective(Collective op, CollectiveAlgorithm algorithm, int ranks, int elements,
                                      std::uint64_t seed, int gpus_per_node = 0, int chain_chunks = 0);

}  // namespace mlsys
