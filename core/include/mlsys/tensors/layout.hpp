// Strided tensor layout with PyTorch's semantics: a tensor is a storage (a flat array of
// elements) plus a shape and a stride per dimension, in elements; element [i0, i1, ...] lives
// at storage offset Σ i_d · stride_d. A contiguous (row-major) tensor's stride of dimension d
// is the product of the sizes after d ([2, 3, 4] -> [12, 4, 1], as torch.Tensor.stride()
// documents); permute and transpose reorder shape and strides without moving data, so their
// result is generally not contiguous. Contiguity follows c10's TensorImpl::compute_contiguous:
// walking from the last dimension, each dimension of size > 1 must have the stride of the
// product of the sizes after it; a dimension of size 1 may have any stride.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

namespace mlsys {

// Limits of the model: at most 8 dimensions, each size and stride at most 2^40, and at most
// 2^53 elements and storage offsets (so every count is exact in a double, as in JavaScript).
inline constexpr std::size_t kMaxTensorDims = 8;
inline constexpr long long kMaxTensorExtent = 1LL << 40;
inline constexpr double kMaxTensorElements = 9007199254740992.0;  // 2^53
inline constexpr std::size_t kMaxListedOffsets = 4096;  // storage_offsets only up to this many elements

// Row-major strides of a contiguous tensor of `shape`, in elements ([2, 3, 4] -> [12, 4, 1]).
std::vector<long long> contiguous_strides(const std::vector<long long>& shape);

// PyTorch's is_contiguous: size-1 dimensions' strides are ignored.
bool is_contiguous(const std::vector<long long>& shape, const std::vector<long long>& strides);

// Storage offset of element `index` (one index per dimension, each within its size).
long long storage_offset(const std::vector<long long>& strides, const std::vector<long long>& index);

// Offsets of every element in logical row-major order (the last index fastest); the naive
// reference of the layout: one multiply-add per dimension per element.
std::vector<long long> storage_offsets(const std::vector<long long>& shape, const std::vector<long long>& strides);

// A view of a tensor: `strides` (explicit, as torch.as_strided) or `permute` (applied to the
// contiguous tensor of `shape`), at most one of them, then `transpose` [i, j] swapping two
// dimensions. Dimension indices may be negative, counted from the end as in PyTorch.
struct TensorView {
  std::vector<long long> shape;
  std::optional<std::vector<long long>> strides;
  std::optional<std::vector<long long>> permute;
  std::optional<std::vector<long long>> transpose;
  std::optional<std::vector<long long>> view;  // a new shape, as tensor.view(...) after the above
};

struct TensorLayout {
  std::vector<long long> shape;    // after the view
  std::vector<long long> strides;  // elements, after the view
  bool contiguous = false;
  long long elements = 0;
  double element_bytes = 0;
  double bytes = 0;  // elements × element_bytes
  std::vector<long long> contiguous_strides;  // of a contiguous tensor of the view's shape
  // Bytes a .contiguous() call writes: 0 when already contiguous (it returns the tensor itself),
  // else the whole new tensor, elements × element_bytes (every element is copied once).
  double contiguous_copy_bytes = 0;
  // The smallest storage the view fits in: 1 + Σ (size_d − 1) · stride_d elements.
  long long storage_elements = 0;
  double storage_bytes = 0;
  std::optional<std::vector<long long>> storage_offsets;  // only when elements ≤ 4096
  // With a `view` shape: whether .view() gives it without a copy, and the strides it gets (null
  // when it cannot: .reshape() then copies the whole tensor, reshape_copy_bytes).
  std::optional<bool> view_possible;
  std::optional<std::vector<long long>> view_strides;
  std::optional<double> reshape_copy_bytes;
};

// The strides that view a tensor of (shape, strides) as new_shape over the same storage, or
// nullopt when no strides can (PyTorch's rule, documented at torch.Tensor.view): the old
// dimensions fall into runs laid out one after the other (stride[i] = stride[i+1] · size[i+1],
// a size-1 dimension joining any run), and new_shape must split into groups of the same
// element counts, run by run. Splitting a dimension always works; merging only within a run.
std::optional<std::vector<long long>> view_strides(const std::vector<long long>& shape,
                                                   const std::vector<long long>& strides,
                                                   const std::vector<long long>& new_shape);

// Throws InputError (naming `shape`, `strides`, `permute` or `transpose`) for a view that is
// not well formed: more than 8 dimensions, a size < 1, strides of another length or negative
// (PyTorch's as_strided rejects negative strides), a permutation that does not list every
// dimension once, a transpose that is not two dimensions in range, or a tensor past the limits.
TensorLayout tensor_layout(const TensorView& view, double element_bytes);

}  // namespace mlsys
