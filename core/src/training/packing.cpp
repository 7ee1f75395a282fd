// Padding, best-fit-decreasing packing and concatenate-and-split of training/packing.hpp.
#include "mlsys/training/packing.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {
constexpr std::uint64_t kLengthSalt = 0x9AC4E5D0C0FFEEULL;

double pairs(double u) { return u * (u + 1) / 2; }
}  // namespace

std::vector<int> draw_lengths(const std::string& dist, double mean_len, int samples, std::uint64_t seed, double sigma) {
  std::vector<int> out(static_cast<std::size_t>(samples));
  SeededStream rng(mix_seed(seed, kLengthSalt));
  const int mean = static_cast<int>(std::lround(mean_len));
  if (dist == "fixed") {
    std::fill(out.begin(), out.end(), std::max(mean, 1));
  } else if (dist == "uniform") {
    for (int& x : out) x = rng.integer(1, std::max(2 * mean - 1, 1));
  } else {  // lognormal
    const double mu = log_det(mean_len) - sigma * sigma / 2;
    for (int& x : out) {
      const double v = exp_det(mu + sigma * rng.normal());
      x = v >= kMaxDocumentLen ? kMaxDocumentLen : std::max(1, static_cast<int>(std::lround(v)));
    }
  }
  return out;
}

PackingResult pack_sequences(int max_len, const std::string& dist, double mean_len, int samples,
                             const std::string& method, std::uint64_t seed, double sigma, int batch_rows) {
  if (max_len < 1 || max_len > kMaxPackingLen) throw InputError("max_len", "max_len must be between 1 and 131072.");
  if (dist != "fixed" && dist != "uniform" && dist != "lognormal")
    throw InputError("length_distribution", "length_distribution must be fixed, uniform or lognormal.");
  if (!std::isfinite(mean_len) || mean_len < 1 || mean_len > kMaxPackingLen)
    throw InputError("mean_len", "mean_len must be between 1 and 131072 tokens.");
  if (samples < 1 || samples > kMaxPackingSamples) throw InputError("samples", "samples must be between 1 and 20000.");
  if (method != "pad" && method != "pack" && method != "concat" && method != "dynamic" && method != "bucket")
    throw InputError("method", "method must be pad, dynamic, bucket, pack or concat.");
  if (batch_rows < 1 || batch_rows > kMaxPackingSamples)
    throw InputError("batch_rows", "batch_rows must be between 1 and 20000.");
  if (!std::isfinite(sigma) || sigma <= 0 || sigma > 3) throw InputError("sigma", "sigma must be in (0, 3].");

  const std::vector<int> lengths = draw_lengths(dist, mean_len, samples, seed, sigma);
  const double M = max_len;
  PackingResult r{};
  r.method = method;
  r.documents = samples;
  for (int l : lengths) r.document_tokens += l;
  r.mean_length = r.document_tokens / samples;

  if (method == "concat") {
    // One stream of all documents cut every max_len tokens: walk the documents, splitting
    // each at sequence boundaries, and count the pieces per sequence.
    double used = 0, causal = 0, doc = 0, pieces = 0, most = 0;
    long long sequences = 0;
    const auto close_sequence = [&] {
      causal += pairs(used);
      most = std::max(most, pieces);
      used = 0;
      pieces = 0;
    };
    const auto add_piece = [&](double piece) {
      if (used == 0) ++sequences;
      doc += pairs(piece);
      used += piece;
      ++pieces;
      if (used == M) close_sequence();
    };
    for (int l : lengths) {
      double left = l;
      if (used > 0) {  // finish the open sequence
        const double piece = std::min(left, M - used);
        add_piece(piece);
        left -= piece;
      }
      // Whole sequences of this document alone, in closed form (a long document and a short
      // max_len would otherwise take one loop turn per sequence).
      const double whole = std::floor(left / M);
      if (whole > 0) {
        sequences += static_cast<long long>(whole);
        doc += whole * pairs(M);
        causal += whole * pairs(M);
        most = std::max(most, 1.0);
        left -= whole * M;
      }
      if (left > 0) add_piece(left);
    }
    if (used > 0) {
      causal += pairs(used);
      most = std::max(most, pieces);
    }
    r.sequences = sequences;
    r.useful_tokens = r.document_tokens;
    r.causal_pairs = causal;
    r.document_pairs = doc;
    r.max_documents_per_sequence = most;
  } else {
    std::vector<double> kept(lengths.size());
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      kept[i] = std::min<double>(lengths[i], M);
      r.truncated_tokens += lengths[i] - kept[i];
      r.useful_tokens += kept[i];
    }
    if (method == "pad" || method == "dynamic" || method == "bucket") {
      r.sequences = samples;
      for (double d : kept) r.document_pairs += pairs(d);
      r.causal_pairs = r.document_pairs;
      r.max_documents_per_sequence = 1;
      if (method != "pad") {
        // Batches of batch_rows documents, each padded to its longest: in the drawn order
        // (dynamic), or after sorting by length so that similar lengths share a batch (bucket).
        if (method == "bucket") std::sort(kept.begin(), kept.end());
        for (std::size_t b = 0; b < kept.size(); b += static_cast<std::size_t>(batch_rows)) {
          const std::size_t end = std::min(kept.size(), b + static_cast<std::size_t>(batch_rows));
          const double longest = *std::max_element(kept.begin() + static_cast<std::ptrdiff_t>(b),
                                                   kept.begin() + static_cast<std::ptrdiff_t>(end));
          r.slot_tokens += static_cast<double>(end - b) * longest;
        }
      }
    } else {
      // Best-fit decreasing: open sequences keyed by room left; each document, longest first,
      // goes to the sequence with the least room that fits it.
      std::sort(kept.begin(), kept.end(), std::greater<double>());
      struct Open {
        double used, doc_pairs, count;
      };
      std::vector<Open> seqs;
      std::multimap<double, std::size_t> by_room;  // room → sequence index
      for (double d : kept) {
        auto it = by_room.lower_bound(d);
        std::size_t s;
        if (it == by_room.end()) {
          s = seqs.size();
          seqs.push_back({0, 0, 0});
        } else {
          s = it->second;
          by_room.erase(it);
        }
        seqs[s].used += d;
        seqs[s].doc_pairs += pairs(d);
        seqs[s].count += 1;
        if (seqs[s].used < M) by_room.emplace(M - seqs[s].used, s);
      }
      r.sequences = static_cast<long long>(seqs.size());
      for (const Open& o : seqs) {
        r.causal_pairs += pairs(o.used);
        r.document_pairs += o.doc_pairs;
        r.max_documents_per_sequence = std::max(r.max_documents_per_sequence, o.count);
      }
    }
  }
  if (method != "dynamic" && method != "bucket") r.slot_tokens = static_cast<double>(r.sequences) * M;
  r.efficiency = r.useful_tokens / r.slot_tokens;
  r.padding_tokens = r.slot_tokens - r.useful_tokens;
  r.cross_document_share = r.causal_pairs > 0 ? (r.causal_pairs - r.document_pairs) / r.causal_pairs : 0;
  return r;
}

}  // namespace mlsys
