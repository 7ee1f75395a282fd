// Calculators of the backpropagation lesson: `autograd`, `gradient-check` (shared/API.md) and
// `backprop-memory`. Models in core/src/autograd/; this file only declares schemas and outputs.
#include "mlsys/autograd/backprop_memory.hpp"
#include "mlsys/autograd/expression.hpp"
#include "mlsys/autograd/gradient_check.hpp"
#include "mlsys/foundations/dtype.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(AutogradNode, MLSYS_OUT(id, "", "Index of the node (topological order: inputs first)"),
               MLSYS_OUT(op, "", "var, const, add, sub, mul, div, pow, neg, or a function: exp log tanh sigmoid relu sin cos sqrt"),
               MLSYS_OUT(label, "", "The variable's name, the number as written, or the operator's symbol"),
               MLSYS_OUT(inputs, "", "Ids of the operands"), MLSYS_OUT(value, "", "Value computed by the forward pass"),
               MLSYS_OUT(grad, "", "d expression / d node from the reverse pass (0 for a constant subexpression)"),
               MLSYS_OUT(shares, "", "Per input: grad × d node / d input, the share the reverse pass sent that input (0 when none)"));
MLSYS_DESCRIBE(AutogradResult, MLSYS_OUT(value, "", "The expression's value"),
               MLSYS_OUT(gradients, "", "d expression / d variable, for every variable of the expression"),
               MLSYS_OUT(nodes, "", "The graph in topological order, the root last"),
               MLSYS_OUT(reverse_visits, "", "Nodes the reverse pass visits: those that depend on a variable"));

MLSYS_DESCRIBE(StepError, MLSYS_OUT(step, "", "h"), MLSYS_OUT(abs_error, "", "|numeric − analytic| at this h"));
MLSYS_DESCRIBE(GradientCheck, MLSYS_OUT(variable, "", "The variable differentiated"),
               MLSYS_OUT(method, "", "forward or central"),
               MLSYS_OUT(dtype, "", "fp64 or fp32: every operation of f rounded to it"),
               MLSYS_OUT(step, "", "h used for numeric (best_step when no step is given)"),
               MLSYS_OUT(analytic, "", "Reverse-mode derivative, fp64"),
               MLSYS_OUT(numeric, "", "Finite difference: (f(x+h) − f(x))/h or (f(x+h) − f(x−h))/2h"),
               MLSYS_OUT(abs_error, "", "|numeric − analytic|"),
               MLSYS_OUT(rel_error, "", "|numeric − analytic| / max(|numeric|, |analytic|) (0 when both are 0)"),
               MLSYS_OUT(sweep, "", "Without step: abs_error for h = 10^-1 … 10^-12 (steps leaving f's domain left out)"),
               MLSYS_OUT(best_step, "", "Without step: the sweep's h with the smallest abs_error"));

MLSYS_DESCRIBE(CheckpointPlan, MLSYS_OUT(k, "", "Layers per segment (0: no checkpointing)"),
               MLSYS_OUT(checkpoints, "", "Layer inputs kept: ceil(layers / k)"),
               MLSYS_OUT(stored_bytes, "B", "Activation bytes held at the end of the forward pass"),
               MLSYS_OUT(peak_bytes, "B", "Peak activation bytes: stored + one segment re-run from its checkpoint (k · layer_bytes − checkpoint_bytes)"),
               MLSYS_OUT(recomputed_layers, "", "Layer forwards run again during backward (all of them with checkpoints)"),
               MLSYS_OUT(recompute_flops, "FLOP", "Extra forward FLOPs: recomputed_layers · 2·b·w²"),
               MLSYS_OUT(recompute_fraction, "", "recompute_flops / training_flops"));
MLSYS_DESCRIBE(DepthPoint, MLSYS_OUT(layers, "", "Depth L"),
               MLSYS_OUT(none_bytes, "B", "Peak activation bytes without checkpointing"),
               MLSYS_OUT(every_k_bytes, "B", "Peak with a checkpoint every k layers"),
               MLSYS_OUT(sqrt_bytes, "B", "Peak with k = ceil(sqrt(L))"));
MLSYS_DESCRIBE(BackpropMemory, MLSYS_OUT(bytes_per_element, "B", "Size of one activation value"),
               MLSYS_OUT(layer_bytes, "B", "One layer keeps 2·b·w values: its input and its pre-activation"),
               MLSYS_OUT(checkpoint_bytes, "B", "One checkpoint: a layer input, b·w values"),
               MLSYS_OUT(weight_bytes, "B", "The L weight matrices, L·w² values, for comparison"),
               MLSYS_OUT(forward_flops, "FLOP", "Forward matmuls: 2·b·w²·L"),
               MLSYS_OUT(training_flops, "FLOP", "Forward + backward: 3 × forward_flops"),
               MLSYS_OUT(none, "", "No checkpointing: every layer's activations kept"),
               MLSYS_OUT(every_k, "", "A checkpoint every k layers (the k given)"),
               MLSYS_OUT_AS("sqrt", sqrt_l, "", "k = ceil(sqrt(L)) (Chen et al. 2016)"),
               MLSYS_OUT(best_k, "", "The k with the smallest peak"),
               MLSYS_OUT(best_peak_bytes, "B", "Its peak activation bytes"),
               MLSYS_OUT(curve, "", "Peak activation bytes against depth 1 … L (at most 256 depths)"));

namespace {

Field expression_field(const char* def) {
  return string_field("expression",
                      "Expression over variables: numbers, + - * / ^ (right-associative; -x^2 = -(x^2)), parentheses, "
                      "exp log tanh sigmoid relu sin cos sqrt; at most 1,000 characters",
                      def, {});
}

Field values_field(json def) {
  return number_map_field("values", "Value of each variable (object: name → number); values of unused names are ignored",
                          std::move(def));
}

}  // namespace

void add_autograd_calculators(Calculators& out) {
  out.add("autograd",
          "Reverse-mode differentiation executed on a parsed expression: the forward pass computes every node's "
          "value, one reverse pass from the root (gradient 1) sends each node's gradient to its inputs by the chain "
          "rule. The tree is kept as written; every occurrence of a variable is one leaf, so its gradient "
          "accumulates over its uses.",
          {expression_field("x^2*y + sin(x)"), values_field({{"x", 2.0}, {"y", 3.0}})},
          [](const Inputs& in) { return autograd(parse_expression(in.str("expression")), in.number_map("values")); });

  out.add("gradient-check",
          "Checks the reverse-mode derivative with a finite difference, forward (f(x+h) − f(x))/h or central "
          "(f(x+h) − f(x−h))/2h, with f evaluated in fp64 or fp32. Without step, the error for h = 10^-1 … 10^-12: "
          "truncation falls as h (forward) or h² (central), rounding grows as eps/h.",
          {expression_field("exp(x)"), values_field({{"x", 1.0}}),
           optional(string_field("variable", "The variable to differentiate (default: the expression's only one)",
                                 json(), {})),
           optional(number_field("step", "", "h; omit for the sweep over h = 10^-1 … 10^-12", json(), 1e-300, 1e6)),
           string_field("method", "forward or central difference", "central", {"forward", "central"}),
           string_field("dtype", "Precision f is evaluated in (every operation rounded to it)", "fp64",
                        {"fp64", "fp32"})},
          [](const Inputs& in) {
            return gradient_check(parse_expression(in.str("expression")), in.number_map("values"),
                                  in.has("variable") ? in.str("variable") : "", in.num_if("step"), in.str("method"),
                                  in.str("dtype"));
          });

  out.add("backprop-memory",
          "Activation memory backpropagation keeps for an L-layer MLP (width w, batch b): no checkpointing, a "
          "checkpoint every k layers, and k = ceil(sqrt(L)) (Chen et al. 2016): peak bytes and the forward compute "
          "spent again, and the peak against depth.",
          {integer_field("layers", "", "Layers L", 64, 1, kMaxBackpropLayers),
           integer_field("width", "", "Width w: features of every layer", 4096, 1, 1 << 20),
           integer_field("batch", "", "Batch b: examples per step", 32, 1, 1 << 20), dtype_field("bf16"),
           integer_field("k", "", "Layers per checkpointed segment (every_k)", 4, 1, kMaxBackpropLayers)},
          [](const Inputs& in) {
            return backprop_memory(in.integer("layers"), static_cast<double>(in.integer("width")),
                                   static_cast<double>(in.integer("batch")), dtype_bytes(in.str("dtype")),
                                   in.integer("k"));
          });
}

}  // namespace mlsys::api
