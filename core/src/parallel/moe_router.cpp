// Simulated top-k router with expert capacity and the Switch load-balancing loss (see
// parallel/moe_router.hpp).
#include "mlsys/parallel/moe_router.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

MoeRouterResult route_tokens(const MoeRouterConfig& c) {
  if (c.experts < 1) throw InputError("experts", "A mixture of experts needs at least one expert.");
  if (c.top_k < 1 || c.top_k > c.experts) throw InputError("top_k", "top_k must be between 1 and the number of experts.");
  if (c.tokens < 1) throw InputError("tokens", "Route at least one token.");
  if (static_cast<double>(c.tokens) * c.experts > kMoeRouterCap)
    throw InputError("tokens", "The simulation is capped at tokens × experts ≤ 1,048,576 router logits; use fewer tokens.");
  const int E = c.experts, K = c.top_k, T = c.tokens;

  // Expert bias first (the same experts are popular for every token count), then tokens.
  SeededStream rng(mix_seed(c.seed, 0x5851F42D4C957F2DULL));  // normals by the polar method
  std::vector<double> bias(E);
  for (auto& b : bias) b = (1.0 - c.balance) * c.skew * rng.normal();

  MoeRouterResult r;
  r.assignments = static_cast<double>(T) * K;
  r.capacity = std::floor(c.capacity_factor * r.assignments / E);
  r.routed_per_expert.assign(E, 0.0);
  r.kept_per_expert.assign(E, 0.0);
  r.mean_prob_per_expert.assign(E, 0.0);
  std::vector<int> choice(static_cast<std::size_t>(T) * K);
  std::vector<double> logits(E), prob(E);
  std::vector<char> taken(E);
  for (int t = 0; t < T; ++t) {
    double mx = -1e300;
    for (int e = 0; e < E; ++e) {
      logits[e] = rng.normal() + bias[e];
      mx = std::max(mx, logits[e]);
    }
    double z = 0;
    for (int e = 0; e < E; ++e) z += prob[e] = exp_det(logits[e] - mx);
    for (int e = 0; e < E; ++e) r.mean_prob_per_expert[e] += prob[e] / z / T;
    std::fill(taken.begin(), taken.end(), 0);
    for (int j = 0; j < K; ++j) {  // top-k by repeated arg-max (k ≤ 8)
      int best = -1;
      for (int e = 0; e < E; ++e)
        if (!taken[e] && (best < 0 || logits[e] > logits[best])) best = e;
      taken[best] = 1;
      choice[static_cast<std::size_t>(t) * K + j] = best;
      r.routed_per_expert[best] += 1;
    }
  }

  // Capacity: first choices of every token first, then second choices, each in token order.
  std::vector<int> lost(T, 0);
  r.kept = r.dropped = 0;
  for (int j = 0; j < K; ++j) {
    for (int t = 0; t < T; ++t) {
      const int e = choice[static_cast<std::size_t>(t) * K + j];
      if (r.kept_per_expert[e] < r.capacity) {
        r.kept_per_expert[e] += 1;
        r.kept += 1;
      } else {
        r.dropped += 1;
        lost[t] += 1;
      }
    }
  }
  r.tokens_fully_dropped = static_cast<double>(std::count(lost.begin(), lost.end(), K));
  r.drop_fraction = r.dropped / r.assignments;
  double fp = 0, most = 0;
  for (int e = 0; e < E; ++e) {
    r.fraction_per_expert.push_back(r.routed_per_expert[e] / r.assignments);
    fp += r.fraction_per_expert[e] * r.mean_prob_per_expert[e];
    most = std::max(most, r.routed_per_expert[e]);
  }
  r.max_over_mean = most / (r.assignments / E);
  r.balance_score = E * fp;
  r.aux_loss = c.aux_alpha * r.balance_score;
  return r;
}

}  // namespace mlsys
