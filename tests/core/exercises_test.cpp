// Exercise generators: determinism per seed, answers that agree with the calculators,
// answer checking with units and tolerance, and clear messages for malformed answers.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/units.hpp"

using mlsys::json;

TEST(Exercises, SameSeedSameExercise) {
  for (const auto& id : mlsys::exercise_ids()) {
    for (std::uint32_t seed : {0u, 1u, 42u, 4294967295u}) {
      const json a = mlsys::exercise_json(mlsys::make_exercise(id, seed));
      const json b = mlsys::exercise_json(mlsys::make_exercise(id, seed));
      EXPECT_EQ(a, b);
      EXPECT_TRUE(std::isfinite(a["answer"].get<double>()));
      EXPECT_GT(a["answer"].get<double>(), 0) << id << " " << seed;
      EXPECT_FALSE(a["prompt"].get<std::string>().empty());
      EXPECT_FALSE(a["hint"].get<std::string>().empty());
      EXPECT_FALSE(a["solution"].get<std::string>().empty());
    }
  }
}

TEST(Exercises, SeedsGiveDifferentNumbers) {
  for (const auto& id : mlsys::exercise_ids()) {
    int distinct = 0;
    const std::string first = mlsys::make_exercise(id, 1).prompt;
    for (std::uint32_t seed = 2; seed < 12; ++seed) distinct += mlsys::make_exercise(id, seed).prompt != first;
    EXPECT_GE(distinct, 5) << id;
  }
}

TEST(Exercises, RightAnswerAcceptedWrongRejected) {
  for (const auto& id : mlsys::exercise_ids()) {
    for (std::uint32_t seed = 0; seed < 20; ++seed) {
      const auto e = mlsys::make_exercise(id, seed);
      const std::string right = mlsys::format_number(e.answer, 6);
      EXPECT_TRUE(mlsys::check_exercise(id, seed, right)["correct"]) << id << " " << seed << " " << right;
      EXPECT_TRUE(mlsys::check_exercise(id, seed, right + " " + e.unit)["correct"]) << id << " " << seed;
      EXPECT_FALSE(mlsys::check_exercise(id, seed, mlsys::format_number(e.answer * 1.5 + 2, 6))["correct"]) << id;
    }
  }
}

TEST(Exercises, UnitsConvert) {
  EXPECT_DOUBLE_EQ(mlsys::parse_quantity("0.5 ms", "\xC2\xB5s"), 500);
  EXPECT_DOUBLE_EQ(mlsys::parse_quantity("500us", "\xC2\xB5s"), 500);
  EXPECT_DOUBLE_EQ(mlsys::parse_quantity("2 s", "ms"), 2000);
  EXPECT_DOUBLE_EQ(mlsys::parse_quantity("1,200", ""), 1200);
  EXPECT_DOUBLE_EQ(mlsys::parse_quantity("295 flop/byte", "FLOP/B"), 295);
  EXPECT_DOUBLE_EQ(mlsys::parse_quantity("1.5 TFLOP/s", "GFLOP/s"), 1500);
  EXPECT_DOUBLE_EQ(mlsys::parse_quantity("2 GiB", "B"), 2147483648.0);
  EXPECT_DOUBLE_EQ(mlsys::parse_quantity(" 3e2 ", "FLOP/B"), 300);
}

TEST(Exercises, MalformedAnswersExplainThemselves) {
  const std::string id = "roofline-time";
  for (const char* bad : {"", "abc", "12 parsecs", "5 GB", "1e999", "  "}) {
    const json r = mlsys::check_exercise(id, 7, bad);
    EXPECT_FALSE(r["correct"]) << bad;
    EXPECT_FALSE(r["message"].get<std::string>().empty()) << bad;
  }
  EXPECT_THROW(mlsys::make_exercise("no-such-exercise", 1), mlsys::InputError);
}

// Fuzz regressions of the checker. "1e308 s" asked in µs overflowed to inf after the unit
// conversion, and format_number(inf) threw std::out_of_range; bytes that are not UTF-8 were
// quoted into the message, so dumping the result threw json type_error 316.
TEST(Exercises, HostileAnswersGiveAMessageNotAnException) {
  for (const char* bad : {"1e308 s", "-1e308 s", "1e308 PB/s", "\xff", "1 \xff", "1 k\xc3", "\x01x",
                          " 9:0 \xc1\xbd", "1 \xe0\x80\x80", "1 \xed\xa0\x80", "1 \xf4\x90\x80\x80"}) {
    const json r = mlsys::check_exercise("elementwise-time", 1, bad);
    EXPECT_FALSE(r["correct"]) << bad;
    EXPECT_NO_THROW((void)r.dump()) << bad;
  }
  EXPECT_THROW(mlsys::parse_quantity("1e308 s", "us"), mlsys::InputError);
  EXPECT_EQ(mlsys::format_number(std::numeric_limits<double>::infinity(), 4), "inf");
}

TEST(Exercises, CrossoverBatchAgreesWithMatmulCalculator) {
  // At the answer the weight matmul is compute-bound on the machine the prompt describes
  // (its rounded peak and bandwidth); one batch fewer it is memory-bound.
  for (std::uint32_t seed = 0; seed < 30; ++seed) {
    const auto e = mlsys::make_exercise("matmul-crossover-batch", seed);
    const json p = e.params;
    const auto bound = [&](double b) {
      return mlsys::calc("matmul", {{"m", b}, {"n", p["d"]}, {"k", p["d"]}, {"dtype", p["dtype"]},
                                    {"peak_flops", p["peak_flops"]}, {"bandwidth_Bps", p["bandwidth_Bps"]}})["bound"];
    };
    EXPECT_EQ(bound(e.answer), "compute") << seed;
    EXPECT_EQ(bound(e.answer - 1), "memory") << seed;
  }
}

TEST(Exercises, TimeAnswersAgreeWithRooflineCalculator) {
  for (std::uint32_t seed = 0; seed < 30; ++seed) {
    const auto e = mlsys::make_exercise("roofline-time", seed);
    const json r = mlsys::calc("roofline", e.params);
    EXPECT_NEAR(r["time_s"].get<double>() * 1e6, e.answer, 1e-9 * e.answer) << seed;
  }
  for (std::uint32_t seed = 0; seed < 30; ++seed) {
    const auto e = mlsys::make_exercise("matmul-intensity", seed);
    const json r = mlsys::calc("matmul", e.params);
    EXPECT_NEAR(r["intensity"].get<double>(), e.answer, 1e-12 * e.answer) << seed;
  }
}
