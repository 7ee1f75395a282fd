// The H200 probe of Little's law (tools/probes): the compiled-in measurements are the ones in
// tools/probes/h200-results.txt, and what they show against the model.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "mlsys/api/calc.hpp"
#include "mlsys/gpu/latency_probe.hpp"

using mlsys::calc;
using mlsys::json;

TEST(LatencyProbe, MatchesTheResultsFile) {
  std::ifstream f(std::string(MLSYS_CASES_DIR) + "/../../tools/probes/h200-results.txt");
  ASSERT_TRUE(f) << "tools/probes/h200-results.txt";
  std::vector<std::pair<int, double>> read;
  for (std::string line; std::getline(f, line);) {
    std::istringstream in(line);
    std::string word, key, gbps_key;
    int warps = 0, blocks = 0;
    double gbps = 0;
    in >> word;
    if (word != "bandwidth") continue;
    in >> key >> warps >> word >> blocks;
    while (in >> word && word != "GBps") {
    }
    in >> gbps;
    read.emplace_back(warps, gbps);
  }
  EXPECT_EQ(read, mlsys::h200_probe_measurements());
}

TEST(LatencyProbe, LoadsSeeMoreThanTheUnloadedLatency) {
  // One warp per SM, one float4 per thread: 132 × 512 B = 67,584 B in flight. At the unloaded
  // 283.3 ns Little's law predicts 238.6 GB/s; the probe measured 171.8 GB/s, so the loads saw
  // 67,584 / 171.8e9 = 393.4 ns, 39 % more than the pointer chase, with the bus nearly idle.
  const auto p = mlsys::h200_latency_probe();
  ASSERT_EQ(p.points.front().warps_per_sm, 1);
  const auto& one = p.points.front();
  EXPECT_NEAR(one.predicted_bandwidth_Bps, 132 * 512 / 283.3e-9, 1e3);
  EXPECT_NEAR(one.effective_latency_s, 132 * 512 / 171.8e9, 1e-15);
  EXPECT_NEAR(one.extra_latency, 132 * 512 / 171.8e9 / 283.3e-9 - 1, 1e-12);
  EXPECT_GT(one.extra_latency, 0.35);
  EXPECT_LT(one.extra_latency, 0.45);
  // Every setting falls short of the unloaded prediction.
  for (const auto& q : p.points) EXPECT_LT(q.measured_bandwidth_Bps, q.predicted_bandwidth_Bps) << q.warps_per_sm;
  const json r = calc("latency-hiding", {{"hardware", "h100-sxm"}});
  EXPECT_EQ(r["probe"]["hardware"], "h200-sxm");
  EXPECT_DOUBLE_EQ(r["probe"]["points"][0]["extra_latency"].get<double>(), one.extra_latency);
}
