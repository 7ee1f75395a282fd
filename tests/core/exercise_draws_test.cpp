// The checks generators use to keep hardware draws real (exercises/generators.hpp): links are
// rows of the interconnect table, a GPU gets only the NICs its systems ship with, NVLink is the
// table's, leaf switches have whole ports and a real oversubscription. Each is shown to hold
// for a real setting and to fail for one an exercise once drew.
#include <gtest/gtest.h>

#include "exercises/generators.hpp"

namespace {

using mlsys::Exercise;
namespace ex = mlsys::exercises;

// Whether every invariant declared on `e` holds.
bool holds(const Exercise& e) {
  for (const auto& inv : e.invariants)
    if (!inv.holds) return false;
  return !e.invariants.empty();
}

TEST(ExerciseDraws, LinkRowsAreTheTable) {
  ASSERT_NE(ex::interconnect_row(25e9, "scale-out"), nullptr);
  EXPECT_EQ(ex::interconnect_row(25e9, "scale-out")->id, "ib-hdr");
  EXPECT_EQ(ex::interconnect_row(450e9)->id, "nvlink4");
  EXPECT_EQ(ex::interconnect_row(200e9), nullptr);                // 1.6 Tb/s per GPU: no such port
  EXPECT_EQ(ex::interconnect_row(12.5e9, "scale-out"), nullptr);  // 100 Gb/s: not a row
  EXPECT_EQ(ex::interconnect_row(450e9, "scale-out"), nullptr);   // NVLink is not a network port
  Exercise ok, bad;
  ex::require_link_row(ok, 50e9, "scale-out", "NIC");
  ex::require_link_row(bad, 200e9, "scale-out", "NIC");
  EXPECT_TRUE(holds(ok));
  EXPECT_FALSE(holds(bad));
}

TEST(ExerciseDraws, NicsBelongToTheGpusSystems) {
  for (const char* gpu : {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200"}) {
    ASSERT_FALSE(ex::nics_shipped_with(gpu).empty()) << gpu;
    for (const auto& id : ex::nics_shipped_with(gpu)) EXPECT_EQ(mlsys::find_interconnect_link(id).kind, "scale-out") << id;
  }
  EXPECT_TRUE(ex::nics_shipped_with("tpu-v5p").empty());
  const auto verdict = [](const char* gpu, double nic) {
    Exercise e;
    ex::require_nic_of(e, gpu, nic, "NIC");
    return holds(e);
  };
  EXPECT_TRUE(verdict("a100-sxm-80gb", 25e9));   // HDR on DGX A100
  EXPECT_FALSE(verdict("a100-sxm-80gb", 50e9));  // NDR came with the H100 generation
  EXPECT_TRUE(verdict("b200", 50e9));
  EXPECT_FALSE(verdict("b200", 12.5e9));  // a B200 with a 100 Gb/s NIC
  EXPECT_FALSE(verdict("h100-sxm", 200e9));
}

TEST(ExerciseDraws, ScaleUpIsTheTables) {
  const auto verdict = [](const char* gpu, double bw) {
    Exercise e;
    ex::require_scaleup_of(e, gpu, bw, "NVLink");
    return holds(e);
  };
  EXPECT_TRUE(verdict("h100-sxm", 450e9));
  EXPECT_TRUE(verdict("a100-sxm-80gb", 300e9));
  EXPECT_FALSE(verdict("a100-sxm-80gb", 450e9));
  EXPECT_FALSE(verdict("h100-sxm", 900e9));  // the bidirectional figure
  EXPECT_FALSE(verdict("l4", 32e9));         // no NVLink at all
}

TEST(ExerciseDraws, LeafSwitchesHaveWholePortsAndRealOversubscription) {
  const auto verdict = [](double ports, double uplinks, double radix) {
    Exercise e;
    ex::require_leaf(e, ports, uplinks, radix, "leaf");
    return holds(e);
  };
  EXPECT_TRUE(verdict(16, 4, 64));       // 4:1
  EXPECT_TRUE(verdict(33, 7, 40));       // Narval's 33:7
  EXPECT_FALSE(verdict(32, 32 / 8.2, 64));  // 8.2:1 on 32 ports: 3.9 uplinks
  EXPECT_FALSE(verdict(16, 16 / 3.0, 64));  // 3:1 on 16 ports: 5.33 uplinks
  EXPECT_FALSE(verdict(64, 1, 128));     // 64:1
  EXPECT_FALSE(verdict(48, 24, 64));     // 72 ports on a 64-port switch
  EXPECT_FALSE(verdict(8, 16, 64));      // more uplinks than hosts
}

TEST(ExerciseDraws, MistakesMustBeToldApart) {
  EXPECT_FALSE(ex::tells_apart(100, 101, 0.01));
  EXPECT_TRUE(ex::tells_apart(100, 103, 0.01));
  EXPECT_TRUE(ex::tells_apart(100, 97, 0.01));
}

}  // namespace
