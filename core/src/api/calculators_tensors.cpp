// Calculators of the lesson tensors-and-layout: `tensor-layout` and `broadcast`
// (shared/API.md). Models in core/src/tensors/; this file only declares schemas and outputs.
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/tensors/broadcast.hpp"
#include "mlsys/tensors/layout.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(TensorLayout, MLSYS_OUT(shape, "", "Sizes after the view (permute or transpose reorders them)"),
               MLSYS_OUT(strides, "", "Elements to step in storage per index of each dimension, after the view"),
               MLSYS_OUT(contiguous, "",
                         "PyTorch's is_contiguous: the strides are row-major for the shape (size-1 dimensions' "
                         "strides ignored)"),
               MLSYS_OUT(elements, "", "Product of the sizes (1 for a 0-d tensor)"),
               MLSYS_OUT(element_bytes, "B", "Bytes of one element of the dtype (int4 is 0.5)"),
               MLSYS_OUT(bytes, "B", "elements × element_bytes"),
               MLSYS_OUT(contiguous_strides, "", "Strides of a contiguous tensor of the same shape (what .contiguous() gives)"),
               MLSYS_OUT(contiguous_copy_bytes, "B",
                         "Bytes a .contiguous() call writes into new storage: 0 when already contiguous (it returns "
                         "the tensor itself), else the whole tensor, elements × element_bytes"),
               MLSYS_OUT(storage_elements, "",
                         "Smallest storage the view fits in: 1 + Σ (size − 1) · stride (fewer than elements when "
                         "elements share storage, as with a stride of 0)"),
               MLSYS_OUT(storage_bytes, "B", "storage_elements × element_bytes"),
               MLSYS_OUT(storage_offsets, "",
                         "Storage offset (elements) of each element in logical row-major order, the last index "
                         "fastest; only when elements ≤ 4096"),
               MLSYS_OUT(view_possible, "", "With view: whether .view(view) succeeds without a copy"),
               MLSYS_OUT(view_strides, "",
                         "With view: the strides (elements) of the result of .view(view); null when it fails"),
               MLSYS_OUT(reshape_copy_bytes, "B",
                         "With view: bytes .reshape(view) copies: 0 when it is a view, else the whole tensor"));

MLSYS_DESCRIBE(Broadcast, MLSYS_OUT(shape, "", "Broadcast result: the shapes aligned from the right, each size the larger"),
               MLSYS_OUT(a_strides_broadcast, "",
                         "a's contiguous strides (elements) expanded to the result shape: 0 where a is stretched "
                         "from 1 or the dimension is added in front"),
               MLSYS_OUT(b_strides_broadcast, "", "The same for b"),
               MLSYS_OUT(elements, "", "Elements of the result"), MLSYS_OUT(a_elements, "", "Elements of a"),
               MLSYS_OUT(b_elements, "", "Elements of b"),
               MLSYS_OUT(a_broadcast_dims, "", "Result dimensions where a's stride is 0 (stretched or added)"),
               MLSYS_OUT(b_broadcast_dims, "", "Result dimensions where b's stride is 0 (stretched or added)"));

namespace {

constexpr long long kMaxDims = static_cast<long long>(kMaxTensorDims);

// Shapes have defaults (the API's [2, 3, 4]; NumPy's 8×1×6×1 with 7×1×5) so that a form or a
// seed built from the schema alone starts on a meaningful example.
Field shape_field(const std::string& name, const std::string& what, const std::vector<long long>& example,
                  long long min_size = 1) {
  return integer_list_field(name, "",
                            what + ": a list of at most 8 " + (min_size == 0 ? "sizes, 0 (empty) allowed" : "positive sizes") +
                                " ([] is a 0-d tensor)",
                            json(example), min_size, kMaxTensorExtent, kMaxTensorDims);
}

std::optional<std::vector<long long>> list_if(const Inputs& in, const std::string& name) {
  return in.has(name) ? std::optional<std::vector<long long>>(in.integers(name)) : std::nullopt;
}

}  // namespace

void add_tensors_calculators(Calculators& out) {
  out.add("tensor-layout",
          "Shape, strides (elements) and contiguity of a tensor view with PyTorch's semantics: contiguous, with "
          "explicit strides (as torch.as_strided), permuted, and/or with two dimensions transposed; its bytes, "
          "what .contiguous() would copy, and each element's storage offset.",
          {shape_field("shape", "Sizes of the tensor", {2, 3, 4}), dtype_field("fp32"),
           optional(integer_list_field("strides", "",
                                       "Explicit strides in elements, one per dimension, each 0 to 2^40 (PyTorch "
                                       "has no negative strides); the storage is taken as large as the view needs "
                                       "(storage_elements). Not with permute",
                                       json(), 0, kMaxTensorExtent, kMaxTensorDims)),
           optional(integer_list_field("permute", "",
                                       "A permutation of the dimensions applied to the contiguous tensor of shape, "
                                       "as tensor.permute (negative dims count from the end)",
                                       json(), -kMaxDims, kMaxDims - 1, kMaxTensorDims)),
           optional(integer_list_field("transpose", "",
                                       "Two dimensions [i, j] to swap, as tensor.transpose(i, j), after strides or "
                                       "permute (negative dims count from the end)",
                                       json(), -kMaxDims, kMaxDims - 1, 2)),
           optional(integer_list_field("view", "",
                                       "A new shape with the same number of elements, as tensor.view(...) of the "
                                       "result (PyTorch's rule: it fails where it would merge dimensions that are not "
                                       "laid out one after the other)",
                                       json(), 1, kMaxTensorExtent, kMaxTensorDims))},
          [](const Inputs& in) {
            TensorView v{in.integers("shape"), list_if(in, "strides"), list_if(in, "permute"), list_if(in, "transpose"),
                         list_if(in, "view")};
            return tensor_layout(v, dtype_bytes(in.str("dtype")));
          });

  out.add("broadcast",
          "NumPy broadcasting of two shapes: the result shape and each input's strides (elements) over it, 0 where "
          "the input is stretched or the dimension added; incompatible shapes are an error naming both dimensions.",
          {shape_field("a", "Shape of the first operand", {8, 1, 6, 1}, 0),
           shape_field("b", "Shape of the second operand", {7, 1, 5}, 0)},
          [](const Inputs& in) { return broadcast_shapes(in.integers("a"), in.integers("b")); });
}

}  // namespace mlsys::api
