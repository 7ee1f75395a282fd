// Wave quantization of a grid of equal blocks (NVIDIA Matrix Multiplication Background User's
// Guide, "Wave Quantization"): closed form, a step-by-step reference, and the utilization curve.
#include "mlsys/gpu/waves.hpp"

#include <algorithm>

namespace mlsys {

WaveResult waves(long long blocks, long long sms, long long blocks_per_sm) {
  WaveResult r{};
  r.slots = sms * blocks_per_sm;
  r.waves = (blocks + r.slots - 1) / r.slots;
  r.full_waves = blocks / r.slots;
  r.last_wave_blocks = blocks - (r.waves - 1) * r.slots;
  r.last_wave_utilization = static_cast<double>(r.last_wave_blocks) / static_cast<double>(r.slots);
  r.utilization = static_cast<double>(blocks) / (static_cast<double>(r.waves) * static_cast<double>(r.slots));
  // Breadth first: every SM gets floor(last / sms) blocks, the first (last mod sms) one more.
  const long long base = r.last_wave_blocks / sms, extra = r.last_wave_blocks % sms;
  r.blocks_high = extra > 0 ? base + 1 : base;
  r.sms_high = extra > 0 ? extra : sms;
  r.sms_busy_last_wave = base > 0 ? sms : extra;
  return r;
}

WaveResult waves_simulated(long long blocks, long long sms, long long blocks_per_sm) {
  std::vector<long long> running(static_cast<std::size_t>(sms), 0);
  long long left = blocks, steps = 0;
  while (left > 0) {
    ++steps;
    std::fill(running.begin(), running.end(), 0);  // the previous step's blocks all finished
    // Fill slots breadth first: one block on every SM per round, until the SMs are full.
    for (long long round = 0; round < blocks_per_sm && left > 0; ++round)
      for (auto& n : running)
        if (left > 0) { ++n; --left; }
  }
  WaveResult r{};
  r.slots = sms * blocks_per_sm;
  r.waves = steps;
  long long last = 0;
  for (long long n : running) last += n;
  r.last_wave_blocks = last;
  r.full_waves = last == r.slots ? steps : steps - 1;
  r.last_wave_utilization = static_cast<double>(last) / static_cast<double>(r.slots);
  r.utilization = static_cast<double>(blocks) / (static_cast<double>(steps) * static_cast<double>(r.slots));
  r.blocks_high = *std::max_element(running.begin(), running.end());
  r.sms_high = std::count(running.begin(), running.end(), r.blocks_high);
  r.sms_busy_last_wave = std::count_if(running.begin(), running.end(), [](long long n) { return n > 0; });
  return r;
}

std::vector<WavePoint> wave_curve(long long sms, long long blocks_per_sm, long long curve_waves) {
  const long long slots = sms * blocks_per_sm;
  std::vector<WavePoint> points;
  for (long long w = 1; w <= curve_waves; ++w) {
    const long long first = (w - 1) * slots + 1, last = w * slots;
    points.push_back({first, w, static_cast<double>(first) / static_cast<double>(w * slots)});
    if (last != first) points.push_back({last, w, 1.0});
  }
  return points;
}

StreamK stream_k(long long tiles, long long workers, long long iters_per_tile, double fixup_iters) {
  StreamK s{};
  s.iters_per_tile = iters_per_tile;
  s.total_iters = tiles * iters_per_tile;
  s.iters_per_worker = (s.total_iters + workers - 1) / workers;
  // A worker's range [w·share, (w+1)·share) splits a tile unless every boundary falls on a
  // tile edge: the share is a whole number of tiles, or one worker takes everything.
  s.split = workers > 1 && s.iters_per_worker < s.total_iters && s.iters_per_worker % iters_per_tile != 0;
  s.fixups = s.split ? (iters_per_tile + s.iters_per_worker - 1) / s.iters_per_worker : 0;
  s.fixup_iters = static_cast<double>(s.fixups) * fixup_iters;
  const double per_tile = static_cast<double>(iters_per_tile);
  s.data_parallel_tiles = static_cast<double>((tiles + workers - 1) / workers);
  s.stream_k_tiles = (static_cast<double>(s.iters_per_worker) + s.fixup_iters) / per_tile;
  s.ideal_tiles = static_cast<double>(tiles) / static_cast<double>(workers);
  s.speedup = s.data_parallel_tiles / s.stream_k_tiles;
  s.stream_k_utilization = s.ideal_tiles / s.stream_k_tiles;
  return s;
}

}  // namespace mlsys

