// FlashAttention forward (Algorithm 1 of Dao et al. 2022, arXiv:2205.14135) executed against
// standard attention (their Algorithm 0) and an fp64 reference; its counted HBM traffic
// against the closed form, exactly; the IO bound Θ(N²d²/M) of their Theorem 2; causal block
// skipping; and the `flash-attention` calculator of shared/API.md with its bad inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/kernels/attention_naive.hpp"
#include "mlsys/kernels/flash_attention.hpp"

using mlsys::calc;
using mlsys::json;

namespace {
double max_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(static_cast<double>(a[i]) - b[i]));
  return m;
}
double max_diff(const std::vector<float>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}
std::string error_field(const json& input) {
  try {
    calc("flash-attention", input);
  } catch (const mlsys::InputError& e) {
    return e.field;
  }
  ADD_FAILURE() << "accepted " << input.dump();
  return "<accepted>";
}

struct Case {
  int n, d;
  long long m;  // SRAM elements
};
// Shapes with ragged edges, B_r < B_c, B_c > N, one K/V block, one-row blocks.
const Case kCases[] = {{1, 1, 4},    {7, 3, 12},    {33, 8, 100},   {64, 16, 1024},  {100, 32, 4096},
                       {257, 64, 8192}, {128, 128, 512}, {200, 4, 100000}, {96, 24, 2304}, {50, 10, 40}};
}  // namespace

TEST(FlashBlocks, PaperBlockSizes) {
  // 192 KiB of SRAM in bf16 is M = 98,304 elements; d = 64: B_c = ⌈98304/256⌉ = 384, B_r = min(384, 64).
  const auto b = mlsys::flash_blocks(1024, 64, 98304);
  EXPECT_EQ(b.block_cols, 384);
  EXPECT_EQ(b.block_rows, 64);
  EXPECT_EQ(b.col_blocks, 3);
  EXPECT_EQ(b.row_blocks, 16);
  const auto c = mlsys::flash_blocks(1000, 100, 1001);  // B_c = ⌈1001/400⌉ = 3
  EXPECT_EQ(c.block_cols, 3);
  EXPECT_EQ(c.block_rows, 3);
  EXPECT_EQ(c.col_blocks, 334);
  EXPECT_THROW(mlsys::flash_blocks(10, 8, 31), std::invalid_argument);
}

TEST(FlashForward, MatchesNaiveAndFp64) {
  // Tolerance 2e-6: fp32 accumulation over <= 257 keys of products of entries in [−1, 1).
  for (const auto& c : kCases) {
    for (bool causal : {false, true}) {
      const auto in = mlsys::make_attention_inputs(c.n, c.d, 17);
      const auto naive = mlsys::attention_naive(in, causal);
      const auto fa = mlsys::flash_attention_forward(in, c.m, causal, false);
      const auto ref = mlsys::attention_reference_fp64(in, causal);
      EXPECT_LT(max_diff(fa.o, naive.o), 2e-6) << c.n << " " << c.d << " " << c.m << " causal " << causal;
      EXPECT_LT(max_diff(fa.o, ref), 2e-6) << c.n << " " << c.d << " " << c.m;
      EXPECT_LT(max_diff(naive.o, ref), 2e-6);
      // Rows of P sum to one; causal rows are zero past the diagonal.
      for (int i = 0; i < c.n; ++i) {
        double sum = 0;
        for (int j = 0; j < c.n; ++j) {
          sum += naive.p[static_cast<std::size_t>(i) * c.n + j];
          if (causal && j > i) {
            EXPECT_EQ(naive.p[static_cast<std::size_t>(i) * c.n + j], 0.0f);
          }
        }
        EXPECT_NEAR(sum, 1.0, 1e-5);
      }
    }
  }
}

TEST(FlashForward, CountedTrafficEqualsTheClosedFormExactly) {
  for (const auto& c : kCases) {
    for (bool causal : {false, true}) {
      const auto in = mlsys::make_attention_inputs(c.n, c.d, 5);
      const auto fa = mlsys::flash_attention_forward(in, c.m, causal, true);
      const auto io = mlsys::flash_attention_io(c.n, c.d, c.m, causal);
      EXPECT_EQ(fa.counted.hbm.read_elements, io.hbm.read_elements) << c.n << " " << c.d << " " << c.m << " " << causal;
      EXPECT_EQ(fa.counted.hbm.write_elements, io.hbm.write_elements) << c.n << " " << c.d << " " << c.m;
      EXPECT_EQ(fa.counted.tiles_computed, io.tiles_computed);
      EXPECT_EQ(fa.counted.tiles_skipped, io.tiles_skipped);
      EXPECT_EQ(fa.counted.tile_area, io.tile_area);
      EXPECT_EQ(fa.counted.matmul_flops, io.matmul_flops);
      // The recorded tiles are the ones the non-executing list gives.
      const auto tiles = mlsys::flash_tiles(c.n, c.d, c.m, causal);
      ASSERT_EQ(tiles.size(), fa.tiles.size());
      for (std::size_t k = 0; k < tiles.size(); ++k) {
        EXPECT_EQ(tiles[k].i, fa.tiles[k].i);
        EXPECT_EQ(tiles[k].j, fa.tiles[k].j);
        EXPECT_EQ(tiles[k].status, fa.tiles[k].status);
        EXPECT_EQ(tiles[k].order, fa.tiles[k].order);
      }
      // Non-causal: the paper-style total 3Nd + 2N + T_c·(3Nd + 4N).
      if (!causal) {
        const double n = c.n, d = c.d, tc = static_cast<double>(fa.blocks.col_blocks);
        EXPECT_EQ(io.hbm.total(), 3 * n * d + 2 * n + tc * (3 * n * d + 4 * n));
        EXPECT_EQ(io.matmul_flops, 4 * n * n * d);
      }
      // Standard attention counted while executing: 4Nd + 4N².
      const auto naive = mlsys::attention_naive(in, causal);
      const auto std_io = mlsys::standard_attention_io(c.n, c.d);
      EXPECT_EQ(naive.hbm.read_elements, std_io.read_elements);
      EXPECT_EQ(naive.hbm.write_elements, std_io.write_elements);
      EXPECT_EQ(naive.hbm.total(), 4.0 * c.n * c.d + 4.0 * c.n * c.n);
    }
  }
}

TEST(FlashIo, CausalClosedFormMatchesTileByTileSums) {
  // The floor-sum closed form against a direct sum over every tile, for shapes too large to
  // execute (up to a few thousand tiles per side).
  for (long long n : {1LL, 2LL, 5LL, 97LL, 1000LL, 4096LL, 12345LL, 65536LL}) {
    for (long long d : {1LL, 8LL, 64LL, 128LL}) {
      for (long long m : {4 * d, 4 * d + 1, 3 * d * d, 16384LL, 116736LL}) {
        if (m < 4 * d) continue;
        const auto b = mlsys::flash_blocks(n, d, m);
        if (b.row_blocks * b.col_blocks > 4'000'000) continue;
        double rows = 0, area = 0, computed = 0;
        for (long long j = 0; j < b.col_blocks; ++j) {
          const long long c0 = j * b.block_cols, cols = std::min(b.block_cols, n - c0);
          for (long long i = 0; i < b.row_blocks; ++i) {
            const long long r0 = i * b.block_rows, h = std::min(b.block_rows, n - r0);
            if (r0 + h - 1 < c0) continue;
            rows += h;
            area += static_cast<double>(h) * cols;
            computed += 1;
          }
        }
        const auto io = mlsys::flash_attention_io(n, d, m, true);
        EXPECT_EQ(io.tiles_computed, computed) << n << " " << d << " " << m;
        EXPECT_EQ(io.tile_area, area) << n << " " << d << " " << m;
        const double N = n, D = d;
        EXPECT_EQ(io.hbm.total(), 3 * N * D + 2 * N + (3 * D + 4) * rows) << n << " " << d << " " << m;
      }
    }
  }
}

TEST(FlashIo, FloorSum) {
  for (long long n = 0; n < 30; ++n)
    for (long long mo = 1; mo < 12; ++mo)
      for (long long a = 0; a < 14; ++a)
        for (long long b = 0; b < 14; b += 3) {
          long long brute = 0;
          for (long long i = 0; i < n; ++i) brute += (a * i + b) / mo;
          EXPECT_EQ(mlsys::floor_sum(n, mo, a, b), brute);
        }
  EXPECT_EQ(mlsys::floor_sum(1000000, 7, 3, 5), [] {
    long long s = 0;
    for (long long i = 0; i < 1000000; ++i) s += (3 * i + 5) / 7;
    return s;
  }());
}

TEST(FlashIo, ScalesAsN2D2OverM) {
  // Theorem 2 of Dao et al.: Θ(N²d²/M) accesses. At N = 65,536, d = 64, doubling M halves the
  // traffic to within 3% (the Nd terms and the ceilings are the rest), while standard
  // attention's 4N² + 4Nd does not depend on M at all. The constant: 3Nd·T_c ≈ 12·N²d²/M.
  const long long n = 65536, d = 64;
  double previous = 0;
  for (long long m : {16384LL, 32768LL, 65536LL, 131072LL}) {
    const double io = mlsys::flash_attention_io(n, d, m, false).hbm.total();
    const double bound = static_cast<double>(n) * n * d * d / m;
    EXPECT_NEAR(io / bound, 12.0, 12.0 * 0.03) << m;
    if (previous > 0) {
      EXPECT_NEAR(previous / io, 2.0, 2.0 * 0.03) << m;
    }
    previous = io;
    EXPECT_LT(io, mlsys::standard_attention_io(n, d).read_elements + mlsys::standard_attention_io(n, d).write_elements);
  }
  const json a = calc("flash-attention", {{"seq", n}, {"head_dim", d}, {"sram_bytes", 65536}});
  const json b = calc("flash-attention", {{"seq", n}, {"head_dim", d}, {"sram_bytes", 131072}});
  EXPECT_EQ(a["standard_hbm_bytes"], b["standard_hbm_bytes"]);
  EXPECT_NEAR(a["flash_hbm_bytes"].get<double>() / b["flash_hbm_bytes"].get<double>(), 2.0, 0.06);
}

// FlashAttention-2 (Dao 2023, arXiv:2307.08691, Algorithm 1 and Section 3.1): query blocks
// outer, Q_i read once, K and V read once per query block, O_i and L_i written once. Same order
// Θ(N²d²/M) as FlashAttention; at long sequences the per-pass traffic falls from 3Nd + 4N
// (FlashAttention reads Q, O, l, m and writes O, l, m) to 2Nd (K and V), a ratio of 1.5 + 2/d.
TEST(Flash2Io, ClosedFormAndTheRoundTripsItRemoves) {
  // N = 4096, d = 64, M = 116,224 elements (227 KiB of bf16): B = ⌈116224/256⌉ = 454, T = 10.
  const auto r = mlsys::flash2_attention_io(4096, 64, 116224, false);
  EXPECT_EQ(r.block_rows, 454);
  EXPECT_EQ(r.row_blocks, 10);
  EXPECT_EQ(r.hbm.read_elements, 4096.0 * 64 + 2.0 * 64 * 10 * 4096);
  EXPECT_EQ(r.hbm.write_elements, 4096.0 * 64 + 4096);
  const json c = calc("flash-attention", {{"seq", 4096}, {"head_dim", 64}, {"sram_bytes", 232448}, {"execute", false}});
  EXPECT_EQ(c["fa2_hbm_bytes"], 2 * 5771264.0);
  EXPECT_EQ(c["fa2_row_blocks"], 10);
  EXPECT_EQ(c["flash_hbm_bytes"], 2 * 8822784.0);  // 3Nd + 2N + 10·(3Nd + 4N)
  EXPECT_NEAR(c["fa2_ratio"].get<double>(), 8822784.0 / 5771264.0, 1e-12);
  // Long sequences: FlashAttention over FlashAttention-2 tends to (3Nd + 4N)/(2Nd) = 1.5 + 2/d.
  for (long long d : {32LL, 64LL, 128LL}) {
    const double fa1 = mlsys::flash_attention_io(1 << 20, d, 65536, false).hbm.total();
    const double fa2 = mlsys::flash2_attention_io(1 << 20, d, 65536, false).hbm.total();
    EXPECT_NEAR(fa1 / fa2, 1.5 + 2.0 / d, 0.01) << d;
    // Same order: doubling M halves both.
    EXPECT_NEAR(fa2 / mlsys::flash2_attention_io(1 << 20, d, 131072, false).hbm.total(), 2.0, 0.02) << d;
  }
  // Causal: query block i reads the keys up to its last query, (i + 1)·B, the last block all N.
  for (const auto& k : kCases) {
    const auto causal = mlsys::flash2_attention_io(k.n, k.d, k.m, true);
    double keys = 0;
    for (long long i = 0; i < causal.row_blocks; ++i)
      keys += std::min<double>(k.n, static_cast<double>((i + 1) * causal.block_rows));
    EXPECT_DOUBLE_EQ(causal.hbm.read_elements, static_cast<double>(k.n) * k.d + 2.0 * k.d * keys) << k.n;
    EXPECT_LE(causal.hbm.total(), mlsys::flash2_attention_io(k.n, k.d, k.m, false).hbm.total());
  }
}

TEST(FlashIo, CausalSkipsTheUpperTriangleOfTiles) {
  // Square tiles (B_r = B_c = d when M = 4d²) on N = T·B: T(T−1)/2 tiles skipped, T(T+1)/2
  // computed, of which T are diagonal.
  const long long d = 32, m = 4 * d * d;
  for (long long t : {1LL, 2LL, 8LL, 33LL}) {
    const long long n = t * d;
    const auto io = mlsys::flash_attention_io(n, d, m, true);
    EXPECT_EQ(io.tiles_skipped, t * (t - 1) / 2);
    EXPECT_EQ(io.tiles_computed, t * (t + 1) / 2);
    EXPECT_EQ(io.matmul_flops, 4.0 * d * d * d * t * (t + 1) / 2);
    const auto tiles = mlsys::flash_tiles(n, d, m, true);
    EXPECT_EQ(std::count_if(tiles.begin(), tiles.end(),
                            [](const auto& x) { return x.status == mlsys::TileStatus::Diagonal; }),
              t);
  }
  // Large N: causal work tends to half of the non-causal work, and so does the Q/O traffic.
  const auto full = mlsys::flash_attention_io(65536, 64, 65536, false);
  const auto causal = mlsys::flash_attention_io(65536, 64, 65536, true);
  EXPECT_NEAR(causal.matmul_flops / full.matmul_flops, 0.5, 0.01);
  EXPECT_NEAR(causal.hbm.total() / full.hbm.total(), 0.5, 0.02);
}

TEST(FlashAttentionCalc, ExecutedWhenSmallFormulaBeyond) {
  const json small = calc("flash-attention", {{"seq", 128}, {"head_dim", 64}, {"sram_bytes", 16384}, {"dtype", "fp32"},
                                              {"tiles", true}});
  EXPECT_TRUE(small["executed"]);
  EXPECT_LT(small["max_abs_error"].get<double>(), 2e-6);
  EXPECT_EQ(small["flash_hbm_bytes"], small["formula_flash_hbm_bytes"]);
  EXPECT_EQ(small["standard_hbm_bytes"], small["formula_standard_hbm_bytes"]);
  EXPECT_DOUBLE_EQ(small["standard_hbm_bytes"].get<double>(), (4.0 * 128 * 64 + 4.0 * 128 * 128) * 4);
  EXPECT_DOUBLE_EQ(small["flops"].get<double>(), 4.0 * 128 * 128 * 64);
  EXPECT_TRUE(small.contains("tiles"));
  EXPECT_EQ(small["tiles"].size(), small["row_blocks"].get<std::size_t>() * small["col_blocks"].get<std::size_t>());

  const json big = calc("flash-attention", {{"seq", 16384}, {"head_dim", 128}});
  EXPECT_FALSE(big["executed"]);
  EXPECT_FALSE(big.contains("max_abs_error"));
  EXPECT_EQ(big["flash_hbm_bytes"], big["formula_flash_hbm_bytes"]);
  EXPECT_GT(big["hbm_ratio"].get<double>(), 1.0);
  // Execution can be declined: same numbers from the formula.
  json off = calc("flash-attention", {{"seq", 128}, {"head_dim", 64}, {"sram_bytes", 16384}, {"dtype", "fp32"}, {"execute", false}});
  EXPECT_FALSE(off["executed"]);
  for (const char* k : {"flash_hbm_bytes", "standard_hbm_bytes", "flops", "tiles_computed"}) EXPECT_EQ(off[k], small[k]) << k;
  // Caps: N²(d + 8) <= 2^21, so d = 1 executes up to N = 482 and d = 128 up to N = 124.
  EXPECT_TRUE(calc("flash-attention", {{"seq", 482}, {"head_dim", 1}})["executed"]);
  EXPECT_FALSE(calc("flash-attention", {{"seq", 483}, {"head_dim", 1}})["executed"]);
  EXPECT_TRUE(calc("flash-attention", {{"seq", 124}, {"head_dim", 128}})["executed"]);
  EXPECT_FALSE(calc("flash-attention", {{"seq", 125}, {"head_dim", 128}})["executed"]);
}

TEST(FlashAttentionCalc, CausalAndDtype) {
  const json c = calc("flash-attention",
                      {{"seq", 200}, {"head_dim", 32}, {"sram_bytes", 2048}, {"causal", true}, {"tiles", true}});
  EXPECT_FALSE(calc("flash-attention", {{"seq", 200}, {"head_dim", 32}, {"sram_bytes", 2048}}).contains("tiles"));
  EXPECT_TRUE(c["executed"]);
  EXPECT_GT(c["tiles_skipped"].get<double>(), 0);
  EXPECT_LT(c["max_abs_error"].get<double>(), 2e-6);
  for (const auto& t : c["tiles"]) {
    if (t["status"] == "skipped") {
      EXPECT_LT(t["row0"].get<long long>() + t["rows"].get<long long>() - 1, t["col0"].get<long long>());
      EXPECT_EQ(t["order"], -1);
    }
  }
  // Bytes scale with the element size at a fixed element count: fp32 with twice the SRAM bytes
  // of bf16 has the same blocks and exactly twice the bytes.
  const json bf = calc("flash-attention", {{"seq", 8192}, {"head_dim", 64}, {"sram_bytes", 65536}, {"dtype", "bf16"}});
  const json fp = calc("flash-attention", {{"seq", 8192}, {"head_dim", 64}, {"sram_bytes", 131072}, {"dtype", "fp32"}});
  EXPECT_EQ(bf["block_cols"], fp["block_cols"]);
  EXPECT_DOUBLE_EQ(fp["flash_hbm_bytes"].get<double>(), 2 * bf["flash_hbm_bytes"].get<double>());
}

TEST(FlashAttentionCalc, BadInputs) {
  EXPECT_EQ(error_field({{"seq", 0}}), "seq");
  EXPECT_EQ(error_field({{"seq", -5}}), "seq");
  EXPECT_EQ(error_field({{"seq", 1e12}}), "seq");
  EXPECT_EQ(error_field({{"seq", 10.5}}), "seq");
  EXPECT_EQ(error_field({{"head_dim", 0}}), "head_dim");
  EXPECT_EQ(error_field({{"head_dim", 512}}), "head_dim");
  EXPECT_EQ(error_field({{"sram_bytes", 0}}), "sram_bytes");
  EXPECT_EQ(error_field({{"sram_bytes", 1000}, {"head_dim", 256}}), "sram_bytes");  // 500 bf16 < 4·256
  EXPECT_EQ(error_field({{"dtype", "fp12"}}), "dtype");
  EXPECT_EQ(error_field({{"causal", 1}}), "causal");
  EXPECT_EQ(error_field({{"seq", "1024"}}), "seq");
  EXPECT_EQ(error_field({{"sequence", 1024}}), "sequence");
  EXPECT_FALSE(mlsys::calc_text("flash-attention", "{\"seq\": NaN}").ok);
  EXPECT_FALSE(mlsys::calc_text("flash-attention", "{\"seq\": 1e400}").ok);
}

// The lesson's report against Theorem 2 of Dao et al. 2022 (arXiv:2205.14135): standard
// attention moves 4Nd + 4N² elements; Algorithm 1 moves 3Nd + 2N + T_c·(3Nd + 4N).
TEST(FlashAttentionReportModel, ClosedFormsBeyondTheExecutionCap) {
  EXPECT_EQ(mlsys::sram_elements_for(196608, "bf16", 64), 98304);
  try {
    mlsys::sram_elements_for(256, "fp32", 64);  // 64 elements < 4·64
    ADD_FAILURE() << "accepted a too small SRAM";
  } catch (const mlsys::InputError& e) {
    EXPECT_EQ(e.field, "sram_bytes");
  }
  const double N = 2048, d = 64, s = 2;
  const auto r = mlsys::flash_attention_report({2048, 64, 196608, "bf16", false, true, 1, false});
  EXPECT_FALSE(r.executed);  // N > 1024
  EXPECT_FALSE(r.max_abs_error.has_value());
  EXPECT_FALSE(r.tiles.has_value());
  EXPECT_EQ(r.block_cols, 384);  // ⌈98304 / (4·64)⌉
  EXPECT_EQ(r.block_rows, 64);   // min(B_c, d)
  EXPECT_EQ(r.col_blocks, 6);    // ⌈2048 / 384⌉
  EXPECT_DOUBLE_EQ(r.standard_hbm_bytes, (4 * N * d + 4 * N * N) * s);
  EXPECT_DOUBLE_EQ(r.flash_hbm_bytes, (3 * N * d + 2 * N + 6 * (3 * N * d + 4 * N)) * s);
  EXPECT_DOUBLE_EQ(r.hbm_ratio, r.standard_hbm_bytes / r.flash_hbm_bytes);
  EXPECT_DOUBLE_EQ(r.standard_flops, 4 * N * N * d);
  EXPECT_DOUBLE_EQ(r.score_matrix_bytes, N * N * s);

  const auto small = mlsys::flash_attention_report({64, 16, 196608, "fp32", true, true, 3, true});
  EXPECT_TRUE(small.executed);
  ASSERT_TRUE(small.max_abs_error.has_value());
  EXPECT_LT(*small.max_abs_error, 1e-5);
  ASSERT_TRUE(small.tiles.has_value());
  EXPECT_EQ(static_cast<long long>(small.tiles->size()), small.row_blocks * small.col_blocks);
}
