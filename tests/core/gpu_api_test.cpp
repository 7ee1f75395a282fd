// The error contract (shared/API.md) for the gpu-architecture calculators: negative, zero, NaN,
// huge, wrong type, unknown field, unknown hardware, hardware without the needed data, and
// configurations a GPU cannot launch. Each gives {"error": {field, message}}, never a crash.
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"

using mlsys::calc_text;
using mlsys::json;

namespace {

std::string field_of(const std::string& name, const std::string& text) {
  const auto r = calc_text(name, text);
  EXPECT_FALSE(r.ok) << name << " " << text << " -> " << r.text;
  const json j = json::parse(r.text);
  EXPECT_TRUE(j.contains("error")) << r.text;
  if (!j.contains("error")) return "<none>";
  EXPECT_GT(j["error"]["message"].get<std::string>().size(), 10u) << r.text;
  return j["error"]["field"].get<std::string>();
}

void expect_field(const std::string& name, const json& input, const std::string& field) {
  EXPECT_EQ(field_of(name, input.dump()), field) << name << " " << input.dump();
}

json with(json base, const std::string& key, const json& value) {
  base[key] = value;
  return base;
}

const json kOcc = {{"hardware", "h100-sxm"}, {"threads_per_block", 256}, {"registers_per_thread", 32},
                   {"smem_per_block_bytes", 0}};

}  // namespace

TEST(GpuApi, DefaultsWork) {
  for (const char* name : {"occupancy", "occupancy-curve", "waves", "latency-hiding", "memory-hierarchy", "compute-units"})
    EXPECT_TRUE(calc_text(name, "{}").ok) << name;
}

TEST(GpuApi, OccupancyBadInputs) {
  for (const char* f : {"threads_per_block", "registers_per_thread", "smem_per_block_bytes"}) {
    expect_field("occupancy", with(kOcc, f, -1), f);
    expect_field("occupancy", with(kOcc, f, 1e300), f);
    expect_field("occupancy", with(kOcc, f, "64"), f);
    expect_field("occupancy", with(kOcc, f, 1.5), f);
    expect_field("occupancy-curve", with(kOcc, f, -1), f);
  }
  expect_field("occupancy", with(kOcc, "threads_per_block", 0), "threads_per_block");
  expect_field("occupancy", with(kOcc, "threads_per_block", 1025), "threads_per_block");
  expect_field("occupancy", with(kOcc, "registers_per_thread", 0), "registers_per_thread");
  expect_field("occupancy", with(kOcc, "registers_per_thread", 256), "registers_per_thread");
  expect_field("occupancy", with(with(kOcc, "threads_per_block", 1024), "registers_per_thread", 65),
               "registers_per_thread");
  expect_field("occupancy", with(kOcc, "smem_per_block_bytes", 232449), "smem_per_block_bytes");
  expect_field("occupancy", with(with(kOcc, "hardware", "l4"), "smem_per_block_bytes", 101377),
               "smem_per_block_bytes");
  expect_field("occupancy", with(kOcc, "hardware", "h900"), "hardware");
  for (const char* hw : {"tpu-v4", "tpu-v5e", "tpu-v5p", "mi300x"})
    expect_field("occupancy", with(kOcc, "hardware", hw), "hardware");
  expect_field("occupancy", with(kOcc, "warps", 8), "warps");
  expect_field("occupancy-curve", with(kOcc, "vary", "blocks"), "vary");
  EXPECT_EQ(field_of("occupancy", R"({"threads_per_block": NaN})"), "");
  EXPECT_EQ(field_of("occupancy", "[1]"), "");
}

TEST(GpuApi, WavesBadInputs) {
  const json base = {{"hardware", "a100-sxm-80gb"}, {"blocks", 1000}, {"blocks_per_sm", 2}};
  for (const char* f : {"blocks", "blocks_per_sm", "sms"}) {
    expect_field("waves", with(base, f, 0), f);
    expect_field("waves", with(base, f, -3), f);
    expect_field("waves", with(base, f, 1e30), f);
    expect_field("waves", with(base, f, true), f);
  }
  expect_field("waves", with(base, "blocks", 2147483648.0), "blocks");
  expect_field("waves", with(base, "blocks_per_sm", 33), "blocks_per_sm");
  expect_field("waves", with(base, "hardware", "tpu-v5p"), "hardware");
  expect_field("waves", with(base, "hardware", 7), "hardware");
  expect_field("waves", with(base, "grid", 7), "grid");
}

TEST(GpuApi, LatencyHidingBadInputs) {
  const json base = {{"hardware", "a100-sxm-80gb"}, {"warps_per_sm", 16}, {"bytes_per_warp", 512}};
  expect_field("latency-hiding", with(base, "warps_per_sm", 0), "warps_per_sm");
  expect_field("latency-hiding", with(base, "warps_per_sm", 65), "warps_per_sm");
  expect_field("latency-hiding", with(base, "bytes_per_warp", 0), "bytes_per_warp");
  expect_field("latency-hiding", with(base, "bytes_per_warp", 1e9), "bytes_per_warp");
  expect_field("latency-hiding", with(base, "latency_s", 0), "latency_s");
  expect_field("latency-hiding", with(base, "latency_s", -1e-9), "latency_s");
  expect_field("latency-hiding", with(base, "latency_s", 1), "latency_s");
  expect_field("latency-hiding", with(base, "bandwidth_Bps", 0), "bandwidth_Bps");
  expect_field("latency-hiding", with(base, "bandwidth_Bps", "fast"), "bandwidth_Bps");
  expect_field("latency-hiding", with(base, "hardware", "l4"), "hardware");  // no latency measured
  expect_field("latency-hiding", with(base, "hardware", "tpu-v4"), "hardware");
  expect_field("latency-hiding", with(base, "latency", 1e-7), "latency");
}

TEST(GpuApi, HierarchyAndComputeBadInputs) {
  expect_field("memory-hierarchy", {{"hardware", "b200"}}, "hardware");
  expect_field("memory-hierarchy", {{"hardware", "mi300x"}}, "hardware");
  expect_field("memory-hierarchy", {{"hardware", "nope"}}, "hardware");
  expect_field("memory-hierarchy", {{"dtype", "bf16"}}, "dtype");
  expect_field("compute-units", {{"hardware", "tpu-v5e"}}, "hardware");
  expect_field("compute-units", {{"hardware", "a100-sxm-80gb"}, {"tensor_format", "fp8"}}, "tensor_format");
  expect_field("compute-units", {{"hardware", "a100-sxm-80gb"}, {"tensor_format", "fp32"}}, "tensor_format");
  expect_field("compute-units", {{"hardware", "l4"}, {"cuda_format", "fp16"}}, "cuda_format");
  expect_field("compute-units", {{"step_time_s", 0}}, "step_time_s");
  expect_field("compute-units", {{"matmul_fraction", -0.1}}, "matmul_fraction");
  expect_field("compute-units", {{"matmul_fraction", 2}}, "matmul_fraction");
}
