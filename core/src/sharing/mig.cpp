// MIG profile tables and the layout check (mlsys/sharing/mig.hpp for the model and sources).
#include "mlsys/sharing/mig.hpp"

#include <algorithm>
#include <functional>

#include "mlsys/foundations/input_error.hpp"
#include "mlsys/hardware/accelerator.hpp"

namespace mlsys {

namespace {

const char* const kGuide = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html";

struct Row {
  const char* suffix_gb;  // the memory part of the name, e.g. "10gb"
  int compute, memory, max_instances;
  bool me;
};

// Start slots (memory slices) of a profile of `compute` compute and `memory` memory slices.
std::vector<int> placements_of(int compute, int memory) {
  if (compute == 7) return {0};
  if (compute == 4) return {0};
  if (compute == 3) return {0, 4};
  if (compute == 2) return {0, 2, 4};
  if (memory == 2) return {0, 2, 4, 6};  // 1g with two memory slices
  return {0, 1, 2, 3, 4, 5, 6};
}

struct GpuRows {
  const char* hardware;
  const char* one_slice_gb;  // memory in the names: 1g.<a>, 1g.<b>/2g.<b>, 3g/4g.<c>, 7g.<d>
  const char* two_slice_gb;
  const char* four_slice_gb;
  const char* eight_slice_gb;
  int sms[5];  // 1g (both memory sizes share compute: see sms_1g_double), 2g, 3g, 4g, 7g
  int sms_1g_double;
};

// SMs per profile from nvidia-smi mig -lgip; names from the user guide's tables.
const GpuRows kGpus[] = {
    {"a100-sxm-80gb", "10gb", "20gb", "40gb", "80gb", {14, 28, 42, 56, 98}, 14},
    {"h100-sxm", "10gb", "20gb", "40gb", "80gb", {16, 32, 60, 64, 132}, 26},
    {"h200-sxm", "18gb", "35gb", "71gb", "141gb", {16, 32, 60, 64, 132}, 26},
};

std::string slice_range(int first, int count) {
  return count == 1 ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(first + count - 1);
}

std::string join_ints(const std::vector<int>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

std::vector<std::string> mig_hardware_ids() {
  std::vector<std::string> ids;
  for (const auto& g : kGpus) ids.emplace_back(g.hardware);
  return ids;
}

MigTable mig_table(const std::string& hardware) {
  const GpuRows* rows = nullptr;
  for (const auto& g : kGpus)
    if (hardware == g.hardware) rows = &g;
  if (!rows) {
    std::string ids;
    for (const auto& id : mig_hardware_ids()) ids += (ids.empty() ? "" : ", ") + id;
    throw InputError("hardware", "No MIG table for '" + hardware + "': MIG profiles are tabulated for " + ids + ".");
  }
  const Accelerator* acc = find_accelerator(hardware);
  if (!acc) throw InputError("hardware", "Unknown hardware id '" + hardware + "'.");
  MigTable t;
  t.hardware = hardware;
  t.name = acc->name;
  t.sms = acc->json().at("sms").get<int>();
  t.hbm_bytes = acc->hbm_bytes;
  t.source = std::string("NVIDIA Multi-Instance GPU User Guide, Supported MIG Profiles (") + kGuide +
             "); SMs per profile as nvidia-smi mig -lgip lists them";
  const std::string one = rows->one_slice_gb, two = rows->two_slice_gb, four = rows->four_slice_gb,
                    eight = rows->eight_slice_gb;
  struct Spec {
    std::string name;
    int compute, memory, sms, max_instances;
    bool me;
  };
  const Spec specs[] = {
      {"1g." + one, 1, 1, rows->sms[0], 7, false},
      {"1g." + one + "+me", 1, 1, rows->sms[0], 1, true},
      {"1g." + two, 1, 2, rows->sms_1g_double, 4, false},
      {"2g." + two, 2, 2, rows->sms[1], 3, false},
      {"3g." + four, 3, 4, rows->sms[2], 2, false},
      {"4g." + four, 4, 4, rows->sms[3], 1, false},
      {"7g." + eight, 7, 8, rows->sms[4], 1, false},
  };
  for (const Spec& s : specs) {
    MigProfile p;
    p.name = s.name;
    p.compute_slices = s.compute;
    p.memory_slices = s.memory;
    p.memory_bytes = t.hbm_bytes * s.memory / kMigMemorySlices;
    p.sms = s.sms;
    p.sm_fraction = static_cast<double>(s.sms) / t.sms;
    p.max_instances = s.max_instances;
    p.placements = placements_of(s.compute, s.memory);
    p.media_extensions = s.me;
    t.profiles.push_back(p);
  }
  return t;
}

const MigProfile& mig_profile(const MigTable& table, const std::string& name, const std::string& field) {
  for (const auto& p : table.profiles)
    if (p.name == name) return p;
  std::string names;
  for (const auto& p : table.profiles) names += (names.empty() ? "" : ", ") + p.name;
  throw InputError(field, "'" + name + "' is not a MIG profile of the " + table.name + "; its profiles are " + names + ".");
}

MigLayout mig_layout(const MigTable& table, const std::vector<std::string>& layout) {
  if (layout.empty()) throw InputError("layout", "Give at least one MIG profile name, such as " + table.profiles.front().name + ".");
  if (layout.size() > 16) throw InputError("layout", "A layout has at most 7 instances; this one names " + std::to_string(layout.size()) + ".");
  std::vector<const MigProfile*> items;
  for (const auto& name : layout) items.push_back(&mig_profile(table, name, "layout"));
  MigLayout r;
  int me = 0;
  for (const MigProfile* p : items) {
    r.compute_slices_used += p->compute_slices;
    r.memory_slices_used += p->memory_slices;
    r.sms_used += p->sms;
    r.memory_bytes_used += p->memory_bytes;
    me += p->media_extensions ? 1 : 0;
  }
  r.sm_fraction_used = static_cast<double>(r.sms_used) / table.sms;
  const int slots_c = table.compute_slices, slots_m = table.memory_slices;
  // The reasons a reader can check by counting, before the placement search.
  for (const auto& p : table.profiles) {
    const auto n = std::count_if(items.begin(), items.end(), [&](const MigProfile* q) { return q == &p; });
    if (n > p.max_instances) {
      r.reason = std::to_string(n) + " × " + p.name + ": the GPU holds at most " + std::to_string(p.max_instances) +
                 " instance" + (p.max_instances == 1 ? "" : "s") + " of it.";
      return r;
    }
  }
  if (me > 1) {
    r.reason = "Only one instance can take the media extensions (+me).";
    return r;
  }
  if (static_cast<int>(items.size()) > slots_c) {
    r.reason = std::to_string(items.size()) + " instances: a GPU holds at most " + std::to_string(slots_c) + ".";
    return r;
  }
  if (r.compute_slices_used > slots_c) {
    r.reason = "Needs " + std::to_string(r.compute_slices_used) + " compute slices; the GPU has " + std::to_string(slots_c) + ".";
    return r;
  }
  if (r.memory_slices_used > slots_m) {
    r.reason = "The compute slices fit (" + std::to_string(r.compute_slices_used) + " of " + std::to_string(slots_c) +
               "), but it needs " + std::to_string(r.memory_slices_used) + " memory slices; the GPU has " +
               std::to_string(slots_m) + ".";
    return r;
  }
  // Place the largest first, each at its allowed starts, without sharing a memory slice.
  std::vector<std::size_t> order(items.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (items[a]->memory_slices != items[b]->memory_slices) return items[a]->memory_slices > items[b]->memory_slices;
    return items[a]->compute_slices > items[b]->compute_slices;
  });
  std::vector<int> start(items.size(), -1);
  std::vector<bool> used(static_cast<std::size_t>(slots_m), false);
  std::function<bool(std::size_t)> place = [&](std::size_t k) {
    if (k == order.size()) return true;
    const MigProfile& p = *items[order[k]];
    for (int s : p.placements) {
      if (s + p.memory_slices > slots_m) continue;
      bool free = true;
      for (int m = s; m < s + p.memory_slices; ++m) free = free && !used[static_cast<std::size_t>(m)];
      if (!free) continue;
      for (int m = s; m < s + p.memory_slices; ++m) used[static_cast<std::size_t>(m)] = true;
      start[order[k]] = s;
      if (place(k + 1)) return true;
      for (int m = s; m < s + p.memory_slices; ++m) used[static_cast<std::size_t>(m)] = false;
    }
    return false;
  };
  if (!place(0)) {
    r.reason = "The slices add up, but no placement fits: ";
    std::string parts;
    for (const auto* p : items)
      if (parts.find(p->name) == std::string::npos)
        parts += (parts.empty() ? "" : "; ") + p->name + " starts only at memory slice " + join_ints(p->placements);
    r.reason += parts + ".";
    return r;
  }
  r.valid = true;
  std::vector<std::size_t> by_start = order;
  std::sort(by_start.begin(), by_start.end(), [&](std::size_t a, std::size_t b) { return start[a] < start[b]; });
  std::string where;
  for (std::size_t i : by_start) {
    const MigProfile& p = *items[i];
    MigInstance inst;
    inst.name = p.name;
    inst.start = start[i];
    inst.compute_slices = p.compute_slices;
    inst.memory_slices = p.memory_slices;
    inst.sms = p.sms;
    inst.memory_bytes = p.memory_bytes;
    for (int c = 0; c < p.compute_slices; ++c) inst.compute_slice_ids.push_back(start[i] + c);
    for (int m = 0; m < p.memory_slices; ++m) inst.memory_slice_ids.push_back(start[i] + m);
    r.instances.push_back(inst);
    where += (where.empty() ? "" : ", ") + p.name + " at memory slice" + (p.memory_slices > 1 ? "s " : " ") +
             slice_range(start[i], p.memory_slices);
  }
  r.reason = "Fits: " + where + ".";
  return r;
}

MigReport mig_report(const std::string& hardware, const std::vector<std::string>& layout) {
  const MigTable t = mig_table(hardware);
  MigReport r;
  r.hardware = t.hardware;
  r.name = t.name;
  r.source = t.source;
  r.compute_slices = t.compute_slices;
  r.memory_slices = t.memory_slices;
  r.sms = t.sms;
  r.hbm_bytes = t.hbm_bytes;
  r.profiles = t.profiles;
  if (!layout.empty()) {
    const MigLayout l = mig_layout(t, layout);
    r.valid = l.valid;
    r.reason = l.reason;
    r.compute_slices_used = l.compute_slices_used;
    r.memory_slices_used = l.memory_slices_used;
    r.sms_used = l.sms_used;
    r.memory_bytes_used = l.memory_bytes_used;
    r.sm_fraction_used = l.sm_fraction_used;
    r.instances = l.instances;
  }
  return r;
}

}  // namespace mlsys
