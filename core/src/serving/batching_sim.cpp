// Static vs continuous batching on a seeded Poisson request stream (Yu et al. 2022, Orca).
#include "mlsys/serving/batching_sim.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/dtype.hpp"

namespace mlsys {

namespace {

struct Done {
  double first_token_s = 0;
  double finish_s = 0;
};

BatchingResult summarize(const std::string& policy, const std::vector<Request>& reqs, const std::vector<Done>& done,
                         double steps, double rows_sum, double padded) {
  BatchingResult r{};
  r.policy = policy;
  std::vector<double> lat, ttft;
  double tokens = 0, tpot_sum = 0, tpot_n = 0, makespan = 0;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    lat.push_back(done[i].finish_s - reqs[i].arrival_s);
    ttft.push_back(done[i].first_token_s - reqs[i].arrival_s);
    tokens += reqs[i].output;
    makespan = std::max(makespan, done[i].finish_s);
    if (reqs[i].output > 1) {
      tpot_sum += (done[i].finish_s - done[i].first_token_s) / (reqs[i].output - 1);
      ++tpot_n;
    }
  }
  r.makespan_s = makespan;
  r.output_tokens = tokens;
  r.tokens_per_s = tokens / makespan;
  r.requests_per_s = static_cast<double>(reqs.size()) / makespan;
  r.latency_p50_s = quantile_nearest_rank(lat, 0.5);
  r.latency_p90_s = quantile_nearest_rank(lat, 0.9);
  r.latency_p99_s = quantile_nearest_rank(lat, 0.99);
  r.ttft_p50_s = quantile_nearest_rank(ttft, 0.5);
  r.ttft_p99_s = quantile_nearest_rank(ttft, 0.99);
  double ls = 0, ts = 0;
  for (double x : lat) ls += x;
  for (double x : ttft) ts += x;
  r.latency_mean_s = ls / static_cast<double>(lat.size());
  r.ttft_mean_s = ts / static_cast<double>(ttft.size());
  r.tpot_mean_s = tpot_n > 0 ? tpot_sum / tpot_n : 0;
  r.steps = steps;
  r.mean_batch = steps > 0 ? rows_sum / steps : 0;
  r.padded_tokens = padded;
  // Time-average number in the system, integrated over the arrival/departure events
  // (checked against Little's law L = lambda · W in the tests).
  std::vector<std::pair<double, int>> events;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    events.push_back({reqs[i].arrival_s, +1});
    events.push_back({done[i].finish_s, -1});
  }
  std::sort(events.begin(), events.end());
  double area = 0, last = 0;
  int n = 0;
  for (const auto& e : events) {
    area += n * (e.first - last);
    last = e.first;
    n += e.second;
  }
  r.mean_in_system = area / makespan;
  r.littles_law_in_system = r.requests_per_s * r.latency_mean_s;
  return r;
}

}  // namespace

std::vector<Request> request_stream(int count, double rate_rps, int prompt_mean, int output_mean, std::uint64_t seed) {
  SeededStream rng(mix_seed(seed, 0x5EEDBA7C4ULL));
  std::vector<Request> out;
  double t = 0;
  for (int i = 0; i < count; ++i) {
    t += -log_det(1.0 - rng.uniform()) / rate_rps;  // exponential gaps: a Poisson process
    const int prompt = rng.integer(1, 2 * prompt_mean - 1);
    const int output = rng.integer(1, 2 * output_mean - 1);
    out.push_back({t, prompt, output});
  }
  return out;
}

double StepModel::step_time_s(double tokens, double kv_tokens) const {
  return std::max((weight_bytes + kv_tokens * kv_bytes_per_token) / bandwidth_Bps, flops_per_token * tokens / peak_flops);
}

double quantile_nearest_rank(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const auto n = static_cast<double>(v.size());
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(p * n)));
  return v[std::min(rank, v.size()) - 1];
}

BatchingResult simulate_batching(const std::vector<Request>& reqs, const StepModel& m, int max_batch,
                                 const std::string& policy) {
  if (reqs.empty()) throw std::invalid_argument("no requests");
  const std::size_t n = reqs.size();
  std::vector<Done> done(n);
  double t = 0, steps = 0, rows_sum = 0, padded = 0;
  std::size_t next = 0;  // next request not yet queued (requests are sorted by arrival)

  if (policy == "static") {
    while (next < n) {
      t = std::max(t, reqs[next].arrival_s);
      std::vector<std::size_t> batch;
      while (next < n && reqs[next].arrival_s <= t && static_cast<int>(batch.size()) < max_batch) batch.push_back(next++);
      // Prefill of the whole batch; it yields every request's first token.
      double prompt_sum = 0;
      int longest = 0;
      for (auto i : batch) prompt_sum += reqs[i].prompt, longest = std::max(longest, reqs[i].output);
      t += m.step_time_s(prompt_sum, prompt_sum);
      steps += 1, rows_sum += static_cast<double>(batch.size());
      for (auto i : batch) done[i].first_token_s = t;
      // Decode until the longest output is done; finished rows stay in the batch as padding.
      const double rows = static_cast<double>(batch.size());
      for (int k = 1; k < longest; ++k) {
        t += m.step_time_s(rows, prompt_sum + rows * k + rows);
        steps += 1, rows_sum += rows;
        for (auto i : batch) padded += reqs[i].output <= k ? 1 : 0;
      }
      for (auto i : batch) done[i].finish_s = t;  // responses return when the batch ends
    }
    return summarize(policy, reqs, done, steps, rows_sum, padded);
  }

  // Continuous batching: admit and retire at every step.
  std::deque<std::size_t> queue;
  struct Running {
    std::size_t i;
    int generated;
  };
  std::vector<Running> running;
  std::size_t finished = 0;
  while (finished < n) {
    while (next < n && reqs[next].arrival_s <= t) queue.push_back(next++);
    if (running.empty() && queue.empty()) {
      t = reqs[next].arrival_s;
      continue;
    }
    double tokens = 0, kv = 0;
    for (const auto& r : running) {
      tokens += 1;
      kv += reqs[r.i].prompt + r.generated + 1;
    }
    std::vector<std::size_t> admitted;
    while (!queue.empty() && static_cast<int>(running.size() + admitted.size()) < max_batch) {
      admitted.push_back(queue.front());
      tokens += reqs[queue.front()].prompt;
      kv += reqs[queue.front()].prompt;
      queue.pop_front();
    }
    t += m.step_time_s(tokens, kv);
    steps += 1;
    rows_sum += static_cast<double>(running.size() + admitted.size());
    for (auto& r : running) ++r.generated;
    for (auto i : admitted) {
      done[i].first_token_s = t;
      running.push_back({i, 1});
    }
    std::vector<Running> still;
    for (const auto& r : running) {
      if (r.generated >= reqs[r.i].output) {
        done[r.i].finish_s = t;
        ++finished;
      } else {
        still.push_back(r);
      }
    }
    running.swap(still);
  }
  return summarize(policy, reqs, done, steps, rows_sum, padded);
}

StepModel step_model(double params, const std::string& weight_dtype, double kv_bytes_per_token, double peak_flops,
                     double bandwidth_Bps) {
  return {params * dtype_bytes(weight_dtype), kv_bytes_per_token, 2 * params, peak_flops, bandwidth_Bps};
}

std::vector<Request> as_backlog(std::vector<Request> requests) {
  for (auto& r : requests) r.arrival_s = 0;
  return requests;
}

BatchingComparison compare_batching(int requests, double rate_rps, int prompt_mean, int output_mean,
                                    std::uint64_t seed, const StepModel& model, int max_batch) {
  const int n = requests;
  const auto reqs = request_stream(n, rate_rps, prompt_mean, output_mean, seed);
  BatchingComparison c;
  c.static_batching = simulate_batching(reqs, model, max_batch, "static");
  c.continuous = simulate_batching(reqs, model, max_batch, "continuous");
  const auto backlog = as_backlog(reqs);
  c.static_batching.capacity_rps = simulate_batching(backlog, model, max_batch, "static").requests_per_s;
  c.continuous.capacity_rps = simulate_batching(backlog, model, max_batch, "continuous").requests_per_s;
  c.static_batching.arrival_law_in_system = rate_rps * c.static_batching.latency_mean_s;
  c.continuous.arrival_law_in_system = rate_rps * c.continuous.latency_mean_s;
  double out_tokens = 0;
  for (const auto& r : reqs) out_tokens += r.output;
  c.requests = n;
  c.offered_tokens_per_s = rate_rps * out_tokens / n;
  c.decode_step_s = model.step_time_s(1, 0);
  return c;
}

}  // namespace mlsys
