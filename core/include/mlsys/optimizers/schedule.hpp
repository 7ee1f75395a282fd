// Learning-rate schedules over t = 0 … total_steps − 1 (shared/API.md conventions): an
// optional linear warm-up, then constant, step decay, linear, cosine (as Hugging Face's
// get_cosine_schedule_with_warmup, with a floor min_lr) or warmup-stable-decay.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace mlsys {

inline constexpr long long kMaxScheduleSamples = 100000;
inline constexpr long long kMaxScheduleSteps = 1000000000;

struct ScheduleSettings {
  std::string schedule = "cosine";  // constant | step | linear | cosine | warmup-cosine | wsd
  double peak_lr = 1e-3;
  double min_lr = 0;
  long long warmup_steps = 0;
  long long total_steps = 1000;
  std::optional<long long> decay_steps;  // wsd: length of the final linear decay
  std::optional<long long> step_size;    // step: steps between two decays
  double gamma = 0.1;                    // step: factor of each decay
};

// Checks the settings together (InputError naming the field at fault).
void check_schedule(const ScheduleSettings& s);

// The learning rate at step t (0 ≤ t < total_steps); check_schedule first.
double lr_at_step(const ScheduleSettings& s, long long t);

struct ScheduleSample {
  std::vector<long long> steps;  // every step, or kMaxScheduleSamples evenly spaced (first and last kept)
  std::vector<double> lr;
};
ScheduleSample sample_schedule(const ScheduleSettings& s);

}  // namespace mlsys
