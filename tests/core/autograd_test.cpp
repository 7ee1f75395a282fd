// The backpropagation lesson's models: reverse mode against closed-form derivatives, the
// expression parser's bad-input classes, the V of finite-difference errors (Nocedal & Wright,
// "Numerical Optimization", 2nd ed., section 8.1: forward error ~ h, central ~ h², rounding
// ~ eps/h, best h near sqrt(eps) and eps^(1/3)), and the activation memory of checkpointing
// (Chen et al. 2016, arXiv:1604.06174: O(sqrt(L)) memory for one extra forward pass).
#include <chrono>
#include <cmath>
#include <regex>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/autograd/backprop_memory.hpp"
#include "mlsys/autograd/expression.hpp"
#include "mlsys/autograd/gradient_check.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "test_support.hpp"

using mlsys::calc;
using mlsys::InputError;
using json = nlohmann::json;

namespace {

mlsys::AutogradResult grad(const std::string& text, const std::map<std::string, double>& values) {
  return mlsys::autograd(mlsys::parse_expression(text), values);
}

// The message of the InputError that parsing (or differentiating) `text` throws.
std::string error_message(const std::string& text, const std::map<std::string, double>& values = {{"x", 1.0}}) {
  try {
    (void)grad(text, values);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

bool has(const std::string& message, const std::string& part) { return message.find(part) != std::string::npos; }

}  // namespace

TEST(Autograd, ProductAndPower) {
  // d/dx x²y = 2xy, d/dy x²y = x².
  const auto r = grad("x^2*y", {{"x", 3.0}, {"y", -2.0}});
  EXPECT_DOUBLE_EQ(r.value, -18.0);
  EXPECT_DOUBLE_EQ(r.gradients.at("x"), 2 * 3.0 * -2.0);
  EXPECT_DOUBLE_EQ(r.gradients.at("y"), 9.0);
}

TEST(Autograd, Functions) {
  const double x = 0.7;
  EXPECT_NEAR(grad("sin(x)", {{"x", x}}).gradients.at("x"), std::cos(x), 1e-15);
  EXPECT_NEAR(grad("cos(x)", {{"x", x}}).gradients.at("x"), -std::sin(x), 1e-15);
  EXPECT_NEAR(grad("tanh(x)", {{"x", x}}).gradients.at("x"), 1 - std::tanh(x) * std::tanh(x), 1e-15);
  const double s = 1 / (1 + std::exp(-x));
  EXPECT_NEAR(grad("sigmoid(x)", {{"x", x}}).gradients.at("x"), s * (1 - s), 1e-15);
  EXPECT_NEAR(grad("exp(x)", {{"x", x}}).gradients.at("x"), std::exp(x), 1e-15);
  EXPECT_NEAR(grad("log(x)", {{"x", x}}).gradients.at("x"), 1 / x, 1e-15);
  EXPECT_NEAR(grad("sqrt(x)", {{"x", x}}).gradients.at("x"), 0.5 / std::sqrt(x), 1e-15);
  EXPECT_EQ(grad("relu(x)", {{"x", x}}).gradients.at("x"), 1.0);
  EXPECT_EQ(grad("relu(x)", {{"x", -x}}).gradients.at("x"), 0.0);
  EXPECT_EQ(grad("relu(x)", {{"x", 0.0}}).gradients.at("x"), 0.0);  // PyTorch's convention at 0
}

TEST(Autograd, ChainRules) {
  // d/dx sin(x²) = 2x cos(x²); d/dx exp(tanh(3x)) = exp(tanh 3x)·(1 − tanh² 3x)·3.
  const double x = 1.3;
  EXPECT_NEAR(grad("sin(x^2)", {{"x", x}}).gradients.at("x"), 2 * x * std::cos(x * x), 1e-14);
  const double t = std::tanh(3 * x);
  EXPECT_NEAR(grad("exp(tanh(3*x))", {{"x", x}}).gradients.at("x"), std::exp(t) * (1 - t * t) * 3, 1e-14);
  // d/dx x^y = y x^(y−1), d/dy x^y = x^y ln x.
  const auto p = grad("x^y", {{"x", 2.0}, {"y", 3.0}});
  EXPECT_DOUBLE_EQ(p.gradients.at("x"), 12.0);
  EXPECT_NEAR(p.gradients.at("y"), 8 * std::log(2.0), 1e-14);
  // Quotient rule: d/dx (x/(1+x²)) = (1 − x²)/(1 + x²)².
  EXPECT_NEAR(grad("x/(1+x^2)", {{"x", x}}).gradients.at("x"), (1 - x * x) / std::pow(1 + x * x, 2), 1e-15);
}

TEST(Autograd, SharedLeafAccumulatesAndNodesAreTopological) {
  // x*x + x: one leaf for x whose gradient sums three uses, 2x + 1.
  const auto r = grad("x*x + x", {{"x", 5.0}});
  EXPECT_DOUBLE_EQ(r.gradients.at("x"), 11.0);
  ASSERT_EQ(r.nodes.size(), 3u);  // var x, mul, add
  EXPECT_EQ(r.nodes[0].op, "var");
  EXPECT_EQ(r.nodes[1].op, "mul");
  EXPECT_EQ(r.nodes[2].op, "add");
  for (const auto& n : r.nodes)
    for (int in : n.inputs) EXPECT_LT(in, n.id);
  EXPECT_EQ(r.reverse_visits, 3);
  // The constant 2 is not differentiated: 2 nodes depend on x out of 3.
  const auto c = grad("2*x", {{"x", 1.0}});
  EXPECT_EQ(c.reverse_visits, 2);
  EXPECT_EQ(c.nodes[0].grad, 0.0);
}

TEST(Autograd, PrecedenceAndAssociativity) {
  EXPECT_DOUBLE_EQ(grad("-x^2", {{"x", 3.0}}).value, -9.0);  // -(x^2)
  EXPECT_DOUBLE_EQ(grad("2^3^2", {}).value, 512.0);           // 2^(3^2)
  EXPECT_DOUBLE_EQ(grad("2^-1", {}).value, 0.5);
  EXPECT_DOUBLE_EQ(grad("8/4/2", {}).value, 1.0);
  EXPECT_DOUBLE_EQ(grad("1-2-3", {}).value, -4.0);
  EXPECT_DOUBLE_EQ(grad("1+2*3", {}).value, 7.0);
  EXPECT_DOUBLE_EQ(grad("1.5e2 + .5 + 2E-1", {}).value, 150.7);
  // Unused values are fine.
  EXPECT_DOUBLE_EQ(grad("x", {{"x", 1.0}, {"unused", 2.0}}).value, 1.0);
}

TEST(Autograd, ParserErrorsNameTheColumn) {
  EXPECT_TRUE(has(error_message("(x+1"), "column 1") && has(error_message("(x+1"), "never closed"));
  EXPECT_TRUE(has(error_message("x+1)"), "column 4") && has(error_message("x+1)"), "no matching '('"));
  EXPECT_TRUE(has(error_message("2*foo(x)"), "column 3") && has(error_message("2*foo(x)"), "unknown function 'foo'"));
  EXPECT_TRUE(has(error_message("x+"), "column 3") && has(error_message("x+"), "ends early"));
  EXPECT_TRUE(has(error_message("2x"), "column 2") && has(error_message("2x"), "expected an operator"));
  EXPECT_TRUE(has(error_message("x $ 1"), "column 3"));
  EXPECT_TRUE(has(error_message("1e"), "exponent"));
  EXPECT_TRUE(has(error_message("exp + 1"), "expected '('"));
  EXPECT_TRUE(has(error_message(""), "empty"));
  EXPECT_TRUE(has(error_message("1e999"), "too large"));
  const std::string deep = std::string(100, '(') + "x" + std::string(100, ')');
  EXPECT_TRUE(has(error_message(deep), "64 levels"));
  EXPECT_TRUE(has(error_message(std::string(200, '-') + "x"), "64 levels"));
}

TEST(Autograd, HugeInputIsRejectedFast) {
  const std::string huge(1000000, 'x');
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(has(error_message(huge), "longer than 1000 characters"));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 0.05);
  // Through the API too (under the 1 MiB input cap, so it reaches the parser).
  const json err = mlsys::test::error_of("autograd", json{{"expression", huge}}.dump());
  EXPECT_EQ(err["field"], "expression");
}

TEST(Autograd, DomainErrorsNameTheNode) {
  EXPECT_TRUE(has(error_message("log(x)", {{"x", -1.0}}), "node 1 (log): log of -1"));
  EXPECT_TRUE(has(error_message("sqrt(x - 2)", {{"x", 1.0}}), "node 3 (sqrt)"));
  EXPECT_TRUE(has(error_message("1/(x-1)", {{"x", 1.0}}), "division by zero"));
  EXPECT_TRUE(has(error_message("2^x", {{"x", 5000.0}}), "overflows fp64"));  // a huge exponent is no Inf
  EXPECT_TRUE(has(error_message("exp(x)", {{"x", 1000.0}}), "node 1 (exp)"));
  EXPECT_TRUE(has(error_message("x^0.5", {{"x", -4.0}}), "negative base"));
  EXPECT_TRUE(has(error_message("sqrt(x)", {{"x", 0.0}}), "infinite"));
  EXPECT_TRUE(has(error_message("x*y", {{"x", 1.0}}), "'y' has no value"));
}

TEST(Autograd, CalculatorFields) {
  const json r = calc("autograd", {{"expression", "x^2*y"}, {"values", {{"x", 3}, {"y", 2}}}});
  EXPECT_EQ(r["value"], 18.0);
  EXPECT_EQ(r["gradients"]["x"], 12.0);
  EXPECT_EQ(r["gradients"]["y"], 9.0);
  ASSERT_EQ(r["nodes"].size(), 5u);  // x, 2, pow, y, mul
  EXPECT_EQ(r["nodes"][4]["op"], "mul");
  EXPECT_EQ(r["nodes"][4]["inputs"], json::array({2, 3}));
  EXPECT_EQ(r["nodes"][4]["grad"], 1.0);
  json many = json::object();
  for (int i = 0; i < 65; ++i) many[std::to_string(i)] = i;  // names need not be identifiers to be given
  EXPECT_TRUE(has(mlsys::test::error_of("autograd", json{{"values", many}}.dump())["message"], "more than 64 entries"));
  for (const json& bad : {json{{"values", {{"x", "1"}}}}, json{{"values", json::array({1})}},
                          json{{"expression", "x"}, {"values", {{"y", 1}}}}})
    EXPECT_EQ(mlsys::test::error_of("autograd", bad.dump())["field"], "values") << bad;
}

namespace {
double abs_error(const std::string& f, double x, double h, const std::string& method, const std::string& dtype) {
  return mlsys::gradient_check(mlsys::parse_expression(f), {{"x", x}}, "x", h, method, dtype).abs_error;
}
}  // namespace

TEST(GradientCheck, TruncationSlopes) {
  // sin at x = 1 in fp64, h = 10^-2 → 10^-3: truncation regime (rounding ~1e-16/h is far below).
  const double c1 = abs_error("sin(x)", 1.0, 1e-2, "central", "fp64"), c2 = abs_error("sin(x)", 1.0, 1e-3, "central", "fp64");
  EXPECT_NEAR(c1 / c2, 100.0, 2.0);  // error ~ h²·|cos 1|/6
  EXPECT_NEAR(c1, 1e-4 * std::cos(1.0) / 6, 1e-8);
  const double f1 = abs_error("sin(x)", 1.0, 1e-2, "forward", "fp64"), f2 = abs_error("sin(x)", 1.0, 1e-3, "forward", "fp64");
  EXPECT_NEAR(f1 / f2, 10.0, 0.1);   // error ~ h·|sin 1|/2
  EXPECT_NEAR(f1, 1e-2 * std::sin(1.0) / 2, 1e-4);
}

TEST(GradientCheck, Fp32BestSteps) {
  // fp32 eps = 2^-23 ≈ 1.2e-7: sqrt(eps) ≈ 3.4e-4, eps^(1/3) ≈ 4.9e-3.
  const auto e = mlsys::parse_expression("exp(x)");
  const auto fwd = mlsys::gradient_check(e, {{"x", 1.0}}, "x", std::nullopt, "forward", "fp32");
  const auto cen = mlsys::gradient_check(e, {{"x", 1.0}}, "x", std::nullopt, "central", "fp32");
  ASSERT_TRUE(fwd.best_step && cen.best_step);
  EXPECT_GE(*fwd.best_step, 1e-4);
  EXPECT_LE(*fwd.best_step, 1e-3);
  EXPECT_GE(*cen.best_step, 1e-3);
  EXPECT_LE(*cen.best_step, 1e-2);
  EXPECT_EQ(fwd.sweep->size(), 12u);
  // In fp64 the bottoms move to ~1e-8 and ~1e-5.
  const auto f64 = mlsys::gradient_check(e, {{"x", 1.0}}, "x", std::nullopt, "forward", "fp64");
  EXPECT_GE(*f64.best_step, 1e-9);
  EXPECT_LE(*f64.best_step, 1e-7);
  const auto c64 = mlsys::gradient_check(e, {{"x", 1.0}}, "x", std::nullopt, "central", "fp64");
  EXPECT_GE(*c64.best_step, 1e-6);
  EXPECT_LE(*c64.best_step, 1e-4);
}

TEST(GradientCheck, CalculatorAndErrors) {
  const json r = calc("gradient-check", {{"expression", "x^3"}, {"values", {{"x", 2}}}, {"step", 1e-3}, {"method", "forward"}});
  EXPECT_EQ(r["analytic"], 12.0);
  // (x+h)³ − x³)/h = 3x² + 3xh + h²: error 6e-3 + 1e-6.
  EXPECT_NEAR(r["abs_error"].get<double>(), 6.001e-3, 1e-9);
  EXPECT_FALSE(r.contains("sweep"));
  EXPECT_EQ(mlsys::test::error_of("gradient-check", R"({"expression": "x*y", "values": {"x": 1, "y": 2}})")["field"],
            "variable");
  EXPECT_EQ(mlsys::test::error_of("gradient-check", R"({"expression": "x", "variable": "z"})")["field"], "variable");
  // fp32 cannot hold 1e300: an error naming where it is (checked before any cast to float).
  EXPECT_EQ(mlsys::test::error_of("gradient-check", R"({"expression": "2*x", "values": {"x": 1e300}, "dtype": "fp32"})")["field"], "values");
  EXPECT_EQ(mlsys::test::error_of("gradient-check", R"({"expression": "x + 1e300", "dtype": "fp32"})")["field"],
            "expression");
  // log near 0: h = 0.1 leaves the domain and is left out of the sweep.
  const json s = calc("gradient-check", {{"expression", "log(x)"}, {"values", {{"x", 0.05}}}});
  EXPECT_EQ(s["sweep"].size(), 11u);
}

TEST(BackpropMemory, ClosedForms) {
  // L = 16, w = 1024, b = 8, bf16: a layer keeps 2·8·1024·2 = 32 KiB, a checkpoint 16 KiB.
  const auto r = mlsys::backprop_memory(16, 1024, 8, 2, 2);
  EXPECT_EQ(r.layer_bytes, 32768.0);
  EXPECT_EQ(r.weight_bytes, 16 * 1024.0 * 1024 * 2);
  EXPECT_EQ(r.none.peak_bytes, 16 * 32768.0);
  EXPECT_EQ(r.every_k.checkpoints, 8);
  // A re-run segment starts from its checkpoint: (2k − 1) more b·w values, not 2k.
  EXPECT_EQ(r.every_k.peak_bytes, 8 * 16384.0 + 3 * 16384.0);
  EXPECT_EQ(r.sqrt_l.k, 4);  // sqrt(16)
  EXPECT_EQ(r.sqrt_l.peak_bytes, 4 * 16384.0 + 7 * 16384.0);
  EXPECT_EQ(r.sqrt_l.recomputed_layers, 16);
  EXPECT_DOUBLE_EQ(r.sqrt_l.recompute_fraction, 1.0 / 3);  // one more forward of fwd + bwd = 3 forwards
  EXPECT_EQ(r.none.recompute_flops, 0.0);
  // peak(k) = (ceil(16/k) + 2k − 1)·c with c = 16 KiB: 11c at k = 2, 3 and 4; the smallest k is kept.
  EXPECT_EQ(r.best_k, 2);
  EXPECT_EQ(r.best_peak_bytes, 11 * 16384.0);
  EXPECT_EQ(r.curve.size(), 16u);
  EXPECT_EQ(r.curve.back().none_bytes, r.none.peak_bytes);
  // Sublinear: at L = 4096 the sqrt plan keeps 64 checkpoints + 127 more values, 191c against 8192c.
  const auto deep = mlsys::backprop_memory(4096, 1, 1, 1, 1);
  EXPECT_EQ(deep.sqrt_l.peak_bytes, 191.0);
  EXPECT_EQ(deep.none.peak_bytes, 8192.0);
  EXPECT_EQ(deep.curve.size(), 256u);
  EXPECT_EQ(deep.curve.back().layers, 4096);
}

TEST(BackpropMemory, CheckpointingNeverCostsMoreThanKeepingEverything) {
  // A network no deeper than k is one segment: its checkpoint is its first input, so the peak
  // is the 2L values of no checkpointing, never more (it was 2L + 1 before).
  const auto r = mlsys::backprop_memory(64, 4096, 32, 2, 16);
  for (const auto& c : r.curve) {
    EXPECT_LE(c.every_k_bytes, c.none_bytes) << "L = " << c.layers;
    EXPECT_LE(c.sqrt_bytes, c.none_bytes) << "L = " << c.layers;
    if (c.layers <= 16) {
      EXPECT_EQ(c.every_k_bytes, c.none_bytes) << "L = " << c.layers;
    }
  }
  EXPECT_EQ(r.curve.front().every_k_bytes, 2 * 32 * 4096 * 2.0);
}

TEST(BackpropMemory, MatchesActivationCheckpointingSegments) {
  // Same segment rule as the activation-checkpointing calculator: k ≥ L is one segment.
  const auto r = mlsys::backprop_memory(5, 10, 10, 4, 8);
  EXPECT_EQ(r.every_k.k, 5);
  EXPECT_EQ(r.every_k.checkpoints, 1);
  EXPECT_EQ(mlsys::test::error_of("backprop-memory", R"({"layers": 5000})")["field"], "layers");
}

TEST(AutogradExercises, AnswersMatchTheCalculators) {
  for (std::uint32_t seed = 0; seed < 30; ++seed) {
    const auto p = mlsys::make_exercise("autograd-partial", seed);
    const json g = calc("autograd", p.params);
    const std::string var = p.prompt.substr(p.prompt.find("\xE2\x88\x82" "f/\xE2\x88\x82") + 8, 1);
    EXPECT_DOUBLE_EQ(g.at("gradients").at(var).get<double>(), p.answer) << p.prompt;

    const auto v = mlsys::make_exercise("autograd-reverse-visits", seed);
    EXPECT_EQ(calc("autograd", v.params)["reverse_visits"].get<double>(), v.answer) << v.prompt;

    const auto a = mlsys::make_exercise("backprop-activation-bytes", seed);
    EXPECT_DOUBLE_EQ(calc("backprop-memory", a.params)["none"]["stored_bytes"].get<double>() / 1e6, a.answer);
    const auto s = mlsys::make_exercise("sqrt-checkpoint-memory", seed);
    const json m = calc("backprop-memory", s.params);
    EXPECT_DOUBLE_EQ(m["sqrt"]["peak_bytes"].get<double>() / 1e6, s.answer);
    EXPECT_EQ(m["sqrt"]["k"], s.params["k"]);

    // The predicted error is within 15% of the one measured at the smaller step (truncation regime).
    const auto d = mlsys::make_exercise("finite-difference-error", seed);
    const double measured = calc("gradient-check", d.params)["abs_error"].get<double>();
    EXPECT_NEAR(measured / d.answer, 1.0, 0.15) << d.prompt;
  }
}

TEST(AutogradExercises, ReverseVisitsDrawsAGraphAReaderCanDraw) {
  // At most 16 nodes, no operation on two copies of one operand ("(y - y)") and no unbracketed
  // power of a power ("a^3^2", whose grouping the reader would have to guess).
  const std::regex same(R"(\((\w+)( [+-] |\*|/)\1\))");
  const std::regex power_of_power(R"(\^\d\^)");
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    const auto v = mlsys::make_exercise("autograd-reverse-visits", seed);
    const std::string expr = v.params.at("expression").get<std::string>();
    EXPECT_LE(calc("autograd", v.params)["nodes"].size(), 16u) << expr;
    EXPECT_FALSE(std::regex_search(expr, same)) << expr;
    EXPECT_FALSE(std::regex_search(expr, power_of_power)) << expr;
    // The answer is not a number written in the expression: typing it back must not pass.
    const std::regex answer_written("(^|[^0-9])" + std::to_string(static_cast<long long>(v.answer)) + "([^0-9]|$)");
    EXPECT_FALSE(std::regex_search(expr, answer_written)) << expr << " -> " << v.answer;
  }
}

TEST(AutogradExercises, FiniteDifferenceAcceptsTheErrorComputedDirectly) {
  // A reader may compute the error at the smaller step instead of scaling the given one by m^p:
  // both must pass, over many draws, and the scaling with the wrong order must not.
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    const auto d = mlsys::make_exercise("finite-difference-error", seed);
    const double measured = calc("gradient-check", d.params)["abs_error"].get<double>();
    EXPECT_TRUE(mlsys::check_exercise("finite-difference-error", seed, mlsys::format_number(measured, 4))["correct"])
        << seed << ": " << d.prompt << " measured " << measured << " predicted " << d.answer;
    EXPECT_TRUE(mlsys::check_exercise("finite-difference-error", seed, mlsys::format_number(d.answer, 4))["correct"])
        << seed;
  }
}

TEST(AutogradExercises, SqrtCheckpointCountsTheCheckpointOnce) {
  for (std::uint32_t seed = 0; seed < 50; ++seed) {
    const auto s = mlsys::make_exercise("sqrt-checkpoint-memory", seed);
    const double k = s.params["k"].get<double>();
    const double c = s.params["batch"].get<double>() * s.params["width"].get<double>() *
                     (s.params["dtype"] == "fp32" ? 4 : 2);
    EXPECT_DOUBLE_EQ(s.answer, (3 * k - 1) * c / 1e6) << s.prompt;
    // The old count, 3k matrices, is off by 1/(3k − 1) > 1% and rejected.
    EXPECT_FALSE(mlsys::check_exercise("sqrt-checkpoint-memory", seed, mlsys::format_number(3 * k * c / 1e6, 6))["correct"]);
  }
}
