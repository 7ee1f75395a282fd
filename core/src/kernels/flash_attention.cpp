// FlashAttention forward (Algorithm 1 of Dao et al. 2022): executed tiled kernel with counted
// HBM traffic, and the closed form of that count.
#include "mlsys/kernels/flash_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/kernels/online_softmax.hpp"

namespace mlsys {

namespace {
long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// A tile is skipped when its last query comes before its first key; it is fully unmasked
// when its first query comes at or after its last key.
TileStatus tile_status(bool causal, long long row0, long long rows, long long col0, long long cols) {
  if (!causal) return TileStatus::Full;
  if (row0 + rows - 1 < col0) return TileStatus::Skipped;
  if (col0 + cols - 1 <= row0) return TileStatus::Full;
  return TileStatus::Diagonal;
}

// q·k with four running sums (elements t ≡ 0, 1, 2, 3 mod 4), added at the end. One running
// sum would make every addition wait for the previous one; four independent ones keep the
// floating-point adder busy. The order of the additions is fixed, so every build (native and
// WASM) gives the same bits.
float dot4(const float* q, const float* k, int d) {
  float acc[4] = {0, 0, 0, 0};
  int t = 0;
  for (; t + 4 <= d; t += 4)
    for (int u = 0; u < 4; ++u) acc[u] += q[t + u] * k[t + u];
  for (; t < d; ++t) acc[t % 4] += q[t] * k[t];
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}
}  // namespace

long long floor_sum(long long n, long long m, long long a, long long b) {
  if (n < 0 || m < 1 || a < 0 || b < 0) throw std::invalid_argument("floor_sum: need n >= 0, m >= 1, a, b >= 0");
  unsigned long long un = static_cast<unsigned long long>(n), um = static_cast<unsigned long long>(m),
                     ua = static_cast<unsigned long long>(a), ub = static_cast<unsigned long long>(b), ans = 0;
  while (true) {
    if (ua >= um) {
      ans += (un * (un - 1) / 2) * (ua / um);  // un·(un − 1) is even
      ua %= um;
    }
    if (ub >= um) {
      ans += un * (ub / um);
      ub %= um;
    }
    const unsigned long long y_max = ua * un + ub;
    if (y_max < um) break;
    un = y_max / um;
    ub = y_max % um;
    std::swap(um, ua);
  }
  return static_cast<long long>(ans);
}

FlashBlocks flash_blocks(long long n, long long d, long long sram_elements) {
  if (n < 1 || d < 1) throw std::invalid_argument("flash_blocks: n and d must be >= 1");
  if (sram_elements < 4 * d) throw std::invalid_argument("flash_blocks: SRAM must hold at least 4·d elements");
  FlashBlocks b;
  b.sram_elements = sram_elements;
  b.block_cols = ceil_div(sram_elements, 4 * d);
  b.block_rows = std::min(b.block_cols, d);
  b.row_blocks = ceil_div(n, b.block_rows);
  b.col_blocks = ceil_div(n, b.block_cols);
  return b;
}

Flash2Io flash2_attention_io(long long n, long long d, long long sram_elements, bool causal) {
  const FlashBlocks b = flash_blocks(n, d, sram_elements);
  Flash2Io r;
  r.block_rows = b.block_cols;
  r.row_blocks = b.col_blocks;
  const double N = static_cast<double>(n), D = static_cast<double>(d), B = static_cast<double>(r.block_rows);
  // Σ_i keys read by query block i: N each, or with the mask the keys up to the block's last
  // query, (i + 1)·B for every block but the last, which reads all N: B·T(T − 1)/2 + N.
  const double T = static_cast<double>(r.row_blocks);
  const double keys = causal ? B * T * (T - 1) / 2 + N : T * N;
  r.hbm.read_elements = N * D + 2 * D * keys;  // Q once, K and V once per query block
  r.hbm.write_elements = N * D + N;            // O and the logsumexp once
  return r;
}

FlashIo flash_attention_io(long long n, long long d, long long sram_elements, bool causal) {
  const FlashBlocks b = flash_blocks(n, d, sram_elements);
  const long long br = b.block_rows, bc = b.block_cols, tr = b.row_blocks, tc = b.col_blocks;
  double rows_loaded = 0;  // H = Σ over computed tiles of their rows
  FlashIo io;
  if (!causal) {
    rows_loaded = static_cast<double>(n) * static_cast<double>(tc);
    io.tiles_computed = static_cast<double>(tr) * static_cast<double>(tc);
    io.tile_area = static_cast<double>(n) * static_cast<double>(n);
  } else {
    // Row block i < T_r − 1 ends at query r_i = (i + 1)·B_r − 1 and computes the tiles
    // j = 0 .. ⌊r_i / B_c⌋; the last row block computes all T_c tiles.
    const long long h_last = n - (tr - 1) * br;
    const long long s1 = floor_sum(tr - 1, bc, br, br - 1);  // Σ_{i<T_r−1} ⌊r_i / B_c⌋
    const long long tiles_first = s1 + (tr - 1);              // Σ_{i<T_r−1} n_i
    io.tiles_computed = static_cast<double>(tiles_first + tc);
    rows_loaded = static_cast<double>(br) * static_cast<double>(tiles_first) + static_cast<double>(h_last) * tc;
    // Columns covered by row block i are min(N, n_i·B_c); n_i·B_c passes N only when n_i = T_c,
    // which holds for i >= i* = ⌈((T_c − 1)·B_c + 1)/B_r⌉ − 1.
    const long long i_star = ceil_div((tc - 1) * bc + 1, br) - 1;
    const long long full_rows = std::max(0LL, (tr - 1) - i_star);
    const double cols_first = static_cast<double>(bc) * static_cast<double>(tiles_first) -
                              static_cast<double>(full_rows) * static_cast<double>(tc * bc - n);
    io.tile_area = static_cast<double>(br) * cols_first + static_cast<double>(h_last) * static_cast<double>(n);
  }
  io.tiles_skipped = static_cast<double>(tr) * static_cast<double>(tc) - io.tiles_computed;
  const double N = static_cast<double>(n), D = static_cast<double>(d);
  io.hbm.write_elements = N * D + 2 * N + (D + 2) * rows_loaded;
  io.hbm.read_elements = 2 * N * D + (2 * D + 2) * rows_loaded;
  io.matmul_flops = 4 * D * io.tile_area;
  return io;
}

std::vector<FlashTile> flash_tiles(long long n, long long d, long long sram_elements, bool causal) {
  const FlashBlocks b = flash_blocks(n, d, sram_elements);
  std::vector<FlashTile> tiles;
  long long order = 0;
  for (long long j = 0; j < b.col_blocks; ++j) {
    const long long col0 = j * b.block_cols, cols = std::min(b.block_cols, n - col0);
    for (long long i = 0; i < b.row_blocks; ++i) {
      const long long row0 = i * b.block_rows, rows = std::min(b.block_rows, n - row0);
      FlashTile t{i, j, row0, rows, col0, cols, tile_status(causal, row0, rows, col0, cols), -1};
      if (t.status != TileStatus::Skipped) t.order = order++;
      tiles.push_back(t);
    }
  }
  return tiles;
}

FlashForwardResult flash_attention_forward(const AttentionInputs& in, long long sram_elements, bool causal,
                                           bool record_tiles) {
  const int n = in.n, d = in.d;
  FlashForwardResult r;
  r.blocks = flash_blocks(n, d, sram_elements);
  const int br_max = static_cast<int>(r.blocks.block_rows);
  const int bc_max = static_cast<int>(std::min<long long>(r.blocks.block_cols, n));
  const float tau = attention_scale(d);
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const double D = d;
  HbmCount& hbm = r.counted.hbm;

  // Line 2: initialize O = 0, l = 0, m = −∞ in HBM.
  r.o.assign(static_cast<std::size_t>(n) * d, 0.0f);
  r.l.assign(static_cast<std::size_t>(n), 0.0f);
  r.m.assign(static_cast<std::size_t>(n), neg_inf);
  hbm.write_elements += static_cast<double>(n) * D + 2.0 * n;

  // On-chip buffers ("SRAM").
  std::vector<float> kj(static_cast<std::size_t>(bc_max) * d), vj(kj.size());
  std::vector<float> qi(static_cast<std::size_t>(br_max) * d), oi(qi.size()), li(br_max), mi(br_max);
  std::vector<float> s(static_cast<std::size_t>(br_max) * bc_max), pv(d);

  long long order = 0;
  for (long long j = 0; j < r.blocks.col_blocks; ++j) {
    const int c0 = static_cast<int>(j * r.blocks.block_cols);
    const int bc = std::min(bc_max, n - c0);
    // Line 6: load K_j, V_j.
    std::copy_n(&in.k[static_cast<std::size_t>(c0) * d], static_cast<std::size_t>(bc) * d, kj.begin());
    std::copy_n(&in.v[static_cast<std::size_t>(c0) * d], static_cast<std::size_t>(bc) * d, vj.begin());
    hbm.read_elements += 2.0 * bc * D;

    for (long long i = 0; i < r.blocks.row_blocks; ++i) {
      const int r0 = static_cast<int>(i * r.blocks.block_rows);
      const int br = std::min(br_max, n - r0);
      const TileStatus status = tile_status(causal, r0, br, c0, bc);
      if (record_tiles)
        r.tiles.push_back({i, j, r0, br, c0, bc, status, status == TileStatus::Skipped ? -1 : order});
      if (status == TileStatus::Skipped) {
        r.counted.tiles_skipped += 1;
        continue;
      }
      ++order;
      // Line 8: load Q_i, O_i, l_i, m_i.
      std::copy_n(&in.q[static_cast<std::size_t>(r0) * d], static_cast<std::size_t>(br) * d, qi.begin());
      std::copy_n(&r.o[static_cast<std::size_t>(r0) * d], static_cast<std::size_t>(br) * d, oi.begin());
      std::copy_n(&r.l[static_cast<std::size_t>(r0)], br, li.begin());
      std::copy_n(&r.m[static_cast<std::size_t>(r0)], br, mi.begin());
      hbm.read_elements += 2.0 * br * D + 2.0 * br;

      // Line 9: S_ij = τ·Q_i·K_jᵀ (masked entries −∞).
      for (int a = 0; a < br; ++a)
        for (int c = 0; c < bc; ++c)
          s[static_cast<std::size_t>(a) * bc + c] =
              (causal && c0 + c > r0 + a)
                  ? neg_inf
                  : dot4(&qi[static_cast<std::size_t>(a) * d], &kj[static_cast<std::size_t>(c) * d], d) * tau;

      for (int a = 0; a < br; ++a) {
        float* row = &s[static_cast<std::size_t>(a) * bc];
        // Line 10: m̃ = rowmax(S), P̃ = exp(S − m̃), l̃ = rowsum(P̃).
        float mt = neg_inf;
        for (int c = 0; c < bc; ++c) mt = std::max(mt, row[c]);
        float lt = 0;
        if (mt != neg_inf)
          for (int c = 0; c < bc; ++c) lt += row[c] = (row[c] == neg_inf ? 0.0f : expf_det(row[c] - mt));
        // Line 11: m_new = max(m_i, m̃), l_new = e^(m_i − m_new)·l_i + e^(m̃ − m_new)·l̃.
        const float m_old = mi[a], l_old = li[a];
        const float m_new = std::max(m_old, mt);
        if (m_new == neg_inf) continue;  // every key so far masked for this query
        const float alpha = m_old == neg_inf ? 0.0f : expf_det(m_old - m_new);
        const float beta = mt == neg_inf ? 0.0f : expf_det(mt - m_new);
        const float l_new = alpha * l_old + beta * lt;
        // Line 12: O_i = diag(l_new)⁻¹·(diag(l_i)·e^(m_i − m_new)·O_i + e^(m̃ − m_new)·P̃·V_j).
        std::fill(pv.begin(), pv.end(), 0.0f);
        if (mt != neg_inf)
          for (int c = 0; c < bc; ++c) {
            const float p = row[c];
            const float* v = &vj[static_cast<std::size_t>(c) * d];
            for (int t = 0; t < d; ++t) pv[t] += p * v[t];
          }
        float* o = &oi[static_cast<std::size_t>(a) * d];
        for (int t = 0; t < d; ++t) o[t] = ((l_old * alpha) * o[t] + beta * pv[t]) / l_new;
        li[a] = l_new;
        mi[a] = m_new;
      }
      // Lines 12-13: write O_i, l_i, m_i.
      std::copy_n(oi.begin(), static_cast<std::size_t>(br) * d, &r.o[static_cast<std::size_t>(r0) * d]);
      std::copy_n(li.begin(), br, &r.l[static_cast<std::size_t>(r0)]);
      std::copy_n(mi.begin(), br, &r.m[static_cast<std::size_t>(r0)]);
      hbm.write_elements += br * D + 2.0 * br;

      r.counted.tiles_computed += 1;
      r.counted.tile_area += static_cast<double>(br) * bc;
      r.counted.matmul_flops += 4.0 * br * bc * D;
    }
  }
  return r;
}

long long sram_elements_for(long long sram_bytes, const std::string& dtype, long long head_dim) {
  const double s = dtype_bytes(dtype);
  const long long m = static_cast<long long>(std::floor(static_cast<double>(sram_bytes) / s));
  if (m < 4 * head_dim)
    throw InputError("sram_bytes", "'sram_bytes' holds " + std::to_string(m) + " " + dtype +
                                       " elements; FlashAttention's blocks need at least 4·head_dim = " +
                                       std::to_string(4 * head_dim) + ".");
  return m;
}

const char* tile_status_name(TileStatus s) {
  switch (s) {
    case TileStatus::Full: return "full";
    case TileStatus::Diagonal: return "diagonal";
    case TileStatus::Skipped: return "skipped";
  }
  return "full";
}

FlashAttentionReport flash_attention_report(const FlashAttentionQuery& q) {
  // Execution caps: one call stays well under 100 ms in WebAssembly.
  constexpr long long kFlashMaxSeq = 1024, kFlashMaxHeadDim = 128, kMaxTiles = 4096;
  constexpr double kFlashMaxWork = 2097152;
  const long long n = q.seq, d = q.head_dim;
  const bool causal = q.causal;
  const double s = dtype_bytes(q.dtype);
  const long long m = sram_elements_for(q.sram_bytes, q.dtype, d);
  const FlashBlocks blocks = flash_blocks(n, d, m);
  const FlashIo formula = flash_attention_io(n, d, m, causal);
  const HbmCount standard_formula = standard_attention_io(static_cast<double>(n), static_cast<double>(d));
  const double N = static_cast<double>(n), D = static_cast<double>(d);
  const bool executed = q.execute && n <= kFlashMaxSeq && d <= kFlashMaxHeadDim && N * N * (D + 8) <= kFlashMaxWork;

  FlashIo flash = formula;
  HbmCount standard = standard_formula;
  double standard_flops = 4 * N * N * D;
  FlashAttentionReport r;
  std::vector<FlashTile> tiles;
  const bool want_tiles =
      q.tiles && static_cast<double>(blocks.row_blocks) * static_cast<double>(blocks.col_blocks) <= kMaxTiles;
  if (executed) {
    const auto inputs = make_attention_inputs(static_cast<int>(n), static_cast<int>(d), q.seed);
    const auto naive = attention_naive(inputs, causal);
    const auto fa = flash_attention_forward(inputs, m, causal, want_tiles);
    flash = fa.counted;
    standard = naive.hbm;
    standard_flops = naive.matmul_flops;
    tiles = fa.tiles;
    r.max_abs_error = max_abs_diff(fa.o, naive.o);
    double largest = 0;
    for (float x : naive.o) largest = std::max(largest, static_cast<double>(std::fabs(x)));
    r.output_max_abs = largest;
  } else if (want_tiles) {
    tiles = flash_tiles(n, d, m, causal);
  }
  const double flash_bytes = flash.hbm.total() * s, standard_bytes = standard.total() * s;
  r.executed = executed;
  r.standard_hbm_bytes = standard_bytes;
  r.flash_hbm_bytes = flash_bytes;
  r.flops = flash.matmul_flops;
  r.standard_flops = standard_flops;
  r.standard_read_bytes = standard.read_elements * s;
  r.standard_write_bytes = standard.write_elements * s;
  r.flash_read_bytes = flash.hbm.read_elements * s;
  r.flash_write_bytes = flash.hbm.write_elements * s;
  r.formula_standard_hbm_bytes = standard_formula.total() * s;
  r.formula_flash_hbm_bytes = formula.hbm.total() * s;
  r.hbm_ratio = standard_bytes / flash_bytes;
  const Flash2Io fa2 = flash2_attention_io(n, d, m, causal);
  r.fa2_hbm_bytes = fa2.hbm.total() * s;
  r.fa2_ratio = flash_bytes / r.fa2_hbm_bytes;
  r.fa2_row_blocks = fa2.row_blocks;
  r.standard_intensity = standard_flops / standard_bytes;
  r.flash_intensity = flash.matmul_flops / flash_bytes;
  r.score_matrix_bytes = N * N * s;
  r.sram_elements = m;
  r.block_rows = blocks.block_rows;
  r.block_cols = blocks.block_cols;
  r.row_blocks = blocks.row_blocks;
  r.col_blocks = blocks.col_blocks;
  r.tiles_computed = flash.tiles_computed;
  r.tiles_skipped = flash.tiles_skipped;
  if (want_tiles) {
    r.tiles.emplace();
    for (const auto& t : tiles)
      r.tiles->push_back({t.i, t.j, t.row0, t.rows, t.col0, t.cols, tile_status_name(t.status), t.order});
  }
  return r;
}

}  // namespace mlsys
