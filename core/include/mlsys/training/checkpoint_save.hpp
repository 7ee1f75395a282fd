// Time to save a training checkpoint, and how long training waits for it. The checkpoint holds
// bytes_per_param bytes per parameter (14 by default: bf16 weights, 2, plus Adam's fp32 master
// weights and two moments, 12). It is written by `writers` GPUs in parallel, each its equal
// share; the aggregate write bandwidth is the smaller of the storage system's bandwidth and the
// writers' combined bandwidth, B = min(storage, writers × per_writer): like Little's law for the
// bytes in flight, adding writers helps only until the shared storage is the limit.
// Synchronous save: training stops for the whole write, bytes / B. Asynchronous save (PyTorch
// Distributed Checkpoint's async_save, CheckFreq, Mohan et al., FAST 2021): each writer first
// copies its share from device to pinned host memory at copy_bandwidth_Bps (the stall), then
// the write to storage runs in the background; the checkpoint is on storage after copy + write.
#pragma once
#include <string>

namespace mlsys {

struct CheckpointSave {
  double checkpoint_bytes = 0;       // params × bytes_per_param
  double bytes_per_writer = 0;       // checkpoint_bytes / writers
  double write_bandwidth_Bps = 0;    // min(storage, writers × per_writer)
  std::string bottleneck;            // "storage" or "writers"
  double write_s = 0;                // checkpoint_bytes / write_bandwidth_Bps
  double copy_s = 0;                 // async: bytes_per_writer / copy_bandwidth_Bps; 0 when synchronous
  double save_time_s = 0;            // until the checkpoint is on storage: write_s (+ copy_s when async)
  double stall_s = 0;                // what the training step waits: save_time_s, or copy_s when async
  double host_bytes_per_writer = 0;  // pinned host memory the async copy needs per writer (0 when synchronous)
};

CheckpointSave checkpoint_save(double params, double bytes_per_param, double storage_bandwidth_Bps, double writers,
                               double per_writer_bandwidth_Bps, bool async, double copy_bandwidth_Bps);

}  // namespace mlsys
