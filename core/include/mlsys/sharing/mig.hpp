// Multi-Instance GPU (MIG) partitions: the GPU instance profiles NVIDIA lists for the A100 80GB,
// H100 80GB and H200 141GB, and whether a layout of them fits one GPU. Source: NVIDIA
// Multi-Instance GPU User Guide, "Supported MIG Profiles" (profile names, fractions of memory
// and SMs, instances available; https://docs.nvidia.com/datacenter/tesla/mig-user-guide/
// supported-mig-profiles.html), and the SM count of each profile as `nvidia-smi mig -lgip`
// prints it (A100-SXM4-80GB: 14/28/42/56/98; H100 80GB: 16/26/32/60/64/132; the H200 uses the
// same GH100 die and its listings give the same counts).
//
// The model of a layout: these GPUs have 7 compute slices and 8 memory slices. A profile "Ng.Mgb"
// takes N compute slices and a run of memory slices (1, 2, 4 or 8 of the 8), starting at one of
// the memory slices its placement list allows (as `nvidia-smi mig -lgipp` prints them):
// 1g: any of 0-6; 1g with twice the memory: 0, 2, 4, 6; 2g: 0, 2, 4; 3g: 0, 4; 4g: 0; 7g: 0.
// Instances may not share a memory slice; only one "+me" (media extensions) instance exists: a
// 1g that also gets the optical-flow accelerator (OFA), which otherwise only 7g has (and on the
// A100, whose plain 1g has no media engine, a video and a JPEG decoder too; the guide's tables).
// A layout is valid when some placement of all its instances satisfies this; the check tries
// every placement (at most 7 instances, so exhaustively). Memory per instance is its share of
// the HBM (memory slices / 8 × the hardware table's capacity); nvidia-smi reports slightly less
// usable memory (for instance 9.75 GiB for 1g.10gb on an H100).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace mlsys {

inline constexpr int kMigComputeSlices = 7;
inline constexpr int kMigMemorySlices = 8;

struct MigProfile {
  std::string name;            // as nvidia-smi lists it: "1g.10gb", "1g.10gb+me", ...
  int compute_slices = 0;      // of 7
  int memory_slices = 0;       // of 8
  double memory_bytes = 0;     // memory_slices / 8 × HBM capacity
  int sms = 0;                 // streaming multiprocessors of one instance
  double sm_fraction = 0;      // sms / the GPU's SMs
  int max_instances = 0;       // instances of this profile alone on one GPU
  std::vector<int> placements; // memory slices an instance may start at
  bool media_extensions = false;  // "+me": the one 1g variant that also gets the optical-flow accelerator
};

struct MigInstance {
  std::string name;
  int start = 0;               // first memory slice
  int compute_slices = 0, memory_slices = 0, sms = 0;
  double memory_bytes = 0;
  std::vector<int> compute_slice_ids, memory_slice_ids;  // slices it occupies
};

struct MigLayout {
  bool valid = false;
  std::string reason;          // why not, or the placement that fits
  int compute_slices_used = 0, memory_slices_used = 0, sms_used = 0;
  double memory_bytes_used = 0;
  double sm_fraction_used = 0;  // sms_used / the GPU's SMs
  std::vector<MigInstance> instances;  // the placement found (empty when invalid)
};

struct MigTable {
  std::string hardware, name, source;
  int compute_slices = kMigComputeSlices, memory_slices = kMigMemorySlices;
  int sms = 0;                 // of the whole GPU (hardware table)
  double hbm_bytes = 0;
  std::vector<MigProfile> profiles;
};

// Ids with a MIG table: "a100-sxm-80gb", "h100-sxm", "h200-sxm".
std::vector<std::string> mig_hardware_ids();

// The table of `hardware`; InputError("hardware") for a GPU without one.
MigTable mig_table(const std::string& hardware);

// The profile named `name` on that GPU; InputError(field) naming the valid names otherwise.
const MigProfile& mig_profile(const MigTable& table, const std::string& name, const std::string& field = "layout");

// Whether the instances named in `layout` (profile names, at most 7) fit one GPU together.
// An unknown name is an InputError on `layout`; a layout that does not fit is valid = false with
// the reason (too many instances of one profile, more than one +me, over 7 compute or 8 memory
// slices, or no placement).
MigLayout mig_layout(const MigTable& table, const std::vector<std::string>& layout);

// What the `mig` calculator returns: the table, and with a layout the check of it.
struct MigReport {
  std::string hardware, name, source;
  int compute_slices = 0, memory_slices = 0, sms = 0;
  double hbm_bytes = 0;
  std::vector<MigProfile> profiles;
  std::optional<bool> valid;
  std::optional<std::string> reason;
  std::optional<int> compute_slices_used, memory_slices_used, sms_used;
  std::optional<double> memory_bytes_used, sm_fraction_used;
  std::optional<std::vector<MigInstance>> instances;
};

// The table of `hardware`, and the check of `layout` when it is not empty.
MigReport mig_report(const std::string& hardware, const std::vector<std::string>& layout);

}  // namespace mlsys
