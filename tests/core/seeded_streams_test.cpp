// Seeds give unrelated streams. SplitMix64's state advances by γ per draw, so a starting state
// derived as seed·γ + salt made seed k's stream seed 0's moved k draws along: neighbouring
// seeds shared all but a few numbers. These tests keep that class out: no two seeds' starting
// states are within 64 draws of each other on the cycle, and every seeded calculator gives
// different outputs at seeds 1…50.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "mlsys/api/calc.hpp"
#include "mlsys/foundations/deterministic.hpp"

namespace {

// The modular inverse of γ (odd, so invertible mod 2^64) by Newton's iteration: x·γ ≡ 1.
constexpr std::uint64_t inverse_gamma() {
  std::uint64_t x = mlsys::kGoldenGamma;  // correct to 3 bits; each step doubles them
  for (int i = 0; i < 6; ++i) x *= 2 - mlsys::kGoldenGamma * x;
  return x;
}
static_assert(inverse_gamma() * mlsys::kGoldenGamma == 1);

TEST(SeededStreams, NoSeedIsAnotherShiftedByUpTo64Draws) {
  // Seed b's stream is seed a's moved d draws along exactly when state_b − state_a = d·γ, that
  // is (state_b − state_a)·γ⁻¹ = d (mod 2^64). Stream positions: p = state·γ⁻¹.
  const std::uint64_t salts[] = {0, 1, 7, 0x632BE59BD9B4E019ULL, mlsys::salt_of("sg-mps-makespan"), 0x5AD7C0FFEE1234ULL};
  for (const std::uint64_t salt : salts) {
    std::map<std::uint64_t, std::uint64_t> position;  // stream position -> seed
    for (std::uint64_t seed = 0; seed <= 1000; ++seed) position[mlsys::mix_seed(seed, salt) * inverse_gamma()] = seed;
    ASSERT_EQ(position.size(), 1001u) << "two seeds start at the same state, salt " << salt;
    // Sorted by position, neighbours on the cycle (including the wrap) must be more than 64 apart.
    auto prev = std::prev(position.end());
    for (auto it = position.begin(); it != position.end(); prev = it++) {
      const std::uint64_t gap = it->first - prev->first;  // mod 2^64
      EXPECT_GT(gap, 64u) << "seed " << it->second << " is seed " << prev->second << " moved " << gap
                          << " draws along (salt " << salt << ")";
    }
  }
  // The same seed under two salts: unrelated streams too.
  for (std::uint64_t seed = 0; seed <= 50; ++seed) {
    const std::uint64_t d = (mlsys::mix_seed(seed, 1) - mlsys::mix_seed(seed, 2)) * inverse_gamma();
    EXPECT_TRUE(d > 64 && d < 0 - 64ULL) << seed;
  }
}

// Inputs under which a seeded calculator draws at all (at its defaults some draw nothing: a
// constant summand, a size too large to execute, jobs that all arrive at once, exact gradients).
const std::map<std::string, mlsys::json>& drawing_inputs() {
  static const std::map<std::string, mlsys::json> m = {
      {"attention-backward-memory", {{"seq", 64}, {"head_dim", 64}}},
      {"flash-attention", {{"seq", 128}}},
      {"gpu-sharing", {{"jobs", 200}, {"arrival_rate_per_s", 60}, {"job_time_cv", 2}}},
      {"optimizer-trajectory", {{"noise", 1}}},
      {"summation", {{"distribution", "uniform"}}}};
  return m;
}

TEST(SeededStreams, SeededCalculatorsDifferFromSeedToSeed) {
  int seeded = 0;
  for (const auto& name : mlsys::calc_names()) {
    const auto schema = mlsys::calc_schema(name);
    bool has_seed = false;
    for (const auto& f : schema["fields"]) has_seed |= f["name"] == "seed";
    if (!has_seed) continue;
    ++seeded;
    mlsys::json input = drawing_inputs().count(name) ? drawing_inputs().at(name) : mlsys::json::object();
    std::map<std::string, int> seen;  // output text -> seed
    for (int seed = 1; seed <= 50; ++seed) {
      input["seed"] = seed;
      const auto r = mlsys::calc_text(name, input.dump());
      ASSERT_TRUE(r.ok) << name << " seed " << seed << ": " << r.text
                        << " (give the inputs it needs in drawing_inputs())";
      const auto [it, fresh] = seen.emplace(r.text, seed);
      EXPECT_TRUE(fresh) << name << ": seeds " << it->second << " and " << seed << " give the same output";
    }
  }
  EXPECT_GT(seeded, 10);
}

}  // namespace
