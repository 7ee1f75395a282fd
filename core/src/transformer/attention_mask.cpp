// Attention masks: the pair rule, closed-form and brute-force counts, and the masked softmax
// of seeded scores (see attention_mask.hpp).
#include "mlsys/transformer/attention_mask.hpp"

#include <algorithm>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {

void check(MaskKind kind, long long seq, long long window, long long pad, long long extra) {
  if (seq < 1 || seq > kMaxMaskSeq) throw InputError("seq", "'seq' must be between 1 and 10,000,000 tokens.");
  if (window < 1) throw InputError("window", "'window' must be at least 1 (the token itself).");
  if (pad < 0 || pad >= seq)
    throw InputError("pad", "'pad' must be at least 0 and less than 'seq': at least one token must be real.");
  if (kind == MaskKind::Document && extra < 1)
    throw InputError("doc", "'doc' must be at least 1 token: each packed document holds at least one token.");
  if (kind == MaskKind::PrefixLM && (extra < 0 || extra > seq))
    throw InputError("prefix", "'prefix' must be between 0 and 'seq' tokens.");
  if (kind == MaskKind::SinkWindow && (extra < 0 || extra > seq))
    throw InputError("sinks", "'sinks' must be between 0 and 'seq' tokens.");
}

}  // namespace

MaskKind parse_mask_kind(const std::string& name) {
  if (name == "none") return MaskKind::None;
  if (name == "causal") return MaskKind::Causal;
  if (name == "padding") return MaskKind::Padding;
  if (name == "sliding-window") return MaskKind::SlidingWindow;
  if (name == "causal-sliding-window") return MaskKind::CausalSlidingWindow;
  if (name == "document") return MaskKind::Document;
  if (name == "prefix-lm") return MaskKind::PrefixLM;
  if (name == "sink-window") return MaskKind::SinkWindow;
  throw InputError("mask", "Unknown mask '" + name +
                               "'; use none, causal, padding, sliding-window, causal-sliding-window, document, "
                               "prefix-lm or sink-window.");
}

bool mask_allows(MaskKind kind, long long seq, long long window, long long pad, long long i, long long j,
                 long long extra) {
  switch (kind) {
    case MaskKind::None: return true;
    case MaskKind::Causal: return j <= i;
    case MaskKind::Padding: return j < seq - pad;
    case MaskKind::SlidingWindow: return (i > j ? i - j : j - i) < window;
    case MaskKind::CausalSlidingWindow: return j <= i && i - j < window;
    case MaskKind::Document: return j <= i && j / extra == i / extra;
    case MaskKind::PrefixLM: return j <= i || j < extra;
    case MaskKind::SinkWindow: return j <= i && (i - j < window || j < extra);
  }
  return false;
}

long long mask_allowed_count(MaskKind kind, long long seq, long long window, long long pad, long long extra) {
  check(kind, seq, window, pad, extra);
  const long long n = seq;
  switch (kind) {
    case MaskKind::None: return n * n;
    case MaskKind::Causal: return n * (n + 1) / 2;
    case MaskKind::Padding: return n * (n - pad);
    case MaskKind::SlidingWindow: {
      // The pairs left out are those |i − j| >= w: 2·(n − d) at each distance d = w .. n − 1.
      if (window >= n) return n * n;
      const long long far = n - window;
      return n * n - far * (far + 1);
    }
    case MaskKind::CausalSlidingWindow: {
      // n − d pairs at each distance d = 0 .. m − 1 below the diagonal.
      const long long m = std::min(window, n);
      return m * n - m * (m - 1) / 2;
    }
    case MaskKind::Document: {
      // A causal triangle per document: q whole documents of D tokens and one of r = n mod D.
      const long long d = extra, q = n / d, r = n % d;
      return q * (d * (d + 1) / 2) + r * (r + 1) / 2;
    }
    case MaskKind::PrefixLM:
      // The causal count plus the pairs above the diagonal inside the prefix: p(p − 1)/2.
      return n * (n + 1) / 2 + extra * (extra - 1) / 2;
    case MaskKind::SinkWindow: {
      // The causal window plus, for query i, the sinks j < s with j <= i − w (outside its
      // window): min(s, t) at t = i − w + 1 = 1 .. n − w.
      const long long m = std::min(window, n), k = n - window, s = extra;
      long long sinks = 0;
      if (k > 0) sinks = k <= s ? k * (k + 1) / 2 : s * (s + 1) / 2 + (k - s) * s;
      return m * n - m * (m - 1) / 2 + sinks;
    }
  }
  return 0;
}

long long mask_allowed_count_brute(MaskKind kind, long long seq, long long window, long long pad, long long extra) {
  check(kind, seq, window, pad, extra);
  long long count = 0;
  for (long long i = 0; i < seq; ++i)
    for (long long j = 0; j < seq; ++j) count += mask_allows(kind, seq, window, pad, i, j, extra) ? 1 : 0;
  return count;
}

AttentionMaskResult attention_mask(MaskKind kind, long long seq, long long window, long long pad, std::uint64_t seed,
                                   long long extra) {
  AttentionMaskResult r;
  r.allowed_count = mask_allowed_count(kind, seq, window, pad, extra);
  r.total_pairs = seq * seq;
  r.allowed_fraction = static_cast<double>(r.allowed_count) / static_cast<double>(r.total_pairs);
  if (seq > kMaxMaskMatrixSeq) return r;
  r.matrices = true;
  const auto n = static_cast<std::size_t>(seq);
  // An odd multiplier other than the golden gamma, so neighbouring seeds draw unrelated
  // streams (core/src/fit/polyfit.cpp says why).
  SeededStream rng(mix_seed(seed, 0x6D61736B73ULL));
  r.allowed.assign(n, std::vector<bool>(n, false));
  r.scores.assign(n, std::vector<double>(n, 0.0));
  r.weights.assign(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      r.scores[i][j] = 4.0 * rng.uniform() - 2.0;
      r.allowed[i][j] = mask_allows(kind, seq, window, pad, static_cast<long long>(i), static_cast<long long>(j), extra);
    }
  for (std::size_t i = 0; i < n; ++i) {
    // Softmax over the allowed keys, their maximum subtracted; masked keys weigh exactly 0
    // (the −∞ score of the textbook form). A row with no allowed key stays all zero.
    bool any = false;
    double top = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (!r.allowed[i][j]) continue;
      top = any ? std::max(top, r.scores[i][j]) : r.scores[i][j];
      any = true;
    }
    if (!any) continue;
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j)
      if (r.allowed[i][j]) sum += r.weights[i][j] = exp_det(r.scores[i][j] - top);
    for (std::size_t j = 0; j < n; ++j) r.weights[i][j] /= sum;
  }
  return r;
}

}  // namespace mlsys
