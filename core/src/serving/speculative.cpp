// Speculative decoding: closed forms of Leviathan et al. 2023 (arXiv:2211.17192) and the
// executed accept/reject sampler with residual resampling (their Algorithm 1; Chen et al. 2023).
#include "mlsys/serving/speculative.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/deterministic.hpp"

namespace mlsys {

namespace {

// Cumulative sums of a distribution, the last forced to 1.
std::vector<double> cdf_of(const std::vector<double>& p) {
  std::vector<double> c(p.size());
  double acc = 0;
  for (std::size_t i = 0; i < p.size(); ++i) c[i] = acc += p[i];
  for (auto& x : c) x /= acc;
  c.back() = 1.0;
  return c;
}

std::size_t draw(const std::vector<double>& cdf, SeededStream& s) {
  const double u = s.uniform();
  const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
  return std::min(static_cast<std::size_t>(it - cdf.begin()), cdf.size() - 1);
}

std::vector<double> softmax(const std::vector<double>& z, double temperature) {
  const double mx = *std::max_element(z.begin(), z.end());
  std::vector<double> p(z.size());
  double sum = 0;
  for (std::size_t i = 0; i < z.size(); ++i) sum += p[i] = exp_det((z[i] - mx) / temperature);
  for (auto& x : p) x /= sum;
  return p;
}

// Standard normal by the polar method (the second value is not used).
double normal(SeededStream& s) { return s.normal_pair().a; }

}  // namespace

double speculative_expected_tokens(double alpha, double gamma) {
  if (alpha >= 1.0) return gamma + 1;
  double power = 1;  // α^(γ+1) by repeated products (γ is a whole number of drafted tokens)
  for (int i = 0; i <= static_cast<int>(gamma); ++i) power *= alpha;
  return (1.0 - power) / (1.0 - alpha);
}

double speculative_speedup(double alpha, double gamma, double draft_cost) {
  return speculative_expected_tokens(alpha, gamma) / (gamma * draft_cost + 1.0);
}

double total_variation(const std::vector<double>& p, const std::vector<double>& q) {
  double tv = 0;
  for (std::size_t i = 0; i < p.size(); ++i) tv += std::abs(p[i] - q[i]);
  return 0.5 * tv;
}

SpecSampleResult speculative_sample(const std::vector<double>& p, const std::vector<double>& q, int gamma, int rounds,
                                    std::uint64_t seed) {
  SeededStream s(mix_seed(seed, 0x5BEC0DE5ULL));
  const std::size_t v = p.size();
  const auto p_cdf = cdf_of(p), q_cdf = cdf_of(q);
  std::vector<double> residual(v);
  double rsum = 0;
  for (std::size_t i = 0; i < v; ++i) rsum += residual[i] = std::max(0.0, p[i] - q[i]);
  const bool has_residual = rsum > 0;
  const auto r_cdf = has_residual ? cdf_of(residual) : p_cdf;

  SpecSampleResult r;
  r.counts.assign(v, 0.0);
  r.emitted_tokens = r.rounds = r.drafted = r.accepted = 0;
  for (int round = 0; round < rounds; ++round) {
    bool all_kept = true;
    for (int k = 0; k < gamma; ++k) {
      const std::size_t x = draw(q_cdf, s);  // the draft proposes x ~ q
      r.drafted += 1;
      if (s.uniform() < std::min(1.0, p[x] / q[x])) {  // the target keeps it
        r.accepted += 1;
        r.counts[x] += 1;
        continue;
      }
      r.counts[draw(r_cdf, s)] += 1;  // rejected: resample from norm(max(0, p − q))
      all_kept = false;
      break;
    }
    if (all_kept) r.counts[draw(p_cdf, s)] += 1;  // the target's extra token
    r.rounds += 1;
  }
  for (double c : r.counts) r.emitted_tokens += c;
  r.tokens_per_round = r.emitted_tokens / r.rounds;
  return r;
}

std::vector<double> direct_sample_counts(const std::vector<double>& p, int tokens, std::uint64_t seed) {
  SeededStream s(mix_seed(seed, 0xD12EC7ULL));
  const auto cdf = cdf_of(p);
  std::vector<double> counts(p.size(), 0.0);
  for (int i = 0; i < tokens; ++i) counts[draw(cdf, s)] += 1;
  return counts;
}

void make_spec_distributions(int vocab, double mismatch, double temperature, std::uint64_t seed, std::vector<double>& p,
                             std::vector<double>& q) {
  SeededStream s(mix_seed(seed, 0xD157ULL));
  std::vector<double> z(static_cast<std::size_t>(vocab)), zq(static_cast<std::size_t>(vocab));
  for (auto& x : z) x = normal(s);
  for (std::size_t i = 0; i < z.size(); ++i) zq[i] = z[i] + mismatch * normal(s);
  p = softmax(z, temperature);
  q = softmax(zq, temperature);
}

SpeculativeEstimate speculative_estimate(double alpha, double gamma, double draft_cost) {
  const double a = alpha, g = gamma, c = draft_cost;
  double best_g = 1, best = 0;
  for (int k = 1; k <= 64; ++k) {
    const double s = speculative_speedup(a, k, c);
    if (s > best + 1e-12) best = s, best_g = k;
  }
  return {speculative_expected_tokens(a, g), speculative_speedup(a, g, c), g * c + 1, best_g, best};
}

SpecSampleReport speculative_sample_report(int vocab, double mismatch, double temperature, int gamma, int rounds,
                                           std::uint64_t seed) {
  const int g = gamma;
  SpecSampleReport o;
  std::vector<double>& p = o.p;
  make_spec_distributions(vocab, mismatch, temperature, seed, p, o.q);
  const SpecSampleResult r = speculative_sample(p, o.q, g, rounds, seed);
  std::vector<double> freq(p.size());
  double chi2 = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    freq[i] = r.counts[i] / r.emitted_tokens;
    const double expected = p[i] * r.emitted_tokens;
    chi2 += (r.counts[i] - expected) * (r.counts[i] - expected) / expected;
  }
  const auto direct = direct_sample_counts(p, static_cast<int>(r.emitted_tokens), seed);
  std::vector<double> direct_freq(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) direct_freq[i] = direct[i] / r.emitted_tokens;
  const double tv = total_variation(p, o.q);
  o.frequencies = freq;
  o.counts = r.counts;
  o.emitted_tokens = r.emitted_tokens;
  o.rounds = r.rounds;
  o.drafted = r.drafted;
  o.accepted = r.accepted;
  o.acceptance_measured = r.accepted / r.drafted;
  o.acceptance_formula = 1 - tv;
  o.tv_p_q = tv;
  o.tv_empirical = total_variation(freq, p);
  o.tv_direct = total_variation(direct_freq, p);
  o.chi_square = chi2;
  o.degrees_of_freedom = static_cast<double>(p.size() - 1);
  o.tokens_per_round_measured = r.tokens_per_round;
  o.tokens_per_round_formula = speculative_expected_tokens(1 - tv, g);
  return o;
}

}  // namespace mlsys
