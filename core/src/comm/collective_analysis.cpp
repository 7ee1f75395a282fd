// The collectives lesson's computations (see comm/collective_analysis.hpp).
#include "mlsys/comm/collective_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {

constexpr double kMaxBytes = 1e15;  // the calculators' largest message
const CollectiveAlgorithm kFlat[] = {CollectiveAlgorithm::Ring, CollectiveAlgorithm::Tree,
                                     CollectiveAlgorithm::RecursiveDoubling, CollectiveAlgorithm::HalvingDoubling};

CollectiveCost run_cost(Collective op, CollectiveAlgorithm a, int ranks, double bytes, const CommTopology& t) {
  if (a == CollectiveAlgorithm::Hierarchical) {
    if (t.gpus_per_node == 0) throw InputError("gpus_per_node", "The hierarchical algorithm needs gpus_per_node.");
    return hierarchical_cost(op, ranks, t.gpus_per_node, bytes, t.intra, t.inter);
  }
  return collective_cost(op, a, ranks, bytes, flat_link(t, ranks));
}

std::vector<std::vector<double>> holds_as_numbers(const std::vector<std::vector<std::uint64_t>>& h) {
  std::vector<std::vector<double>> rows;
  for (const auto& row : h) {
    std::vector<double> r;
    for (auto m : row) r.push_back(static_cast<double>(m));
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

Link flat_link(const CommTopology& t, int ranks) {
  if (t.gpus_per_node == 0 || t.gpus_per_node >= ranks) return t.intra;
  return {std::max(t.intra.latency_s, t.inter.latency_s), std::min(t.intra.bandwidth_Bps, t.inter.bandwidth_Bps)};
}

std::vector<CollectiveAlgorithm> collective_candidates(Collective op, int ranks, int gpus_per_node) {
  std::vector<CollectiveAlgorithm> out;
  for (auto a : kFlat)
    if (collective_supported(op, a, ranks, 0, nullptr)) out.push_back(a);
  if (gpus_per_node > 0 && collective_supported(op, CollectiveAlgorithm::Hierarchical, ranks, gpus_per_node, nullptr))
    out.push_back(CollectiveAlgorithm::Hierarchical);
  return out;
}

CollectiveRun run_collective(Collective op, std::optional<CollectiveAlgorithm> algorithm, int ranks, double bytes,
                             const CommTopology& t) {
  if (algorithm == CollectiveAlgorithm::Hierarchical && t.gpus_per_node > 0 && ranks % t.gpus_per_node != 0)
    throw InputError("gpus_per_node", "ranks must be a multiple of gpus_per_node (whole nodes).");
  CollectiveAlgorithm chosen;
  std::optional<std::vector<AlgorithmTime>> others;
  if (!algorithm) {
    others.emplace();
    double best = std::numeric_limits<double>::infinity();
    chosen = CollectiveAlgorithm::Ring;
    for (auto a : collective_candidates(op, ranks, t.gpus_per_node)) {
      const double time = run_cost(op, a, ranks, bytes, t).time_s;
      others->push_back({algorithm_name(a), time});
      if (time < best) {
        best = time;
        chosen = a;
      }
    }
  } else {
    chosen = *algorithm;
    if (chosen == CollectiveAlgorithm::Hierarchical && t.gpus_per_node == 0)
      throw InputError("gpus_per_node", "The hierarchical algorithm needs gpus_per_node.");
    std::string why;
    if (!collective_supported(op, chosen, ranks, t.gpus_per_node, &why)) throw InputError("algorithm", why);
  }
  CollectiveRun r{};
  r.cost = run_cost(op, chosen, ranks, bytes, t);
  // With no communication (one rank) the bandwidths are reported as 0 rather than infinite.
  r.algbw_Bps = r.cost.time_s > 0 ? bytes / r.cost.time_s : 0.0;
  r.busbw_Bps = r.algbw_Bps * bus_bandwidth_factor(op, ranks);
  r.bus_factor = bus_bandwidth_factor(op, ranks);
  r.algorithm = algorithm_name(chosen);
  r.candidates = std::move(others);
  if (chosen == CollectiveAlgorithm::Ring && (op == Collective::Broadcast || op == Collective::Reduce))
    r.chunks = ranks > 1 ? chain_chunks(ranks, bytes, flat_link(t, ranks)) : 1;
  return r;
}

CollectiveExecution execute_with_model(Collective op, CollectiveAlgorithm a, int ranks, std::optional<int> elements,
                                       int chain_chunks_given, std::uint64_t seed, const CommTopology& t) {
  const int g = t.gpus_per_node;
  if (a == CollectiveAlgorithm::Hierarchical && g == 0)
    throw InputError("gpus_per_node", "The hierarchical algorithm needs gpus_per_node.");
  const bool chain = a == CollectiveAlgorithm::Ring && (op == Collective::Broadcast || op == Collective::Reduce);
  const int chunks = chain ? chain_chunks_given : ranks;
  const auto x = execute_collective(op, a, ranks, elements ? *elements : 2 * chunks, seed, g, chain ? chunks : 0);
  CollectiveExecution r{collective_name(op), algorithm_name(a), ranks, x.elements, x.chunks, x.bytes,
                        static_cast<double>(x.steps.size()), {}, x.bytes_sent, x.max_bytes_sent,
                        x.time_s(t.intra, t.inter), x.equals_direct, x.max_abs_error, {}, x.inputs, x.outputs};
  r.snapshots.push_back({0, {}, holds_as_numbers(x.initial_holds)});
  for (std::size_t i = 0; i < x.steps.size(); ++i)
    r.snapshots.push_back({i + 1, x.steps[i].messages, holds_as_numbers(x.steps[i].holds)});
  if (a == CollectiveAlgorithm::Hierarchical)
    r.model = hierarchical_cost(op, ranks, g, x.bytes, t.intra, t.inter);
  else if (chain)
    r.model = chain_cost(ranks, x.bytes, t.intra, x.chunks);
  else
    r.model = collective_cost(op, a, ranks, x.bytes, t.intra);
  return r;
}

CollectiveSweep collective_sweep(Collective op, int ranks, Link link, double lo, double hi, int points) {
  if (hi <= lo) throw InputError("max_bytes", "max_bytes must be larger than min_bytes.");
  if (ranks < 2) throw InputError("ranks", "A sweep compares algorithms on at least two ranks.");
  const auto algs = collective_candidates(op, ranks, 0);
  std::vector<double> sizes(points);
  for (int i = 0; i < points; ++i) sizes[i] = lo * std::pow(hi / lo, static_cast<double>(i) / (points - 1));
  CollectiveSweep r{collective_name(op), ranks, {}, {}, 0.0};
  for (auto a : algs) {
    SweepSeries s{algorithm_name(a), {}};
    for (double b : sizes) {
      const auto c = collective_cost(op, a, ranks, b, link);
      s.points.push_back({b, c.time_s, c.time_s > 0 ? b / c.time_s * bus_bandwidth_factor(op, ranks) : 0.0});
    }
    r.series.push_back(std::move(s));
  }
  // Crossovers of each algorithm with the ring: closed form for linear costs, bisection on
  // log S for the pipelined chain (broadcast and reduce), whose chunk count depends on S.
  const bool chain = op == Collective::Broadcast || op == Collective::Reduce;
  for (auto a : algs) {
    if (a == CollectiveAlgorithm::Ring) continue;
    double s = -1;
    if (!chain) {
      s = crossover_bytes(alpha_beta_terms(op, a, ranks), alpha_beta_terms(op, CollectiveAlgorithm::Ring, ranks), link);
    } else {
      auto diff = [&](double b) {
        return collective_cost(op, a, ranks, b, link).time_s -
               collective_cost(op, CollectiveAlgorithm::Ring, ranks, b, link).time_s;
      };
      double a_lo = 1.0, a_hi = kMaxBytes;
      if (diff(a_lo) < 0 && diff(a_hi) > 0) {
        for (int it = 0; it < 200; ++it) {
          const double mid = std::sqrt(a_lo * a_hi);
          (diff(mid) < 0 ? a_lo : a_hi) = mid;
        }
        s = std::sqrt(a_lo * a_hi);
      }
    }
    const double small = collective_cost(op, a, ranks, 1.0, link).time_s,
                 small_ring = collective_cost(op, CollectiveAlgorithm::Ring, ranks, 1.0, link).time_s;
    r.crossovers.push_back({algorithm_name(a), "ring", !chain, s > 0, small <= small_ring ? algorithm_name(a) : "ring",
                            s > 0 ? std::optional<double>(s) : std::nullopt});
  }
  // n_1/2 = α·B: the message size at which one message reaches half the link bandwidth.
  r.half_bandwidth_bytes = link.latency_s * link.bandwidth_Bps;
  return r;
}

HierarchicalVsFlat hierarchical_vs_flat(int nodes, int g, double bytes, Link intra, Link inter, Collective op) {
  if (op != Collective::AllReduce && op != Collective::AllToAll)
    throw InputError("op", "The comparison is made for all-reduce and all-to-all.");
  const int ranks = nodes * g;
  const auto h = hierarchical_breakdown(op, ranks, g, bytes, intra, inter);
  const CommTopology t{intra, inter, g};
  auto flat = collective_cost(op, CollectiveAlgorithm::Ring, ranks, bytes, flat_link(t, ranks));
  // The busiest GPU's bytes across nodes in the baseline: in one flat ring, the GPU at a node's
  // edge sends everything it sends across.
  double flat_inter_bytes = nodes > 1 ? flat.bytes_sent_per_rank : 0.0;
  if (op == Collective::AllToAll) {
    // The direct exchange without routing: each GPU sends its g − 1 blocks for local peers over
    // NVLink and its p − g blocks for other nodes through its own adapter, one message of S/p
    // each, both streams at once. The adapter carries (N − 1)/N · S, the two-phase algorithm's
    // bytes: routing saves messages (latency), not bytes.
    const double block = bytes / ranks;
    const double local = (g - 1) * (intra.latency_s + block / intra.bandwidth_Bps);
    const double remote = (ranks - g) * (inter.latency_s + block / inter.bandwidth_Bps);
    flat.time_s = std::max(local, remote);
    flat_inter_bytes = (ranks - g) * block;
  }
  // NCCL's flat rings (see the header): g rings of S/g each, all adapters busy at once.
  double nccl_time = flat.time_s, nccl_inter_bytes = flat_inter_bytes;
  if (op == Collective::AllReduce && ranks > 1) {
    const double steps = 2.0 * (ranks - 1), inter_steps = 2.0 * (nodes - 1);
    double step_s = bytes / ranks / intra.bandwidth_Bps;  // one node: g chunks of S/(g·p) over NVLink
    if (nodes > 1) {
      const double chunk = bytes / (static_cast<double>(g) * ranks);
      step_s = std::max(chunk / inter.bandwidth_Bps, (g - 1) * chunk / intra.bandwidth_Bps);
    }
    nccl_time = inter_steps * inter.latency_s + (steps - inter_steps) * intra.latency_s + steps * step_s;
    nccl_inter_bytes = nodes > 1 ? steps * bytes / (static_cast<double>(g) * ranks) : 0.0;
  }
  const double factor = bus_bandwidth_factor(op, ranks);
  const double overlapped = std::max(h.intra_time_s, h.inter_time_s);
  auto busbw = [&](double time) { return time > 0 ? bytes / time * factor : 0.0; };
  return {ranks,
          intra.bandwidth_Bps,
          h.total.time_s,
          h.total.steps,
          h.intra_time_s,
          h.inter_time_s,
          h.intra_steps,
          h.inter_steps,
          h.intra_bytes_per_rank,
          h.inter_bytes_per_rank,
          busbw(h.total.time_s),
          flat.time_s,
          flat.steps,
          flat.bytes_sent_per_rank,
          busbw(flat.time_s),
          h.total.time_s > 0 ? flat.time_s / h.total.time_s : 1.0,
          overlapped,
          busbw(overlapped),
          flat_inter_bytes,
          nccl_time,
          busbw(nccl_time),
          nccl_inter_bytes};
}

}  // namespace mlsys
