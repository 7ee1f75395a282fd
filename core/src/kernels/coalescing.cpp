// One warp request enumerated lane by lane: distinct 32-byte sectors and 128-byte lines
// (CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory") and the shared-memory
// bank conflicts of the same pattern (CUDA C++ Programming Guide, "Shared Memory": 32 banks,
// successive 4-byte words in successive banks).
#include "mlsys/kernels/coalescing.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "mlsys/foundations/input_error.hpp"
#include "mlsys/hardware/accelerator.hpp"

namespace mlsys {

WarpRequest warp_request(int element_bytes, std::int64_t stride_elements, std::int64_t offset_elements) {
  WarpRequest r;
  std::set<std::int64_t> sectors, lines, bytes;
  std::map<std::int64_t, std::set<std::int64_t>> words_per_bank;
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    const std::int64_t first = (offset_elements + lane * stride_elements) * element_bytes;
    const std::int64_t last = first + element_bytes - 1;
    r.lane_address_bytes.push_back(first);
    r.lane_sector.push_back(first / kSectorBytes);
    for (std::int64_t s = first / kSectorBytes; s <= last / kSectorBytes; ++s) sectors.insert(s);
    for (std::int64_t l = first / kCacheLineBytes; l <= last / kCacheLineBytes; ++l) lines.insert(l);
    for (std::int64_t b = first; b <= last; ++b) bytes.insert(b);
    for (std::int64_t w = first / kSmemBankWordBytes; w <= last / kSmemBankWordBytes; ++w)
      words_per_bank[w % kSmemBanks].insert(w);
  }
  r.sectors = static_cast<int>(sectors.size());
  r.cache_lines = static_cast<int>(lines.size());
  r.bytes_used = static_cast<double>(bytes.size());
  r.bytes_moved = static_cast<double>(r.sectors) * kSectorBytes;
  r.efficiency = r.bytes_used / r.bytes_moved;
  r.min_sectors = static_cast<int>((bytes.size() + kSectorBytes - 1) / kSectorBytes);
  for (const auto& [bank, words] : words_per_bank)
    r.smem_wavefronts = std::max(r.smem_wavefronts, static_cast<int>(words.size()));
  return r;
}

CoalescedLoad coalesced_load(long long e, std::int64_t stride_elements, std::int64_t offset_elements,
                             const Accelerator* hw, std::optional<double> bandwidth_Bps) {
  if (e != 1 && e != 2 && e != 4 && e != 8 && e != 16)
    throw InputError("element_bytes", "Field 'element_bytes' must be 1, 2, 4, 8 or 16 (a power of two up to a 16-byte vector).");
  if (!bandwidth_Bps && !hw) throw InputError("hardware", "Give 'hardware' (an accelerator id) or 'bandwidth_Bps'.");
  const double bandwidth = bandwidth_Bps ? *bandwidth_Bps : hw->hbm_bandwidth_Bps;
  CoalescedLoad c;
  c.r = warp_request(static_cast<int>(e), stride_elements, offset_elements);
  c.peak_bandwidth_Bps = bandwidth;
  c.effective_bandwidth_Bps = bandwidth * c.r.efficiency;
  return c;
}

}  // namespace mlsys
