// Parameter and FLOP counts of a decoder-only transformer configuration. Parameters: the
// attention and MLP weight matrices (gated MLPs such as SwiGLU use three ffn_hidden-wide
// matrices), two norm gains per layer and a final norm gain, token embeddings (and an
// untied output head); biases and learned position embeddings are left out. Training FLOPs
// per token follow PaLM (Chowdhery et al. 2022, appendix B): 6·N + 12·L·H·Q·T, L layers, H
// heads, Q head size, T sequence length, where N counts every parameter that takes part in a
// token's matmuls: every layer, the final norm and the output head (vocab·h). With tied
// embeddings that is all parameters (PaLM's N = 540.35B is its total); untied, all but the
// input embedding table, whose lookup is a gather, not a matmul.
#pragma once

namespace mlsys {

struct ModelConfig {
  double layers = 32;
  double hidden = 4096;       // h
  double heads = 32;          // a, query heads
  double kv_heads = 32;       // grouped-query attention when < heads
  double head_dim = 128;      // usually hidden / heads
  double ffn_hidden = 16384;  // MLP inner width
  double vocab = 32000;
  double seq = 2048;          // tokens per sequence
  bool gated_mlp = false;     // true: three matrices (gate, up, down) of width ffn_hidden
  bool tied_embeddings = true;
};

struct ModelCounts {
  double params;                    // everything
  double params_embedding;          // vocab·h, twice when the output head is untied
  double params_per_layer;          // attention + MLP matrices + two norm gains
  double params_non_embedding;      // layers·params_per_layer + final norm
  double params_flops;              // N of PaLM's formula: params_non_embedding + vocab·h (output head)
  double flops_per_token_training;  // 6N + 12·L·H·Q·T with N = params_flops
  double flops_per_token_forward;   // a third of training
};

ModelCounts model_counts(const ModelConfig& c);

// The MLP width of a configuration that gives none: 4·hidden for a two-matrix MLP (GPT-3's
// d_ff = 4·d_model, Brown et al. 2020 section 2.1), and for a gated MLP LLaMA's rule, which
// keeps the parameter count of that 4·hidden MLP with three matrices: two thirds of 4·hidden,
// truncated, then rounded up to a multiple of 256 (meta-llama/llama, llama/model.py,
// FeedForward with ModelArgs.multiple_of = 256): 11,008 for width 4,096 (Llama 2 7B), 13,824
// for 5,120 (Llama 2 13B). Calculators given a model by its fields take it for a missing
// ffn_hidden.
double default_ffn_hidden(double hidden, bool gated_mlp);

// Parameters of one layer split by part (the sum is params_per_layer).
double attention_params_per_layer(const ModelConfig& c);  // W_Q, W_K, W_V, W_O
double mlp_params_per_layer(const ModelConfig& c);        // 2 or 3 matrices h × ffn_hidden

// Parameters by component; the five sum to ModelCounts::params.
struct ParamBreakdown {
  double embedding;  // input token embedding vocab·h (tied: also the output head)
  double attention;  // layers · (W_Q, W_K, W_V, W_O)
  double mlp;        // layers · (2 or 3 matrices h × ffn_hidden)
  double norms;      // two gains of h per layer + the final norm
  double head;       // untied output head vocab·h; 0 when tied (the embedding serves)
};
ParamBreakdown param_breakdown(const ModelConfig& c);

// PaLM's training FLOPs per token, 6·N + 12·L·H·Q·T, split by where they are spent: 6 × the
// parameters of each part of N (a weight takes part in one multiply-add forward and two
// backward), and the attention over the T-token context (QKᵀ and AV, forward and backward).
// The five sum to ModelCounts::flops_per_token_training.
struct TokenFlopsBreakdown {
  double attention_projections;  // 6 · layers · attention_params_per_layer
  double mlp;                    // 6 · layers · mlp_params_per_layer
  double head;                   // 6 · vocab · h (tied or not: the head's matmul runs either way)
  double norms;                  // 6 · norm gains (in PaLM's N; elementwise, not a matmul)
  double attention;              // 12 · L · H · Q · T
};
struct TokenFlops {
  double matmul;     // 6 · params_flops
  double attention;  // 12 · L · H · Q · T
  double attention_share;               // attention / (matmul + attention)
  double attention_equals_matmul_seq;   // T at which the two are equal: params_flops / (2·L·H·Q)
  TokenFlopsBreakdown breakdown;
};
TokenFlops token_flops(const ModelConfig& c);

}  // namespace mlsys
