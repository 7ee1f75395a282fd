// The FlashAttention forward pass, Algorithm 1 of Dao et al. 2022 ("FlashAttention: Fast and
// Memory-Efficient Exact Attention with IO-Awareness", arXiv:2205.14135), executed on small
// inputs with its HBM traffic counted, beside the closed form of the same count.
//
// With an on-chip SRAM of M elements: B_c = ⌈M/(4d)⌉, B_r = min(⌈M/(4d)⌉, d); Q, O, l, m are
// cut into T_r = ⌈N/B_r⌉ row blocks and K, V into T_c = ⌈N/B_c⌉ column blocks. The outer
// loop walks the K/V blocks (each loaded once); the inner loop walks the Q blocks, loading
// Q_i, O_i, l_i, m_i, updating them by the online softmax, and writing O_i, l_i, m_i back.
// Counted literally, in elements: initialize O, l, m (writes Nd + 2N); load K, V (reads 2Nd);
// per computed tile (i, j) of h_i rows read 2·h_i·d + 2·h_i and write h_i·d + 2·h_i. Without a
// mask every tile is computed and the total is 3Nd + 2N + T_c·(3Nd + 4N) = Θ(N²d²/M) (their
// Theorem 2). With a causal mask, tiles whose every key comes after every query are skipped
// (no loads, no FLOPs); partially masked tiles on the diagonal are computed in full.
// The naive reference is attention_naive.hpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mlsys/kernels/attention_naive.hpp"

namespace mlsys {

// Block sizes and counts (Algorithm 1, lines 1 and 3). n, d >= 1, sram_elements >= 4·d.
struct FlashBlocks {
  long long sram_elements = 0;  // M
  long long block_cols = 0;     // B_c = ⌈M/(4d)⌉ (keys per K/V tile)
  long long block_rows = 0;     // B_r = min(B_c, d) (queries per Q tile)
  long long row_blocks = 0;     // T_r = ⌈N/B_r⌉
  long long col_blocks = 0;     // T_c = ⌈N/B_c⌉: passes over Q and O
};
FlashBlocks flash_blocks(long long n, long long d, long long sram_elements);

// The traffic and work of Algorithm 1, in elements and FLOPs.
struct FlashIo {
  HbmCount hbm;
  double tiles_computed = 0;
  double tiles_skipped = 0;  // causal only: tiles above the diagonal
  double tile_area = 0;      // Σ over computed tiles of rows × cols (score entries computed)
  double matmul_flops = 0;   // 4·d·tile_area: S_ij = Q_i·K_jᵀ and P̃_ij·V_j
};

// Closed form of the count (no execution; O(log N) with floor sums for the causal staircase).
FlashIo flash_attention_io(long long n, long long d, long long sram_elements, bool causal);

// FlashAttention-2's loop order (Dao 2023, Algorithm 1 of that paper): query blocks outer, each
// loaded once, its output, max and sum kept on chip across the inner loop over all K and V
// blocks, then O_i and the logsumexp L_i written once. Counted here with query blocks of
// Algorithm 1's large size B = ⌈M/(4d)⌉ (the block that stays on chip) and square tiles, so
// the N×N reads of K and V are the same order as FlashAttention's, Θ(N²d²/M), while the
// per-pass round trips of O, l and m disappear:
//   elements = Nd (Q) + Nd (O) + N (L) + Σ_i 2d·keys_i, keys_i = N, or min(N, (i + 1)·B) causal.
struct Flash2Io {
  long long block_rows = 0;  // B: queries per block (= Algorithm 1's B_c)
  long long row_blocks = 0;  // ⌈N/B⌉: passes over K and V
  HbmCount hbm;
};
Flash2Io flash2_attention_io(long long n, long long d, long long sram_elements, bool causal);

// One tile (i, j) of the loop, in the order Algorithm 1 visits it.
enum class TileStatus { Full, Diagonal, Skipped };  // unmasked, partly masked, skipped (all masked)
struct FlashTile {
  long long i = 0, j = 0;              // Q block, K/V block
  long long row0 = 0, rows = 0;        // queries [row0, row0 + rows)
  long long col0 = 0, cols = 0;        // keys [col0, col0 + cols)
  TileStatus status = TileStatus::Full;
  long long order = -1;                // position among computed tiles (−1 when skipped)
};
// Every tile in loop order (j outer, i inner), without executing. Callers bound T_r·T_c.
std::vector<FlashTile> flash_tiles(long long n, long long d, long long sram_elements, bool causal);

struct FlashForwardResult {
  FlashBlocks blocks;
  std::vector<float> o;       // N×d output
  std::vector<float> l, m;    // the softmax statistics left in HBM (row sums and row maxima)
  FlashIo counted;            // counted while executing
  std::vector<FlashTile> tiles;  // filled when record_tiles
};

// Executes Algorithm 1 in float (fp32 arithmetic) on one head. sram_elements >= 4·d.
FlashForwardResult flash_attention_forward(const AttentionInputs& in, long long sram_elements, bool causal,
                                           bool record_tiles);

// Σ_{i=0}^{n−1} ⌊(a·i + b)/m⌋ for n >= 0, m >= 1, a, b >= 0 (the AtCoder Library algorithm).
long long floor_sum(long long n, long long m, long long a, long long b);

// M in elements of `dtype` from an SRAM of `sram_bytes`: ⌊sram_bytes / element size⌋. It must
// hold one row each of Q, K, V and O (4·head_dim), else InputError on "sram_bytes".
long long sram_elements_for(long long sram_bytes, const std::string& dtype, long long head_dim);

// "full", "diagonal" or "skipped".
const char* tile_status_name(TileStatus s);

// The lesson's comparison of standard attention (Algorithm 0) and FlashAttention (Algorithm 1)
// on one head: both kernels executed when small (N <= 1024, d <= 128, N²·(d + 8) <= 2^21: the
// two matmuls plus the exponentials), counted by their closed forms beyond; bytes in `dtype`.
struct FlashAttentionQuery {
  long long seq = 0, head_dim = 0, sram_bytes = 0;
  std::string dtype;
  bool causal = false, execute = true;
  std::uint64_t seed = 1;
  bool tiles = false;  // also the tile map, when T_r·T_c <= 4096
};
struct FlashTileRow {
  long long i = 0, j = 0, row0 = 0, rows = 0, col0 = 0, cols = 0;
  std::string status;  // tile_status_name
  long long order = -1;
};
struct FlashAttentionReport {
  bool executed = false;
  std::optional<double> max_abs_error;  // executed: max |O_flash − O_naive|
  std::optional<double> output_max_abs; // executed: max |O_naive|, the scale of the error
  double standard_hbm_bytes = 0, flash_hbm_bytes = 0, flops = 0, standard_flops = 0;
  double standard_read_bytes = 0, standard_write_bytes = 0, flash_read_bytes = 0, flash_write_bytes = 0;
  double formula_standard_hbm_bytes = 0, formula_flash_hbm_bytes = 0;
  double fa2_hbm_bytes = 0, fa2_ratio = 0;  // FlashAttention-2's loop order (closed form); flash / fa2
  long long fa2_row_blocks = 0;
  double hbm_ratio = 0, standard_intensity = 0, flash_intensity = 0, score_matrix_bytes = 0;
  long long sram_elements = 0, block_rows = 0, block_cols = 0, row_blocks = 0, col_blocks = 0;
  double tiles_computed = 0, tiles_skipped = 0;
  std::optional<std::vector<FlashTileRow>> tiles;
};
FlashAttentionReport flash_attention_report(const FlashAttentionQuery& q);

}  // namespace mlsys
