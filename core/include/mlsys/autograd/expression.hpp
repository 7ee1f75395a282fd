// Scalar expressions over named variables, and reverse-mode differentiation executed on them
// (the mechanism of PyTorch's autograd on a tiny graph; Baydin et al. 2018, "Automatic
// Differentiation in Machine Learning: a Survey", section 3.2).
//
// Grammar (recursive descent, usual precedence, lowest first):
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/') unary)*
//   unary   := '-' unary | power          so -x^2 = -(x^2)
//   power   := primary ('^' unary)?       right-associative: 2^3^2 = 2^(3^2); 2^-1 allowed
//   primary := number | name | function '(' expr ')' | '(' expr ')'
// Numbers are decimal with an optional exponent (3, 0.5, .5, 1e-3, 2.5E+4); names are
// [A-Za-z_][A-Za-z0-9_]*; the functions exp log tanh sigmoid relu sin cos sqrt are reserved
// names. There is no implicit multiplication (write 2*x).
// Caps (checked before anything is parsed where they can be): 1,000 characters, nesting 64
// levels deep, 1,000 nodes.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace mlsys {

inline constexpr std::size_t kMaxExpressionChars = 1000;
inline constexpr int kMaxExpressionDepth = 64;
inline constexpr std::size_t kMaxExpressionNodes = 1000;

// One node of the graph. Ops: "var", "const", "add", "sub", "mul", "div", "pow", "neg" and the
// function names. The tree is kept as written (a repeated subexpression is computed twice),
// except that every occurrence of a variable is the same leaf, so its gradient accumulates
// over its uses. Children are created before their parent: index order is topological.
struct ExprNode {
  std::string op;
  std::vector<int> inputs;  // indices of the operands
  std::string label;        // the variable's name, the number as written, or the operator's symbol
  double constant = 0;      // "const" only
};

struct Expression {
  std::vector<ExprNode> nodes;
  int root = 0;
  std::vector<std::string> variables;  // in order of first appearance
};

// Throws InputError("expression", ...) naming the 1-based column and what was expected.
Expression parse_expression(const std::string& text);

// Values of every node, each operation rounded to T (double: fp64; float: every operation in
// fp32). Missing variables are InputError("values", ...); a domain error (log of a number <= 0,
// sqrt of a negative number, division by zero, a negative base to a non-integer power) or a
// value that overflows is InputError("expression", ...) naming the node.
template <class T>
std::vector<T> evaluate_nodes(const Expression& e, const std::map<std::string, double>& values);
extern template std::vector<double> evaluate_nodes<double>(const Expression&, const std::map<std::string, double>&);
extern template std::vector<float> evaluate_nodes<float>(const Expression&, const std::map<std::string, double>&);

// f at `values`, in fp64 or fp32 (the value of the root).
double evaluate_expression(const Expression& e, const std::map<std::string, double>& values, bool fp32);

struct AutogradNode {
  int id;
  std::string op;
  std::string label;
  std::vector<int> inputs;
  double value;
  double grad;  // d root / d node; 0 for a constant subexpression (not differentiated)
  std::vector<double> shares;  // per input: grad · d node / d input, what the reverse pass sent it (0: not sent)
};

struct AutogradResult {
  double value;
  std::map<std::string, double> gradients;  // variable -> d expression / d variable
  std::vector<AutogradNode> nodes;          // topological order, the root last
  int reverse_visits;                       // nodes the reverse pass visits (those that depend on a variable)
};

// Forward pass, then one reverse pass from the root (seed 1) in reverse topological order,
// in fp64. Values given for variables the expression does not use are ignored.
AutogradResult autograd(const Expression& e, const std::map<std::string, double>& values);

}  // namespace mlsys
