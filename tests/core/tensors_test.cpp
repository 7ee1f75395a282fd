// tensor-layout and broadcast against the documentation of PyTorch and NumPy.
// PyTorch (pytorch.org/docs/stable): torch.Tensor.stride (x = torch.tensor([[1, 2, 3, 4, 5],
// [6, 7, 8, 9, 10]]): x.stride() == (5, 1)), torch.permute (a (2, 3, 5) tensor permuted by
// (2, 0, 1) has size (5, 2, 3)), torch.transpose and torch.t (the result shares the input's
// storage; t() of a 2-D tensor is transpose(0, 1)), torch.as_strided (as_strided(x, (2, 2),
// (1, 2)) of a 3×3 x reads x's storage at 0, 2, 1, 3), torch.Tensor.expand ((3, 1) expanded to
// (3, 4) gets stride 0 in the new columns), "Tensor Views" (base.transpose(0, 1) of a 2×2 base
// is not contiguous), and c10's TensorImpl::compute_contiguous (size-1 dimensions' strides are
// ignored). NumPy (numpy.org/doc/stable/user/basics.broadcasting.html): 256×256×3 with 3 gives
// 256×256×3; 8×1×6×1 with 7×1×5 gives 8×7×6×5; 5×4 with 1 and with 4, 15×3×5 with 15×1×5,
// with 3×5 and with 3×1 give the larger shape; 3 with 4 and 2×1 with 8×4×3 do not broadcast,
// nor (4, 3) with (4,).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/tensors/broadcast.hpp"
#include "mlsys/tensors/layout.hpp"
#include "test_support.hpp"

using mlsys::calc;
using mlsys::json;
using mlsys::test::error_of;
using Dims = std::vector<long long>;

namespace {

json layout(const json& input) { return calc("tensor-layout", input); }
Dims dims(const json& j) { return j.get<Dims>(); }

}  // namespace

TEST(TensorLayout, ContiguousStridesAsPyTorchDocuments) {
  const json r = layout({{"shape", {2, 3, 4}}});  // API.md: a contiguous [2,3,4] has strides [12,4,1]
  EXPECT_EQ(dims(r["strides"]), (Dims{12, 4, 1}));
  EXPECT_TRUE(r["contiguous"].get<bool>());
  EXPECT_EQ(r["elements"], 24);
  EXPECT_EQ(r["bytes"], 96.0);  // fp32 by default
  EXPECT_EQ(r["contiguous_copy_bytes"], 0.0);
  EXPECT_EQ(r["storage_elements"], 24);
  EXPECT_EQ(dims(layout({{"shape", {2, 5}}})["strides"]), (Dims{5, 1}));  // torch.Tensor.stride: (5, 1)
}

TEST(TensorLayout, PermuteAsTorchPermute) {
  const json r = layout({{"shape", {2, 3, 5}}, {"permute", {2, 0, 1}}, {"dtype", "bf16"}});
  EXPECT_EQ(dims(r["shape"]), (Dims{5, 2, 3}));  // torch.permute docs: torch.Size([5, 2, 3])
  EXPECT_EQ(dims(r["strides"]), (Dims{1, 15, 5}));  // x's (15, 5, 1) in the new order
  EXPECT_FALSE(r["contiguous"].get<bool>());
  EXPECT_EQ(dims(r["contiguous_strides"]), (Dims{6, 3, 1}));
  EXPECT_EQ(r["bytes"], 60.0);
  EXPECT_EQ(r["contiguous_copy_bytes"], 60.0);  // not contiguous: the whole tensor is copied
  EXPECT_EQ(r["storage_elements"], 30);          // a permute moves no data
  // Negative dims count from the end, as in PyTorch: (-1, 0, 1) is (2, 0, 1).
  EXPECT_EQ(layout({{"shape", {2, 3, 5}}, {"permute", {-1, 0, 1}}})["strides"], r["strides"]);
}

TEST(TensorLayout, TransposeAndT) {
  // t() of a 2-D tensor is transpose(0, 1): strides swap, the storage is shared.
  const json t = layout({{"shape", {2, 3}}, {"transpose", {0, 1}}});
  EXPECT_EQ(dims(t["shape"]), (Dims{3, 2}));
  EXPECT_EQ(dims(t["strides"]), (Dims{1, 3}));
  EXPECT_FALSE(t["contiguous"].get<bool>());
  EXPECT_EQ(dims(t["storage_offsets"]), (Dims{0, 3, 1, 4, 2, 5}));  // column by column of the original
  // "Tensor Views": base.transpose(0, 1) of a 2×2 base is not contiguous.
  EXPECT_FALSE(layout({{"shape", {2, 2}}, {"transpose", {0, 1}}})["contiguous"].get<bool>());
  // transpose(-1, -2) is transpose(1, 2) for 3 dimensions.
  EXPECT_EQ(layout({{"shape", {2, 3, 4}}, {"transpose", {-1, -2}}})["strides"], json({12, 1, 4}));
  // Transpose after permute composes: permute (2, 0, 1) then swap 0 and 2.
  EXPECT_EQ(layout({{"shape", {2, 3, 5}}, {"permute", {2, 0, 1}}, {"transpose", {0, 2}}})["strides"], json({5, 15, 1}));
}

TEST(TensorLayout, SizeOneDimensionsIgnoreTheirStride) {
  // c10 compute_contiguous: [2, 1, 3] with any stride on the size-1 dimension is contiguous.
  EXPECT_TRUE(layout({{"shape", {2, 1, 3}}, {"strides", {3, 99, 1}}})["contiguous"].get<bool>());
  // So swapping a size-1 dimension keeps a tensor contiguous: [4, 1] -> [1, 4], strides [1, 1].
  const json r = layout({{"shape", {4, 1}}, {"transpose", {0, 1}}});
  EXPECT_EQ(dims(r["strides"]), (Dims{1, 1}));
  EXPECT_TRUE(r["contiguous"].get<bool>());
  EXPECT_EQ(r["contiguous_copy_bytes"], 0.0);
  EXPECT_FALSE(layout({{"shape", {2, 3}}, {"strides", {3, 2}}})["contiguous"].get<bool>());
}

TEST(TensorLayout, ExplicitStridesAsAsStridedAndExpand) {
  // torch.as_strided(x, (2, 2), (1, 2)) of a 3×3 x: x[0,0], x[1,0] / x[0,1], x[1,1] of its storage.
  const json a = layout({{"shape", {2, 2}}, {"strides", {1, 2}}});
  EXPECT_EQ(dims(a["storage_offsets"]), (Dims{0, 2, 1, 3}));
  EXPECT_EQ(a["storage_elements"], 4);
  // torch.Tensor.expand: (3, 1) with stride (1, 1) expanded to (3, 4) reads stride (1, 0).
  const json e = layout({{"shape", {3, 4}}, {"strides", {1, 0}}, {"dtype", "fp16"}});
  EXPECT_FALSE(e["contiguous"].get<bool>());
  EXPECT_EQ(e["storage_elements"], 3);  // 12 elements over 3 stored values
  EXPECT_EQ(e["storage_bytes"], 6.0);
  EXPECT_EQ(e["contiguous_copy_bytes"], 24.0);
  EXPECT_EQ(dims(e["storage_offsets"]), (Dims{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2}));
}

TEST(TensorLayout, OffsetsAgreeWithTheClosedForm) {
  const Dims shape = {3, 4, 5}, strides = {1, 15, 3};  // any strides: offset = i·1 + j·15 + k·3
  const auto offsets = mlsys::storage_offsets(shape, strides);
  ASSERT_EQ(offsets.size(), 60u);
  std::size_t n = 0;
  for (long long i = 0; i < 3; ++i)
    for (long long j = 0; j < 4; ++j)
      for (long long k = 0; k < 5; ++k) EXPECT_EQ(offsets[n++], i * 1 + j * 15 + k * 3);
}

TEST(TensorLayout, DefaultsAreTheApiExamples) {
  EXPECT_EQ(layout(json::object())["strides"], json({12, 4, 1}));
  EXPECT_EQ(calc("broadcast", json::object())["shape"], json({8, 7, 6, 5}));
}

TEST(TensorLayout, DtypesZeroDimsAndTheOffsetsLimit) {
  EXPECT_EQ(layout({{"shape", {3, 5}}, {"dtype", "int4"}})["bytes"], 7.5);
  EXPECT_EQ(layout({{"shape", {1024}}, {"dtype", "fp8-e4m3"}})["bytes"], 1024.0);
  EXPECT_EQ(layout({{"shape", {2, 2}}, {"dtype", "fp64"}})["bytes"], 32.0);
  const json scalar = layout({{"shape", json::array()}});  // a 0-d tensor, as torch.tensor(3.0)
  EXPECT_EQ(scalar["elements"], 1);
  EXPECT_TRUE(scalar["contiguous"].get<bool>());
  EXPECT_EQ(dims(scalar["storage_offsets"]), (Dims{0}));
  EXPECT_TRUE(layout({{"shape", {64, 64}}})["storage_offsets"].is_array());  // 4096 elements: listed
  EXPECT_FALSE(layout({{"shape", {4097}}}).contains("storage_offsets"));
  const json big = layout({{"shape", {1LL << 20, 1LL << 20}}, {"transpose", {0, 1}}});
  EXPECT_EQ(big["elements"], 1LL << 40);
  EXPECT_EQ(big["contiguous_copy_bytes"], 4.0 * (1LL << 40));
}

TEST(TensorLayout, BadInputIsAnErrorNamingTheField) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"({"shape": 3})", "shape"},
      {R"({"shape": [2, 0]})", "shape"},
      {R"({"shape": [2, -3]})", "shape"},
      {R"({"shape": [2.5]})", "shape"},
      {R"({"shape": ["2"]})", "shape"},
      {R"({"shape": [1, 1, 1, 1, 1, 1, 1, 1, 1]})", "shape"},
      {R"({"shape": [1099511627776, 1099511627776]})", "shape"},
      {R"({"shape": [2, 3], "strides": [3]})", "strides"},
      {R"({"shape": [2, 3], "strides": [3, -1]})", "strides"},
      {R"({"shape": [1073741824, 1048576], "strides": [1099511627776, 1]})", "strides"},
      {R"({"shape": [2, 3], "permute": [0, 0]})", "permute"},
      {R"({"shape": [2, 3], "permute": [0]})", "permute"},
      {R"({"shape": [2, 3], "permute": [0, 2]})", "permute"},
      {R"({"shape": [2, 3], "permute": [1, 0], "strides": [3, 1]})", "permute"},
      {R"({"shape": [2, 3], "transpose": [0, 2]})", "transpose"},
      {R"({"shape": [2, 3], "transpose": [-3, 0]})", "transpose"},
      {R"({"shape": [2, 3], "transpose": [0]})", "transpose"},
      {R"({"shape": [2, 3], "transpose": [0, 1, 1]})", "transpose"},
      {R"({"shape": [], "transpose": [0, 0]})", "transpose"},
      {R"({"shape": [2, 3], "dtype": "fp12"})", "dtype"},
      {R"({"shape": [2, 3], "stride": [3, 1]})", "stride"},
  };
  for (const auto& [text, field] : bad) EXPECT_EQ(error_of("tensor-layout", text)["field"], field) << text;
}

TEST(Broadcast, NumPyUserGuideExamples) {
  const auto shape = [](const Dims& a, const Dims& b) { return mlsys::broadcast_shapes(a, b).shape; };
  EXPECT_EQ(shape({256, 256, 3}, {3}), (Dims{256, 256, 3}));
  EXPECT_EQ(shape({8, 1, 6, 1}, {7, 1, 5}), (Dims{8, 7, 6, 5}));
  EXPECT_EQ(shape({5, 4}, {1}), (Dims{5, 4}));
  EXPECT_EQ(shape({5, 4}, {4}), (Dims{5, 4}));
  EXPECT_EQ(shape({15, 3, 5}, {15, 1, 5}), (Dims{15, 3, 5}));
  EXPECT_EQ(shape({15, 3, 5}, {3, 5}), (Dims{15, 3, 5}));
  EXPECT_EQ(shape({15, 3, 5}, {3, 1}), (Dims{15, 3, 5}));
  EXPECT_EQ(shape({3}, {}), (Dims{3}));  // a scalar: "a * b" with b = 2.0
}

TEST(Broadcast, StridesAreZeroWhereStretchedOrAdded) {
  const json r = calc("broadcast", {{"a", {8, 1, 6, 1}}, {"b", {7, 1, 5}}});
  EXPECT_EQ(dims(r["shape"]), (Dims{8, 7, 6, 5}));
  EXPECT_EQ(dims(r["a_strides_broadcast"]), (Dims{6, 0, 1, 0}));  // a contiguous: (6, 6, 1, 1)
  EXPECT_EQ(dims(r["b_strides_broadcast"]), (Dims{0, 5, 0, 1}));  // b contiguous: (5, 5, 1); dim 0 added
  EXPECT_EQ(dims(r["a_broadcast_dims"]), (Dims{1, 3}));
  EXPECT_EQ(dims(r["b_broadcast_dims"]), (Dims{0, 2}));
  EXPECT_EQ(r["elements"], 1680);
  EXPECT_EQ(r["a_elements"], 48);
  EXPECT_EQ(r["b_elements"], 35);
  // A size-1 dimension matched by 1 is not stretched: it keeps its contiguous stride.
  const json s = calc("broadcast", {{"a", {2, 1}}, {"b", {1, 1}}});
  EXPECT_EQ(dims(s["a_strides_broadcast"]), (Dims{1, 1}));
  EXPECT_EQ(dims(s["b_strides_broadcast"]), (Dims{0, 1}));
}

// Empty tensors broadcast too (NumPy user guide: sizes equal or one of them 1, so 0 with 1 gives
// 0 and 0 with 5 fails; torch.broadcast_shapes((0, 3), (1, 3)) is (0, 3)). Strides as PyTorch
// gives an empty tensor: an empty dimension steps as size 1.
TEST(Broadcast, EmptyDimensionsAreLegal) {
  const json r = calc("broadcast", {{"a", {0, 3}}, {"b", {1, 3}}});
  EXPECT_EQ(dims(r["shape"]), (Dims{0, 3}));
  EXPECT_EQ(r["elements"], 0);
  EXPECT_EQ(r["a_elements"], 0);
  EXPECT_EQ(dims(r["a_strides_broadcast"]), (Dims{3, 1}));
  EXPECT_EQ(dims(r["b_strides_broadcast"]), (Dims{0, 1}));
  EXPECT_EQ(dims(r["b_broadcast_dims"]), (Dims{0}));
  EXPECT_EQ(dims(calc("broadcast", {{"a", {0}}, {"b", {5, 1}}})["shape"]), (Dims{5, 0}));
  EXPECT_EQ(dims(calc("broadcast", {{"a", {2, 0, 4}}, {"b", {4}}})["a_strides_broadcast"]), (Dims{4, 4, 1}));
  EXPECT_EQ(error_of("broadcast", R"({"a": [0], "b": [5]})")["message"],
            "Shapes do not broadcast: a's dimension 0 (size 0) and b's dimension 0 (size 5) differ and neither is 1.");
}

TEST(Broadcast, IncompatibleShapesNameBothDimensions) {
  // The user guide's 3 vs 4, its 2×1 vs 8×4×3, and (4, 3) vs (4,).
  EXPECT_EQ(error_of("broadcast", R"({"a": [3], "b": [4]})")["message"],
            "Shapes do not broadcast: a's dimension 0 (size 3) and b's dimension 0 (size 4) differ and neither is 1.");
  EXPECT_EQ(error_of("broadcast", R"({"a": [2, 1], "b": [8, 4, 3]})")["message"],
            "Shapes do not broadcast: a's dimension 0 (size 2) and b's dimension 1 (size 4) differ and neither is 1.");
  EXPECT_EQ(error_of("broadcast", R"({"a": [4, 3], "b": [4]})")["message"],
            "Shapes do not broadcast: a's dimension 1 (size 3) and b's dimension 0 (size 4) differ and neither is 1.");
  // The error names an input: b, aligned against a.
  EXPECT_EQ(error_of("broadcast", R"({"a": [3], "b": [4]})")["field"], "b");
  EXPECT_EQ(error_of("broadcast", R"({"a": [1099511627776, 1], "b": [8193]})")["field"], "b");
  for (const char* text : {R"({"a": [2, 2]})", R"({"a": [-1], "b": [1]})", R"({"a": [0], "b": [5]})", R"({"a": [2], "b": [1, 1, 1, 1, 1, 1, 1, 1, 1]})",
                           R"({"a": [1099511627776, 8193], "b": [1]})", R"({"a": [2], "b": {"x": 1}})"})
    error_of("broadcast", text);
}

// Each exercise's answer is what the calculators give for its parameters.
TEST(TensorExercises, AnswersMatchTheCalculators) {
  for (std::uint32_t seed = 0; seed < 50; ++seed) {
    const auto stride = mlsys::make_exercise("tensor-permute-stride", seed);
    const json s = layout(stride.params);
    bool found = false;
    for (const auto& x : s["strides"]) found = found || x.get<double>() == stride.answer;
    EXPECT_TRUE(found) << seed;
    const auto logits = mlsys::make_exercise("tensor-logits-bytes", seed);
    EXPECT_DOUBLE_EQ(layout(logits.params)["bytes"].get<double>() / 1e9, logits.answer) << seed;
    const auto bc = mlsys::make_exercise("broadcast-elements", seed);
    EXPECT_EQ(calc("broadcast", bc.params)["elements"].get<double>(), bc.answer) << seed;
    const auto offset = mlsys::make_exercise("tensor-storage-offset", seed);
    const json o = layout(offset.params);
    found = false;
    for (const auto& x : o["storage_offsets"]) found = found || x.get<double>() == offset.answer;
    EXPECT_TRUE(found) << seed;
    // The copy is a whole number of copies of the tensor, at least one.
    const auto copy = mlsys::make_exercise("tensor-contiguous-copy", seed);
    const double whole = layout(copy.params)["bytes"].get<double>() / 1e3;
    const double copies = copy.answer / whole;
    EXPECT_NEAR(copies, std::round(copies), 1e-9) << seed;
    EXPECT_GE(std::round(copies), 1) << seed;
    EXPECT_LE(std::round(copies), 3) << seed;
  }
}

// .view() as the documentation of torch.Tensor.view states it: a new dimension lies inside one
// old dimension or spans old dimensions d … d+k with stride[i] = stride[i+1] × size[i+1]. Its
// examples: a 4×4 tensor views as 16 and as (2, 8). A transposed 3×4 matrix cannot be viewed
// as 12 elements (reshape copies it), but splits and size-1 dimensions always work.
TEST(TensorLayout, ViewFollowsPyTorchsContiguityCondition) {
  json r = layout({{"shape", {4, 4}}, {"view", {16}}});
  EXPECT_TRUE(r["view_possible"].get<bool>());
  EXPECT_EQ(dims(r["view_strides"]), (Dims{1}));
  EXPECT_EQ(r["reshape_copy_bytes"], 0);
  EXPECT_EQ(dims(layout({{"shape", {4, 4}}, {"view", {2, 8}}})["view_strides"]), (Dims{8, 1}));
  r = layout({{"shape", {3, 4}}, {"transpose", {0, 1}}, {"view", {12}}});
  EXPECT_FALSE(r["view_possible"].get<bool>());
  EXPECT_TRUE(r["view_strides"].is_null());
  EXPECT_EQ(r["reshape_copy_bytes"], 48);  // 12 fp32 elements
  // Splitting a dimension of the transposed view works: [4, 3] strides [1, 4] → [2, 2, 3].
  EXPECT_EQ(dims(layout({{"shape", {3, 4}}, {"transpose", {0, 1}}, {"view", {2, 2, 3}}})["view_strides"]), (Dims{2, 1, 4}));
  // [B, S, H, D] transposed to [B, H, S, D]: merging S and D fails, merging B and H only
  // works for S = 1; with H = 1 every merge works.
  EXPECT_FALSE(layout({{"shape", {2, 5, 3, 4}}, {"transpose", {1, 2}}, {"view", {2, 3, 20}}})["view_possible"].get<bool>());
  EXPECT_FALSE(layout({{"shape", {2, 5, 3, 4}}, {"transpose", {1, 2}}, {"view", {6, 5, 4}}})["view_possible"].get<bool>());
  EXPECT_TRUE(layout({{"shape", {2, 1, 3, 4}}, {"transpose", {1, 2}}, {"view", {6, 1, 4}}})["view_possible"].get<bool>());
  EXPECT_TRUE(layout({{"shape", {2, 5, 1, 4}}, {"transpose", {1, 2}}, {"view", {2, 20}}})["view_possible"].get<bool>());
  // Size-1 dimensions come and go; a 0-d tensor views as [1, 1].
  EXPECT_EQ(dims(layout({{"shape", {4}}, {"view", {1, 4, 1}}})["view_strides"]), (Dims{4, 1, 1}));
  EXPECT_TRUE(layout({{"shape", json::array()}, {"view", {1, 1}}})["view_possible"].get<bool>());
  // Without a view the fields are absent; a view of another element count is an error.
  EXPECT_FALSE(layout({{"shape", {4, 4}}}).contains("view_possible"));
  EXPECT_EQ(error_of("tensor-layout", R"({"shape": [4, 4], "view": [15]})")["field"], "view");
  EXPECT_EQ(error_of("tensor-layout", R"({"shape": [4, 4], "view": [0, 16]})")["field"], "view");
}

// The new exercises against the calculators: the reshape copies are tensor-layout's
// reshape_copy_bytes; the slice's traffic is the coalescing calculator's sectors per warp.
TEST(TensorExercises, ViewAndSliceExercisesMatchTheCalculators) {
  for (std::uint32_t seed = 0; seed < 50; ++seed) {
    const auto v = mlsys::make_exercise("tensor-view-or-copy", seed);
    const double whole = layout(v.params)["bytes"].get<double>();
    const double copies = v.answer * 1e3 / whole;
    EXPECT_NEAR(copies, std::round(copies), 1e-9) << seed;
    EXPECT_GE(std::round(copies), 1) << seed;  // some calls copy …
    EXPECT_LE(std::round(copies), 2) << seed;  // … and some are views
    const auto t = mlsys::make_exercise("tensor-slice-traffic", seed);
    const json w = calc("coalescing", {{"element_bytes", t.params["element_bytes"]}, {"stride", t.params["stride"]}});
    const double warps = t.params["rows"].get<double>() * t.params["cols"].get<double>() / t.params["stride"].get<double>() / 32;
    EXPECT_DOUBLE_EQ(t.answer, warps * w["sectors"].get<double>() * 32 / 1e6) << seed;
  }
  // Seed-independent worked case: fp32, stride 8: 32 sectors a warp, 8× the bytes used.
  const json w = calc("coalescing", {{"element_bytes", 4}, {"stride", 8}});
  EXPECT_EQ(w["sectors"], 32);
}
