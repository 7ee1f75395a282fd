// NumPy broadcasting (numpy.org user guide, "Broadcasting"): align the two shapes from the
// right; each pair of dimensions must be equal or one of them 1, and the result takes the
// larger; a missing leading dimension counts as 1. A size of 0 (an empty tensor) is legal:
// it matches 0 or 1, and 1 against 0 gives 0. Each input is then read through strides
// that are its contiguous strides with 0 where it is stretched (size 1 against n > 1) or where
// the dimension was added, as numpy.broadcast_to and torch.Tensor.expand do (in elements
// here, where NumPy counts bytes).
#pragma once
#include <vector>

namespace mlsys {

struct Broadcast {
  std::vector<long long> shape;
  std::vector<long long> a_strides_broadcast;  // elements; 0 where a is stretched or padded
  std::vector<long long> b_strides_broadcast;
  long long elements = 0;    // of the result
  long long a_elements = 0;  // of each input
  long long b_elements = 0;
  // Result dimensions where a's (b's) stride is 0: stretched from 1, or added in front.
  std::vector<long long> a_broadcast_dims;
  std::vector<long long> b_broadcast_dims;
};

// Throws InputError for shapes of more than 8 dimensions, sizes < 0 (field: the shape), and
// incompatible pairs (field "b", the operand aligned against a), naming both dimensions (their
// positions in a and in b, counted from the left) and sizes.
Broadcast broadcast_shapes(const std::vector<long long>& a, const std::vector<long long>& b);

}  // namespace mlsys
