// Data parallelism, ZeRO stages and FSDP overlap (see parallel/data_parallel.hpp).
#include "mlsys/parallel/data_parallel.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {

double ring(Collective op, int ranks, double bytes, Link link) {
  return collective_cost(op, CollectiveAlgorithm::Ring, ranks, bytes, link).time_s;
}

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

}  // namespace

Link ring_link(const DpNetwork& net, int ranks) {
  return {net.latency_s, ranks <= net.gpus_per_node ? net.intra_bandwidth_Bps : net.inter_bandwidth_Bps};
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
  const Link link = ring_link(net, gpus);
  s.link_bandwidth_Bps = link.bandwidth_Bps;
  s.inter_node = gpus > net.gpus_per_node;
  s.allreduce_time_s = ring(Collective::AllReduce, gpus, s.gradient_bytes, link);
  s.bucket_count = std::max(1.0, std::ceil(s.gradient_bytes / bucket_bytes));
  s.bucket_allreduce_time_s = ring(Collective::AllReduce, gpus, s.gradient_bytes / s.bucket_count, link);
  s.bucketed_comm_time_s = s.bucket_count * s.bucket_allreduce_time_s;
  if (overlap) {
    const double tb = s.last_backward_time_s, n = s.bucket_count, t = s.bucket_allreduce_time_s;
    s.exposed_comm_s = std::max(t, tb / n + n * t - tb);
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
DpScaling scaling(const DpStep& s, double t1) { return {s, t1 / s.step_time_s, s.compute_time_s + s.allreduce_time_s}; }
}  // namespace

DpTraining dp_training(const DpCompute& c, double mb, double gb, double bucket, bool overlap, int gpus,
                       const DpNetwork& net, std::optional<long long> series_max_gpus) {
  const double t1 = dp_step(c, gb, bucket, overlap, 1, net).step_time_s;
  const DpStep s = dp_step(c, gb, bucket, overlap, gpus, net);
  DpTraining r{scaling(s, t1),
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
    for (long long g = 1; g <= *series_max_gpus; g *= 2) {
      const DpScaling p = scaling(dp_step(c, gb, bucket, overlap, static_cast<int>(g), net), t1);
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
  const Link link = ring_link(net, dp);
  const double p = dp, S = params * comm_bytes;
  const double ag = ring(Collective::AllGather, dp, S, link), rs = ring(Collective::ReduceScatter, dp, S, link);
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
      // The all-reduce is a reduce-scatter followed by an all-gather (ring: 2(p−1) steps).
      z.comm_time_s = ring(Collective::AllReduce, dp, S, link);
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
  return {out, link.bandwidth_Bps};
}

FsdpOverlap fsdp_overlap(const DpCompute& c, double param_bytes, int units, bool prefetch, int gpus,
                         const DpNetwork& net) {
  check_compute(c);
  check_network(net, gpus);
  if (!(param_bytes > 0)) throw InputError("param_dtype", "Parameter elements must have a positive size.");
  if (units < 1) throw InputError("units", "'units' must be at least 1.");
  FsdpOverlap f{};
  const Link link = ring_link(net, gpus);
  f.link_bandwidth_Bps = link.bandwidth_Bps;
  const double unit_bytes = c.params * param_bytes / units;
  f.allgather_time_s = ring(Collective::AllGather, gpus, unit_bytes, link);
  const double rs = ring(Collective::ReduceScatter, gpus, unit_bytes, link);
  f.comm_time_s = units * (2 * f.allgather_time_s + rs);
  f.compute_time_s = compute_time(c);
  const double rate = c.peak_flops * c.mfu;
  f.tokens_min = f.comm_time_s * rate / (6 * c.params);
  const double p = gpus;
  f.tokens_limit = param_bytes * rate / (2 * link.bandwidth_Bps);
  f.tokens_min_bandwidth = f.tokens_limit * (p - 1) / p;
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
