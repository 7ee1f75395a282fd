// Closed-form accounting of training compute: model FLOPs utilization (PaLM's accounting,
// Chowdhery et al. 2022, arXiv:2204.02311, appendix B: 6N + 12·L·H·Q·T FLOPs per token),
// training time from C = 6·N·D, the compute-optimal split of Hoffmann et al. 2022
// (arXiv:2203.15556, approach 3, eq. 10: L(N, D) = E + A/N^α + B/D^β), and the checkpoint
// interval of Young (1974) and Daly (2006, FGCS 22(3)). All quantities in SI units: FLOP,
// FLOP/s, seconds, tokens and parameters as plain counts.
#pragma once
#include <string>
#include <optional>

#include "mlsys/transformer/model_config.hpp"

namespace mlsys {

// ---- MFU ---------------------------------------------------------------------------------
struct MfuResult {
  double flops_per_token = 0;            // 6N + 12·L·H·Q·T (model FLOPs, training)
  double flops_per_token_params = 0;     // 6N
  double flops_per_token_attention = 0;  // 12·L·H·Q·T
  double attention_share = 0;            // attention / total
  double hardware_flops_per_token = 0;   // model FLOPs + recomputed forward FLOPs
  double achieved_flops_per_device = 0;  // tokens/s · flops_per_token / devices (FLOP/s)
  double mfu = 0;                        // achieved / peak
  double hfu = 0;                        // hardware FLOP/s / peak
};

// params N (counted as PaLM counts it), layers L, heads H, head_dim Q, seq T (tokens per
// sequence), tokens_per_s of the whole job, devices, peak_flops per device (FLOP/s),
// recompute_fraction in [0, 1]: share of the forward pass recomputed in the backward pass
// (1 for full activation recomputation: a third more FLOPs).
MfuResult mfu(double params, double layers, double heads, double head_dim, double seq, double tokens_per_s,
              double devices, double peak_flops, double recompute_fraction);

// ---- Training time from 6ND --------------------------------------------------------------
struct TrainingTime {
  double total_flops = 0;    // (6N + attention_flops_per_token) · D
  double cluster_flops = 0;  // devices · peak · mfu (FLOP/s sustained)
  double tokens_per_s = 0;   // cluster_flops / FLOPs per token
  double time_s = 0;
  double time_days = 0;
  double device_hours = 0;   // devices · time in hours (GPU-hours)
};

// MFU of a transformer configuration: N = `params` when given, else the config's
// params_flops (layers, final norm and output head; see model_config.hpp); PaLM's
// 12·L·H·Q·T from the config.
struct ModelMfu {
  double params_counted;  // N used
  MfuResult mfu;
  double peak_flops_per_device;
};
ModelMfu model_mfu(const ModelConfig& config, std::optional<double> params, double tokens_per_s, double devices,
                   double peak_flops, double recompute_fraction);

TrainingTime training_time(double params, double tokens, double devices, double peak_flops, double mfu,
                           double attention_flops_per_token);

// ---- Chinchilla (approach 3) -------------------------------------------------------------
struct ChinchillaConstants {
  double E = 1.69, A = 406.4, B = 410.7, alpha = 0.34, beta = 0.28;  // Hoffmann et al. eq. 10
};
// The same law refitted by Besiroglu et al. 2024 (arXiv:2404.10102, their Table 1) to data
// reconstructed from Hoffmann et al.'s figure: a = β/(α+β) = 0.513, near approaches 1 and 2.
constexpr ChinchillaConstants kBesiroglu2024{1.8172, 482.01, 2085.43, 0.3478, 0.3658};
// The constants of a fit by name, as the calculators' 'fit' input takes it: "hoffmann-2022"
// (the printed eq. 10) or "besiroglu-2024".
inline ChinchillaConstants chinchilla_fit(const std::string& name) {
  return name == "besiroglu-2024" ? kBesiroglu2024 : ChinchillaConstants{};
}

double chinchilla_loss(double params, double tokens, const ChinchillaConstants& k = {});

struct ComputeOptimal {
  double params = 0;  // N_opt = G·(C/6)^(β/(α+β))
  double tokens = 0;  // D_opt = G^−1·(C/6)^(α/(α+β))
  double loss = 0;
  double G = 0;       // (αA / (βB))^(1/(α+β))
  double a = 0;       // β/(α+β): N_opt ∝ C^a
  double b = 0;       // α/(α+β): D_opt ∝ C^b
};

// Minimises L(N, D) subject to 6·N·D = compute_flops.
ComputeOptimal chinchilla_optimal(double compute_flops, const ChinchillaConstants& k = {});

// ---- Checkpoint interval (Young 1974, Daly 2006) -----------------------------------------
// One point of the Chinchilla fit, and with a compute budget the compute-optimal point
// beside the 20-tokens-per-parameter rule (6·N·(20·N) = C).
struct ChinchillaOptimum {
  double params, tokens;               // N_opt, D_opt
  double exponent_params, exponent_tokens;  // a, b of ComputeOptimal
  double params_20_tokens_per_param, tokens_20_tokens_per_param, loss_20_tokens_per_param;
};
struct Chinchilla {
  double loss, compute_flops, tokens_per_param;
  std::optional<ChinchillaOptimum> optimum;  // given a budget
};
Chinchilla chinchilla_at(double params, double tokens, const ChinchillaConstants& k = {});  // loss, C = 6·N·D, D / N
Chinchilla chinchilla_budget(double compute_flops, const ChinchillaConstants& k = {});      // at N_opt, D_opt

struct CheckpointInterval {
  double young_interval_s = 0;  // sqrt(2·δ·M)
  double daly_interval_s = 0;   // sqrt(2δM)·[1 + (1/3)·sqrt(δ/(2M)) + δ/(18M)] − δ for δ < 2M, else M
  double waste_fraction = 0;    // at the Daly interval: δ/τ + (τ + δ)/(2M) + R/M, at most 1
  double checkpoint_fraction = 0;  // δ/τ: writing checkpoints (the three terms before the cap)
  double rework_fraction = 0;      // (τ + δ)/(2M): work redone after a failure
  double restart_fraction = 0;     // R/M: restarting
  double goodput = 0;           // 1 − waste
  double young_waste_fraction = 0;  // the same waste model at the Young interval
  double waste_fraction_exact = 0;  // Daly's complete model at the Daly interval (see below)
};

// Daly 2006, exponentially distributed failures: the wall time per unit of work is
// M·e^(R/M)·(e^((τ+δ)/M) − 1)/τ, so the wasted share is 1 − τ / (M·e^(R/M)·(e^((τ+δ)/M) − 1)).
// Expanded to first order in τ/M, δ/M and R/M it is checkpoint_waste() below; Daly's interval
// minimises it to higher order, Young's interval minimises the first-order form.
double checkpoint_waste_exact(double interval_s, double mtbf_s, double checkpoint_s, double restart_s);

// Wasted share of time when writing a checkpoint (δ seconds) every τ seconds of work with
// failures every M seconds on average and R seconds to restart: checkpoint overhead δ/τ,
// expected rework after a failure (half a segment, τ + δ, per failure: (τ + δ)/(2M)), and the
// restart R/M. First-order model; it is at most 1.
double checkpoint_waste(double interval_s, double mtbf_s, double checkpoint_s, double restart_s);

CheckpointInterval checkpoint_interval(double mtbf_s, double checkpoint_s, double restart_s);

}  // namespace mlsys
