// Data parallelism, ZeRO stages and FSDP overlap (see parallel/data_parallel.hpp).
#include "mlsys/parallel/data_parallel.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {

void check_compute(const DpCompute& c) {
  if (!(c.params > 0)) throw InputError("params", "'params' must be positive.");
  if (!(c.tokens_per_gpu > 0)) throw InputError("tokens_per_gpu", "Each GPU must process at least one token per step.");
  if (!(c.accumulation >= 1)) throw InputError("accumulation", "'accumulation' must be at least 1.");
  if (!(c.peak_flops > 0)) throw InputError("peak_flops", "'peak_flops' must be positive.");
  if (!(c.mfu > 0 && c.mfu <= 1)) throw InputError("mfu", "'mfu' must be in (0, 1].");
}

void check_network(const DpNetwork& n, int gpus) {
  if (gpus < 1) throw InputError("gpus", "'gpus' must be at least 1.");
  if (n.gpus_per_node < 1) throw InputError("gpus_per_node", "'gpus_per_node' must be at least 1.");
  if (!(n.intra_bandwidth_Bps > 0)) throw InputError("intra_bandwidth_Bps", "The intra-node bandwidth must be positive.");
  if (!(n.inter_bandwidth_Bps > 0)) throw InputError("inter_bandwidth_Bps", "The inter-node bandwidth must be positive.");
  if (!(n.latency_s >= 0)) throw InputError("latency_s", "'latency_s' must not be negative.");
}

double compute_time(const DpCompute& c) { return 6.0 * c.params * c.tokens_per_gpu / (c.peak_flops * c.mfu); }

Link intra_link(const DpNetwork& n) { return {n.latency_s, n.intra_bandwidth_Bps}; }
Link inter_link(const DpNetwork& n) { return {n.latency_s, n.inter_bandwidth_Bps}; }

// Seconds per byte of the two hierarchical phases of an all-gather (or reduce-scatter) of S
// bytes, latency aside: (g−1)/(g·B_intra) inside the node, (N−1)/(g·N·B_inter) across nodes.
// One node: (p−1)/(p·B_intra) and no network phase.
struct PhaseTerms {
  double intra, inter;
};
PhaseTerms phase_terms(int ranks, const DpNetwork& n) {
  const double p = ranks, g = n.gpus_per_node;
  if (ranks <= n.gpus_per_node) return {(p - 1) / (p * n.intra_bandwidth_Bps), 0.0};
  const double nodes = p / g;
  return {(g - 1) / (g * n.intra_bandwidth_Bps), (nodes - 1) / (g * nodes * n.inter_bandwidth_Bps)};
}

}  // namespace

CollectiveCost dp_collective(Collective op, int ranks, double bytes, const DpNetwork& net) {
  try {
    CollectiveCost c = group_collective_cost(op, ranks, net.gpus_per_node, bytes, intra_link(net), inter_link(net));
    if (net.pipelined_phases && ranks > net.gpus_per_node) {
      const HierarchicalBreakdown h =
          hierarchical_breakdown(op, ranks, net.gpus_per_node, bytes, intra_link(net), inter_link(net));
      const double latency = (h.intra_steps + h.inter_steps) * net.latency_s;
      c.time_s = latency + std::max(h.intra_time_s - h.intra_steps * net.latency_s,
                                    h.inter_time_s - h.inter_steps * net.latency_s);
    }
    return c;
  } catch (const InputError& e) {
    if (e.field == "ranks") throw InputError("gpus", e.what());
    throw;
  }
}

double dp_bus_bandwidth(int ranks, const DpNetwork& net) {
  if (ranks <= net.gpus_per_node) return net.intra_bandwidth_Bps;
  const PhaseTerms t = phase_terms(ranks, net);
  return (ranks - 1.0) / ranks / (t.intra + t.inter);
}

double dp_bus_bandwidth_overlapped(int ranks, const DpNetwork& net) {
  if (ranks <= net.gpus_per_node) return net.intra_bandwidth_Bps;
  const PhaseTerms t = phase_terms(ranks, net);
  return (ranks - 1.0) / ranks / std::max(t.intra, t.inter);
}

double dp_bucket_latency(int ranks, const DpNetwork& net) {
  if (ranks <= net.gpus_per_node) return 2.0 * (ranks - 1) * net.latency_s;
  const double g = net.gpus_per_node, nodes = static_cast<double>(ranks) / net.gpus_per_node;
  const double tree = std::ceil(std::log2(nodes) - 1e-12);
  return (2 * (g - 1) + 2 * std::min(nodes - 1, tree)) * net.latency_s;
}

DpStep dp_step(const DpCompute& c, double grad_bytes, double bucket_bytes, bool overlap, int gpus,
               const DpNetwork& net) {
  check_compute(c);
  check_network(net, gpus);
  if (!(grad_bytes > 0)) throw InputError("grad_dtype", "Gradient elements must have a positive size.");
  if (!(bucket_bytes > 0)) throw InputError("bucket_bytes", "'bucket_bytes' must be positive.");
  DpStep s{};
  s.compute_time_s = compute_time(c);
  s.forward_time_s = s.compute_time_s / 3;
  s.backward_time_s = s.compute_time_s * 2 / 3;
  s.last_backward_time_s = s.backward_time_s / c.accumulation;
  s.gradient_bytes = c.params * grad_bytes;
  s.link_bandwidth_Bps = dp_bus_bandwidth(gpus, net);
  s.bus_bandwidth_overlapped_Bps = dp_bus_bandwidth_overlapped(gpus, net);
  s.inter_node = gpus > net.gpus_per_node;
  DpNetwork seq = net, pipe = net;
  seq.pipelined_phases = false;
  pipe.pipelined_phases = true;
  s.allreduce_time_sequential_s = dp_collective(Collective::AllReduce, gpus, s.gradient_bytes, seq).time_s;
  s.allreduce_time_pipelined_s = dp_collective(Collective::AllReduce, gpus, s.gradient_bytes, pipe).time_s;
  s.allreduce_time_s = net.pipelined_phases ? s.allreduce_time_pipelined_s : s.allreduce_time_sequential_s;
  s.bucket_count = std::max(1.0, std::ceil(s.gradient_bytes / bucket_bytes));
  // A bucket's bandwidth term β (the same algorithm at α = 0) and the latency L of the
  // algorithm NCCL would pick for a message of its size.
  DpNetwork no_latency = net;
  no_latency.latency_s = 0;
  const double beta = dp_collective(Collective::AllReduce, gpus, s.gradient_bytes / s.bucket_count, no_latency).time_s;
  s.bucket_latency_s = gpus == 1 ? 0.0 : dp_bucket_latency(gpus, net);
  s.bucket_allreduce_time_s = s.bucket_latency_s + beta;
  s.bucketed_comm_time_s = s.bucket_latency_s + s.bucket_count * beta;
  if (overlap) {
    const double tb = s.last_backward_time_s, n = s.bucket_count;
    s.exposed_comm_s = std::max(s.bucket_allreduce_time_s, tb / n + s.bucketed_comm_time_s - tb);
    if (gpus == 1) s.exposed_comm_s = 0;
  } else {
    s.exposed_comm_s = s.allreduce_time_s;
  }
  s.step_time_s = s.compute_time_s + s.exposed_comm_s;
  return s;
}

double dp_tokens_per_gpu(double seq, double micro_batch, double accumulation) {
  const double tokens = seq * micro_batch * accumulation;
  if (tokens > 1e12) throw InputError("accumulation", "More than 1e12 tokens per GPU per step is out of range.");
  return tokens;
}

namespace {
DpScaling scaling(const DpCompute& c, double gb, double bucket, bool overlap, int gpus, const DpNetwork& net,
                  double t1) {
  const DpStep s = dp_step(c, gb, bucket, overlap, gpus, net);
  DpNetwork seq = net;
  seq.pipelined_phases = false;
  const double t_seq = net.pipelined_phases ? dp_step(c, gb, bucket, overlap, gpus, seq).step_time_s : s.step_time_s;
  return {s, t1 / s.step_time_s, s.compute_time_s + s.allreduce_time_s, t1 / t_seq};
}
}  // namespace

DpTraining dp_training(const DpCompute& c, double mb, double gb, double bucket, bool overlap, int gpus,
                       const DpNetwork& net, std::optional<long long> series_max_gpus) {
  const double t1 = dp_step(c, gb, bucket, overlap, 1, net).step_time_s;
  const DpScaling at = scaling(c, gb, bucket, overlap, gpus, net, t1);
  const DpStep& s = at.step;
  DpTraining r{at,
               c.tokens_per_gpu,
               mb * gpus * c.accumulation,
               c.tokens_per_gpu * gpus,
               c.tokens_per_gpu * gpus / s.step_time_s,
               c.peak_flops,
               net.intra_bandwidth_Bps,
               net.inter_bandwidth_Bps,
               std::nullopt};
  if (series_max_gpus) {
    r.series.emplace();
    // Powers of two inside a node, then whole nodes: g, 2g, 4g, ... (the same counts when g is
    // a power of two).
    std::vector<long long> counts;
    for (long long g = 1; g < net.gpus_per_node && g <= *series_max_gpus; g *= 2) counts.push_back(g);
    for (long long g = net.gpus_per_node; g <= *series_max_gpus; g *= 2) counts.push_back(g);
    for (long long g : counts) {
      const DpScaling p = scaling(c, gb, bucket, overlap, static_cast<int>(g), net, t1);
      r.series->push_back({g, p, t1 / p.step_time_no_overlap_s});
    }
  }
  return r;
}

ZeroStages zero_stages(double params, bool adam, int dp, double comm_bytes, const DpNetwork& net) {
  if (!(params > 0)) throw InputError("params", "'params' must be positive.");
  if (!(comm_bytes > 0)) throw InputError("comm_dtype", "Communicated elements must have a positive size.");
  check_network(net, dp);
  const StateBytes per = state_bytes_per_param(2, adam);
  const double p = dp, S = params * comm_bytes;
  auto cost = [&](Collective op) {
    try {
      return dp_collective(op, dp, S, net).time_s;
    } catch (const InputError& e) {
      if (e.field == "gpus") throw InputError("dp", e.what());
      throw;
    }
  };
  const double ag = cost(Collective::AllGather), rs = cost(Collective::ReduceScatter);
  std::vector<ZeroStage> out;
  for (int stage = 0; stage <= 3; ++stage) {
    ZeroStage z{};
    z.stage = stage;
    const ModelStates m = model_states(params, per, stage, p);
    z.weights_bytes = m.weights_bytes;
    z.grads_bytes = m.grads_bytes;
    z.optimizer_bytes = m.optimizer_bytes;
    z.model_states_bytes = m.total_bytes;
    z.volume_psi = stage == 3 ? 3 : 2;
    z.volume_elements = z.volume_psi * params * (p - 1) / p;
    z.volume_bytes = z.volume_elements * comm_bytes;
    if (stage == 0) {
      // The all-reduce is a reduce-scatter followed by an all-gather (the hierarchical one:
      // the same steps as the two).
      z.comm_time_s = cost(Collective::AllReduce);
      z.reducescatter_time_s = rs;
      z.allgather_time_s = z.comm_time_s - rs;
    } else if (stage < 3) {
      z.reducescatter_time_s = rs;  // each rank keeps the reduced gradients of its shard
      z.allgather_time_s = ag;      // the updated parameters go back to every rank
      z.comm_time_s = rs + ag;
    } else {
      z.reducescatter_time_s = rs;
      z.allgather_time_s = 2 * ag;  // before the forward and again before the backward
      z.comm_time_s = rs + 2 * ag;
    }
    out.push_back(z);
  }
  for (auto& z : out) z.comm_vs_baseline = dp == 1 ? 1.0 : z.comm_time_s / std::max(out[0].comm_time_s, 1e-300);
  return {out, dp_bus_bandwidth(dp, net)};
}

FsdpOverlap fsdp_overlap(const DpCompute& c, double param_bytes, int units, bool prefetch, int gpus,
                         const DpNetwork& net) {
  check_compute(c);
  check_network(net, gpus);
  if (!(param_bytes > 0)) throw InputError("param_dtype", "Parameter elements must have a positive size.");
  if (units < 1) throw InputError("units", "'units' must be at least 1.");
  FsdpOverlap f{};
  f.link_bandwidth_Bps = dp_bus_bandwidth(gpus, net);
  const double unit_bytes = c.params * param_bytes / units;
  f.allgather_time_s = dp_collective(Collective::AllGather, gpus, unit_bytes, net).time_s;
  const double rs = dp_collective(Collective::ReduceScatter, gpus, unit_bytes, net).time_s;
  f.comm_time_s = units * (2 * f.allgather_time_s + rs);
  f.compute_time_s = compute_time(c);
  const double rate = c.peak_flops * c.mfu;
  f.tokens_min = f.comm_time_s * rate / (6 * c.params);
  // Per token 6Ψ/rate of compute against 3 collectives of bΨ bytes at the phase terms' seconds
  // per byte: T = b·rate/2 · (intra + inter); Ψ cancels.
  const double half = param_bytes * rate / 2, g = net.gpus_per_node;
  const PhaseTerms t = phase_terms(gpus, net);
  const PhaseTerms many = {(g - 1) / (g * net.intra_bandwidth_Bps), 1 / (g * net.inter_bandwidth_Bps)};
  f.tokens_min_bandwidth = half * (t.intra + t.inter);
  f.tokens_limit = half * (many.intra + many.inter);
  f.tokens_min_network = half * t.inter;
  f.tokens_limit_network = half * many.inter;
  if (prefetch) {
    // Only the first all-gather waits; the rest runs beside compute: step = max(C + ag, comm).
    f.exposed_comm_s = std::max(f.allgather_time_s, f.comm_time_s - f.compute_time_s);
  } else {
    // Every all-gather blocks its unit; the reduce-scatters run behind the remaining backward
    // compute like gradient buckets (the last one is always exposed).
    const double tb = f.compute_time_s * 2 / 3, n = units;
    f.exposed_comm_s = n * 2 * f.allgather_time_s + std::max(rs, n * rs - tb + tb / n);
  }
  f.step_time_s = f.compute_time_s + f.exposed_comm_s;
  f.hidden = f.compute_time_s >= f.comm_time_s;
  f.peak_flops = c.peak_flops;
  return f;
}

}  // namespace mlsys
