// Exercises of the lesson tensors-and-layout: the stride of a dimension after a permute, the
// storage offset of an element of a transposed view, the bytes of a logits tensor, the
// element count of a broadcast result, and the bytes .contiguous() copies for a few views
// (which of them are contiguous already), the bytes .reshape() copies where .view() fails, and
// the bytes a warp-by-warp read of a strided slice moves. Answers come from the models of `tensor-layout`
// and `broadcast` (core/src/tensors/), so the calculators and the exercises agree.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "generators.hpp"
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/kernels/coalescing.hpp"
#include "mlsys/tensors/broadcast.hpp"
#include "mlsys/tensors/layout.hpp"

namespace mlsys::exercises {

namespace {

using Dims = std::vector<long long>;

// "[8, 4096, 128256]": a shape or index as Python prints it (no thousands separators).
std::string list_text(const Dims& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);  // no separators
  return s + "]";
}

// "2, 0, 1": the arguments of permute(...) or transpose(...).
std::string args_text(const Dims& v) {
  const std::string s = list_text(v);
  return s.substr(1, s.size() - 2);
}

nlohmann::json as_json(const Dims& v) { return nlohmann::json(v); }

// True when a number the reader sees in `prompt` is within 2% of `answer`: such a draw is
// redrawn, so copying a number of the question is never right.
bool answer_in_prompt(double answer, const std::string& prompt) {
  for (const auto& p : printed_numbers(prompt))
    if (std::fabs(p.value - answer) <= 0.02 * std::fabs(answer)) return true;
  return false;
}

Dims draw_shape(Rng& rng, int dims, const std::vector<long long>& sizes) {
  Dims s;
  for (int d = 0; d < dims; ++d) s.push_back(rng.pick(sizes));
  return s;
}

// A permutation of 0..n-1 other than the identity.
Dims draw_permutation(Rng& rng, int n) {
  Dims p(static_cast<std::size_t>(n));
  for (;;) {
    for (int i = 0; i < n; ++i) p[static_cast<std::size_t>(i)] = i;
    for (int i = n - 1; i > 0; --i) std::swap(p[static_cast<std::size_t>(i)], p[static_cast<std::size_t>(rng.integer(0, i))]);
    for (int i = 0; i < n; ++i)
      if (p[static_cast<std::size_t>(i)] != i) return p;
  }
}

// Whether `perm` holds each of 0 .. size − 1 once.
bool is_permutation_of_dims(const Dims& perm) {
  std::vector<bool> seen(perm.size(), false);
  for (long long p : perm) {
    if (p < 0 || p >= static_cast<long long>(perm.size()) || seen[static_cast<std::size_t>(p)]) return false;
    seen[static_cast<std::size_t>(p)] = true;
  }
  return true;
}

long long elements_of(const Dims& shape) {
  long long n = 1;
  for (long long d : shape) n *= d;
  return n;
}

// The 80 GB of the table's H100 SXM: a tensor the exercises call materialized fits there.
double reference_hbm_bytes() { return find_accelerator("h100-sxm")->hbm_bytes; }

// "12, 4 and 1": the strides of a contiguous shape as the solutions spell them.
std::string strides_text(const Dims& shape) { return list_text(contiguous_strides(shape)); }

Exercise permute_stride(Rng& rng) {
  Exercise e;
  for (;;) {
    const int n = rng.integer(3, 4);
    const Dims shape = draw_shape(rng, n, {2, 3, 4, 5, 6, 7, 8, 10, 12, 16});
    const Dims perm = draw_permutation(rng, n);
    const long long k = rng.integer(0, n - 1);
    const TensorLayout y = tensor_layout({shape, std::nullopt, perm, std::nullopt, std::nullopt}, 4);
    e.title = "Stride after a permute";
    e.params = {{"shape", as_json(shape)}, {"permute", as_json(perm)}, {"dtype", "fp32"}};
    e.prompt = "x is a contiguous tensor of shape " + list_text(shape) + ". After y = x.permute(" + args_text(perm) +
               "), what is y.stride(" + std::to_string(k) + "), in elements?";
    e.unit = "";
    e.answer = static_cast<double>(y.strides[static_cast<std::size_t>(k)]);
    e.integer = true;
    if (e.answer <= 1 || answer_in_prompt(e.answer, e.prompt)) continue;
    const long long src = perm[static_cast<std::size_t>(k)];
    e.hint = "A permute moves no data: dimension i of y is dimension permute[i] of x, with x's size and stride. "
             "x's strides are the products of the sizes to the right of each dimension.";
    e.solution = "x is contiguous, so its strides are " + strides_text(shape) + ". y's dimension " + std::to_string(k) +
                 " is x's dimension " + std::to_string(src) + ", so y's strides are " + list_text(y.strides) +
                 " and y.stride(" + std::to_string(k) + ") = " + format_int(e.answer) + ".";
    require(e, is_permutation_of_dims(perm), "permute(" + args_text(perm) + ") reorders every dimension once");
    long long right = 1;  // x's stride of dimension src: the product of the sizes to its right
    for (std::size_t d = static_cast<std::size_t>(src) + 1; d < shape.size(); ++d) right *= shape[d];
    require(e, e.answer == static_cast<double>(right),
            "y.stride(" + std::to_string(k) + ") is the product of x's sizes right of dimension " + std::to_string(src) +
                " (" + std::to_string(right) + ")");
    reject_mistake(e, 4 * e.answer, "counted bytes (NumPy's strides) instead of PyTorch's elements");
    reject_mistake_where_distinct(e, static_cast<double>(contiguous_strides(shape)[static_cast<std::size_t>(k)]),
                                  "read x's stride at position " + std::to_string(k) + ", ignoring the permute");
    return e;
  }
}

Exercise storage_offset_ex(Rng& rng) {
  Exercise e;
  for (;;) {
    const Dims shape = draw_shape(rng, 3, {2, 3, 4, 5, 6, 7, 8, 9});
    Dims t = {0, 1};
    t[1] = rng.integer(1, 2);
    t[0] = rng.integer(0, static_cast<int>(t[1]) - 1);
    const TensorLayout y = tensor_layout({shape, std::nullopt, std::nullopt, t, std::nullopt}, 4);
    Dims index;
    for (long long n : y.shape) index.push_back(rng.integer(0, static_cast<int>(n) - 1));
    e.title = "Where an element of a transposed view lives";
    e.params = {{"shape", as_json(shape)}, {"transpose", as_json(t)}, {"dtype", "fp32"}};
    e.prompt = "x is a contiguous tensor of shape " + list_text(shape) + " and y = x.transpose(" + args_text(t) +
               "). Element y" + list_text(index) + " is stored at what offset, in elements, from the start of x's "
               "storage?";
    e.unit = "";
    e.answer = static_cast<double>(storage_offset(y.strides, index));
    e.integer = true;
    if (e.answer <= 1 || answer_in_prompt(e.answer, e.prompt)) continue;
    std::string sum;
    for (std::size_t d = 0; d < index.size(); ++d)
      sum += (d ? " + " : "") + std::to_string(index[d]) + "·" + std::to_string(y.strides[d]);
    e.hint = "Write down x's strides (products of the sizes to the right), swap the two transposed ones to get y's, "
             "then the offset is the sum of index × stride.";
    e.solution = "x's strides are " + strides_text(shape) + "; the transpose swaps two of them, so y has shape " +
                 list_text(y.shape) + " and strides " + list_text(y.strides) + ". Offset = " + sum + " = " +
                 format_int(e.answer) + ".";
    bool inside = true;
    for (std::size_t d = 0; d < index.size(); ++d) inside = inside && index[d] >= 0 && index[d] < y.shape[d];
    require(e, inside, "the index " + list_text(index) + " lies inside y's shape " + list_text(y.shape));
    require(e, e.answer < static_cast<double>(elements_of(shape)),
            "the offset lies inside x's " + std::to_string(elements_of(shape)) + " elements");
    reject_mistake(e, 4 * e.answer, "counted bytes instead of elements");
    reject_mistake_where_distinct(e, static_cast<double>(storage_offset(contiguous_strides(shape), index)),
                                  "used x's strides for y's index, ignoring the transpose");
    return e;
  }
}

Exercise logits_bytes(Rng& rng) {
  Exercise e;
  for (;;) {
    const long long batch = rng.pick(std::vector<long long>{1, 2, 4, 8, 16, 32});
    const long long seq = rng.pick(std::vector<long long>{512, 1024, 2048, 4096, 8192});
    const long long vocab = rng.pick(std::vector<long long>{32000, 50257, 128256, 151936});
    const std::string dtype = rng.pick(std::vector<std::string>{"fp32", "bf16"});
    const Dims shape = {batch, seq, vocab};
    const TensorLayout t = tensor_layout({shape, std::nullopt, std::nullopt, std::nullopt, std::nullopt}, dtype_bytes(dtype));
    e.title = "Bytes of a logits tensor";
    e.params = {{"shape", as_json(shape)}, {"dtype", dtype}};
    e.prompt = "A language model with a vocabulary of " + format_int(static_cast<double>(vocab)) +
               " tokens produces logits of shape " + list_text(shape) + " (batch, sequence, vocabulary) in " + dtype +
               ". How much memory does that tensor take, in GB (1 GB = 10^9 bytes)?";
    e.unit = "GB";
    e.answer = t.bytes / 1e9;
    // A tensor the model materializes: it fits in the 80 GB of one H100 (larger ones are
    // computed in chunks, as the lesson says).
    if (t.bytes > reference_hbm_bytes() || answer_in_prompt(e.answer, e.prompt)) continue;
    require_fits(e, t.bytes, reference_hbm_bytes(), "the logits tensor in one H100 SXM");
    reject_mistake(e, t.bytes / 1073741824.0, "gave GiB (2^30 B) for GB (10^9 B)");
    reject_mistake(e, 8 * e.answer, "counted bits as bytes");
    if (batch > 1) reject_mistake(e, e.answer / static_cast<double>(batch), "left out the batch");
    e.hint = "Elements = the product of the sizes; bytes = elements × bytes per element (" + dtype + ": " +
             bytes_per_element(t.element_bytes) + ").";
    e.solution = "Elements = " + format_int(static_cast<double>(batch)) + " × " + format_int(static_cast<double>(seq)) +
                 " × " + format_int(static_cast<double>(vocab)) + " = " + format_int(static_cast<double>(t.elements)) +
                 "; bytes = " + format_int(static_cast<double>(t.elements)) + " × " + format_number(t.element_bytes, 2) +
                 " = " + format_int(t.bytes) + " B = " + format_number(e.answer, 4) + " GB.";
    return e;
  }
}

Exercise broadcast_elements(Rng& rng) {
  Exercise e;
  for (;;) {
    const int n = rng.integer(2, 4);
    const Dims out = draw_shape(rng, n, {2, 3, 4, 5, 6, 7, 8, 16, 32});
    // Each input has a dimension at full size or as 1; one of them lacks the first `drop`.
    const int drop = rng.integer(0, n - 1);
    const bool a_drops = rng.integer(0, 1) == 1;
    Dims a, b;
    for (int d = 0; d < n; ++d) {
      const long long size = out[static_cast<std::size_t>(d)];
      const long long sa = rng.integer(0, 2) == 2 ? 1 : size, sb = rng.integer(0, 2) == 2 ? 1 : size;
      if (!(a_drops && d < drop)) a.push_back(sa);
      if (!(!a_drops && d < drop)) b.push_back(sb);
    }
    const Broadcast r = broadcast_shapes(a, b);
    e.title = "Elements of a broadcast result";
    e.params = {{"a", as_json(a)}, {"b", as_json(b)}};
    e.prompt = "a has shape " + list_text(a) + " and b has shape " + list_text(b) +
               ". How many elements does a + b have (NumPy or PyTorch broadcasting)?";
    e.unit = "";
    e.answer = static_cast<double>(r.elements);
    e.integer = true;
    if (r.elements == r.a_elements || r.elements == r.b_elements || answer_in_prompt(e.answer, e.prompt)) continue;
    require(e, r.elements <= r.a_elements * r.b_elements && r.elements > std::max(r.a_elements, r.b_elements),
            "the result (" + std::to_string(r.elements) + " elements) is larger than either input and at most their product");
    reject_mistake(e, static_cast<double>(std::max(r.a_elements, r.b_elements)),
                   "took the larger input's size: broadcasting stretched a dimension silently");
    e.hint = "Align the shapes from the right. In each position the sizes must match or one of them be 1 (a missing "
             "dimension counts as 1); the result takes the larger.";
    std::string product;
    for (std::size_t d = 0; d < r.shape.size(); ++d) product += (d ? " × " : "") + std::to_string(r.shape[d]);
    e.solution = "Aligned from the right, the result has shape " + list_text(r.shape) + ", so it has " + product +
                 " = " + format_int(e.answer) + " elements.";
    return e;
  }
}

Exercise contiguous_copy(Rng& rng) {
  struct View {
    std::string text;
    std::optional<Dims> permute, transpose;
  };
  static const std::vector<View> pool = {
      {"x.transpose(0, 1)", std::nullopt, Dims{0, 1}}, {"x.transpose(0, 2)", std::nullopt, Dims{0, 2}},
      {"x.transpose(1, 2)", std::nullopt, Dims{1, 2}}, {"x.permute(2, 0, 1)", Dims{2, 0, 1}, std::nullopt},
      {"x.permute(1, 2, 0)", Dims{1, 2, 0}, std::nullopt}};
  Exercise e;
  for (;;) {
    Dims shape = draw_shape(rng, 3, {8, 16, 24, 32, 48, 64, 96, 128});
    const int unit_dim = rng.integer(-1, 2);  // most draws have a size-1 dimension somewhere
    if (unit_dim >= 0) shape[static_cast<std::size_t>(unit_dim)] = 1;
    const std::string dtype = rng.pick(std::vector<std::string>{"fp32", "bf16", "fp8-e4m3"});
    const double s = dtype_bytes(dtype);
    std::vector<std::size_t> picked;
    while (picked.size() < 3) {
      const auto i = static_cast<std::size_t>(rng.integer(0, static_cast<int>(pool.size()) - 1));
      if (std::find(picked.begin(), picked.end(), i) == picked.end()) picked.push_back(i);
    }
    std::sort(picked.begin(), picked.end());
    double total = 0;
    std::string views, verdicts;
    for (std::size_t j = 0; j < picked.size(); ++j) {
      const View& v = pool[picked[j]];
      const TensorLayout y = tensor_layout({shape, std::nullopt, v.permute, v.transpose, std::nullopt}, s);
      total += y.contiguous_copy_bytes;
      views += (j == 0 ? "" : j + 1 == picked.size() ? " and " : ", ") + v.text;
      verdicts += v.text + " has shape " + list_text(y.shape) + " and strides " + list_text(y.strides) + ": " +
                  (y.contiguous ? "contiguous, no copy" : "not contiguous, " + format_int(y.bytes) + " B copied") + ". ";
    }
    e.title = "What .contiguous() copies";
    e.params = {{"shape", as_json(shape)}, {"dtype", dtype}};
    e.prompt = "x is a contiguous " + dtype + " tensor of shape " + list_text(shape) + ". Each of the views " + views +
               " is made contiguous with .contiguous(). How many bytes do these three calls copy in total, in KB "
               "(1 KB = 1,000 B)?";
    e.unit = "KB";
    e.answer = total / 1e3;
    if (total == 0 || answer_in_prompt(e.answer, e.prompt)) continue;
    const double whole = static_cast<double>(elements_of(shape)) * s;
    require(e, total <= 3 * whole && std::fmod(total, whole) == 0,
            "each view copies nothing or the whole " + format_int(whole) + "-byte tensor: " + format_int(total) + " B");
    reject_mistake_where_distinct(e, 3 * whole / 1e3, "copied every view, though some are contiguous already");
    e.hint = "A view is contiguous when, ignoring dimensions of size 1, its strides are the products of the sizes to "
             "their right. A contiguous view is returned as it is; any other is copied whole (elements × bytes per "
             "element).";
    e.solution = "x's strides are " + strides_text(shape) + ". " + verdicts + "Total: " + format_int(total) + " B = " +
                 format_number(e.answer, 4) + " KB.";
    return e;
  }
}

// y = x.permute(...) of a contiguous 4-d x; three reshapes of y that each merge one pair of
// neighbouring dimensions. Each is a view when the pair is laid out one after the other
// (PyTorch's rule for .view), else a copy of the whole tensor.
Exercise view_or_copy(Rng& rng) {
  Exercise e;
  for (;;) {
    Dims shape = draw_shape(rng, 4, {2, 3, 4, 6, 8, 12, 16, 24, 32, 64});
    const int unit_dim = rng.integer(-2, 3);  // about half the draws have a size-1 dimension
    if (unit_dim >= 0) shape[static_cast<std::size_t>(unit_dim)] = 1;
    const std::string dtype = rng.pick(std::vector<std::string>{"fp32", "bf16"});
    const double s = dtype_bytes(dtype);
    const Dims perm = draw_permutation(rng, 4);
    const TensorLayout y = tensor_layout({shape, std::nullopt, perm, std::nullopt, std::nullopt}, s);
    double total = 0;
    int copies = 0;
    std::string calls, verdicts;
    for (std::size_t i = 0; i < 3; ++i) {
      Dims merged;
      for (std::size_t d = 0; d < 4; ++d) {
        if (d == i + 1) continue;
        merged.push_back(d == i ? y.shape[i] * y.shape[i + 1] : y.shape[d]);
      }
      const TensorLayout r = tensor_layout({shape, std::nullopt, perm, std::nullopt, merged}, s);
      total += *r.reshape_copy_bytes;
      copies += *r.view_possible ? 0 : 1;
      const std::string call = "y.reshape(" + args_text(merged) + ")";
      calls += (i == 0 ? "" : i == 2 ? " and " : ", ") + call;
      const bool unit = y.shape[i] == 1 || y.shape[i + 1] == 1;
      verdicts += call + " merges dimensions " + std::to_string(i) + " and " + std::to_string(i + 1) + ": " +
                  (unit ? "one has size 1, so a view. "
                        : std::to_string(y.strides[i]) + (*r.view_possible ? " = " : " ≠ ") +
                              std::to_string(y.strides[i + 1]) + " × " + std::to_string(y.shape[i + 1]) +
                              (*r.view_possible ? ", a view. " : ", a copy of " + format_int(y.bytes) + " B. "));
    }
    e.title = "When .view() works and .reshape() copies";
    e.params = {{"shape", as_json(shape)}, {"permute", as_json(perm)}, {"dtype", dtype}};
    e.prompt = "x is a contiguous " + dtype + " tensor of shape " + list_text(shape) + " and y = x.permute(" +
               args_text(perm) + "), of shape " + list_text(y.shape) + ". Each of " + calls +
               " returns a view where y.view would succeed and copies y otherwise. How many bytes do the three calls "
               "copy in total, in KB (1 KB = 1,000 B)?";
    e.unit = "KB";
    e.answer = total / 1e3;
    // Some calls view and some copy: the reader has to apply the rule to each.
    if (copies < 1 || copies > 2 || answer_in_prompt(e.answer, e.prompt)) continue;
    require(e, total == copies * y.bytes, "each call copies nothing or the whole " + format_int(y.bytes) + "-byte tensor");
    reject_mistake(e, 3 * y.bytes / 1e3, "copied every call because y is not contiguous, though some merges are views");
    e.hint = "y's strides are x's, permuted. Merging neighbours i and i + 1 needs no copy when stride(i) = "
             "stride(i + 1) × size(i + 1), or when one of them has size 1; otherwise .reshape() copies the whole tensor "
             "(elements × bytes per element).";
    e.solution = "x's strides are " + strides_text(shape) + ", so y's are " + list_text(y.strides) + ". " + verdicts +
                 "Total: " + format_int(total) + " B = " + format_number(e.answer, 4) + " KB.";
    return e;
  }
}

// A kernel reads every element of the slice y = x[:, ::k] of a contiguous matrix once, a warp
// of 32 threads on 32 neighbouring elements of a row of y. The bytes moved are the warp's
// 32-byte sectors (the `coalescing` calculator), with no reuse: the skipped elements are read
// by no one.
Exercise slice_traffic(Rng& rng) {
  Exercise e;
  for (;;) {
    const long long k = rng.pick(std::vector<long long>{2, 3, 4, 6, 8, 16, 32});
    const std::string dtype = rng.pick(std::vector<std::string>{"fp32", "bf16", "int8"});
    const long long bytes = static_cast<long long>(dtype_bytes(dtype));
    const long long rows = rng.pick(std::vector<long long>{512, 1024, 2048, 4096, 8192});
    const long long cols = 32 * k * rng.pick(std::vector<long long>{8, 16, 32, 64, 128});
    const WarpRequest w = warp_request(static_cast<int>(bytes), k, 0);
    const double warps = static_cast<double>(rows) * static_cast<double>(cols / k) / 32;
    const double moved = warps * w.sectors * 32;
    e.title = "Bytes a strided slice moves";
    e.params = {{"element_bytes", bytes}, {"stride", k}, {"rows", rows}, {"cols", cols}};
    e.prompt = "x is a contiguous " + dtype + " matrix of shape " + list_text({rows, cols}) + " and y = x[:, ::" +
               std::to_string(k) + "]. A kernel reads every element of y once: each warp's 32 threads read 32 "
               "neighbouring elements of one row of y, every row starts on a 32-byte boundary, and memory is read "
               "in 32-byte sectors, none of them used twice. How many bytes does the kernel move from memory, in MB "
               "(1 MB = 10^6 B)?";
    e.unit = "MB";
    e.answer = moved / 1e6;
    const double useful = warps * 32 * static_cast<double>(bytes);
    if (answer_in_prompt(e.answer, e.prompt)) continue;
    require(e, moved >= useful && moved <= 32 * warps * 32, "between the bytes used and one sector per thread");
    reject_mistake(e, useful / 1e6, "counted only the bytes of y, not the sectors that carry them");
    reject_mistake_where_distinct(e, static_cast<double>(rows * cols * bytes) / 1e6,
                                  "counted all of x, though sectors of skipped elements alone are never read");
    e.hint = "Find the bytes between neighbouring threads (k × bytes per element) and count the distinct 32-byte "
             "sectors a warp's 32 addresses fall in; every warp is alike.";
    e.solution = "Neighbouring threads are " + std::to_string(k * bytes) + " B apart, so one warp's 32 addresses span " +
                 std::to_string(31 * k * bytes + bytes) + " B and touch " + format_int(w.sectors) + " sectors (" +
                 format_int(w.sectors * 32) + " B for " + std::to_string(32 * bytes) + " B used). y has " +
                 format_int(static_cast<double>(rows * (cols / k))) + " elements, " + format_int(warps) +
                 " warps: " + format_int(warps) + " × " + format_int(w.sectors * 32) + " B = " + format_int(moved) +
                 " B = " + format_number(e.answer, 4) + " MB.";
    return e;
  }
}

}  // namespace

void add_tensors_exercises(std::vector<Generator>& out) {
  out.push_back({"tensor-view-or-copy", view_or_copy});
  out.push_back({"tensor-slice-traffic", slice_traffic});
  out.push_back({"tensor-permute-stride", permute_stride});
  out.push_back({"tensor-storage-offset", storage_offset_ex});
  out.push_back({"tensor-logits-bytes", logits_bytes});
  out.push_back({"broadcast-elements", broadcast_elements});
  out.push_back({"tensor-contiguous-copy", contiguous_copy});
}

}  // namespace mlsys::exercises
