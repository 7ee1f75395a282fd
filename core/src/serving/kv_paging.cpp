// Contiguous reservation vs paged KV blocks on one backlog of requests (Kwon et al. 2023).
#include "mlsys/serving/kv_paging.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>

#include "mlsys/foundations/deterministic.hpp"

namespace mlsys {

namespace {

struct Totals {
  double steps = 0, batch_sum = 0, max_batch = 0, used = 0, reserved = 0, internal = 0, external = 0, free = 0;
  double tokens = 0, preemptions = 0;
  void add(double batch, double u, double r, double i, double e, double f) {
    steps += 1, batch_sum += batch, max_batch = std::max(max_batch, batch);
    used += u, reserved += r, internal += i, external += e, free += f;
  }
  PagingResult result(const std::string& name, double block, double pool) const {
    PagingResult p{};
    p.allocator = name;
    p.block_size = block;
    p.steps = steps;
    p.mean_batch = batch_sum / steps;
    p.max_batch = max_batch;
    p.tokens_per_step = tokens / steps;
    const double total = steps * pool;
    p.used_fraction = used / total;
    p.reserved_fraction = reserved / total;
    p.internal_fraction = internal / total;
    p.external_fraction = external / total;
    p.free_fraction = free / total;
    const double held = total - free;
    p.waste_fraction = held > 0 ? (reserved + internal + external) / held : 0;
    p.preemptions = preemptions;
    return p;
  }
};

double step_cap(const std::vector<PagingRequest>& reqs) {
  double out = 0;
  for (const auto& r : reqs) out += r.output;
  return 4 * out + 1000;  // generous: every step makes progress for the oldest request
}

}  // namespace

std::vector<PagingRequest> paging_stream(int count, int prompt_mean, int output_mean, std::uint64_t seed) {
  SeededStream rng(mix_seed(seed, 0x9A6ED4B10C5ULL));
  std::vector<PagingRequest> out;
  for (int i = 0; i < count; ++i) {
    const int prompt = rng.integer(1, 2 * prompt_mean - 1);
    const int output = rng.integer(1, 2 * output_mean - 1);
    out.push_back({prompt, output});
  }
  return out;
}

PagingResult simulate_contiguous(const std::vector<PagingRequest>& reqs, int pool_tokens, int max_output) {
  struct Extent {
    double start, len;
    std::size_t i;
    int generated;
  };
  std::vector<Extent> live;  // sorted by start
  std::deque<std::size_t> queue;
  for (std::size_t i = 0; i < reqs.size(); ++i) queue.push_back(i);
  const double pool = pool_tokens, cap = step_cap(reqs);
  Totals tot;
  auto reservation = [&](std::size_t i) { return static_cast<double>(reqs[i].prompt + max_output); };
  // First hole of at least `len` slots: its start, or -1.
  auto first_fit = [&](double len) {
    double at = 0;
    for (const auto& e : live) {
      if (e.start - at >= len) return at;
      at = e.start + e.len;
    }
    return pool - at >= len ? at : -1.0;
  };
  while (!queue.empty() || !live.empty()) {
    while (!queue.empty()) {
      const double start = first_fit(reservation(queue.front()));
      if (start < 0) break;
      live.push_back({start, reservation(queue.front()), queue.front(), 0});
      std::sort(live.begin(), live.end(), [](const Extent& a, const Extent& b) { return a.start < b.start; });
      queue.pop_front();
    }
    if (live.empty()) throw std::invalid_argument("a request does not fit in the pool");
    double used = 0, reserved = 0, internal = 0, held = 0;
    for (auto& e : live) {
      ++e.generated;
      const auto& r = reqs[e.i];
      const double ctx = r.prompt + e.generated, final_len = r.prompt + r.output;
      used += ctx, reserved += final_len - ctx, internal += e.len - final_len, held += e.len;
    }
    const double free = pool - held;
    // Free slots stranded in holes: the waiting request would fit in them if they were one.
    const double external = !queue.empty() && free >= reservation(queue.front()) ? free : 0;
    tot.add(static_cast<double>(live.size()), used, reserved, internal, external, free - external);
    tot.tokens += static_cast<double>(live.size());
    live.erase(std::remove_if(live.begin(), live.end(),
                              [&](const Extent& e) { return e.generated >= reqs[e.i].output; }),
               live.end());
    if (tot.steps > cap) throw std::runtime_error("contiguous allocator simulation did not finish");
  }
  return tot.result("contiguous", 0, pool);
}

PagingResult simulate_paged(const std::vector<PagingRequest>& reqs, int pool_tokens, int block_size) {
  struct Seq {
    std::size_t i;
    int generated;
    double blocks;
  };
  const double B = block_size;
  const double total_blocks = std::floor(static_cast<double>(pool_tokens) / B);
  const double pool = pool_tokens, cap = step_cap(reqs);
  std::vector<int> generated(reqs.size(), 0);  // survives preemption (recompute keeps the text)
  std::deque<std::size_t> queue;
  for (std::size_t i = 0; i < reqs.size(); ++i) queue.push_back(i);
  std::vector<Seq> running;  // in admission order: the newest is preempted first
  double free_blocks = total_blocks;
  Totals tot;
  while (!queue.empty() || !running.empty()) {
    // Admit while the head's blocks (including this step's token) are free.
    while (!queue.empty()) {
      const std::size_t i = queue.front();
      const double need = std::ceil((reqs[i].prompt + generated[i] + 1) / B);
      if (need > free_blocks) break;
      free_blocks -= need;
      running.push_back({i, generated[i], need});
      queue.pop_front();
    }
    if (running.empty()) throw std::invalid_argument("a request does not fit in the pool");
    // Grow: each sequence needs room for one more token; preempt the newest when out of blocks.
    for (std::size_t k = 0; k < running.size(); ++k) {
      const double need = std::ceil((reqs[running[k].i].prompt + running[k].generated + 1) / B);
      while (need > running[k].blocks) {
        if (free_blocks >= 1) {
          free_blocks -= 1, running[k].blocks += 1;
          continue;
        }
        const Seq victim = running.back();
        running.pop_back();
        free_blocks += victim.blocks;
        generated[victim.i] = victim.generated;
        queue.push_front(victim.i);
        tot.preemptions += 1;
        if (running.size() <= k) break;  // the victim was this sequence
      }
    }
    double used = 0, held = 0;
    for (auto& s : running) {
      ++s.generated;
      used += reqs[s.i].prompt + s.generated;
      held += s.blocks * B;
    }
    const double remainder = pool - total_blocks * B;  // slots too few to form a block
    tot.add(static_cast<double>(running.size()), used, 0, held - used, remainder, free_blocks * B);
    tot.tokens += static_cast<double>(running.size());
    std::vector<Seq> still;
    for (const auto& s : running) {
      if (s.generated >= reqs[s.i].output) free_blocks += s.blocks;
      else still.push_back(s);
    }
    running.swap(still);
    if (tot.steps > cap) throw std::runtime_error("paged allocator simulation did not finish");
  }
  return tot.result("paged", B, pool);
}

PagingComparison compare_paging(int requests, int prompt_mean, int output_mean, int max_output, int pool_tokens,
                                int block_size, std::uint64_t seed) {
  const int pool = pool_tokens, bs = block_size;
  const auto reqs = paging_stream(requests, prompt_mean, output_mean, seed);
  PagingComparison c;
  c.contiguous = simulate_contiguous(reqs, pool, max_output);
  c.paged.result = simulate_paged(reqs, pool, bs);
  for (int b = 1; b <= 256; b *= 2) {
    const PagingResult p = b == bs ? c.paged.result : simulate_paged(reqs, pool, b);
    c.series.push_back(
        {b, p.waste_fraction, p.internal_fraction, p.used_fraction, p.mean_batch, p.steps, p.preemptions});
  }
  c.paged.slack_per_sequence_tokens = c.paged.result.internal_fraction * pool / c.paged.result.mean_batch;
  return c;
}

}  // namespace mlsys
