// A simulated mixture-of-experts router. Each token's logit for expert e is a token affinity
// (a standard normal draw per token and expert) plus an expert bias (skew · z_e, z_e a standard
// normal draw per expert); training with the auxiliary load-balancing loss is emulated by the
// `balance` knob, which shrinks the bias to (1 − balance)·skew·z_e. Tokens pick their top-k
// experts; each expert keeps at most C = floor(capacity_factor · tokens·k / experts)
// assignments, first choices first and then in token order (GShard, Lepikhin et al. 2020,
// arXiv:2006.16668); the rest are dropped. The load-balancing loss is Switch Transformer's
// (Fedus, Zoph, Shazeer 2021, arXiv:2101.03961, eq. 4): α·E·Σ_i f_i·P_i, with f_i the fraction
// of routed assignments that chose expert i and P_i the mean router probability of expert i.
// Random numbers come from SplitMix64, normals by the polar method (foundations/deterministic.hpp).
#pragma once
#include <cstdint>
#include <vector>

namespace mlsys {

struct MoeRouterConfig {
  int tokens = 4096;
  int experts = 8;
  int top_k = 2;
  double capacity_factor = 1.25;
  double skew = 1.0;     // std of the expert bias, in logit units
  double balance = 0.0;  // 0: no balancing loss; 1: bias removed
  double aux_alpha = 0.01;
  std::uint64_t seed = 1;
};

struct MoeRouterResult {
  double capacity;                        // C per expert
  std::vector<double> routed_per_expert;  // assignments that chose each expert
  std::vector<double> kept_per_expert;    // min(routed, C)
  std::vector<double> fraction_per_expert;  // f_i
  std::vector<double> mean_prob_per_expert;  // P_i
  double assignments;       // tokens·k
  double kept, dropped;     // kept + dropped = assignments
  double drop_fraction;
  double tokens_fully_dropped;  // tokens that lost every one of their k experts
  double max_over_mean;     // max routed / (assignments / experts)
  double aux_loss;          // α·E·Σ f_i P_i
  double balance_score;     // E·Σ f_i P_i (1 when perfectly uniform)
};

// Executed sizes are capped: tokens · experts ≤ kMoeRouterCap.
constexpr double kMoeRouterCap = 1 << 20;

MoeRouterResult route_tokens(const MoeRouterConfig& config);

}  // namespace mlsys
