#include "mlsys/training/checkpoint_save.hpp"

#include <algorithm>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

CheckpointSave checkpoint_save(double params, double bytes_per_param, double storage_bandwidth_Bps, double writers,
                               double per_writer_bandwidth_Bps, bool async, double copy_bandwidth_Bps) {
  if (!(params > 0)) throw InputError("params", "The parameter count must be positive.");
  if (!(bytes_per_param > 0)) throw InputError("bytes_per_param", "Bytes per parameter must be positive.");
  if (!(storage_bandwidth_Bps > 0)) throw InputError("storage_bandwidth_Bps", "The storage bandwidth must be positive.");
  if (!(writers >= 1)) throw InputError("writers", "Give at least one writer.");
  if (!(per_writer_bandwidth_Bps > 0))
    throw InputError("per_writer_bandwidth_Bps", "The bandwidth of one writer must be positive.");
  if (!(copy_bandwidth_Bps > 0)) throw InputError("copy_bandwidth_Bps", "The copy bandwidth must be positive.");
  CheckpointSave r;
  r.checkpoint_bytes = params * bytes_per_param;
  r.bytes_per_writer = r.checkpoint_bytes / writers;
  const double from_writers = writers * per_writer_bandwidth_Bps;
  r.write_bandwidth_Bps = std::min(storage_bandwidth_Bps, from_writers);
  r.bottleneck = storage_bandwidth_Bps <= from_writers ? "storage" : "writers";
  r.write_s = r.checkpoint_bytes / r.write_bandwidth_Bps;
  if (async) {
    r.copy_s = r.bytes_per_writer / copy_bandwidth_Bps;
    r.save_time_s = r.copy_s + r.write_s;
    r.stall_s = r.copy_s;
    r.host_bytes_per_writer = r.bytes_per_writer;
  } else {
    r.save_time_s = r.write_s;
    r.stall_s = r.write_s;
  }
  return r;
}

}  // namespace mlsys
