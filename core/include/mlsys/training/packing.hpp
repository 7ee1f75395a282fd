// Padding versus packing of variable-length documents into fixed-length training sequences
// of max_len tokens (Krell et al. 2021, "Efficient Sequence Packing without
// Cross-contamination", arXiv:2107.02027), on seeded random document lengths.
//
// Lengths (whole tokens, at least 1), drawn from a SplitMix64 stream (deterministic.hpp):
//   "fixed": every document has mean_len tokens;
//   "uniform": uniform on [1, 2·mean_len − 1] (mean exactly mean_len);
//   "lognormal": round(e^(μ + σZ)), σ = `sigma` (default 1), μ = ln(mean_len) − σ²/2, so the
//   mean before rounding is mean_len; a heavy right tail as in real corpora.
// Methods:
//   "pad": one document per sequence, padded to max_len; a document longer than max_len is
//   truncated (its tokens past max_len are dropped, counted in truncated_tokens).
//   "pack": documents truncated to max_len as above, then placed whole by best-fit
//   decreasing: longest first, each into the open sequence with the least room that still
//   fits it, else into a new sequence. No document is split. (Krell et al.'s shortest-pack-
//   first histogram packing is this heuristic run on the length histogram.)
//   "dynamic": one document per row as in "pad", but each batch of batch_rows documents (in
//   the drawn order) is padded only to its longest document, as a collate function that pads
//   to the batch maximum does; slots = Σ over batches of rows · longest.
//   "bucket": "dynamic" after sorting the documents by length, so each batch holds documents
//   of similar length (the limit of length bucketing, every document in one sorted pool).
//   "concat" (an addition to API.md's two): concatenate-and-split, as most LLM pre-training
//   stacks do: all documents end to end, cut every max_len tokens; nothing is dropped, a
//   document may be split across sequences, and only the last sequence is padded.
// Useful tokens are the tokens trained on (after truncation); slots are sequences·max_len;
// efficiency = useful / slots. Closed forms: fixed length L ≤ M pads to efficiency L/M and
// packs k = ⌊M/L⌋ per sequence, efficiency k·L/M when the count of documents is a multiple
// of k; concat reaches total/(⌈total/M⌉·M).
//
// Attention (the document-masking consequence of packing): within each sequence, a plain
// causal mask lets token i attend every earlier token j ≤ i of the sequence, so with u real
// tokens it allows u(u+1)/2 pairs, crossing document boundaries; a per-document causal mask
// (Llama 3's "document mask") allows Σ dᵢ(dᵢ+1)/2 over the pieces dᵢ of the documents in the
// sequence. Pairs are counted over real tokens only (padding is masked as keys and queries).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mlsys {

inline constexpr int kMaxPackingLen = 131072;
inline constexpr int kMaxPackingSamples = 20000;
inline constexpr int kMaxDocumentLen = 1 << 24;  // lognormal draws are capped at 16,777,216 tokens

struct PackingResult {
  std::string method;
  double useful_tokens;      // tokens trained on
  double slot_tokens;        // sequences · max_len (dynamic, bucket: Σ rows · longest per batch)
  double efficiency;         // useful / slots
  long long sequences;       // sequences of max_len
  double padding_tokens;     // slots − useful
  double truncated_tokens;   // tokens dropped from documents longer than max_len (pad, pack)
  double document_tokens;    // Σ lengths as drawn
  double mean_length;        // document_tokens / samples
  int documents;             // samples
  double max_documents_per_sequence;  // most documents (or pieces) in one sequence
  double causal_pairs;       // attention pairs a plain causal mask allows, Σ u(u+1)/2
  double document_pairs;     // with the per-document causal mask, Σ d(d+1)/2
  double cross_document_share;  // (causal − document) / causal: attention that crosses documents
};

// Throws InputError naming the field: max_len in [1, 131072], mean_len in [1, 131072],
// samples in [1, 20000], sigma in (0, 3], batch_rows in [1, 20000], an unknown distribution or method.
PackingResult pack_sequences(int max_len, const std::string& length_distribution, double mean_len, int samples,
                             const std::string& method, std::uint64_t seed, double sigma = 1.0,
                             int batch_rows = 16);

// The document lengths the calculator draws (before truncation).
std::vector<int> draw_lengths(const std::string& length_distribution, double mean_len, int samples, std::uint64_t seed,
                              double sigma = 1.0);

}  // namespace mlsys
