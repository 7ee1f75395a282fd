// Alpha-beta costs of the collective algorithms (see comm/cost_model.hpp). Every formula
// here is checked in tests/core/comm_executor_test.cpp against the steps and bytes counted
// by executing the same algorithm on simulated ranks (comm/executor.hpp).
#include "mlsys/comm/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {

bool power_of_two(int p) { return p >= 1 && (p & (p - 1)) == 0; }

// ⌈log2 p⌉ for p >= 1.
int ceil_log2(int p) {
  int l = 0;
  while ((1 << l) < p) ++l;
  return l;
}

}  // namespace

double bus_bandwidth_factor(Collective op, int ranks) {
  const double p = ranks;
  switch (op) {
    case Collective::AllReduce: return 2.0 * (p - 1) / p;
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AllToAll: return (p - 1) / p;
    case Collective::Broadcast:
    case Collective::Reduce: return 1.0;
  }
  return 1.0;
}

bool collective_supported(Collective op, CollectiveAlgorithm algorithm, int ranks, int gpus_per_node, std::string* why) {
  auto no = [&](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  if (ranks < 1) return no("A collective needs at least one rank.");
  switch (algorithm) {
    case CollectiveAlgorithm::Ring: return true;
    case CollectiveAlgorithm::Tree:
      if (op == Collective::AllReduce || op == Collective::Broadcast || op == Collective::Reduce) return true;
      return no("The binomial tree is modelled for broadcast, reduce and all-reduce only; use ring or "
                "recursive-doubling for " + collective_name(op) + ".");
    case CollectiveAlgorithm::RecursiveDoubling:
      if (op == Collective::Broadcast || op == Collective::Reduce || op == Collective::AllToAll)
        return no("Recursive doubling is modelled for all-reduce, all-gather and reduce-scatter; use tree for "
                  "broadcast and reduce, ring for all-to-all.");
      if (!power_of_two(ranks)) return no("Recursive doubling needs a power-of-two number of ranks.");
      return true;
    case CollectiveAlgorithm::HalvingDoubling:
      if (op != Collective::AllReduce) return no("Halving-doubling (Rabenseifner) is an all-reduce algorithm.");
      if (!power_of_two(ranks)) return no("Halving-doubling needs a power-of-two number of ranks.");
      return true;
    case CollectiveAlgorithm::Hierarchical:
      if (op == Collective::Broadcast || op == Collective::Reduce)
        return no("The hierarchical algorithm is modelled for all-reduce, all-gather, reduce-scatter and all-to-all.");
      if (gpus_per_node < 1) return no("The hierarchical algorithm needs gpus_per_node.");
      if (ranks % gpus_per_node != 0) return no("ranks must be a multiple of gpus_per_node.");
      return true;
  }
  return no("Unknown algorithm.");
}

AlphaBetaTerms alpha_beta_terms(Collective op, CollectiveAlgorithm algorithm, int ranks) {
  std::string why;
  if (!collective_supported(op, algorithm, ranks, 1, &why))
    throw InputError(ranks < 1 ? "ranks" : "algorithm", why);
  if (algorithm == CollectiveAlgorithm::Hierarchical)
    throw InputError("algorithm", "The hierarchical algorithm runs over two links; use hierarchical_cost.");
  if (ranks == 1) return {0, 0, 0};
  const double p = ranks, frac = (p - 1) / p;
  const double L = ceil_log2(ranks);
  switch (algorithm) {
    case CollectiveAlgorithm::Ring:
      switch (op) {
        case Collective::AllReduce: return {2 * (p - 1), 2 * frac, 2 * frac};
        case Collective::AllGather:
        case Collective::ReduceScatter:
        case Collective::AllToAll: return {p - 1, frac, frac};
        case Collective::Broadcast:
        case Collective::Reduce:
          throw InputError("algorithm", "The pipelined chain's cost is not linear in the size; use chain_cost.");
      }
      break;
    case CollectiveAlgorithm::Tree:
      switch (op) {
        case Collective::Broadcast: return {L, L, L};  // the root sends in every round
        case Collective::Reduce: return {L, L, 1};     // every non-root sends once
        case Collective::AllReduce: return {2 * L, 2 * L, L};
        default: break;
      }
      break;
    case CollectiveAlgorithm::RecursiveDoubling:
      switch (op) {
        case Collective::AllReduce: return {L, L, L};
        case Collective::AllGather:
        case Collective::ReduceScatter: return {L, frac, frac};
        default: break;
      }
      break;
    case CollectiveAlgorithm::HalvingDoubling: return {2 * L, 2 * frac, 2 * frac};
    case CollectiveAlgorithm::Hierarchical: break;
  }
  throw InputError("algorithm", "This algorithm is not modelled for this collective.");
}

CollectiveCost chain_cost(int ranks, double bytes, Link link, int chunks) {
  if (ranks < 1) throw InputError("ranks", "A collective needs at least one rank.");
  if (chunks < 1) throw InputError("chunks", "The pipeline needs at least one chunk.");
  if (ranks == 1) return {0.0, 0.0, 0.0};
  const double steps = ranks + chunks - 2;
  return {steps * (link.latency_s + bytes / chunks / link.bandwidth_Bps), steps, bytes};
}

int chain_chunks(int ranks, double bytes, Link link) {
  if (ranks <= 2) return 1;  // a single hop gains nothing from pipelining
  int best = kMaxChainChunks;
  if (link.latency_s > 0 && bytes > 0) {
    const double c = std::sqrt((ranks - 2) * bytes / (link.latency_s * link.bandwidth_Bps));
    const int lo = static_cast<int>(std::clamp(std::floor(c), 1.0, double(kMaxChainChunks)));
    const int hi = std::min(lo + 1, kMaxChainChunks);
    best = chain_cost(ranks, bytes, link, lo).time_s <= chain_cost(ranks, bytes, link, hi).time_s ? lo : hi;
  } else if (bytes <= 0) {
    best = 1;
  }
  return best;
}

CollectiveCost collective_cost(Collective op, CollectiveAlgorithm algorithm, int ranks, double bytes, Link link) {
  if (ranks < 1) throw InputError("ranks", "A collective needs at least one rank.");
  if (algorithm == CollectiveAlgorithm::Hierarchical)
    throw InputError("algorithm", "The hierarchical algorithm needs gpus_per_node and an inter-node link.");
  std::string why;
  if (!collective_supported(op, algorithm, ranks, 1, &why)) throw InputError("algorithm", why);
  if (ranks == 1) return {0.0, 0.0, 0.0};
  if (algorithm == CollectiveAlgorithm::Ring && (op == Collective::Broadcast || op == Collective::Reduce))
    return chain_cost(ranks, bytes, link, chain_chunks(ranks, bytes, link));
  const auto t = alpha_beta_terms(op, algorithm, ranks);
  return {t.latency_terms * link.latency_s + t.bandwidth_terms * bytes / link.bandwidth_Bps, t.latency_terms,
          t.sent_terms * bytes};
}

double crossover_bytes(AlphaBetaTerms a, AlphaBetaTerms b, Link link) {
  const double dl = a.latency_terms - b.latency_terms, db = b.bandwidth_terms - a.bandwidth_terms;
  if (db == 0 || dl == 0) return -1;
  const double s = dl * link.latency_s * link.bandwidth_Bps / db;
  return s > 0 ? s : -1;
}

HierarchicalBreakdown hierarchical_breakdown(Collective op, int ranks, int gpus_per_node, double bytes, Link intra,
                                             Link inter) {
  if (ranks < 1) throw InputError("ranks", "A collective needs at least one rank.");
  if (gpus_per_node < 1) throw InputError("gpus_per_node", "A node holds at least one GPU.");
  if (ranks % gpus_per_node != 0)
    throw InputError("gpus_per_node", "ranks must be a multiple of gpus_per_node (whole nodes).");
  std::string why;
  if (!collective_supported(op, CollectiveAlgorithm::Hierarchical, ranks, gpus_per_node, &why))
    throw InputError("algorithm", why);
  const double g = gpus_per_node, n = ranks / gpus_per_node;
  HierarchicalBreakdown h{};
  if (op == Collective::AllToAll) {
    // Phase 1 (NVLink): to each of the g−1 local peers, its N blocks of S/p: S/g a step.
    // Phase 2 (NICs, one rail): to each of the N−1 other nodes, the g blocks its GPU on
    // this rail receives from this node: S/N a step.
    h.intra_steps = g - 1;
    h.inter_steps = n - 1;
    h.intra_time_s = h.intra_steps * (intra.latency_s + bytes / g / intra.bandwidth_Bps);
    h.inter_time_s = h.inter_steps * (inter.latency_s + bytes / n / inter.bandwidth_Bps);
    h.intra_bytes_per_rank = h.intra_steps * bytes / g;
    h.inter_bytes_per_rank = h.inter_steps * bytes / n;
    h.total = {h.intra_time_s + h.inter_time_s, h.intra_steps + h.inter_steps,
               h.intra_bytes_per_rank + h.inter_bytes_per_rank};
    return h;
  }
  const double shard = bytes / g, piece = bytes / (g * n);
  // Intra-node ring phases move S/g per step; inter-node ring phases move S/(gN) per step.
  const double intra_phases = op == Collective::AllReduce ? 2 : 1;
  const double inter_phases = op == Collective::AllReduce ? 2 : 1;
  h.intra_steps = intra_phases * (g - 1);
  h.inter_steps = inter_phases * (n - 1);
  h.intra_time_s = h.intra_steps * (intra.latency_s + shard / intra.bandwidth_Bps);
  h.inter_time_s = h.inter_steps * (inter.latency_s + piece / inter.bandwidth_Bps);
  h.intra_bytes_per_rank = h.intra_steps * shard;
  h.inter_bytes_per_rank = h.inter_steps * piece;
  h.total = {h.intra_time_s + h.inter_time_s, h.intra_steps + h.inter_steps,
             h.intra_bytes_per_rank + h.inter_bytes_per_rank};
  return h;
}

CollectiveCost hierarchical_cost(Collective op, int ranks, int gpus_per_node, double bytes, Link intra, Link inter) {
  return hierarchical_breakdown(op, ranks, gpus_per_node, bytes, intra, inter).total;
}

CollectiveCost group_collective_cost(Collective op, int ranks, int gpus_per_node, double bytes, Link intra, Link inter) {
  if (gpus_per_node < 1) throw InputError("gpus_per_node", "A node holds at least one GPU.");
  if (ranks <= gpus_per_node) return collective_cost(op, CollectiveAlgorithm::Ring, ranks, bytes, intra);
  if (ranks % gpus_per_node != 0)
    throw InputError("ranks", "A group of " + std::to_string(ranks) + " GPUs spans nodes of " +
                                  std::to_string(gpus_per_node) + " only as whole nodes (a multiple of " +
                                  std::to_string(gpus_per_node) + ").");
  return hierarchical_cost(op, ranks, gpus_per_node, bytes, intra, inter);
}

Collective collective_from_name(const std::string& name) {
  if (name == "allreduce") return Collective::AllReduce;
  if (name == "allgather") return Collective::AllGather;
  if (name == "reducescatter") return Collective::ReduceScatter;
  if (name == "broadcast") return Collective::Broadcast;
  if (name == "reduce") return Collective::Reduce;
  if (name == "alltoall") return Collective::AllToAll;
  throw InputError("op", "Unknown collective '" + name + "'.");
}

CollectiveAlgorithm algorithm_from_name(const std::string& name) {
  if (name == "ring") return CollectiveAlgorithm::Ring;
  if (name == "tree") return CollectiveAlgorithm::Tree;
  if (name == "recursive-doubling") return CollectiveAlgorithm::RecursiveDoubling;
  if (name == "halving-doubling") return CollectiveAlgorithm::HalvingDoubling;
  if (name == "hierarchical") return CollectiveAlgorithm::Hierarchical;
  throw InputError("algorithm", "Unknown algorithm '" + name + "'.");
}

std::string collective_name(Collective op) {
  switch (op) {
    case Collective::AllReduce: return "allreduce";
    case Collective::AllGather: return "allgather";
    case Collective::ReduceScatter: return "reducescatter";
    case Collective::Broadcast: return "broadcast";
    case Collective::Reduce: return "reduce";
    case Collective::AllToAll: return "alltoall";
  }
  return "allreduce";
}

std::string algorithm_name(CollectiveAlgorithm algorithm) {
  switch (algorithm) {
    case CollectiveAlgorithm::Ring: return "ring";
    case CollectiveAlgorithm::Tree: return "tree";
    case CollectiveAlgorithm::RecursiveDoubling: return "recursive-doubling";
    case CollectiveAlgorithm::HalvingDoubling: return "halving-doubling";
    case CollectiveAlgorithm::Hierarchical: return "hierarchical";
  }
  return "ring";
}

}  // namespace mlsys
