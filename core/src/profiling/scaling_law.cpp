// Iso-FLOP curves and the cheapest model of a given loss over training plus inference
// (see scaling_law.hpp for the sources).
#include "mlsys/profiling/scaling_law.hpp"

#include <algorithm>

#include "mlsys/foundations/deterministic.hpp"

namespace mlsys {

namespace {

// x^y for x > 0 with the deterministic exp/log (same bits natively and in WASM).
double pow_pos(double x, double y) { return exp_det(y * log_det(x)); }

}  // namespace

IsoFlopCurve iso_flop_curve(double compute_flops, const std::vector<double>& params,
                            const ChinchillaConstants& k) {
  IsoFlopCurve r;
  for (double n : params) {
    const double d = compute_flops / (6 * n);
    r.curve.push_back({n, d, chinchilla_loss(n, d, k)});
  }
  const ComputeOptimal o = chinchilla_optimal(compute_flops, k);
  r.optimal = {o.params, o.tokens, o.loss};
  return r;
}

std::vector<double> iso_flop_params(double compute_flops, int count, const ChinchillaConstants& k) {
  const double n_opt = chinchilla_optimal(compute_flops, k).params;
  std::vector<double> out;
  for (int i = 0; i < count; ++i) {
    const double decades = count == 1 ? 0 : -2 + 4.0 * i / (count - 1);
    out.push_back(n_opt * pow_pos(10, decades));
  }
  return out;
}

LifetimeCompute lifetime_compute(double params, double tokens, double inference_tokens,
                                 const ChinchillaConstants& k) {
  const double train = 6 * params * tokens, infer = 2 * params * inference_tokens;
  return {params, tokens, chinchilla_loss(params, tokens, k), train, infer, train + infer};
}

OverTraining cheapest_same_loss(double params, double tokens, double inference_tokens,
                                const ChinchillaConstants& k) {
  const LifetimeCompute given = lifetime_compute(params, tokens, inference_tokens, k);
  // The reducible loss of the given model, as its two terms (summed this way, not as
  // loss − E, so that no cancellation loses digits when both terms are small).
  const double reducible = k.A / pow_pos(params, k.alpha) + k.B / pow_pos(tokens, k.beta);
  // x = 1 / (1 + e^−t) and 1 − x = 1 / (1 + e^t), each computed directly so that both ends of
  // the logit range keep their precision.
  const auto point = [&](double t) {
    const double x = 1 / (1 + exp_det(-t)), one_minus_x = 1 / (1 + exp_det(t));
    const double n = pow_pos(k.A / (x * reducible), 1 / k.alpha);
    const double d = pow_pos(k.B / (one_minus_x * reducible), 1 / k.beta);
    // At the ends of the range rounding can leave N or D a hair below 1.
    return std::pair{std::max(1.0, n), std::max(1.0, d)};
  };
  const auto total = [&](double t) {
    const auto [n, d] = point(t);
    return 6 * n * d + 2 * n * inference_tokens;
  };
  // t = logit(x) over [−40, 40] (x from 4e−18 to 1 − 4e−18), narrowed to N ≥ 1 (x ≤ A / R)
  // and D ≥ 1 (1 − x ≤ B / R), the calculator's own bounds: with heavy inference the fit would
  // otherwise pick a model of a fraction of one parameter. The given model is inside.
  const auto logit = [](double x) { return log_det(x) - log_det(1 - x); };
  const double x_max = k.A / reducible, one_minus_x_max = k.B / reducible;
  const double lo = one_minus_x_max < 1 ? std::max(-40.0, logit(1 - one_minus_x_max)) : -40.0;
  const double hi = x_max < 1 ? std::min(40.0, logit(x_max)) : 40.0;
  // Coarse scan, then golden section inside the two cells around the best grid point.
  constexpr int kGrid = 800;
  const double step = (hi - lo) / kGrid;
  int best = 0;
  double best_total = total(lo);
  for (int i = 1; i <= kGrid; ++i) {
    const double v = total(lo + i * step);
    if (v < best_total) best_total = v, best = i;
  }
  double a = lo + std::max(0, best - 1) * step, b = lo + std::min(kGrid, best + 1) * step;
  constexpr double kInvPhi = 0.6180339887498949;
  double c = b - kInvPhi * (b - a), d = a + kInvPhi * (b - a);
  double fc = total(c), fd = total(d);
  for (int i = 0; i < 100; ++i) {
    if (fc < fd) {
      b = d, d = c, fd = fc;
      c = b - kInvPhi * (b - a), fc = total(c);
    } else {
      a = c, c = d, fc = fd;
      d = a + kInvPhi * (b - a), fd = total(d);
    }
  }
  const auto [n, dd] = point((a + b) / 2);
  OverTraining r{given, lifetime_compute(n, dd, inference_tokens, k), 0};
  // When the search does not beat the given model (it is the optimum, up to rounding), the
  // given model is the answer rather than a point a few ulps away from it.
  if (r.cheapest.total_flops >= given.total_flops) r.cheapest = given;
  r.savings_fraction = 1 - r.cheapest.total_flops / given.total_flops;
  return r;
}

std::vector<LifetimeCompute> same_loss_curve(double params, double tokens, double inference_tokens, int count,
                                             const ChinchillaConstants& k) {
  const double reducible = k.A / pow_pos(params, k.alpha) + k.B / pow_pos(tokens, k.beta);
  const double center = cheapest_same_loss(params, tokens, 0, k).cheapest.params;
  // A decade either side of N*, widened to reach a factor of two beyond the given model.
  const double lo = std::min(center / 10, params / 2), hi = std::max(center * 10, params * 2);
  const double span = log_det(hi / lo);
  std::vector<LifetimeCompute> out;
  for (int i = 0; i < count; ++i) {
    const double n = count > 1 ? lo * exp_det(span * i / (count - 1)) : center;
    const double left = reducible - k.A / pow_pos(n, k.alpha);  // what B/D^β must supply
    if (!(left > 0)) continue;
    const double d = pow_pos(k.B / left, 1 / k.beta);
    if (d < 1 || d > 1e18) continue;
    out.push_back(lifetime_compute(n, d, inference_tokens, k));
  }
  return out;
}

}  // namespace mlsys
