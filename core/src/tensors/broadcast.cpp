#include "mlsys/tensors/broadcast.hpp"

#include <algorithm>
#include <string>

#include "mlsys/foundations/input_error.hpp"
#include "mlsys/tensors/layout.hpp"

namespace mlsys {

namespace {

long long checked_elements(const std::vector<long long>& shape, const char* field) {
  if (shape.size() > kMaxTensorDims)
    throw InputError(field, std::string("A shape has at most 8 dimensions here; '") + field + "' has " +
                                std::to_string(shape.size()) + ".");
  double elements = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0 || shape[d] > kMaxTensorExtent)
      throw InputError(field, "Dimension " + std::to_string(d) + " of '" + field + "' must be from 0 to 2^40; it is " +
                                  std::to_string(shape[d]) + ".");
    elements *= static_cast<double>(shape[d]);
  }
  if (elements > kMaxTensorElements) throw InputError(field, std::string("'") + field + "' has more than 2^53 elements.");
  return static_cast<long long>(elements);
}

}  // namespace

Broadcast broadcast_shapes(const std::vector<long long>& a, const std::vector<long long>& b) {
  Broadcast r;
  r.a_elements = checked_elements(a, "a");
  r.b_elements = checked_elements(b, "b");
  const std::size_t n = std::max(a.size(), b.size());
  const std::size_t pad_a = n - a.size(), pad_b = n - b.size();
  const std::vector<long long> sa = contiguous_strides(a), sb = contiguous_strides(b);
  r.shape.assign(n, 1);
  r.a_strides_broadcast.assign(n, 0);
  r.b_strides_broadcast.assign(n, 0);
  double elements = 1;
  for (std::size_t d = 0; d < n; ++d) {
    const bool in_a = d >= pad_a, in_b = d >= pad_b;
    const long long x = in_a ? a[d - pad_a] : 1, y = in_b ? b[d - pad_b] : 1;
    // The error names b, the operand aligned against a (the message names both dimensions).
    if (x != y && x != 1 && y != 1)
      throw InputError("b", "Shapes do not broadcast: a's dimension " + std::to_string(d - pad_a) + " (size " +
                               std::to_string(x) + ") and b's dimension " + std::to_string(d - pad_b) + " (size " +
                               std::to_string(y) + ") differ and neither is 1.");
    // Size 1 takes the other's size, 0 included: 1 against 0 gives 0, as in NumPy and PyTorch.
    const long long out = x == 1 ? y : x;
    r.shape[d] = out;
    elements *= static_cast<double>(out);
    // An input keeps its stride where its size is the result's; else it is read again and again.
    if (in_a && x == out) r.a_strides_broadcast[d] = sa[d - pad_a];
    else r.a_broadcast_dims.push_back(static_cast<long long>(d));
    if (in_b && y == out) r.b_strides_broadcast[d] = sb[d - pad_b];
    else r.b_broadcast_dims.push_back(static_cast<long long>(d));
  }
  if (elements > kMaxTensorElements)
    throw InputError("b", "The broadcast of a and b has more than 2^53 elements.");
  r.elements = static_cast<long long>(elements);
  return r;
}

}  // namespace mlsys
