// The alpha-beta (Hockney) cost model of collective communication: sending m bytes over one
// link costs α + m/B (α the latency per message, B the link bandwidth). Each algorithm is a
// sequence of steps in which every rank sends at most one message; the model sums the steps
// on the critical path. Sizes follow nccl-tests' convention (PERFORMANCE.md of
// NVIDIA/nccl-tests): `bytes` S is the buffer for all-reduce, broadcast and reduce, and the
// whole array (per-rank count × ranks) for all-gather, reduce-scatter and all-to-all.
// Algorithms (each executed step by step on simulated ranks in comm/executor.hpp, whose
// counted steps and bytes equal these formulas; L = ⌈log2 p⌉, S the size above):
//   ring      all-reduce 2(p−1) steps of S/p (reduce-scatter then all-gather);
//             all-gather, reduce-scatter p−1 steps of S/p; all-to-all p−1 steps of S/p
//             (pairwise exchange: at step k rank r sends its block for rank r+k);
//             broadcast, reduce a pipelined chain of C chunks: p+C−2 steps of S/C.
//   tree      binomial tree: broadcast, reduce L steps of S; all-reduce = reduce then
//             broadcast, 2L steps of S (Thakur, Rabenseifner & Gropp 2005, IJHPCA 19(1)).
//   recursive-doubling (p a power of two) all-reduce log2 p steps exchanging all S;
//             all-gather log2 p steps of S/p, 2S/p, ..., S/2; reduce-scatter by recursive
//             halving, log2 p steps of S/2, ..., S/p.
//   halving-doubling (p a power of two) all-reduce = recursive-halving reduce-scatter then
//             recursive-doubling all-gather (Rabenseifner): 2·log2 p steps, 2(p−1)/p·S.
//   hierarchical (hierarchical_cost) ring phases inside nodes and across them; all-to-all
//             in two rail-aligned phases.
#pragma once
#include <string>

namespace mlsys {

enum class Collective { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll };
enum class CollectiveAlgorithm { Ring, Tree, RecursiveDoubling, Hierarchical, HalvingDoubling };

struct Link {
  double latency_s;      // α, per message
  double bandwidth_Bps;  // B = 1/β, per direction
};

struct CollectiveCost {
  double time_s;               // critical path
  double steps;                // communication steps on the critical path
  double bytes_sent_per_rank;  // the most any rank sends
};

// Cost of one collective over `ranks` ranks joined by identical links. Throws InputError
// (field "algorithm" or "ranks") when the algorithm cannot run that op on that rank count.
CollectiveCost collective_cost(Collective op, CollectiveAlgorithm algorithm, int ranks, double bytes, Link link);

// Two-level cost: inside each node of `gpus_per_node` ranks over `intra`, across the
// `ranks / gpus_per_node` nodes over `inter` (ranks must be a multiple of gpus_per_node).
// With g GPUs per node and N nodes (each GPU with its own inter-node NIC, as in a DGX H100):
//   all-reduce     ring reduce-scatter inside the node (g−1 steps of S/g), ring all-reduce
//                  of each GPU's shard across nodes (2(N−1) steps of S/(gN)), ring
//                  all-gather inside the node (g−1 steps of S/g);
//   all-gather     across nodes first (N−1 steps of S/(gN)), then inside (g−1 of S/g);
//   reduce-scatter inside first (g−1 of S/g), then across nodes (N−1 of S/(gN));
//   all-to-all     rail-aligned in two phases (NCCL's PXN routes it the same way): inside the
//                  node each GPU hands local GPU l every block bound for local index l on any
//                  node (g−1 steps of S/g), then the N GPUs of one rail exchange them (N−1
//                  steps of S/N). Each GPU sends (N−1)/N·S across nodes whatever g is: with no
//                  reduction nothing shrinks a GPU's cross-node bytes, unlike all-reduce's
//                  2(N−1)/N·S/g.
// Broadcast and reduce throw InputError("algorithm").
CollectiveCost hierarchical_cost(Collective op, int ranks, int gpus_per_node, double bytes, Link intra, Link inter);

// The same, split into the part spent on intra-node links and on inter-node links.
struct HierarchicalBreakdown {
  CollectiveCost total;
  double intra_time_s, inter_time_s;
  double intra_steps, inter_steps;
  double intra_bytes_per_rank, inter_bytes_per_rank;
};
HierarchicalBreakdown hierarchical_breakdown(Collective op, int ranks, int gpus_per_node, double bytes, Link intra,
                                             Link inter);

// A collective over a parallel group of `ranks` GPUs placed on whole nodes of
// `gpus_per_node` (the ranks of a DP, FSDP or TP group): a ring over the scale-up link
// `intra` when the group fits in one node; across nodes the hierarchical algorithm above,
// where every GPU drives its own NIC (`inter` is one GPU's NIC, rail-aligned), so a node's
// NICs carry its traffic together. Broadcast and reduce throw InputError("algorithm") across
// nodes; a group spanning a partial node throws InputError("ranks").
CollectiveCost group_collective_cost(Collective op, int ranks, int gpus_per_node, double bytes, Link intra, Link inter);

// nccl-tests' bus-bandwidth factor: busbw = algbw · factor (2(p−1)/p for all-reduce,
// (p−1)/p for all-gather, reduce-scatter and all-to-all, 1 for broadcast and reduce).
double bus_bandwidth_factor(Collective op, int ranks);

// Pipelined-chain (ring) broadcast or reduce with `chunks` pipeline chunks: p+C−2 steps of
// S/C each; every rank but the last in the chain sends S. collective_cost uses the chunk
// count that minimises the time (chain_chunks).
CollectiveCost chain_cost(int ranks, double bytes, Link link, int chunks);
constexpr int kMaxChainChunks = 1024;
// The integer C in [1, kMaxChainChunks] minimising (p+C−2)(α + S/(C·B)); near √((p−2)S/(αB)).
int chain_chunks(int ranks, double bytes, Link link);

// A cost linear in S for a fixed rank count: time = latency_terms·α + bandwidth_terms·S/B,
// and the busiest rank sends sent_terms·S. Not defined for the chain (it picks C from S) nor
// for hierarchical (two links); InputError("algorithm") there.
struct AlphaBetaTerms {
  double latency_terms;
  double bandwidth_terms;
  double sent_terms;
};
AlphaBetaTerms alpha_beta_terms(Collective op, CollectiveAlgorithm algorithm, int ranks);

// Message size S* at which two algorithms with linear costs take the same time:
// S* = (a1 − a2)·α·B / (b2 − b1). Returns a negative number when the lines do not cross at a
// positive size (one algorithm is never slower).
double crossover_bytes(AlphaBetaTerms a, AlphaBetaTerms b, Link link);

// Whether `algorithm` can run `op` on `ranks` (hierarchical: ranks a multiple of
// gpus_per_node); the reason in `why` when not.
bool collective_supported(Collective op, CollectiveAlgorithm algorithm, int ranks, int gpus_per_node, std::string* why);

// Names used by the calculators: "allreduce" ..., "ring" ...; InputError on unknown names.
Collective collective_from_name(const std::string& name);
CollectiveAlgorithm algorithm_from_name(const std::string& name);
std::string collective_name(Collective op);
std::string algorithm_name(CollectiveAlgorithm algorithm);

// One point-to-point message (pipeline stages): α + bytes / B.
inline double p2p_time(double bytes, Link link) { return link.latency_s + bytes / link.bandwidth_Bps; }

}  // namespace mlsys
