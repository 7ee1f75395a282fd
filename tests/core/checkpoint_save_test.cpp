// Surviving-failures lesson: `checkpoint-save`, the bytes of a checkpoint, its write time at
// min(storage, writers × per-writer bandwidth) and the stall, synchronous or asynchronous.
#include <gtest/gtest.h>

#include "mlsys/foundations/input_error.hpp"
#include "mlsys/training/checkpoint_save.hpp"

TEST(CheckpointSave, Llama405BAtFourteenBytesPerParameter) {
  // 405e9 parameters × 14 B (bf16 weights 2 + fp32 master 4 + Adam moments 4 + 4) = 5.67 TB.
  // Storage at 2 TB/s: the sustained throughput of the Tectonic file system the Llama 3 paper
  // reports (arXiv:2407.21783, section 3.3.1); 128 writers at 2 GB/s each (an assumption) give
  // 256 GB/s, the bound: 22.1 s.
  const auto r = mlsys::checkpoint_save(405e9, 14, 2e12, 128, 2e9, false, 25e9);
  EXPECT_DOUBLE_EQ(r.checkpoint_bytes, 5.67e12);
  EXPECT_DOUBLE_EQ(r.write_bandwidth_Bps, 256e9);
  EXPECT_EQ(r.bottleneck, "writers");
  EXPECT_NEAR(r.save_time_s, 5.67e12 / 256e9, 1e-9);
  EXPECT_DOUBLE_EQ(r.stall_s, r.save_time_s);
  EXPECT_EQ(r.copy_s, 0);
  EXPECT_EQ(r.host_bytes_per_writer, 0);
  // Asynchronous: the stall is each writer's share (44.3 GB) over 25 GB/s, 1.77 s; the save
  // ends after copy + write.
  const auto a = mlsys::checkpoint_save(405e9, 14, 2e12, 128, 2e9, true, 25e9);
  EXPECT_NEAR(a.stall_s, 5.67e12 / 128 / 25e9, 1e-12);
  EXPECT_NEAR(a.save_time_s, a.copy_s + r.write_s, 1e-12);
  EXPECT_DOUBLE_EQ(a.host_bytes_per_writer, 5.67e12 / 128);
}

TEST(CheckpointSave, StorageBoundsManyWriters) {
  // 1024 writers × 2 GB/s = 2.048 TB/s > 2 TB/s: storage is the bound, more writers no help.
  const auto r = mlsys::checkpoint_save(405e9, 14, 2e12, 1024, 2e9, false, 25e9);
  EXPECT_EQ(r.bottleneck, "storage");
  EXPECT_DOUBLE_EQ(r.write_bandwidth_Bps, 2e12);
  EXPECT_DOUBLE_EQ(mlsys::checkpoint_save(405e9, 14, 2e12, 4096, 2e9, false, 25e9).save_time_s, r.save_time_s);
  // Below the bound, the time halves when the writers double.
  const auto w = mlsys::checkpoint_save(7e9, 14, 1e15, 8, 1e9, false, 1e9);
  EXPECT_NEAR(mlsys::checkpoint_save(7e9, 14, 1e15, 16, 1e9, false, 1e9).save_time_s * 2, w.save_time_s, 1e-9);
}

TEST(CheckpointSave, Errors) {
  EXPECT_THROW(mlsys::checkpoint_save(0, 14, 1e12, 1, 1e9, false, 1e9), mlsys::InputError);
  EXPECT_THROW(mlsys::checkpoint_save(1e9, 14, 1e12, 0, 1e9, false, 1e9), mlsys::InputError);
  EXPECT_THROW(mlsys::checkpoint_save(1e9, 0, 1e12, 1, 1e9, false, 1e9), mlsys::InputError);
}
