// Exercise generator table and the seeded random source they draw from.
#pragma once
#include <cctype>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/units.hpp"

namespace mlsys::exercises {

// Seeded source of the exercises: a SeededStream (foundations/deterministic.hpp; next,
// uniform on [0, 1), integer in [lo, hi]) with a uniform pick from a list. Each generator's
// stream is salted with its id, so one seed draws unrelated numbers in different exercises.
class Rng : public SeededStream {
 public:
  Rng(std::uint64_t seed, const std::string& id) : SeededStream(mix_seed(seed, salt_of(id.c_str()))) {}
  template <class T>
  const T& pick(const std::vector<T>& items) { return items[static_cast<std::size_t>(integer(0, static_cast<int>(items.size()) - 1))]; }
};

// Prompts read as English. counted(1, "sequence") is "1 sequence", counted(4, ...) "4 sequences".
inline std::string counted(double n, const std::string& noun) {
  return format_int(n) + " " + noun + (n == 1 ? "" : "s");
}

// The article before `next` as it is read aloud, with its space: "an 8 GB buffer", "an 11B model"
// (eleven), "a 110 ms" (a hundred), "a 13B model", "an H100", "an MI300X", "a bf16", "an fp16".
// capital: at the start of a sentence.
inline std::string article(const std::string& next, bool capital = false) {
  bool an = false;
  if (!next.empty() && std::isdigit(static_cast<unsigned char>(next[0]))) {
    std::size_t digits = 0;  // of the integer part, without separators
    for (char c : next) {
      if (c == ',') continue;
      if (!std::isdigit(static_cast<unsigned char>(c))) break;
      ++digits;
    }
    const bool eleven = next.rfind("11", 0) == 0 || next.rfind("18", 0) == 0;  // eleven, eighteen
    an = next[0] == '8' || (eleven && digits % 3 == 2);
  } else if (!next.empty()) {
    const char c = next[0];
    const bool acronym = next.size() > 1 && std::isupper(static_cast<unsigned char>(c)) &&
                         (std::isupper(static_cast<unsigned char>(next[1])) || std::isdigit(static_cast<unsigned char>(next[1])));
    an = acronym ? std::string("AEFHILMNORSX").find(c) != std::string::npos
                 : std::string("aeioAEIO").find(c) != std::string::npos || next.rfind("fp", 0) == 0;
  }
  return std::string(an ? (capital ? "An " : "an ") : (capital ? "A " : "a "));
}

// "× 10¹²", "× 10⁻⁷": a power of ten as a reader writes it.
inline std::string times_power_of_ten(int exponent) {
  static const char* const kSup[] = {"\u2070", "\u00B9", "\u00B2", "\u00B3", "\u2074",
                                     "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
  std::string power = exponent < 0 ? "\u207B" : "";
  for (char ch : std::to_string(exponent < 0 ? -exponent : exponent)) power += kSup[ch - '0'];
  return " \u00D7 10" + power;
}

// `x` for prose: format_number's fixed notation where it uses one, else "9.4 × 10⁻⁷", never
// e-notation.
inline std::string prose(double x, int sig) {
  const std::string s = format_number(x, sig);
  const auto e = s.find('e');
  return e == std::string::npos ? s : s.substr(0, e) + times_power_of_ten(std::stoi(s.substr(e + 1)));
}

// "1 byte", "2 bytes", "0.5 bytes": an element size in prose.
inline std::string bytes_per_element(double s) { return format_number(s, 2) + (s == 1 ? " byte" : " bytes"); }

// Invariants a generator declares of its draw (Exercise::invariants); the suite checks they
// hold over 500 seeds. `what` says in words what must hold, with the drawn numbers.
inline void require(Exercise& e, bool holds, const std::string& what) { e.invariants.push_back({what, holds}); }
// Bytes that must fit in a memory of `capacity` bytes.
inline void require_fits(Exercise& e, double bytes, double capacity, const std::string& what) {
  require(e, bytes <= capacity, what + ": " + format_number(bytes / 1e9, 4) + " GB in " + format_number(capacity / 1e9, 4) + " GB");
}
// A count of physical things (GPUs, links, ports, layers) that must be a whole number >= 1.
inline void require_whole(Exercise& e, double count, const std::string& what) {
  require(e, count >= 1 && count == std::floor(count), what + " is a whole number >= 1: " + format_number(count, 6));
}
// A quantity that must lie in [lo, hi] to describe something real (a run's length in seconds).
inline void require_between(Exercise& e, double x, double lo, double hi, const std::string& what) {
  require(e, x >= lo && x <= hi, what + " in [" + format_number(lo, 4) + ", " + format_number(hi, 4) + "]: " + format_number(x, 4));
}
// An answer reached by a mistake the lesson warns against (in the exercise's unit): the suite
// checks the checker rejects it.
inline void reject_mistake(Exercise& e, double wrong, const std::string& what) { e.mistakes.push_back({what, wrong}); }

// drawsA helpers
// A mistake whose answer some draws cannot tell from the right one (the term it drops is
// negligible there): declared where it lies more than twice the tolerance from the answer (a
// count: wherever it differs), so the suite checks it wherever the reader who makes it must be
// told wrong. Call it after setting the answer and its tolerances.
inline void reject_mistake_where_distinct(Exercise& e, double wrong, const std::string& what) {
  const double tolerance = e.integer ? 0 : std::fmax(e.rel_tolerance * std::fabs(e.answer), e.abs_tolerance);
  if (std::fabs(wrong - e.answer) > 2 * tolerance && wrong != e.answer) reject_mistake(e, wrong, what);
}
// A hardware number a prompt shows, rounded for display, that must be the table's value
// (`table`, from the row the generator drew): within 0.5% of it.
inline void require_from_table(Exercise& e, double shown, double table, const std::string& what) {
  require(e, table > 0 && std::fabs(shown - table) <= 0.005 * table,
          what + " is the table's " + format_number(table, 6) + ": shown " + format_number(shown, 6));
}

struct Generator {
  std::string id;
  std::function<Exercise(Rng&)> make;
  std::string group{};  // the <group>_exercises.cpp that adds it (set by the generated registry)
};

// Registration: each core/src/exercises/<group>_exercises.cpp defines add_<group>_exercises;
// the build generates the file that calls them (core/cmake/groups.cmake), and names the
// group of the generators each call added.
void add_exercise_groups(std::vector<Generator>& out);
inline void set_group(std::vector<Generator>& out, std::size_t first, const char* group) {
  for (std::size_t i = first; i < out.size(); ++i) out[i].group = group;
}

// {exercise id: its group}, of the exercises this engine holds (wasm/bindings.cpp).
nlohmann::json exercise_groups();

}  // namespace mlsys::exercises

// drawsB helpers: hardware and links drawn from the engine's tables, and the checks that a
// drawn setting is one of theirs.
#include <algorithm>

#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/interconnect/links.hpp"

namespace mlsys::exercises {

// The row of the interconnect table (content/data/interconnect.json) whose per-direction
// bandwidth is `bandwidth_Bps` (to 0.1%), of `kind` ("scale-up", "pcie", "scale-out"; "" any),
// or nullptr.
inline const InterconnectLink* interconnect_row(double bandwidth_Bps, const std::string& kind = "") {
  for (const auto& l : interconnect_links())
    if ((kind.empty() || l.kind == kind) && std::fabs(l.bandwidth_Bps - bandwidth_Bps) <= 1e-3 * l.bandwidth_Bps) return &l;
  return nullptr;
}

// A link bandwidth (per direction) that must be a row of the interconnect table.
inline void require_link_row(Exercise& e, double bandwidth_Bps, const std::string& kind, const std::string& what) {
  const InterconnectLink* l = interconnect_row(bandwidth_Bps, kind);
  require(e, l != nullptr,
          what + " (" + format_number(bandwidth_Bps / 1e9, 4) + " GB/s per direction) is " +
              (l ? "the table's " + l->name : "no " + (kind.empty() ? std::string() : kind + " ") + "row of the interconnect table"));
}

// The scale-out ports (rows of the interconnect table) that systems built on an accelerator of
// the hardware table give each GPU; empty for a chip without such a published system here.
// DGX A100: eight 200 Gb/s HDR InfiniBand adapters, one per GPU (NCCL maintainers,
// NVIDIA/nccl issue 812: "On an Nvidia DGX-A100 system we have 8x200Gbit/s IB cards").
// DGX H100 and DGX H200: eight single-port ConnectX-7, up to 400 Gb/s InfiniBand or Ethernet
// (NVIDIA DGX BasePOD reference architecture, core components). DGX B200: eight single-port
// ConnectX-7, InfiniBand up to 400 Gb/s or 400GbE (NVIDIA DGX B200 user guide, hardware
// overview).
inline const std::vector<std::string>& nics_shipped_with(const std::string& gpu_id) {
  static const std::vector<std::string> none, hdr = {"ib-hdr"}, cx7 = {"ib-ndr", "roce-400g"};
  if (gpu_id == "a100-sxm-80gb") return hdr;
  if (gpu_id == "h100-sxm" || gpu_id == "h200-sxm" || gpu_id == "b200") return cx7;
  return none;
}

// One of those ports, drawn.
inline const InterconnectLink& draw_nic(Rng& rng, const std::string& gpu_id) {
  return find_interconnect_link(rng.pick(nics_shipped_with(gpu_id)));
}

// A network port per GPU that must be one that systems of `gpu_id` ship with.
inline void require_nic_of(Exercise& e, const std::string& gpu_id, double nic_Bps, const std::string& what) {
  const auto& ids = nics_shipped_with(gpu_id);
  const bool ok = std::any_of(ids.begin(), ids.end(), [&](const std::string& id) {
    return std::fabs(find_interconnect_link(id).bandwidth_Bps - nic_Bps) <= 1e-3 * nic_Bps;
  });
  require(e, ok, what + " (" + format_number(nic_Bps * 8 / 1e9, 4) + " Gb/s) is a port that " + gpu_id +
                     " systems give each GPU");
}

// A scale-up bandwidth per direction (shown rounded to `sig` digits) that must be the hardware
// table's for `gpu_id`: half its scaleup_bandwidth_Bps.
inline void require_scaleup_of(Exercise& e, const std::string& gpu_id, double bandwidth_Bps, const std::string& what) {
  const Accelerator* a = find_accelerator(gpu_id);
  const auto it = a ? a->json().find("scaleup_bandwidth_Bps") : nlohmann::json::const_iterator{};
  const double table = a && it != a->json().end() && it->is_number() ? it->get<double>() / 2 : 0;  // null: no NVLink
  require(e, table > 0 && std::fabs(bandwidth_Bps - table) <= 5e-3 * table,
          what + " (" + format_number(bandwidth_Bps / 1e9, 4) + " GB/s per direction) is the table's " +
              format_number(table / 1e9, 4) + " GB/s for " + gpu_id);
}

// HBM of a table accelerator, bytes (0 for an unknown id, which no draw names).
inline double hbm_of(const std::string& gpu_id) {
  const Accelerator* a = find_accelerator(gpu_id);
  return a ? a->hbm_bytes : 0;
}

// The most oversubscribed leaf switch the course draws: Compute Canada's Narval cluster wires
// 33 hosts against 7 uplinks, "a maximum blocking factor of 33:7 (4.7:1)" (Narval
// documentation, high-performance interconnect); clusters built for training are 1:1 to 3:1.
constexpr double kMaxOversubscription = 5;

// A leaf switch of `host_ports` host-facing ports and `uplinks` uplinks: both whole, the
// oversubscription host_ports / uplinks between 1 and kMaxOversubscription, and all of them
// ports of one switch of at most `radix` ports.
inline void require_leaf(Exercise& e, double host_ports, double uplinks, double radix, const std::string& what) {
  require_whole(e, host_ports, what + ": host ports");
  require_whole(e, uplinks, what + ": uplinks");
  require_between(e, host_ports / uplinks, 1, kMaxOversubscription, what + ": oversubscription (host ports : uplinks)");
  require(e, host_ports + uplinks <= radix, what + ": " + format_int(host_ports) + " + " + format_int(uplinks) +
                                                " ports fit a " + format_int(radix) + "-port switch");
}

// Whether a reader's `wrong` answer is told apart from `answer` with room to spare (twice the
// relative tolerance): the draws that carry a warned-against mistake redraw until it is.
inline bool tells_apart(double answer, double wrong, double rel_tolerance) {
  return std::fabs(wrong - answer) > 2 * rel_tolerance * std::fabs(answer);
}

}  // namespace mlsys::exercises
