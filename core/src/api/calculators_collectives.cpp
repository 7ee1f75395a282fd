// Calculators of the collectives lesson: `collective` (shared/API.md), `collective-execute`
// (an algorithm run step by step on simulated ranks), `collective-sweep` (time against
// message size per algorithm, with the crossover sizes) and `hierarchical-allreduce`
// (nodes × GPUs, NVLink inside and InfiniBand across, against one flat ring).
// Alpha-beta model: comm/cost_model.hpp; bus bandwidth: nccl-tests doc/PERFORMANCE.md.
#include <algorithm>
#include <cmath>
#include <limits>

#include "mlsys/comm/cost_model.hpp"
#include "mlsys/comm/executor.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

const std::vector<std::string> kOps = {"allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall"};
const std::vector<CollectiveAlgorithm> kFlat = {CollectiveAlgorithm::Ring, CollectiveAlgorithm::Tree,
                                                CollectiveAlgorithm::RecursiveDoubling,
                                                CollectiveAlgorithm::HalvingDoubling};
constexpr double kMaxBytes = 1e15, kMaxBandwidth = 1e15;
constexpr double kDefaultLatency = 2e-6, kDefaultInterLatency = 5e-6;
constexpr double kDefaultBandwidth = 450e9, kDefaultInterBandwidth = 50e9;


Field latency_field(const std::string& name, double def, const std::string& what) {
  return number_field(name, "s", what, def, 0.0, 1.0);
}
Field bandwidth_field(const std::string& name, json def, const std::string& what) {
  return number_field(name, "B/s", what, def, 0.0, kMaxBandwidth, true);
}

json cost_json(const CollectiveCost& c, Collective op, int ranks, double bytes) {
  // With no communication (one rank) the bandwidths are reported as 0 rather than infinite.
  const double algbw = c.time_s > 0 ? bytes / c.time_s : 0.0;
  return {{"time_s", c.time_s},
          {"steps", c.steps},
          {"bytes_sent_per_rank", c.bytes_sent_per_rank},
          {"algbw_Bps", algbw},
          {"busbw_Bps", algbw * bus_bandwidth_factor(op, ranks)},
          {"bus_factor", bus_bandwidth_factor(op, ranks)}};
}

struct Topology {
  Link intra, inter;
  int gpus_per_node = 0;  // 0: one flat network
};

// The link a flat algorithm runs at: across nodes every step waits for the slower link.
Link flat_link(const Topology& t, int ranks) {
  if (t.gpus_per_node == 0 || t.gpus_per_node >= ranks) return t.intra;
  return {std::max(t.intra.latency_s, t.inter.latency_s), std::min(t.intra.bandwidth_Bps, t.inter.bandwidth_Bps)};
}

CollectiveCost run_cost(Collective op, CollectiveAlgorithm a, int ranks, double bytes, const Topology& t) {
  if (a == CollectiveAlgorithm::Hierarchical) {
    if (t.gpus_per_node == 0) throw InputError("gpus_per_node", "The hierarchical algorithm needs gpus_per_node.");
    return hierarchical_cost(op, ranks, t.gpus_per_node, bytes, t.intra, t.inter);
  }
  return collective_cost(op, a, ranks, bytes, flat_link(t, ranks));
}

std::vector<CollectiveAlgorithm> candidates(Collective op, int ranks, int gpus_per_node) {
  std::vector<CollectiveAlgorithm> out;
  for (auto a : kFlat)
    if (collective_supported(op, a, ranks, 0, nullptr)) out.push_back(a);
  if (gpus_per_node > 0 && collective_supported(op, CollectiveAlgorithm::Hierarchical, ranks, gpus_per_node, nullptr))
    out.push_back(CollectiveAlgorithm::Hierarchical);
  return out;
}

Topology topology_from(const Inputs& in) {
  Topology t;
  t.intra = {in.num("latency_s"), in.num("bandwidth_Bps")};
  t.inter = {in.has("inter_latency_s") ? in.num("inter_latency_s") : t.intra.latency_s, in.num("inter_bandwidth_Bps")};
  if (in.has("gpus_per_node")) t.gpus_per_node = static_cast<int>(in.integer("gpus_per_node"));
  return t;
}

json collective_run(const Inputs& in) {
  const Collective op = collective_from_name(in.str("op"));
  const std::string alg_name = in.str("algorithm");
  const int ranks = static_cast<int>(in.integer("ranks"));
  const double bytes = in.num("bytes");
  const Topology t = topology_from(in);
  if (alg_name == "hierarchical" && t.gpus_per_node > 0 && ranks % t.gpus_per_node != 0)
    throw InputError("gpus_per_node", "ranks must be a multiple of gpus_per_node (whole nodes).");
  CollectiveAlgorithm chosen;
  json others = json::array();
  if (alg_name == "auto") {
    double best = std::numeric_limits<double>::infinity();
    chosen = CollectiveAlgorithm::Ring;
    for (auto a : candidates(op, ranks, t.gpus_per_node)) {
      const double time = run_cost(op, a, ranks, bytes, t).time_s;
      others.push_back({{"algorithm", algorithm_name(a)}, {"time_s", time}});
      if (time < best) {
        best = time;
        chosen = a;
      }
    }
  } else {
    chosen = algorithm_from_name(alg_name);
    if (chosen == CollectiveAlgorithm::Hierarchical && t.gpus_per_node == 0)
      throw InputError("gpus_per_node", "The hierarchical algorithm needs gpus_per_node.");
    std::string why;
    if (!collective_supported(op, chosen, ranks, t.gpus_per_node, &why)) throw InputError("algorithm", why);
  }
  const CollectiveCost c = run_cost(op, chosen, ranks, bytes, t);
  json r = cost_json(c, op, ranks, bytes);
  r["algorithm"] = algorithm_name(chosen);
  if (alg_name == "auto") r["candidates"] = others;
  if (chosen == CollectiveAlgorithm::Ring && (op == Collective::Broadcast || op == Collective::Reduce))
    r["chunks"] = ranks > 1 ? chain_chunks(ranks, bytes, flat_link(t, ranks)) : 1;
  return r;
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

json execute_run(const Inputs& in) {
  const Collective op = collective_from_name(in.str("op"));
  const CollectiveAlgorithm a = algorithm_from_name(in.str("algorithm"));
  const int ranks = static_cast<int>(in.integer("ranks"));
  const int g = in.has("gpus_per_node") ? static_cast<int>(in.integer("gpus_per_node")) : 0;
  if (a == CollectiveAlgorithm::Hierarchical && g == 0)
    throw InputError("gpus_per_node", "The hierarchical algorithm needs gpus_per_node.");
  const bool chain = a == CollectiveAlgorithm::Ring && (op == Collective::Broadcast || op == Collective::Reduce);
  const int chunks = chain ? static_cast<int>(in.integer("chunks")) : ranks;
  const int elements = in.has("elements") ? static_cast<int>(in.integer("elements")) : 2 * chunks;
  const auto x = execute_collective(op, a, ranks, elements, static_cast<std::uint64_t>(in.integer("seed")), g,
                                    chain ? chunks : 0);
  const Topology t = topology_from(in);
  auto holds_json = [](const std::vector<std::vector<std::uint64_t>>& h) {
    json rows = json::array();
    for (const auto& row : h) {
      json r = json::array();
      for (auto m : row) r.push_back(static_cast<double>(m));
      rows.push_back(r);
    }
    return rows;
  };
  json steps = json::array();
  steps.push_back({{"step", 0}, {"messages", json::array()}, {"holds", holds_json(x.initial_holds)}});
  for (std::size_t i = 0; i < x.steps.size(); ++i) {
    json msgs = json::array();
    for (const auto& m : x.steps[i].messages)
      msgs.push_back({{"src", m.src}, {"dst", m.dst}, {"chunks", m.chunks}, {"bytes", m.bytes}, {"reduce", m.reduce},
                      {"inter_node", m.inter_node}});
    steps.push_back({{"step", i + 1}, {"messages", msgs}, {"holds", holds_json(x.steps[i].holds)}});
  }
  CollectiveCost model{};
  if (a == CollectiveAlgorithm::Hierarchical)
    model = hierarchical_cost(op, ranks, g, x.bytes, t.intra, t.inter);
  else if (chain)
    model = chain_cost(ranks, x.bytes, t.intra, x.chunks);
  else
    model = collective_cost(op, a, ranks, x.bytes, t.intra);
  return {{"op", collective_name(op)},
          {"algorithm", algorithm_name(a)},
          {"ranks", ranks},
          {"elements", x.elements},
          {"chunks", x.chunks},
          {"bytes", x.bytes},
          {"steps", static_cast<double>(x.steps.size())},
          {"snapshots", steps},
          {"bytes_sent_by_rank", x.bytes_sent},
          {"bytes_sent_per_rank", x.max_bytes_sent},
          {"time_s", x.time_s(t.intra, t.inter)},
          {"equals_direct", x.equals_direct},
          {"max_abs_error", x.max_abs_error},
          {"model", {{"steps", model.steps}, {"bytes_sent_per_rank", model.bytes_sent_per_rank}, {"time_s", model.time_s}}}};
}

json sweep_run(const Inputs& in) {
  const Collective op = collective_from_name(in.str("op"));
  const int ranks = static_cast<int>(in.integer("ranks"));
  const Link link{in.num("latency_s"), in.num("bandwidth_Bps")};
  const double lo = in.num("min_bytes"), hi = in.num("max_bytes");
  const int points = static_cast<int>(in.integer("points"));
  if (hi <= lo) throw InputError("max_bytes", "max_bytes must be larger than min_bytes.");
  if (ranks < 2) throw InputError("ranks", "A sweep compares algorithms on at least two ranks.");
  const auto algs = candidates(op, ranks, 0);
  std::vector<double> sizes(points);
  for (int i = 0; i < points; ++i) sizes[i] = lo * std::pow(hi / lo, static_cast<double>(i) / (points - 1));
  json series = json::array();
  for (auto a : algs) {
    json pts = json::array();
    for (double s : sizes) {
      const auto c = collective_cost(op, a, ranks, s, link);
      pts.push_back({{"bytes", s}, {"time_s", c.time_s}, {"busbw_Bps", c.time_s > 0 ? s / c.time_s * bus_bandwidth_factor(op, ranks) : 0.0}});
    }
    series.push_back({{"algorithm", algorithm_name(a)}, {"points", pts}});
  }
  // Crossovers of each algorithm with the ring: closed form for linear costs, bisection on
  // log S for the pipelined chain (broadcast and reduce), whose chunk count depends on S.
  const bool chain = op == Collective::Broadcast || op == Collective::Reduce;
  json cross = json::array();
  for (auto a : algs) {
    if (a == CollectiveAlgorithm::Ring) continue;
    double s = -1;
    bool closed = !chain;
    if (!chain) {
      s = crossover_bytes(alpha_beta_terms(op, a, ranks), alpha_beta_terms(op, CollectiveAlgorithm::Ring, ranks), link);
    } else {
      auto diff = [&](double b) {
        return collective_cost(op, a, ranks, b, link).time_s - collective_cost(op, CollectiveAlgorithm::Ring, ranks, b, link).time_s;
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
    json c = {{"algorithm", algorithm_name(a)}, {"versus", "ring"}, {"closed_form", closed}, {"exists", s > 0},
              {"faster_small", small <= small_ring ? algorithm_name(a) : "ring"}};
    c["bytes"] = s > 0 ? json(s) : json();
    cross.push_back(c);
  }
  // n_1/2 = α·B: the message size at which one message reaches half the link bandwidth.
  return {{"op", collective_name(op)}, {"ranks", ranks}, {"series", series}, {"crossovers", cross},
          {"half_bandwidth_bytes", link.latency_s * link.bandwidth_Bps}};
}

json hierarchical_run(const Inputs& in) {
  const int nodes = static_cast<int>(in.integer("nodes")), g = static_cast<int>(in.integer("gpus_per_node"));
  const int ranks = nodes * g;
  const double bytes = in.num("bytes");
  double intra_bw;
  if (in.has("bandwidth_Bps")) {
    intra_bw = in.num("bandwidth_Bps");
  } else {
    const Accelerator* hw = find_accelerator(in.str("hardware"));
    const auto& row = hw->json();
    if (!row.contains("scaleup_bandwidth_Bps") || !row["scaleup_bandwidth_Bps"].is_number())
      throw InputError("hardware", hw->name + " has no scale-up bandwidth in the hardware table; give 'bandwidth_Bps'.");
    intra_bw = row["scaleup_bandwidth_Bps"].get<double>() / 2;  // the table sums both directions
  }
  const Link intra{in.num("latency_s"), intra_bw}, inter{in.num("inter_latency_s"), in.num("inter_bandwidth_Bps")};
  const auto h = hierarchical_breakdown(Collective::AllReduce, ranks, g, bytes, intra, inter);
  const Topology t{intra, inter, g};
  const auto flat = collective_cost(Collective::AllReduce, CollectiveAlgorithm::Ring, ranks, bytes, flat_link(t, ranks));
  const double factor = bus_bandwidth_factor(Collective::AllReduce, ranks);
  auto busbw = [&](double time) { return time > 0 ? bytes / time * factor : 0.0; };
  return {{"ranks", ranks},
          {"intra_bandwidth_Bps", intra_bw},
          {"time_s", h.total.time_s},
          {"steps", h.total.steps},
          {"intra_time_s", h.intra_time_s},
          {"inter_time_s", h.inter_time_s},
          {"intra_steps", h.intra_steps},
          {"inter_steps", h.inter_steps},
          {"intra_bytes_per_rank", h.intra_bytes_per_rank},
          {"inter_bytes_per_rank", h.inter_bytes_per_rank},
          {"busbw_Bps", busbw(h.total.time_s)},
          {"flat_ring_time_s", flat.time_s},
          {"flat_ring_steps", flat.steps},
          {"flat_ring_bytes_per_rank", flat.bytes_sent_per_rank},
          {"flat_ring_busbw_Bps", busbw(flat.time_s)},
          {"speedup", h.total.time_s > 0 ? flat.time_s / h.total.time_s : 1.0}};
}

}  // namespace

void add_collectives_calculators(Calculators& out) {
  out.push_back({"collective",
                 "Alpha-beta time of a collective (all-reduce, all-gather, reduce-scatter, broadcast, reduce, "
                 "all-to-all) by ring, tree, recursive doubling, halving-doubling or hierarchical algorithms, with "
                 "nccl-tests' algorithm and bus bandwidth; auto picks the cheapest.",
                 collective_fields(true), collective_run});

  auto exec_fields = collective_fields(false);
  exec_fields[2] = integer_field("ranks", "", "Number of simulated ranks", 8, 1, 16);
  exec_fields.erase(exec_fields.begin() + 3);  // no bytes: the buffer is `elements` doubles
  exec_fields.push_back(optional(integer_field("elements", "",
                                               "Doubles per rank buffer (whole array for all-gather, reduce-scatter, "
                                               "all-to-all); a multiple of the chunk count; default 2 per chunk",
                                               json(), 1, 4096)));
  exec_fields.push_back(integer_field("chunks", "", "Pipeline chunks of the ring (chain) broadcast and reduce", 4, 1, 64));
  exec_fields.push_back(integer_field("seed", "", "Seed of the random inputs", 1, 0, 1000000000));
  out.push_back({"collective-execute",
                 "Runs a collective step by step on simulated ranks holding real buffers: messages and which rank "
                 "holds which chunk after every step, counted steps and bytes against the model, and the result "
                 "checked against the direct computation.",
                 exec_fields, execute_run});

  out.push_back({"collective-sweep",
                 "Alpha-beta time and bus bandwidth against message size for every algorithm that can run the "
                 "collective on this many ranks, and the size where each crosses the ring.",
                 {string_field("op", "The collective", "allreduce", kOps),
                  integer_field("ranks", "", "Number of ranks", 16, 2, 1 << 20),
                  latency_field("latency_s", kDefaultLatency, "Latency α per message"),
                  bandwidth_field("bandwidth_Bps", kDefaultBandwidth, "Bandwidth B per direction"),
                  number_field("min_bytes", "B", "Smallest message size", 1e3, 0.0, kMaxBytes, true),
                  number_field("max_bytes", "B", "Largest message size", 1e10, 0.0, kMaxBytes, true),
                  integer_field("points", "", "Sizes sampled (log-spaced)", 61, 2, 400)},
                 sweep_run});

  out.push_back({"hierarchical-allreduce",
                 "Hierarchical all-reduce on nodes × GPUs (ring reduce-scatter inside each node, ring all-reduce of "
                 "the shards across nodes, ring all-gather inside) against one flat ring over every GPU.",
                 {integer_field("nodes", "", "Number of nodes", 4, 1, 4096),
                  integer_field("gpus_per_node", "", "GPUs per node", 8, 1, 64),
                  number_field("bytes", "B", "All-reduce buffer size S", 1e9, 0.0, kMaxBytes),
                  hardware_field(true),
                  optional(bandwidth_field("bandwidth_Bps", json(),
                                           "Intra-node bandwidth per direction (default: half the table's scale-up "
                                           "bandwidth)")),
                  latency_field("latency_s", kDefaultLatency, "Intra-node latency per message"),
                  bandwidth_field("inter_bandwidth_Bps", kDefaultInterBandwidth,
                                  "Inter-node bandwidth per GPU per direction (one 400 Gb/s NIC per GPU: 50 GB/s)"),
                  latency_field("inter_latency_s", kDefaultInterLatency, "Inter-node latency per message")},
                 hierarchical_run});
}

}  // namespace mlsys::api
