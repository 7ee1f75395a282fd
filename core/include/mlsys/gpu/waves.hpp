// Wave quantization: a grid of equal-length blocks runs on `sms` SMs that each hold
// `blocks_per_sm` blocks at once, so it executes in ceil(blocks / slots) waves and the last,
// partial wave leaves slots idle (the tail effect). Source: NVIDIA, "Matrix Multiplication
// Background User's Guide", section "Wave Quantization" (Deep Learning Performance docs).
#pragma once
#include <vector>

namespace mlsys {

struct WaveResult {
  long long slots;               // blocks resident at once: sms · blocks_per_sm
  long long waves;               // ceil(blocks / slots)
  long long full_waves;          // floor(blocks / slots)
  long long last_wave_blocks;    // blocks in the last wave, 1 .. slots
  double last_wave_utilization;  // last_wave_blocks / slots
  double utilization;            // blocks / (waves · slots): busy share of the slot-time
  // The last wave placed breadth first (one block per SM before any SM gets a second):
  // `sms_high` SMs run `blocks_high` blocks and the other sms − sms_high run blocks_high − 1.
  long long blocks_high;
  long long sms_high;
  long long sms_busy_last_wave;  // SMs with at least one block in the last wave
};

// blocks >= 1, sms >= 1, blocks_per_sm >= 1. Closed form.
WaveResult waves(long long blocks, long long sms, long long blocks_per_sm);

// Naive reference: dispatches the blocks one time step (one block duration) at a time, each
// step filling every free slot breadth first, and counts the steps and the last step's
// placement. Cost grows with blocks; the caller caps it (tests only).
WaveResult waves_simulated(long long blocks, long long sms, long long blocks_per_sm);

struct WavePoint {
  long long blocks;    // grid size
  long long waves;     // waves it needs
  double utilization;  // blocks / (waves · slots)
  // Kernel time in tile-times for this grid (filled by waves_on): one tile per block, or the
  // same tiles split evenly by Stream-K (see StreamK).
  double data_parallel_tiles = 0;
  double stream_k_tiles = 0;
};

// Breakpoints of utilization against grid size for grids 1 .. curve_waves · slots: for each
// wave w, the first grid that needs it ((w − 1)·slots + 1) and the last (w·slots). Between two
// breakpoints of the same wave, utilization is linear in the grid size.
std::vector<WavePoint> wave_curve(long long sms, long long blocks_per_sm, long long curve_waves);

// Stream-K (Osama, Merrill, Cecka, Garland, Owens, "Stream-K: Work-centric Parallel
// Decomposition for Dense Matrix-Matrix Multiplication on the GPU", PPoPP 2023,
// arXiv:2301.03598): instead of one output tile per block, `workers` persistent blocks (one
// per slot) each take an even share of all tiles × iters_per_tile MAC iterations (one
// iteration: one k-step of one tile), so a tile may be split between consecutive workers.
// Model, in units of one MAC iteration: data-parallel (one tile per block, or a persistent
// kernel that loops over whole tiles) takes ceil(tiles / workers) · iters_per_tile; Stream-K
// takes ceil(tiles · iters_per_tile / workers) plus, when some tile is split, fix-ups of
// fixup_iters each (a partial tile of sums written by one worker, then read and added by the
// worker that finishes the tile): ceil(iters_per_tile / share) of them on the critical path,
// one when each worker's share spans at most two tiles. The fix-up cost is an assumption.
struct StreamK {
  long long iters_per_tile;       // MAC iterations of one tile: K / tile depth
  long long total_iters;          // tiles · iters_per_tile
  long long iters_per_worker;     // ceil(total_iters / workers): the busiest worker's share
  bool split;                     // some tile's iterations span two workers
  long long fixups;               // partial tiles added on the critical path (0 when nothing is split)
  double fixup_iters;             // fixups · fix-up cost, in MAC iterations
  double data_parallel_tiles;     // ceil(tiles / workers): time in tile-times
  double stream_k_tiles;          // (iters_per_worker + fixup) / iters_per_tile
  double ideal_tiles;             // tiles / workers: perfect balance, no fix-up
  double speedup;                 // data_parallel_tiles / stream_k_tiles
  double stream_k_utilization;    // ideal_tiles / stream_k_tiles
};

// tiles, workers, iters_per_tile >= 1; fixup_iters >= 0.
StreamK stream_k(long long tiles, long long workers, long long iters_per_tile, double fixup_iters);

}  // namespace mlsys
