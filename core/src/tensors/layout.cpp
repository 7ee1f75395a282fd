#include "mlsys/tensors/layout.hpp"

#include <algorithm>
#include <string>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {

std::string list_text(const std::vector<long long>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

void check_shape(const std::vector<long long>& shape) {
  if (shape.size() > kMaxTensorDims)
    throw InputError("shape", "A tensor has at most 8 dimensions here; 'shape' has " + std::to_string(shape.size()) + ".");
  double elements = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 1 || shape[d] > kMaxTensorExtent)
      throw InputError("shape", "Dimension " + std::to_string(d) + " of 'shape' must be from 1 to 2^40; it is " +
                                    std::to_string(shape[d]) + ".");
    elements *= static_cast<double>(shape[d]);
  }
  if (elements > kMaxTensorElements)
    throw InputError("shape", "The tensor " + list_text(shape) + " has more than 2^53 elements.");
}

// A dimension index as PyTorch wraps it: -1 is the last of `dims`.
long long wrap_dim(long long d, std::size_t dims, const char* field) {
  const long long n = static_cast<long long>(dims);
  if (d < -n || d >= n)
    throw InputError(field, "Dimension " + std::to_string(d) + " in '" + field + "' is out of range for a tensor of " +
                                std::to_string(dims) + " dimensions (expected " + std::to_string(-n) + " to " +
                                std::to_string(n - 1) + ").");
  return d < 0 ? d + n : d;
}

}  // namespace

std::vector<long long> contiguous_strides(const std::vector<long long>& shape) {
  std::vector<long long> strides(shape.size());
  long long s = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = s;
    s *= shape[d] > 1 ? shape[d] : 1;  // an empty dimension (size 0) steps as size 1, as PyTorch's strides do
  }
  return strides;
}

bool is_contiguous(const std::vector<long long>& shape, const std::vector<long long>& strides) {
  long long expected = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 1) continue;  // any stride: the dimension is never stepped along
    if (strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

long long storage_offset(const std::vector<long long>& strides, const std::vector<long long>& index) {
  long long offset = 0;
  for (std::size_t d = 0; d < strides.size(); ++d) offset += index[d] * strides[d];
  return offset;
}

std::vector<long long> storage_offsets(const std::vector<long long>& shape, const std::vector<long long>& strides) {
  long long elements = 1;
  for (long long n : shape) elements *= n;
  std::vector<long long> out;
  out.reserve(static_cast<std::size_t>(elements));
  std::vector<long long> index(shape.size(), 0);
  for (long long e = 0; e < elements; ++e) {
    out.push_back(storage_offset(strides, index));
    for (std::size_t d = shape.size(); d-- > 0;) {  // odometer: the last index fastest
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

std::optional<std::vector<long long>> view_strides(const std::vector<long long>& shape,
                                                   const std::vector<long long>& strides,
                                                   const std::vector<long long>& new_shape) {
  std::vector<long long> out(new_shape.size(), 1);
  std::size_t next = new_shape.size();  // new dimensions still without a stride: [0, next)
  std::size_t end = shape.size();       // old dimensions not yet grouped: [0, end)
  while (end > 0) {
    // The run ending at end − 1: extend it left while the dimension before continues it.
    const long long base = strides[end - 1];
    std::size_t begin = end - 1;
    long long run = shape[begin];
    while (begin > 0 && (shape[begin - 1] == 1 || strides[begin - 1] == run * base)) run *= shape[--begin];
    // New dimensions from the right until they hold the run's elements (size-1 ones join).
    long long held = 1;
    while (next > 0 && (held < run || new_shape[next - 1] == 1)) {
      out[next - 1] = held * base;
      held *= new_shape[--next];
    }
    if (held != run) return std::nullopt;
    end = begin;
  }
  // What is left are new size-1 dimensions in front (all of them, for a 0-d tensor).
  while (next > 0 && new_shape[next - 1] == 1) --next;
  if (next != 0) return std::nullopt;
  return out;
}

TensorLayout tensor_layout(const TensorView& view, double element_bytes) {
  check_shape(view.shape);
  const std::size_t dims = view.shape.size();
  std::vector<long long> shape = view.shape;
  std::vector<long long> strides = contiguous_strides(shape);

  if (view.strides && view.permute)
    throw InputError("permute", "Give 'strides' or 'permute', not both: permute applies to the contiguous tensor of 'shape'.");
  if (view.strides) {
    if (view.strides->size() != dims)
      throw InputError("strides", "'strides' needs one stride per dimension of 'shape' (" + std::to_string(dims) +
                                      "); it has " + std::to_string(view.strides->size()) + ".");
    for (std::size_t d = 0; d < dims; ++d)
      if ((*view.strides)[d] < 0 || (*view.strides)[d] > kMaxTensorExtent)
        throw InputError("strides", "Stride " + std::to_string(d) + " must be from 0 to 2^40 elements (PyTorch has no "
                                                                    "negative strides); it is " +
                                        std::to_string((*view.strides)[d]) + ".");
    strides = *view.strides;
  }
  if (view.permute) {
    const auto& p = *view.permute;
    if (p.size() != dims)
      throw InputError("permute", "'permute' must list each of the " + std::to_string(dims) +
                                      " dimensions once; it has " + std::to_string(p.size()) + " entries.");
    std::vector<bool> seen(dims, false);
    std::vector<long long> s(dims), st(dims);
    for (std::size_t i = 0; i < dims; ++i) {
      const auto d = static_cast<std::size_t>(wrap_dim(p[i], dims, "permute"));
      if (seen[d])
        throw InputError("permute", "'permute' " + list_text(p) + " lists dimension " + std::to_string(d) +
                                        " twice; it must be a permutation of 0 to " + std::to_string(dims - 1) + ".");
      seen[d] = true;
      s[i] = shape[d];
      st[i] = strides[d];
    }
    shape = s;
    strides = st;
  }
  if (view.transpose) {
    const auto& t = *view.transpose;
    if (t.size() != 2)
      throw InputError("transpose", "'transpose' names the two dimensions to swap, such as [0, 1]; it has " +
                                        std::to_string(t.size()) + " entries.");
    const auto i = static_cast<std::size_t>(wrap_dim(t[0], dims, "transpose"));
    const auto j = static_cast<std::size_t>(wrap_dim(t[1], dims, "transpose"));
    std::swap(shape[i], shape[j]);
    std::swap(strides[i], strides[j]);
  }

  double last = 0;  // the largest offset, in a double first: sizes × strides may pass 2^63
  for (std::size_t d = 0; d < dims; ++d) last += static_cast<double>(shape[d] - 1) * static_cast<double>(strides[d]);
  if (last + 1 > kMaxTensorElements)
    throw InputError("strides", "The view reaches past storage offset 2^53; use smaller strides.");

  TensorLayout r;
  r.shape = shape;
  r.strides = strides;
  r.contiguous = is_contiguous(shape, strides);
  r.elements = 1;
  for (long long n : shape) r.elements *= n;
  r.element_bytes = element_bytes;
  r.bytes = static_cast<double>(r.elements) * element_bytes;
  r.contiguous_strides = contiguous_strides(shape);
  r.contiguous_copy_bytes = r.contiguous ? 0 : r.bytes;
  r.storage_elements = static_cast<long long>(last) + 1;
  r.storage_bytes = static_cast<double>(r.storage_elements) * element_bytes;
  if (r.elements <= static_cast<long long>(kMaxListedOffsets)) r.storage_offsets = storage_offsets(shape, strides);
  if (view.view) {
    const std::vector<long long>& v = *view.view;
    double n = 1;
    for (long long size : v) {
      if (size < 1 || size > kMaxTensorExtent)
        throw InputError("view", "The sizes of 'view' must be from 1 to 2^40; " + list_text(v) + " has " + std::to_string(size) + ".");
      n *= static_cast<double>(size);
    }
    if (n != static_cast<double>(r.elements))
      throw InputError("view", "'view' " + list_text(v) + " must hold the tensor's " + std::to_string(r.elements) +
                                   " elements, as .view() requires; it holds a different number.");
    r.view_strides = view_strides(shape, strides, v);
    r.view_possible = r.view_strides.has_value();
    r.reshape_copy_bytes = r.view_possible.value() ? 0.0 : r.bytes;
  }
  return r;
}

}  // namespace mlsys
