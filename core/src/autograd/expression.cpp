// Parser, evaluation and reverse pass of scalar expressions (autograd/expression.hpp).
#include "mlsys/autograd/expression.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {

const std::vector<std::string>& function_names() {
  static const std::vector<std::string> names = {"exp", "log", "tanh", "sigmoid", "relu", "sin", "cos", "sqrt"};
  return names;
}

bool is_function(const std::string& s) {
  for (const auto& f : function_names())
    if (f == s) return true;
  return false;
}

std::string function_list() {
  std::string out;
  for (const auto& f : function_names()) out += (out.empty() ? "" : ", ") + f;
  return out;
}

[[noreturn]] void parse_error(std::size_t pos, const std::string& what) {
  throw InputError("expression", "At column " + std::to_string(pos + 1) + ": " + what);
}

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}

  Expression run() {
    skip();
    if (i_ == s_.size()) parse_error(i_, "the expression is empty; expected a number, a variable, a function or '('.");
    e_.root = expr();
    skip();
    if (i_ < s_.size()) {
      if (s_[i_] == ')') parse_error(i_, "')' has no matching '('.");
      parse_error(i_, "expected an operator (+ - * / ^) or the end, found '" + std::string(1, s_[i_]) + "'.");
    }
    return std::move(e_);
  }

 private:
  const std::string& s_;
  std::size_t i_ = 0;
  int depth_ = 0;
  Expression e_;
  std::map<std::string, int> var_ids_;

  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool peek(char c) {
    skip();
    return i_ < s_.size() && s_[i_] == c;
  }
  int add(ExprNode n, std::size_t pos) {
    if (e_.nodes.size() >= kMaxExpressionNodes)
      parse_error(pos, "the expression has more than " + std::to_string(kMaxExpressionNodes) + " nodes.");
    e_.nodes.push_back(std::move(n));
    return static_cast<int>(e_.nodes.size()) - 1;
  }
  int binary(const char* op, const char* symbol, int a, int b, std::size_t pos) {
    return add(ExprNode{op, {a, b}, symbol, 0}, pos);
  }

  int expr() {
    int left = term();
    while (peek('+') || peek('-')) {
      const std::size_t pos = i_;
      const char c = s_[i_++];
      const int right = term();
      left = c == '+' ? binary("add", "+", left, right, pos) : binary("sub", "-", left, right, pos);
    }
    return left;
  }
  int term() {
    int left = unary();
    while (peek('*') || peek('/')) {
      const std::size_t pos = i_;
      const char c = s_[i_++];
      const int right = unary();
      left = c == '*' ? binary("mul", "*", left, right, pos) : binary("div", "/", left, right, pos);
    }
    return left;
  }
  // Every recursion passes through here, so the depth is counted once, here.
  int unary() {
    skip();
    if (++depth_ > kMaxExpressionDepth)
      parse_error(i_, "the expression nests more than " + std::to_string(kMaxExpressionDepth) + " levels deep.");
    int out;
    if (peek('-')) {
      const std::size_t pos = i_++;
      const int operand = unary();
      out = add(ExprNode{"neg", {operand}, "-", 0}, pos);
    } else {
      out = power();
    }
    --depth_;
    return out;
  }
  int power() {
    const int base = primary();
    if (!peek('^')) return base;
    const std::size_t pos = i_++;
    const int exponent = unary();
    return binary("pow", "^", base, exponent, pos);
  }
  int primary() {
    skip();
    const std::size_t start = i_;
    if (i_ == s_.size()) parse_error(i_, "the expression ends early; expected a number, a variable, a function or '('.");
    const char c = s_[i_];
    if (c == '(') {
      ++i_;
      const int inner = expr();
      if (!peek(')')) {
        if (i_ == s_.size()) parse_error(start, "'(' is never closed; expected ')'.");
        parse_error(i_, "expected ')' or an operator, found '" + std::string(1, s_[i_]) + "'.");
      }
      ++i_;
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) ++i_;
      const std::string name = s_.substr(start, i_ - start);
      if (peek('(')) {
        if (!is_function(name)) parse_error(start, "unknown function '" + name + "'; the functions are " + function_list() + ".");
        ++i_;
        const int arg = expr();
        if (!peek(')')) {
          if (i_ == s_.size()) parse_error(start, "'" + name + "(' is never closed; expected ')'.");
          parse_error(i_, "expected ')' or an operator, found '" + std::string(1, s_[i_]) + "'.");
        }
        ++i_;
        return add(ExprNode{name, {arg}, name, 0}, start);
      }
      if (is_function(name)) parse_error(i_, "expected '(' after the function '" + name + "'.");
      const auto it = var_ids_.find(name);
      if (it != var_ids_.end()) return it->second;
      const int id = add(ExprNode{"var", {}, name, 0}, start);
      var_ids_[name] = id;
      e_.variables.push_back(name);
      return id;
    }
    if (c == ')') parse_error(i_, "expected a number, a variable, a function or '(' before ')'.");
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
      parse_error(i_, "unexpected character (byte " + std::to_string(static_cast<unsigned char>(c)) +
                          "); expected a number, a variable, a function or '('.");
    parse_error(i_, "expected a number, a variable, a function or '(', found '" + std::string(1, c) + "'.");
  }
  int number() {
    const std::size_t start = i_;
    auto digits = [&] {
      std::size_t n = 0;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_, ++n;
      return n;
    };
    std::size_t n = digits();
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      n += digits();
    }
    if (n == 0) parse_error(start, "expected digits in the number.");
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (digits() == 0) parse_error(i_, "expected the digits of the exponent of the number.");
    }
    const std::string text = s_.substr(start, i_ - start);
    const double v = std::strtod(text.c_str(), nullptr);
    if (!std::isfinite(v)) parse_error(start, "the number " + text + " is too large.");
    return add(ExprNode{"const", {}, text, v}, start);
  }
};

std::string node_name(const Expression& e, std::size_t i) {
  return "node " + std::to_string(i) + " (" + e.nodes[i].op + ")";
}

std::string show(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x == 0 ? 0.0 : x);  // -0 reads as 0
  return buf;
}

[[noreturn]] void domain_error(const Expression& e, std::size_t i, const std::string& what) {
  throw InputError("expression", "Domain error at " + node_name(e, i) + ": " + what + ".");
}

// Nodes that depend on a variable (the ones the reverse pass differentiates).
std::vector<bool> depends_on_variable(const Expression& e) {
  std::vector<bool> dep(e.nodes.size(), false);
  for (std::size_t i = 0; i < e.nodes.size(); ++i) {
    dep[i] = e.nodes[i].op == "var";
    for (int in : e.nodes[i].inputs) dep[i] = dep[i] || dep[static_cast<std::size_t>(in)];
  }
  return dep;
}

}  // namespace

Expression parse_expression(const std::string& text) {
  // The length cap comes first, so that a huge input costs nothing.
  if (text.size() > kMaxExpressionChars)
    throw InputError("expression", "The expression is longer than " + std::to_string(kMaxExpressionChars) +
                                       " characters (" + std::to_string(text.size()) + ").");
  return Parser(text).run();
}

template <class T>
std::vector<T> evaluate_nodes(const Expression& e, const std::map<std::string, double>& values) {
  std::vector<T> v(e.nodes.size(), T(0));
  for (std::size_t i = 0; i < e.nodes.size(); ++i) {
    const ExprNode& n = e.nodes[i];
    const T a = n.inputs.empty() ? T(0) : v[static_cast<std::size_t>(n.inputs[0])];
    const T b = n.inputs.size() > 1 ? v[static_cast<std::size_t>(n.inputs[1])] : T(0);
    T r;
    if (n.op == "var") {
      const auto it = values.find(n.label);
      if (it == values.end()) throw InputError("values", "The variable '" + n.label + "' has no value in 'values'.");
      // Checked before the cast: a double outside float's range does not convert (undefined behaviour).
      if (std::fabs(it->second) > static_cast<double>(std::numeric_limits<T>::max()))
        throw InputError("values", "The value of '" + n.label + "' (" + show(it->second) + ") is beyond the range of fp32.");
      r = static_cast<T>(it->second);
    } else if (n.op == "const") {
      if (std::fabs(n.constant) > static_cast<double>(std::numeric_limits<T>::max()))
        domain_error(e, i, "the number " + n.label + " is beyond the range of fp32");
      r = static_cast<T>(n.constant);
    } else if (n.op == "add") {
      r = a + b;
    } else if (n.op == "sub") {
      r = a - b;
    } else if (n.op == "mul") {
      r = a * b;
    } else if (n.op == "div") {
      if (b == T(0)) domain_error(e, i, "division by zero");
      r = a / b;
    } else if (n.op == "pow") {
      if (a < T(0) && b != std::floor(b)) domain_error(e, i, "a negative base (" + show(a) + ") to a non-integer power");
      if (a == T(0) && b < T(0)) domain_error(e, i, "zero to a negative power (division by zero)");
      r = std::pow(a, b);
    } else if (n.op == "neg") {
      r = -a;
    } else if (n.op == "exp") {
      r = std::exp(a);
    } else if (n.op == "log") {
      if (!(a > T(0))) domain_error(e, i, "log of " + show(a) + " (it needs a positive number)");
      r = std::log(a);
    } else if (n.op == "tanh") {
      r = std::tanh(a);
    } else if (n.op == "sigmoid") {
      r = T(1) / (T(1) + std::exp(-a));
    } else if (n.op == "relu") {
      r = a > T(0) ? a : T(0);
    } else if (n.op == "sin") {
      r = std::sin(a);
    } else if (n.op == "cos") {
      r = std::cos(a);
    } else {  // sqrt
      if (a < T(0)) domain_error(e, i, "sqrt of " + show(a) + " (it needs a number >= 0)");
      r = std::sqrt(a);
    }
    if (!std::isfinite(r))
      domain_error(e, i, std::string("the value overflows ") + (sizeof(T) == 4 ? "fp32" : "fp64"));
    v[i] = r;
  }
  return v;
}

template std::vector<double> evaluate_nodes<double>(const Expression&, const std::map<std::string, double>&);
template std::vector<float> evaluate_nodes<float>(const Expression&, const std::map<std::string, double>&);

double evaluate_expression(const Expression& e, const std::map<std::string, double>& values, bool fp32) {
  if (fp32) return static_cast<double>(evaluate_nodes<float>(e, values)[static_cast<std::size_t>(e.root)]);
  return evaluate_nodes<double>(e, values)[static_cast<std::size_t>(e.root)];
}

AutogradResult autograd(const Expression& e, const std::map<std::string, double>& values) {
  const std::vector<double> v = evaluate_nodes<double>(e, values);
  const std::vector<bool> dep = depends_on_variable(e);
  std::vector<double> g(e.nodes.size(), 0.0);
  std::vector<std::vector<double>> shares(e.nodes.size());
  for (std::size_t i = 0; i < e.nodes.size(); ++i) shares[i].assign(e.nodes[i].inputs.size(), 0.0);
  const std::size_t root = static_cast<std::size_t>(e.root);
  AutogradResult r{v[root], {}, {}, 0};
  if (dep[root]) g[root] = 1.0;
  // Reverse topological order: a node's gradient is complete (all its users have added to it)
  // before it passes its share to its inputs.
  for (std::size_t k = e.nodes.size(); k-- > 0;) {
    if (!dep[k]) continue;
    ++r.reverse_visits;
    const ExprNode& n = e.nodes[k];
    const double up = g[k];
    if (!std::isfinite(up)) domain_error(e, k, "its derivative is not finite");
    auto send = [&](std::size_t which, double local) {
      const auto in = static_cast<std::size_t>(n.inputs[which]);
      if (dep[in]) g[in] += up * local, shares[k][which] = up * local;
    };
    const double a = n.inputs.empty() ? 0 : v[static_cast<std::size_t>(n.inputs[0])];
    const double b = n.inputs.size() > 1 ? v[static_cast<std::size_t>(n.inputs[1])] : 0;
    if (n.op == "add") {
      send(0, 1), send(1, 1);
    } else if (n.op == "sub") {
      send(0, 1), send(1, -1);
    } else if (n.op == "mul") {
      send(0, b), send(1, a);
    } else if (n.op == "div") {
      send(0, 1 / b), send(1, -a / (b * b));
    } else if (n.op == "pow") {
      // d/da a^b = b a^(b-1); d/db a^b = a^b ln a, which needs a > 0 when b varies.
      if (dep[static_cast<std::size_t>(n.inputs[0])]) {
        if (a == 0 && b < 1 && b != 0) domain_error(e, k, "the derivative of 0^" + show(b) + " is infinite");
        send(0, b == 0 ? 0 : b * std::pow(a, b - 1));
      }
      if (dep[static_cast<std::size_t>(n.inputs[1])]) {
        if (a < 0) domain_error(e, k, "a variable exponent needs a base >= 0 (the base is " + show(a) + ")");
        send(1, a == 0 ? 0 : v[k] * std::log(a));
      }
    } else if (n.op == "neg") {
      send(0, -1);
    } else if (n.op == "exp") {
      send(0, v[k]);
    } else if (n.op == "log") {
      send(0, 1 / a);
    } else if (n.op == "tanh") {
      send(0, 1 - v[k] * v[k]);
    } else if (n.op == "sigmoid") {
      send(0, v[k] * (1 - v[k]));
    } else if (n.op == "relu") {
      send(0, a > 0 ? 1 : 0);  // 0 at 0, as PyTorch
    } else if (n.op == "sin") {
      send(0, std::cos(a));
    } else if (n.op == "cos") {
      send(0, -std::sin(a));
    } else if (n.op == "sqrt") {
      if (a == 0) domain_error(e, k, "the derivative of sqrt at 0 is infinite");
      send(0, 0.5 / v[k]);
    }
  }
  for (std::size_t i = 0; i < e.nodes.size(); ++i) {
    if (!std::isfinite(g[i])) domain_error(e, i, "its derivative overflows fp64");
    r.nodes.push_back({static_cast<int>(i), e.nodes[i].op, e.nodes[i].label, e.nodes[i].inputs, v[i], g[i], shares[i]});
  }
  for (const auto& name : e.variables) {
    for (std::size_t i = 0; i < e.nodes.size(); ++i)
      if (e.nodes[i].op == "var" && e.nodes[i].label == name) r.gradients[name] = g[i];
  }
  return r;
}

}  // namespace mlsys
