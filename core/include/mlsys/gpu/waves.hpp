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
};

// Breakpoints of utilization against grid size for grids 1 .. curve_waves · slots: for each
// wave w, the first grid that needs it ((w − 1)·slots + 1) and the last (w·slots). Between two
// breakpoints of the same wave, utilization is linear in the grid size.
std::vector<WavePoint> wave_curve(long long sms, long long blocks_per_sm, long long curve_waves);

}  // namespace mlsys
