// Exercise specifics: unit conversions, messages for malformed and hostile answers, and
// answers that agree with the calculators. What holds for every generator (accepted and
// rejected answers, counts, solutions, variety) is in exercise_suite_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/units.hpp"

using mlsys::json;

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

TEST(Exercises, CheckerExplainsPercentAndCountMistakes) {
  const auto mfu = mlsys::make_exercise("prof-mfu", 5);
  ASSERT_EQ(mfu.unit, "%");
  const json fraction = mlsys::check_exercise("prof-mfu", 5, mlsys::format_number(mfu.answer / 100, 6));
  EXPECT_FALSE(fraction["correct"]);
  EXPECT_NE(fraction["message"].get<std::string>().find("This answer is a percent"), std::string::npos)
      << fraction["message"];
  const json percent = mlsys::check_exercise("prof-mfu", 5, mlsys::format_number(mfu.answer, 6) + "%");
  EXPECT_TRUE(percent["correct"]) << percent["message"];
  EXPECT_NE(percent["message"].get<std::string>().find("%"), std::string::npos);

  const auto passes = mlsys::make_exercise("attention-flash-passes", 5);
  ASSERT_TRUE(passes.integer);
  EXPECT_EQ(mlsys::exercise_json(passes)["tolerance"], json({{"relative", 0}, {"absolute", 0}}));
  const json half = mlsys::check_exercise("attention-flash-passes", 5, mlsys::format_number(passes.answer + 0.5, 6));
  EXPECT_FALSE(half["correct"]);
  EXPECT_NE(half["message"].get<std::string>().find("whole number"), std::string::npos) << half["message"];
}
