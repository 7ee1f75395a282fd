// Exercises of the backpropagation lesson: a partial derivative of a drawn expression by the
// chain rule (answered by the engine's reverse mode), the error a finite difference should
// have at a smaller step (order 1 forward, 2 central), the activation bytes an MLP keeps for
// backward, its peak with sqrt(L) checkpointing (Chen et al. 2016), and the nodes a reverse
// pass visits in a drawn graph. Numbers are shown
// rounded and the answers are computed from the numbers shown.
#include <cctype>
#include <cmath>

#include "generators.hpp"
#include "mlsys/autograd/backprop_memory.hpp"
#include "mlsys/autograd/expression.hpp"
#include "mlsys/autograd/gradient_check.hpp"
#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"

namespace mlsys::exercises {

namespace {

// No number the prompt prints may pass for the answer (the generic suite types each one).
bool clashes(double answer, const std::string& prompt) {
  for (const auto& p : printed_numbers(prompt))
    if (std::fabs(std::fabs(p.value) - std::fabs(answer)) <= 0.02 * std::fabs(answer)) return true;
  return false;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t i = s.find(from); i != std::string::npos; i = s.find(from, i + to.size())) s.replace(i, from.size(), to);
  return s;
}

// A value as it appears in a product: negative values in parentheses.
std::string operand(double v) { return v < 0 ? "(" + format_number(v, 3) + ")" : format_number(v, 3); }

struct Template {
  std::string expression;  // {a}: the drawn coefficient
  std::string variable;
  std::string derivative;  // in terms of {a}, {x}, {y}, {z}
  // Where the variable feeds two operations, the gradient along each path alone: what a
  // backward that assigns instead of accumulating returns (a, x, y, z). Empty otherwise.
  std::vector<double (*)(double, double, double, double)> single_paths{};
};

Exercise partial(Rng& rng) {
  static const std::vector<Template> templates = {
      {"{a}*x^2*y", "x", "2\u00B7{a}\u00B7{x}\u00B7{y}"},
      {"x*y^2 + {a}*x", "y", "2\u00B7{x}\u00B7{y}"},
      {"(x + {a}*y)^2", "y", "2\u00B7{a}\u00B7({x} + {a}\u00B7{y})"},
      {"x^3 - {a}*x*y", "x", "3\u00B7{x}^2 \u2212 {a}\u00B7{y}",
       {[](double, double x, double, double) { return 3 * x * x; }, [](double a, double, double y, double) { return -a * y; }}},
      {"x*y*z + {a}*z", "z", "{x}\u00B7{y} + {a}",
       {[](double, double x, double y, double) { return x * y; }, [](double a, double, double, double) { return a; }}},
      {"{a}*sin(x)*y", "x", "{a}\u00B7cos({x})\u00B7{y}"},
      {"x/y + {a}*y", "y", "\u2212{x}/{y}^2 + {a}",
       {[](double, double x, double y, double) { return -x / (y * y); }, [](double a, double, double, double) { return a; }}},
      {"y*exp(x) - {a}*x", "x", "{y}\u00B7exp({x}) \u2212 {a}",
       {[](double, double x, double y, double) { return y * exp_det(x); }, [](double a, double, double, double) { return -a; }}},
  };
  for (;;) {
    const Template& t = rng.pick(templates);
    const int a = rng.integer(2, 9);
    auto draw = [&] {
      const int magnitude = rng.integer(1, 7);
      const int half = magnitude * (rng.integer(0, 1) == 1 ? 1 : -1);
      return half / 2.0;  // ±0.5 … ±3.5
    };
    const double x = draw(), y = draw(), z = draw();
    const std::string expr = replace_all(t.expression, "{a}", std::to_string(a));
    const Expression parsed = parse_expression(expr);
    std::map<std::string, double> values = {{"x", x}, {"y", y}};
    std::string at = "x = " + format_number(x, 3) + ", y = " + format_number(y, 3);
    if (expr.find('z') != std::string::npos) {
      values["z"] = z;
      at += ", z = " + format_number(z, 3);
    }
    const double answer = autograd(parsed, values).gradients.at(t.variable);
    Exercise e;
    e.title = "A partial derivative by the chain rule";
    e.params = {{"expression", expr}, {"values", values}};
    e.prompt = "Let f = " + expr + ". At " + at + ", what is \u2202f/\u2202" + t.variable +
               "? (Functions take radians.)";
    if (!(answer > 0.05) || clashes(answer, e.prompt)) continue;  // a positive answer: a reader's '-' is not read
    e.unit = "";
    e.answer = answer;
    e.hint = "Treat the other variables as constants and apply the product, power and chain rules; the reverse pass "
             "computes the same sum of products along every path from f down to " + t.variable + ".";
    std::string symbolic = replace_all(t.derivative, "{a}", std::to_string(a));
    std::string numeric = symbolic;
    for (const auto& [name, v] : values) {
      symbolic = replace_all(symbolic, "{" + name + "}", name);
      numeric = replace_all(numeric, "{" + name + "}", operand(v));
    }
    e.solution = "\u2202f/\u2202" + t.variable + " = " + symbolic + ". At " + at + ": " + numeric + " = " +
                 format_number(answer, 4) + ".";
    const double numeric_check = finite_difference(parsed, values, t.variable, 1e-5, "central", false);
    require(e, std::fabs(numeric_check - answer) <= 1e-6 * std::fmax(1.0, std::fabs(answer)),
            "the reverse-mode answer agrees with a central difference (" + format_number(numeric_check, 8) + ")");
    for (const auto& path : t.single_paths)
      reject_mistake_where_distinct(e, path(a, x, y, z),
                                    "kept one path to " + t.variable + " (assigned the gradient instead of accumulating)");
    return e;
  }
}

Exercise difference_error(Rng& rng) {
  struct F {
    std::string expression;
    double lo, hi;  // x drawn here, away from zeros of f'' and f'''
  };
  static const std::vector<F> functions = {
      {"sin(x)", 0.5, 2.5}, {"exp(x)", -1.0, 2.0}, {"log(x)", 0.5, 3.0}, {"x^3", 0.5, 3.0}, {"sqrt(x)", 0.5, 3.0}};
  static const std::vector<double> steps = {0.1, 0.05, 0.02, 0.01};
  static const std::vector<int> divisors = {2, 4, 5, 10};
  for (;;) {
    const F& f = rng.pick(functions);
    const double x = std::round((f.lo + (f.hi - f.lo) * rng.uniform()) * 10) / 10;
    const bool central = rng.integer(0, 1) == 1;
    const double h1 = rng.pick(steps);
    const int m = rng.pick(divisors);
    const double h2 = h1 / m;
    const std::string method = central ? "central" : "forward";
    const Expression parsed = parse_expression(f.expression);
    const double e1 =
        round_sig(gradient_check(parsed, {{"x", x}}, "x", h1, method, "fp64").abs_error, 3);
    const int order = central ? 2 : 1;
    Exercise e;
    e.title = "Predict a finite difference's error";
    e.params = {{"expression", f.expression}, {"values", {{"x", x}}}, {"step", h2}, {"method", method}, {"dtype", "fp64"}};
    e.prompt = "A gradient check of f(x) = " + f.expression + " at x = " + format_number(x, 3) + " uses the " + method +
               " difference " + (central ? "(f(x+h) \u2212 f(x\u2212h))/(2h)" : "(f(x+h) \u2212 f(x))/h") +
               " in fp64. With h = " + format_number(h1, 3) + " its error |numeric \u2212 analytic| is " +
               prose(e1, 3) + ". Assuming the error is pure truncation, scaling exactly as h\u1D56, what error do you predict with h = " +
               format_number(h2, 3) + "? (Computing it directly at that step gives the same within 1%.)";
    e.unit = "";
    e.answer = e1 / std::pow(static_cast<double>(m), order);
    if (e1 <= 0 || clashes(e.answer, e.prompt)) continue;
    // "Still in the truncation regime": the error measured at the smaller step follows the
    // h^p law, so a reader who computes it directly and one who predicts it agree.
    const double e2 = gradient_check(parsed, {{"x", x}}, "x", h2, method, "fp64").abs_error;
    if (std::fabs(e2 - e.answer) > 0.008 * e.answer) continue;
    require(e, std::fabs(e2 - e.answer) <= 0.008 * e.answer,
            "the error measured at h = " + format_number(h2, 3) + " (" + format_number(e2, 4) + ") follows the h^p law");
    require(e, 1e-16 / h2 < 0.01 * e.answer, "rounding (about 1e-16/h) is under 1% of the predicted error");
    reject_mistake(e, e1 / std::pow(static_cast<double>(m), central ? 1 : 2),
                   std::string("took the ") + (central ? "forward" : "central") + " difference's order");
    e.hint = std::string("Truncation error is proportional to h\u1D56, with p = 1 for the forward difference and p = 2 "
                         "for the central one (Taylor's theorem); rounding, about \u03B5/h, is still negligible at these steps.");
    const std::string factor = std::to_string(static_cast<int>(std::pow(m, order)));
    e.solution = "The step shrinks " + std::to_string(m) + " times and the " + method + " difference's error goes as " +
                 (central ? "h\u00B2, so it shrinks " + std::to_string(m) + "\u00B2 = " + factor : "h, so it shrinks " + factor) +
                 " times: " + prose(e1, 3) + " \u00F7 " + factor + " = " + prose(e.answer, 4) +
                 (prose(e.answer, 4) == format_number(e.answer, 4) ? "." : " (" + format_number(e.answer, 4) + ").");
    return e;
  }
}

struct Mlp {
  long long layers;
  int width, batch;
  std::string dtype;
};

std::string mlp_text(const Mlp& n) {
  return "An MLP of " + counted(static_cast<double>(n.layers), "layer") + ", each " + format_int(n.width) +
         " wide, trains on batches of " + format_int(n.batch) + " examples with " + n.dtype + " activations.";
}

Mlp draw_mlp(Rng& rng, long long layers) {
  static const std::vector<int> widths = {256, 512, 768, 1024, 1536, 2048, 4096, 8192};
  static const std::vector<int> batches = {8, 16, 32, 64, 128, 256, 512};
  static const std::vector<std::string> dtypes = {"fp32", "bf16", "fp16"};
  return {layers, rng.pick(widths), rng.pick(batches), rng.pick(dtypes)};
}

Exercise activation_bytes(Rng& rng) {
  for (;;) {
    const Mlp n = draw_mlp(rng, rng.integer(4, 96));
    const double s = dtype_bytes(n.dtype);
    const auto m = backprop_memory(n.layers, n.width, n.batch, s, 1);
    Exercise e;
    e.title = "Activations kept for backward";
    e.params = {{"layers", n.layers}, {"width", n.width}, {"batch", n.batch}, {"dtype", n.dtype}};
    e.prompt = mlp_text(n) + " For the backward pass every layer keeps its input and its pre-activation, each a "
               "batch \u00D7 width matrix. How many megabytes (1 MB = 10^6 bytes) of activations are held when the "
               "forward pass ends?";
    e.unit = "MB";
    e.answer = m.none.stored_bytes / 1e6;
    if (clashes(e.answer, e.prompt)) continue;
    e.hint = "Count values per layer (two matrices of batch \u00D7 width), multiply by the layers and by the bytes "
             "of one value.";
    e.solution = "2 \u00D7 " + format_int(n.batch) + " \u00D7 " + format_int(n.width) + " values per layer \u00D7 " +
                 counted(static_cast<double>(n.layers), "layer") + " \u00D7 " + bytes_per_element(s) + " = " +
                 format_int(m.none.stored_bytes) + " bytes = " + format_number(e.answer, 4) + " MB.";
    require_fits(e, m.none.stored_bytes, find_accelerator("h100-sxm")->hbm_bytes, "the activations in one H100 SXM");
    reject_mistake(e, e.answer / 2, "kept one matrix per layer instead of two");
    return e;
  }
}

Exercise sqrt_checkpointing(Rng& rng) {
  for (;;) {
    const int k = rng.integer(3, 12);
    const Mlp n = draw_mlp(rng, static_cast<long long>(k) * k);
    const double s = dtype_bytes(n.dtype);
    const auto m = backprop_memory(n.layers, n.width, n.batch, s, k);
    Exercise e;
    e.title = "Peak memory with sqrt(L) checkpointing";
    e.params = {{"layers", n.layers}, {"width", n.width}, {"batch", n.batch}, {"dtype", n.dtype}, {"k", k}};
    e.prompt = mlp_text(n) + " Without checkpointing every layer keeps its input and its pre-activation (each a "
               "batch \u00D7 width matrix). With checkpointing it keeps only the input of every k-th layer, k = "
               "\u221AL, and during backward re-runs one segment of k layers at a time from its checkpoint; the re-run "
               "holds that segment's other k \u2212 1 layer inputs and its k pre-activations until its backward is "
               "done. What is the peak activation memory in megabytes (1 MB = 10^6 bytes)?";
    e.unit = "MB";
    e.answer = m.sqrt_l.peak_bytes / 1e6;
    if (clashes(e.answer, e.prompt)) continue;
    e.hint = "Peak = the checkpoints (L/k layer inputs) + one segment re-run from its checkpoint (k layers of two "
             "matrices each, less the checkpoint already counted).";
    const double c = static_cast<double>(n.batch) * n.width * s;
    e.solution = "k = \u221A" + format_int(static_cast<double>(n.layers)) + " = " + std::to_string(k) + ". One batch "
                 "\u00D7 width matrix is " + format_int(c) + " bytes. Checkpoints: " + std::to_string(k) + " \u00D7 " +
                 format_int(c) + "; one segment: (2 \u00D7 " + std::to_string(k) + " \u2212 1) \u00D7 " + format_int(c) +
                 "; together (3 \u00D7 " + std::to_string(k) + " \u2212 1) \u00D7 " + format_int(c) + " = " +
                 format_int(m.sqrt_l.peak_bytes) + " bytes = " + format_number(e.answer, 4) + " MB (against " +
                 format_number(m.none.peak_bytes / 1e6, 4) + " MB without checkpointing): " +
                 format_number(e.answer, 4) + " MB.";
    require(e, n.layers == static_cast<long long>(k) * k, "L = k\u00B2 = " + std::to_string(n.layers));
    require(e, m.sqrt_l.peak_bytes < m.none.peak_bytes, "checkpointing lowers the peak");
    require_fits(e, m.none.peak_bytes, find_accelerator("h100-sxm")->hbm_bytes,
                 "the activations without checkpointing in one H100 SXM");
    reject_mistake(e, k * c / 1e6, "counted the checkpoints and forgot the segment re-run during backward");
    reject_mistake(e, 3 * k * c / 1e6, "counted the segment's checkpoint twice (2k more matrices instead of 2k \u2212 1)");
    reject_mistake(e, m.none.peak_bytes / 1e6, "gave the peak without checkpointing");
    return e;
  }
}

// A random expression over x and y: numbers 2..9, + - * / ^ (small whole exponents), sin exp tanh.
// Every draw is its own statement: the operands of + are evaluated in an unspecified order,
// which GCC and Clang choose differently, and the same seed must give the same exercise.
std::string random_expression(Rng& rng, int depth) {
  if (depth == 0 || rng.uniform() < 0.25) {
    const int r = rng.integer(0, 2);
    return r == 0 ? "x" : r == 1 ? "y" : std::to_string(rng.integer(2, 9));
  }
  const int kind = rng.integer(0, 5);
  if (kind == 0) {
    const std::string fn = rng.pick(std::vector<std::string>{"sin", "exp", "tanh"});
    const std::string arg = random_expression(rng, depth - 1);
    return fn + "(" + arg + ")";
  }
  // Every operand is a primary already (a leaf, a call or a parenthesized pair), so ^ binds to all of it.
  // A power of a power is bracketed: "a^3^2" would leave the reader to guess the grouping.
  if (kind == 1) {
    const std::string base = random_expression(rng, depth - 1);
    const bool power = base.size() > 2 && base[base.size() - 2] == '^';
    return (power ? "(" + base + ")" : base) + "^" + std::to_string(rng.integer(2, 3));
  }
  const std::string op = rng.pick(std::vector<std::string>{" + ", " - ", "*", "/"});
  const std::string left = random_expression(rng, depth - 1);
  std::string right = random_expression(rng, depth - 1);
  while (right == left) right = random_expression(rng, depth - 1);  // no "(y - y)" or "(x/x)"
  return "(" + left + op + right + ")";
}

// Whether the whole number n is written in the expression (the "8" of "sin(8^2)"), which the
// prose reader of printed numbers does not see inside a formula.
bool written_in(const std::string& expr, long long n) {
  const std::string digits = std::to_string(n);
  for (std::size_t i = expr.find(digits); i != std::string::npos; i = expr.find(digits, i + 1)) {
    const bool before = i > 0 && std::isdigit(static_cast<unsigned char>(expr[i - 1]));
    const std::size_t end = i + digits.size();
    const bool after = end < expr.size() && std::isdigit(static_cast<unsigned char>(expr[end]));
    if (!before && !after) return true;
  }
  return false;
}

Exercise reverse_visits(Rng& rng) {
  for (;;) {
    const std::string first = random_expression(rng, 3);
    const std::string expr = first + " + " + random_expression(rng, 2);
    const Expression parsed = parse_expression(expr);
    const std::map<std::string, double> values = {{"x", 0.5}, {"y", 1.5}};
    AutogradResult r;
    try {
      r = autograd(parsed, values);
    } catch (const InputError&) {
      continue;  // division by zero at these values: the calculator could not show this graph
    }
    const auto total = static_cast<double>(parsed.nodes.size());
    const double constant = total - r.reverse_visits;
    // A graph a reader can draw and count: at most 16 nodes, some of them constant.
    if (r.reverse_visits < 4 || total > 16 || constant < 1) continue;
    Exercise e;
    e.title = "Nodes a reverse pass visits";
    e.params = {{"expression", expr}, {"values", values}};
    e.prompt = "The expression f = " + expr + " is parsed as written: every occurrence of a number and every "
               "operator or function is its own node, and each variable is one leaf shared by all its uses. The "
               "reverse pass from f skips the nodes that depend on no variable. How many nodes does it visit?";
    e.unit = "";
    e.answer = r.reverse_visits;
    e.integer = true;
    if (clashes(e.answer, e.prompt) || written_in(expr, r.reverse_visits)) continue;
    e.hint = "Count every node of the graph (leaves x and y once each), then subtract the numbers and the operations "
             "whose inputs are all numbers.";
    require_between(e, r.reverse_visits, 4, 15, "the nodes visited (a graph a reader can count)");
    require_between(e, total, 5, 16, "the nodes of the graph (one a reader can draw)");
    reject_mistake(e, total, "counted every node, the constant ones too");
    e.solution = "The graph has " + format_int(total) + " nodes; " + format_int(constant) + " of them " +
                 (constant == 1 ? "depends" : "depend") + " on no variable (numbers, and operations on numbers only), so the reverse pass visits " +
                 format_int(total) + " \u2212 " + format_int(constant) + " = " + format_int(e.answer) + ".";
    return e;
  }
}

}  // namespace

void add_autograd_exercises(std::vector<Generator>& out) {
  out.push_back({"autograd-partial", partial});
  out.push_back({"finite-difference-error", difference_error});
  out.push_back({"backprop-activation-bytes", activation_bytes});
  out.push_back({"sqrt-checkpoint-memory", sqrt_checkpointing});
  out.push_back({"autograd-reverse-visits", reverse_visits});
}

}  // namespace mlsys::exercises
