// The two sizes of the course's overview page (Systems and scaling): the attention score
// matrices (n x n per head, Vaswani et al. 2017) and the data-parallel global batch
// (B_global = B_per_device x N_devices x N_accumulation, Goyal et al. 2017).
#pragma once

namespace mlsys {

// Elements and bytes of the materialized score matrices S = QK^T: seq x seq per head, per
// sequence of the batch (what standard attention writes to memory, FlashAttention avoids).
// FlashAttention (Dao et al. 2022) writes neither S nor P = softmax(S): it keeps one fp32
// logsumexp per query row and head for the backward pass instead.
struct AttentionScores {
  double elements;
  double bytes;
  double with_probabilities_bytes;  // S and P, both materialized by standard attention
  double logsumexp_bytes;           // seq · heads · batch · 4
};
AttentionScores attention_scores(double seq, double heads, double batch, double bytes_per_element);

// Sequences and tokens in one optimizer step of data parallelism with gradient accumulation.
struct GlobalBatch {
  double sequences;
  double tokens;  // sequences · seq
};
GlobalBatch global_batch(double per_device_batch, double devices, double accumulation, double seq);

}  // namespace mlsys
