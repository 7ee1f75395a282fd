// Global-memory coalescing of one warp-wide load or store: the 32 lanes' addresses are
// served in 32-byte sectors of 128-byte cache lines (NVIDIA CUDA C++ Best Practices Guide,
// "Coalesced Access to Global Memory", devices of compute capability 6.0 and later). The
// request is executed: the 32 addresses are enumerated and the distinct sectors counted.
// Also the same pattern as a shared-memory access: 32 banks of 4-byte words.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace mlsys {

constexpr int kWarpLanes = 32;          // threads per warp
constexpr int kSectorBytes = 32;        // granularity of global-memory transactions
constexpr int kCacheLineBytes = 128;    // L1/L2 cache line: four sectors
constexpr int kSmemBanks = 32;          // shared-memory banks
constexpr int kSmemBankWordBytes = 4;   // each bank serves one 4-byte word per cycle

struct WarpRequest {
  std::vector<std::int64_t> lane_address_bytes;  // first byte each lane touches (base 0, 256-byte aligned)
  std::vector<std::int64_t> lane_sector;         // sector index (address / 32) of each lane's first byte
  int sectors = 0;           // distinct 32-byte sectors the request touches
  int cache_lines = 0;       // distinct 128-byte lines
  int min_sectors = 0;       // sectors of the same useful bytes, contiguous and aligned
  double bytes_used = 0;     // distinct bytes the lanes asked for
  double bytes_moved = 0;    // sectors × 32
  double efficiency = 0;     // bytes_used / bytes_moved, in (0, 1]
  int smem_wavefronts = 0;   // as a shared-memory access: the most distinct words in one bank (1 = conflict-free)
};

// Lane t (0..31) accesses the element at index offset_elements + t · stride_elements of an
// array of element_bytes-sized elements (1, 2, 4, 8 or 16 bytes) whose base is aligned.
// stride_elements >= 1, offset_elements >= 0.
WarpRequest warp_request(int element_bytes, std::int64_t stride_elements, std::int64_t offset_elements);

struct Accelerator;

// The request with the geometry it is counted in and what it does to the bandwidth.
struct CoalescedLoad {
  WarpRequest r;
  int lanes = kWarpLanes, sector_bytes = kSectorBytes, cache_line_bytes = kCacheLineBytes;
  double peak_bandwidth_Bps = 0;       // bandwidth_Bps if given, else the row's HBM bandwidth
  double effective_bandwidth_Bps = 0;  // peak × efficiency: the useful bytes per second
};

// InputError on "element_bytes" unless it is 1, 2, 4, 8 or 16, and on "hardware" when neither
// a row nor bandwidth_Bps is given.
CoalescedLoad coalesced_load(long long element_bytes, std::int64_t stride_elements, std::int64_t offset_elements,
                             const Accelerator* hw, std::optional<double> bandwidth_Bps);

}  // namespace mlsys
