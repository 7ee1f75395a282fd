// Calculator of the generalization lesson ("Learning versus memorizing"): `polyfit`
// (shared/API.md), with the error-versus-degree, error-versus-dataset-size and early-stopping
// sweeps the lesson plots. Model in core/src/fit/; this file only declares schema and outputs.
#include "mlsys/fit/polyfit.hpp"
#include "registry.hpp"

namespace mlsys::api {

using fit::CurvePoint;
using fit::DegreeRow;
using fit::PolyfitReport;
using fit::SampleRow;
using fit::StepRow;

MLSYS_DESCRIBE(CurvePoint, MLSYS_OUT(x, "", "Point of the grid x = −1 + i/100, i = 0 … 200"),
               MLSYS_OUT(fit, "", "The fitted polynomial at x"), MLSYS_OUT(truth, "", "The true function at x"));
MLSYS_DESCRIBE(DegreeRow, MLSYS_OUT(degree, "", "Polynomial degree"),
               MLSYS_OUT(train_mse, "", "Mean squared error on the training samples"),
               MLSYS_OUT(validation_mse, "", "Mean squared error on the validation samples"));
MLSYS_DESCRIBE(SampleRow, MLSYS_OUT(samples, "", "Training samples: the first `samples` points of the training draw"),
               MLSYS_OUT(train_mse, "", "Mean squared error on those samples"),
               MLSYS_OUT(validation_mse, "", "Mean squared error on the validation samples"));
MLSYS_DESCRIBE(StepRow, MLSYS_OUT(step, "", "Gradient-descent steps taken (0: all coefficients 0)"),
               MLSYS_OUT(train_mse, "", "Mean squared error on the training samples"),
               MLSYS_OUT(validation_mse, "", "Mean squared error on the validation samples"));
MLSYS_DESCRIBE(
    PolyfitReport, MLSYS_OUT(parameters, "", "Coefficients fitted: degree + 1"),
    MLSYS_OUT(solver, "",
              "least-squares (Householder QR), ridge (QR of the augmented system, weight_decay > 0) or min-norm "
              "(degree + 1 > samples without weight decay: the least-norm interpolant, by the QR of Aᵀ)"),
    MLSYS_OUT(train_mse, "", "Mean squared error of the fit on the training samples"),
    MLSYS_OUT(validation_mse, "", "Mean squared error of the fit on the validation samples (noisy, like the training ones)"),
    MLSYS_OUT(noise_variance, "", "noise²: the validation MSE of the true function itself, on average (the floor)"),
    MLSYS_OUT(truth_validation_mse, "", "The true function's own MSE on this validation draw (the floor of this draw)"),
    MLSYS_OUT(coefficients, "",
              "Coefficients c_0 … c_degree in the orthonormal Legendre basis φ_k = √(2k+1)·P_k(x) on [−1, 1]"),
    MLSYS_OUT(coefficient_norm, "", "‖c‖₂: the root mean square of the fitted polynomial over [−1, 1]"),
    MLSYS_OUT(effective_parameters, "",
              "Effective number of parameters tr(H), H the hat matrix of the fit on the training inputs: degree + 1 "
              "for least squares below the threshold, n past it, fewer under weight decay (null for samples > 100)"),
    MLSYS_OUT(loo_cv_mse, "",
              "Leave-one-out cross-validation MSE: each training sample predicted by the same fit to the other "
              "n − 1 samples (null for n = 1 and for samples > 100)"),
    MLSYS_OUT(curve, "", "The fit and the true function on 201 evenly spaced points of [−1, 1]"),
    MLSYS_OUT(by_degree, "", "With max_degree: train and validation MSE for degree 0 … max_degree, same samples and weight decay"),
    MLSYS_OUT(by_samples, "",
              "With max_samples: train and validation MSE at this degree and weight decay for 1 … max_samples training "
              "samples (nested sets: the first n points of one draw; the validation set stays the same)"),
    MLSYS_OUT(by_step, "",
              "With gd_steps: train and validation MSE after each gradient-descent step from c = 0 on the same "
              "objective (stops early, with gd_diverged, once the train MSE passes 1e100)"),
    MLSYS_OUT(gd_lr, "", "With gd_steps: the learning rate used (default 1/λ_max of the objective's Hessian)"),
    MLSYS_OUT(gd_lr_max_stable, "", "With gd_steps: 2/λ_max, above which gradient descent diverges"),
    MLSYS_OUT(gd_diverged, "", "With gd_steps: the train MSE passed 1e100"));

void add_generalization_calculators(Calculators& out) {
  out.add(
      "polyfit",
      "Fits a polynomial to seeded noisy samples of a function on [−1, 1] (x uniform, Gaussian label noise) by "
      "executed least squares: Householder QR in the orthonormal Legendre basis, ridge for weight decay, the "
      "minimum-norm interpolant past the interpolation threshold. Objective (1/n)·Σ(fit − y)² + "
      "weight_decay·‖c‖². Optional sweeps over degree, dataset size and gradient-descent steps.",
      {integer_field("degree", "", "Polynomial degree (degree + 1 coefficients)", 3, 0, fit::kMaxPolyDegree),
       integer_field("samples", "", "Training samples", 20, 1, fit::kMaxPolySamples),
       number_field("noise", "", "Standard deviation of the Gaussian noise added to every label", 0.1, 0.0, 10.0),
       string_field("function", "True function: sin = sin(πx), cubic = 4x³ − 3x, step = −1 for x < 0 and 1 from 0",
                    "sin", fit::true_function_names()),
       number_field("weight_decay", "", "Ridge penalty λ on ‖c‖²: 0 (plain least squares, or the min-norm interpolant past the threshold) or at least 1e-30", 0.0, 0.0, 1e6),
       integer_field("validation_samples", "", "Fresh samples of the same law for the validation MSE", 200, 1,
                     fit::kMaxValidationSamples),
       seed_field(0),
       optional(integer_field("max_degree", "", "Optional: by_degree for degree 0 … max_degree", json(), 0,
                              fit::kMaxPolyDegree)),
       optional(integer_field("max_samples", "", "Optional: by_samples for 1 … max_samples training samples", json(),
                              1, fit::kMaxBySamples)),
       optional(integer_field("gd_steps", "", "Optional: by_step for gradient-descent steps 0 … gd_steps", json(), 0,
                              fit::kMaxGdSteps)),
       optional(number_field("gd_lr", "", "Optional, with gd_steps: learning rate of the gradient descent (default 1/λ_max of the Hessian)", json(),
                             0.0, 1e3, true))},
      [](const Inputs& in) {
        fit::PolyfitRequest r;
        r.function = in.str("function");
        r.degree = static_cast<int>(in.integer("degree"));
        r.samples = static_cast<int>(in.integer("samples"));
        r.noise = in.num("noise");
        r.weight_decay = in.num("weight_decay");
        r.validation_samples = static_cast<int>(in.integer("validation_samples"));
        r.seed = static_cast<std::uint64_t>(in.integer("seed"));
        if (auto v = in.integer_if("max_degree")) r.max_degree = static_cast<int>(*v);
        if (auto v = in.integer_if("max_samples")) r.max_samples = static_cast<int>(*v);
        if (auto v = in.integer_if("gd_steps")) r.gd_steps = static_cast<int>(*v);
        r.gd_lr = in.num_if("gd_lr");
        return fit::polyfit(r);
      });
}

}  // namespace mlsys::api
