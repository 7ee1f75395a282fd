// Calculator `scaling-law` of the scaling-laws lesson (shared/API.md): the iso-FLOP curve of a
// compute budget and its minimum, or a model's training + inference compute and the cheapest
// model of the same loss, on the approach-3 fit of Hoffmann et al. 2022 (as `chinchilla`).
#include "mlsys/profiling/scaling_law.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

struct ScalingLawOut {
  std::optional<std::vector<LossPoint>> curve;  // with compute_flops
  std::optional<LossPoint> optimal;
  std::optional<double> loss;  // with params and tokens
  std::optional<double> training_flops, inference_flops, total_flops;
  std::optional<LifetimeCompute> cheapest;
  std::optional<double> savings_fraction;
  std::optional<std::vector<LifetimeCompute>> same_loss;
};

constexpr int kDefaultCurvePoints = 41;

// 'fit': which constants of L(N, D) = E + A/N^α + B/D^β (training_compute.hpp).
Field chinchilla_fit_field() {
  return string_field("fit",
                      "Constants of the law: 'hoffmann-2022' (eq. 10 as printed, E 1.69, A 406.4, B 410.7, α 0.34, β "
                      "0.28) or 'besiroglu-2024' (their refit: E 1.8172, A 482.01, B 2085.43, α 0.3478, β 0.3658)",
                      "hoffmann-2022", {"hoffmann-2022", "besiroglu-2024"});
}

// `params`: a list of N for the iso-FLOP curve, or one N (a number) with tokens.
Field params_field() {
  Field f = number_list_field("params", "",
                              "With compute_flops: the parameter counts N of the iso-FLOP curve (a list, default 41 "
                              "points around N_opt); with tokens: the model's parameter count N (a number)",
                              json(), 1.0, 1e16, 1, 200);
  f.number_accepted = true;
  return f;
}

}  // namespace

MLSYS_DESCRIBE(LossPoint, MLSYS_OUT(params, "", "Parameters N"), MLSYS_OUT(tokens, "tokens", "Training tokens D"),
               MLSYS_OUT(loss, "", "L(N, D) = E + A/N^α + B/D^β of the chosen fit"));
MLSYS_DESCRIBE(LifetimeCompute, MLSYS_OUT(params, "", "Parameters N"), MLSYS_OUT(tokens, "tokens", "Training tokens D"),
               MLSYS_OUT(loss, "", "L(N, D) of the fit"), MLSYS_OUT(training_flops, "FLOP", "6·N·D"),
               MLSYS_OUT(inference_flops, "FLOP", "2·N·inference_tokens"),
               MLSYS_OUT(total_flops, "FLOP", "training_flops + inference_flops"));
MLSYS_DESCRIBE(ScalingLawOut,
               MLSYS_OUT(curve, "",
                         "Iso-FLOP curve (with compute_flops): {params, tokens = C / (6·params), loss} for each N of "
                         "'params'"),
               MLSYS_OUT(optimal, "",
                         "Minimum of the iso-FLOP curve in closed form (with compute_flops): {params, tokens, loss} "
                         "of N_opt = G·(C/6)^(β/(α+β)), as chinchilla"),
               MLSYS_OUT(loss, "", "L(N, D) of the given params and tokens"),
               MLSYS_OUT(training_flops, "FLOP", "6·N·D of the given model"),
               MLSYS_OUT(inference_flops, "FLOP", "2·N per token · inference_tokens"),
               MLSYS_OUT(total_flops, "FLOP", "training_flops + inference_flops"),
               MLSYS_OUT(cheapest, "",
                         "The N and D of the same loss with the least total_flops (training + inference): "
                         "{params, tokens, loss, training_flops, inference_flops, total_flops}"),
               MLSYS_OUT(savings_fraction, "", "1 − cheapest.total_flops / total_flops"),
               MLSYS_OUT(same_loss, "",
                         "Every N and D of the same loss (with params and tokens): 41 values of N evenly in log N "
                         "from N*/10 to 10·N* (widened to reach params/2 and 2·params), N* the compute-optimal "
                         "size of that loss, D = (B / (L − E − "
                         "A/N^α))^(1/β), each {params, tokens, loss, training_flops, inference_flops, total_flops}"));

void add_scaling_calculators(Calculators& out) {
  out.add("scaling-law",
          "Hoffmann et al. 2022, approach 3 (as chinchilla): L(N, D) = 1.69 + 406.4/N^0.34 + 410.7/D^0.28. Given "
          "compute_flops: the iso-FLOP curve, each N of 'params' (default 41 points from N_opt/100 to 100·N_opt, even "
          "in log N) trained on D = C / (6N) tokens, and its closed-form minimum 'optimal'. Given params and tokens: "
          "training compute 6·N·D, inference compute 2·N per token over inference_tokens, their total, and the "
          "cheapest N and D of the same loss over training plus inference (Sardana et al. 2024, arXiv:2401.00448): "
          "with no inference it is the compute-optimal model of that loss, with much inference a smaller model "
          "trained on more tokens. fit 'besiroglu-2024': the same law with Besiroglu et al.'s 2024 refit constants.",
          {optional(number_field("compute_flops", "FLOP", "Training compute budget C (iso-FLOP curve)", json(), 1e6,
                                 1e32)),
           optional(params_field()),
           optional(number_field("tokens", "tokens", "Training tokens D of the model (with params)", json(), 1.0, 1e18)),
           number_field("inference_tokens", "tokens", "Tokens the model serves over its life (2·N FLOPs each)", 0.0, 0.0,
                        1e20),
           chinchilla_fit_field()},
          [](const Inputs& in) {
            const bool c = in.has("compute_flops"), n = in.has("params"), d = in.has("tokens");
            ScalingLawOut r;
            const ChinchillaConstants k = chinchilla_fit(in.str("fit"));
            if (c) {
              if (d) throw InputError("tokens", "Give either 'compute_flops' (with a list of 'params') or 'params' and 'tokens'.");
              if (in.given("inference_tokens"))
                throw InputError("inference_tokens", "'inference_tokens' goes with 'params' and 'tokens', not 'compute_flops'.");
              const double flops = in.num("compute_flops");
              IsoFlopCurve iso =
                  iso_flop_curve(flops, n ? in.numbers("params") : iso_flop_params(flops, kDefaultCurvePoints, k), k);
              r.curve = std::move(iso.curve);
              r.optimal = iso.optimal;
              return r;
            }
            if (!n) throw InputError("params", "Give 'params' and 'tokens', or 'compute_flops'.");
            if (!d) throw InputError("tokens", "Give 'tokens' with 'params', or 'compute_flops'.");
            const std::vector<double> list = in.numbers("params");
            if (list.size() != 1)
              throw InputError("params", "With 'tokens', 'params' is one parameter count, not a list.");
            const OverTraining o = cheapest_same_loss(list[0], in.num("tokens"), in.num("inference_tokens"), k);
            r.loss = o.given.loss;
            r.training_flops = o.given.training_flops;
            r.inference_flops = o.given.inference_flops;
            r.total_flops = o.given.total_flops;
            r.cheapest = o.cheapest;
            r.savings_fraction = o.savings_fraction;
            r.same_loss = same_loss_curve(list[0], in.num("tokens"), in.num("inference_tokens"), kDefaultCurvePoints, k);
            return r;
          });
}

}  // namespace mlsys::api
