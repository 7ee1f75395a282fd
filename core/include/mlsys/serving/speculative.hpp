// Speculative decoding (Leviathan, Kalman, Matias 2023, arXiv:2211.17192; Chen et al. 2023,
// arXiv:2302.01318). A draft model proposes gamma tokens, the target scores them in one pass;
// draft token x ~ q is kept with probability min(1, p(x)/q(x)), else a token is drawn from
// norm(max(0, p − q)) and the round ends; if all gamma are kept the target adds one more.
// The emitted tokens are distributed exactly as p, the acceptance rate is
// alpha = sum_x min(p, q) = 1 − TV(p, q), tokens per round (1 − alpha^(gamma+1)) / (1 − alpha)
// (their eq. 1) and the walltime speedup (1 − alpha^(gamma+1)) / ((1 − alpha)(gamma·c + 1))
// (Theorem 3.8), with c the draft's cost per token relative to the target's.
#pragma once
#include <cstdint>
#include <vector>

namespace mlsys {

// Expected tokens per round; alpha in [0, 1], gamma >= 0 (alpha = 1 gives gamma + 1).
double speculative_expected_tokens(double alpha, double gamma);
// Expected walltime improvement over plain decoding; draft_cost c >= 0.
double speculative_speedup(double alpha, double gamma, double draft_cost);

// Total variation distance 0.5 · sum |p − q| of two distributions of the same size.
double total_variation(const std::vector<double>& p, const std::vector<double>& q);

struct SpecSampleResult {
  std::vector<double> counts;   // emitted tokens per vocabulary entry
  double emitted_tokens;
  double rounds;
  double drafted, accepted;     // draft tokens proposed / kept
  double tokens_per_round;      // emitted / rounds
};

// Executes `rounds` rounds of speculative sampling with fixed target p and draft q over a
// vocabulary of p.size() tokens (context-independent distributions), seeded SplitMix64.
SpecSampleResult speculative_sample(const std::vector<double>& p, const std::vector<double>& q, int gamma, int rounds,
                                    std::uint64_t seed);

// The naive reference: sampling from p directly, `tokens` times (the distribution the
// speculative sampler must reproduce).
std::vector<double> direct_sample_counts(const std::vector<double>& p, int tokens, std::uint64_t seed);

// Seeded target p and draft q over `vocab` tokens: p = softmax(z / temperature) with z
// standard-normal-like logits; q = softmax((z + mismatch · e) / temperature), e independent.
void make_spec_distributions(int vocab, double mismatch, double temperature, std::uint64_t seed, std::vector<double>& p,
                             std::vector<double>& q);

// The closed forms at (alpha, gamma, c) and the gamma in 1..64 with the largest speedup (the
// smallest such gamma; a gamma must beat the best so far by 1e-12).
struct SpeculativeEstimate {
  double expected_tokens, speedup;
  double cost_per_round;  // gamma·c + 1, in target-token costs
  double optimal_gamma, optimal_speedup;
};
SpeculativeEstimate speculative_estimate(double alpha, double gamma, double draft_cost);

// Seeded distributions (make_spec_distributions), the executed sampler and its checks: the
// emitted frequencies beside p, measured acceptance beside 1 − TV(p, q), a chi-square
// statistic against p, and the TV distance of sampling p directly as many times.
struct SpecSampleReport {
  std::vector<double> p, q, frequencies, counts;
  double emitted_tokens, rounds, drafted, accepted;
  double acceptance_measured, acceptance_formula, tv_p_q, tv_empirical, tv_direct;
  double chi_square, degrees_of_freedom;
  double tokens_per_round_measured, tokens_per_round_formula;
};
SpecSampleReport speculative_sample_report(int vocab, double mismatch, double temperature, int gamma, int rounds,
                                           std::uint64_t seed);

}  // namespace mlsys
