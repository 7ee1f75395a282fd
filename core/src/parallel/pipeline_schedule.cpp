// Pipeline schedule simulator: per-stage op orders of GPipe, 1F1B and interleaved 1F1B, executed
// against their data dependencies (see parallel/pipeline_schedule.hpp).
#include "mlsys/parallel/pipeline_schedule.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

PipelineSchedule parse_pipeline_schedule(const std::string& name) {
  if (name == "gpipe") return PipelineSchedule::GPipe;
  if (name == "1f1b") return PipelineSchedule::OneFOneB;
  if (name == "interleaved-1f1b") return PipelineSchedule::Interleaved;
  throw InputError("schedule", "Unknown schedule '" + name + "'; use gpipe, 1f1b or interleaved-1f1b.");
}

void check_pipeline(const PipelineConfig& c) {
  if (c.stages < 1) throw InputError("stages", "A pipeline needs at least one stage.");
  if (c.microbatches < 1) throw InputError("microbatches", "A step needs at least one micro-batch.");
  if (c.chunks < 1) throw InputError("chunks", "Each stage holds at least one model chunk.");
  if (!(c.forward_s > 0) || !std::isfinite(c.forward_s)) throw InputError("forward_s", "The forward time must be positive.");
  if (!(c.backward_s > 0) || !std::isfinite(c.backward_s))
    throw InputError("backward_s", "The backward time must be positive.");
  if (!(c.p2p_s >= 0) || !std::isfinite(c.p2p_s)) throw InputError("p2p_s", "The point-to-point time cannot be negative.");
  if (c.schedule != PipelineSchedule::Interleaved && c.chunks != 1)
    throw InputError("chunks", "Only the interleaved-1f1b schedule splits a stage into model chunks; set chunks to 1.");
  if (c.schedule == PipelineSchedule::Interleaved && c.microbatches % c.stages != 0)
    throw InputError("microbatches", "The interleaved schedule here is Megatron's default order, which sends "
                                     "micro-batches through in groups of one per stage, so 'microbatches' (" +
                                         std::to_string(c.microbatches) + ") must be a multiple of 'stages' (" +
                                         std::to_string(c.stages) + ").");
}

namespace {

// Megatron's mapping of the k-th forward (or backward) op of a stage to (micro-batch, chunk).
PipelineOp interleaved_op(int k, int p, int v, char kind, int stage) {
  const int in_group = k % (p * v);
  int chunk = in_group / p;
  if (kind == 'B') chunk = v - 1 - chunk;
  const int microbatch = (k / (p * v)) * p + k % p;
  return {stage, microbatch, chunk, kind};
}

}  // namespace

std::vector<PipelineOp> pipeline_stage_order(const PipelineConfig& c, int s) {
  const int p = c.stages, m = c.microbatches;
  std::vector<PipelineOp> ops;
  auto F = [&](int i) { ops.push_back({s, i, 0, 'F'}); };
  auto B = [&](int i) { ops.push_back({s, i, 0, 'B'}); };
  switch (c.schedule) {
    case PipelineSchedule::GPipe:
      for (int i = 0; i < m; ++i) F(i);
      for (int i = 0; i < m; ++i) B(i);
      break;
    case PipelineSchedule::OneFOneB: {
      const int warmup = std::min(p - s - 1, m);
      for (int i = 0; i < warmup; ++i) F(i);
      for (int i = 0; i < m - warmup; ++i) {
        F(warmup + i);
        B(i);
      }
      for (int i = m - warmup; i < m; ++i) B(i);
      break;
    }
    case PipelineSchedule::Interleaved: {
      const int v = c.chunks, total = m * v;
      const int warmup = m == p ? total : std::min((p - s - 1) * 2 + (v - 1) * p, total);
      for (int k = 0; k < warmup; ++k) ops.push_back(interleaved_op(k, p, v, 'F', s));
      for (int k = 0; k < total - warmup; ++k) {
        ops.push_back(interleaved_op(warmup + k, p, v, 'F', s));
        ops.push_back(interleaved_op(k, p, v, 'B', s));
      }
      for (int k = total - warmup; k < total; ++k) ops.push_back(interleaved_op(k, p, v, 'B', s));
      break;
    }
  }
  return ops;
}

namespace {

void fill_bubble(const PipelineConfig& c, PipelineResult& r) {
  r.busy_per_stage_s = c.microbatches * (c.forward_s + c.backward_s);
  // Summing op times leaves rounding residue (1e-15 of the step with no bubble at all): below
  // a billionth of the step the idle time is zero.
  double idle_per_stage = std::max(0.0, r.step_time_s - r.busy_per_stage_s);
  if (idle_per_stage <= 1e-9 * r.step_time_s) idle_per_stage = 0;
  r.bubble_fraction = idle_per_stage / r.step_time_s;
  r.bubble_ratio = idle_per_stage / r.busy_per_stage_s;
  r.bubble_time_s = idle_per_stage;
  r.bubble_ratio_formula = (c.stages - 1.0) / (static_cast<double>(c.chunks) * c.microbatches);
  r.method = r.executed ? "executed" : "closed-form";
}

}  // namespace

PipelineResult pipeline_closed_form(const PipelineConfig& c) {
  check_pipeline(c);
  const double p = c.stages, m = c.microbatches, v = c.chunks;
  PipelineResult r{};
  r.executed = false;
  const double boundaries = c.stages > 1 ? 2 * (p * v - 1) : 0;  // messages on the first micro-batch's path
  r.step_time_s = (m + (p - 1) / v) * (c.forward_s + c.backward_s) + boundaries * c.p2p_s;
  fill_bubble(c, r);
  for (int s = 0; s < c.stages; ++s) {
    int chunks = c.microbatches;  // GPipe
    if (c.schedule == PipelineSchedule::OneFOneB) chunks = std::min(c.stages - s, c.microbatches);
    if (c.schedule == PipelineSchedule::Interleaved) {
      const int total = c.microbatches * c.chunks;
      chunks = c.microbatches == c.stages ? total : std::min(2 * (c.stages - s - 1) + (c.chunks - 1) * c.stages + 1, total);
    }
    r.peak_inflight_chunks_per_stage.push_back(chunks);
    r.peak_inflight_per_stage.push_back(static_cast<double>(chunks) / c.chunks);
  }
  r.peak_inflight_microbatches = r.peak_inflight_per_stage.front();
  return r;
}

PipelineResult simulate_pipeline(const PipelineConfig& c, long long limit) {
  check_pipeline(c);
  const long long size = static_cast<long long>(c.stages) * c.microbatches * c.chunks;
  if (size > limit) return pipeline_closed_form(c);

  const int p = c.stages, m = c.microbatches, v = c.chunks, virtual_stages = p * v;
  const double tf = c.forward_s / v, tb = c.backward_s / v;
  std::vector<std::vector<PipelineOp>> order(p);
  for (int s = 0; s < p; ++s) order[s] = pipeline_stage_order(c, s);
  // End times of F and B per (virtual stage, micro-batch); negative: not run yet.
  std::vector<double> f_end(static_cast<std::size_t>(virtual_stages) * m, -1), b_end(f_end);
  // Arrival of the activation (gradient) that virtual stage vs sends on for micro-batch i. A
  // message occupies its sender's link for p2p_s: each GPU sends one message at a time (one
  // network port; receiving is the other direction of the full-duplex link), in the order it
  // finishes the ops, so messages sent closer together than p2p_s queue.
  std::vector<double> f_arrive(f_end.size(), -1), b_arrive(f_end.size(), -1);
  std::vector<double> link_free(p, 0);
  auto at = [&](int vs, int i) { return static_cast<std::size_t>(vs) * m + i; };
  std::vector<std::size_t> next(p, 0);
  std::vector<double> free_at(p, 0);
  std::vector<int> held(p, 0);
  PipelineResult r{};
  r.executed = true;
  r.peak_inflight_chunks_per_stage.assign(p, 0);
  std::size_t done = 0, total = 0;
  for (const auto& o : order) total += o.size();
  r.timeline.reserve(total);

  while (done < total) {
    bool progress = false;
    for (int s = 0; s < p; ++s) {
      while (next[s] < order[s].size()) {
        PipelineOp op = order[s][next[s]];
        const int vs = op.chunk * p + s;
        double ready = free_at[s];
        if (op.kind == 'F') {
          if (vs > 0) {
            const double prev = f_arrive[at(vs - 1, op.microbatch)];
            if (prev < 0) break;
            ready = std::max(ready, prev);
          }
        } else {
          const double own = f_end[at(vs, op.microbatch)];
          if (own < 0) break;
          ready = std::max(ready, own);
          if (vs < virtual_stages - 1) {
            const double later = b_arrive[at(vs + 1, op.microbatch)];
            if (later < 0) break;
            ready = std::max(ready, later);
          }
        }
        op.start_s = ready;
        op.end_s = ready + (op.kind == 'F' ? tf : tb);
        (op.kind == 'F' ? f_end : b_end)[at(vs, op.microbatch)] = op.end_s;
        const bool sends = op.kind == 'F' ? vs < virtual_stages - 1 : vs > 0;
        if (sends) {  // no link within one GPU (p = 1): the message is free
          double& link = link_free[s];
          const double depart = p > 1 ? std::max(op.end_s, link) : op.end_s;
          const double arrive = p > 1 ? depart + c.p2p_s : op.end_s;
          if (p > 1) link = arrive;
          (op.kind == 'F' ? f_arrive : b_arrive)[at(vs, op.microbatch)] = arrive;
        }
        free_at[s] = op.end_s;
        held[s] += op.kind == 'F' ? 1 : -1;
        r.peak_inflight_chunks_per_stage[s] = std::max(r.peak_inflight_chunks_per_stage[s], held[s] + (op.kind == 'B'));
        r.timeline.push_back(op);
        ++next[s];
        ++done;
        progress = true;
      }
    }
    if (!progress) throw InputError("schedule", "The schedule deadlocks for this configuration.");
  }
  std::stable_sort(r.timeline.begin(), r.timeline.end(), [](const PipelineOp& a, const PipelineOp& b) {
    return a.stage != b.stage ? a.stage < b.stage : a.start_s < b.start_s;
  });
  r.step_time_s = 0;
  for (const auto& op : r.timeline) r.step_time_s = std::max(r.step_time_s, op.end_s);
  fill_bubble(c, r);
  for (int s = 0; s < p; ++s) r.peak_inflight_per_stage.push_back(static_cast<double>(r.peak_inflight_chunks_per_stage[s]) / v);
  r.peak_inflight_microbatches = r.peak_inflight_per_stage.front();
  return r;
}

}  // namespace mlsys
