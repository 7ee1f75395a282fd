// libFuzzer target over the exercise generators and their checker. Input: byte 0 picks the
// exercise id (modulo the count), bytes 1-4 are the seed (little-endian), the rest is the
// reader's answer text. Checks: the exercise and the check serialize to valid JSON (also
// with hostile answer text), the answer, tolerances and params are finite, the check's value
// is null or finite, and the exercise's own answer, printed in full, is judged correct.
// Seeds: MLSYS_FUZZ_SEEDS=DIR ./fuzz_exercise writes a few per id, then exits.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"

namespace {

using nlohmann::json;

std::string encode(std::size_t index, std::uint32_t seed, const std::string& answer) {
  std::string s(1, static_cast<char>(index));
  for (int i = 0; i < 4; ++i) s += static_cast<char>((seed >> (8 * i)) & 0xFF);
  return s + answer;
}

std::string exact(double x, const std::string& unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return std::string(buf) + (unit.empty() ? "" : " " + unit);
}

void write_seeds(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const auto ids = mlsys::exercise_ids();
  int count = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    for (std::uint32_t seed : {0u, 1u, 42u, 0xFFFFFFFFu}) {
      const mlsys::Exercise e = mlsys::make_exercise(ids[i], seed);
      for (const std::string& answer : {exact(e.answer, e.unit), std::string(), std::string("1e309"),
                                        std::string("-0"), std::string("1,200"), std::string("0.5 ms"),
                                        std::string("abc")}) {
        mlsys_fuzz::write_seed(dir, ids[i] + "-" + std::to_string(seed) + "-" + std::to_string(count),
                               encode(i, seed, answer));
        ++count;
      }
    }
  }
  std::fprintf(stderr, "wrote %d exercise seeds to %s\n", count, dir.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return mlsys_fuzz::seeds_or_fuzz(write_seeds); }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::string> ids = mlsys::exercise_ids();
  if (size < 5) return 0;
  const std::string& id = ids[data[0] % ids.size()];
  const std::uint32_t seed = static_cast<std::uint32_t>(data[1]) | static_cast<std::uint32_t>(data[2]) << 8 |
                             static_cast<std::uint32_t>(data[3]) << 16 | static_cast<std::uint32_t>(data[4]) << 24;
  const std::string answer(reinterpret_cast<const char*>(data) + 5, size - 5);
  const std::string where = id + " seed " + std::to_string(seed);

  const mlsys::Exercise e = mlsys::make_exercise(id, seed);
  const std::string shown = mlsys::exercise_json(e).dump();
  mlsys_fuzz::require_finite(mlsys_fuzz::require_json(shown), where);
  if (!std::isfinite(e.answer) || !std::isfinite(e.rel_tolerance) || !std::isfinite(e.abs_tolerance) ||
      e.rel_tolerance < 0 || e.abs_tolerance < 0)
    mlsys_fuzz::fail("answer or tolerance not finite and non-negative", where + "\n" + shown);

  auto check = [&](const std::string& text) {
    const json c = mlsys::check_exercise(id, seed, text);
    const std::string dumped = c.dump();  // must not throw, whatever the answer's bytes
    const json back = mlsys_fuzz::require_json(dumped);
    if (!back.is_object() || !back["correct"].is_boolean() || !back["message"].is_string() ||
        !(back["value"].is_null() || back["value"].is_number()))
      mlsys_fuzz::fail("check result lacks correct/value/message", where + "\n" + dumped);
    mlsys_fuzz::require_finite(back, where + "\n" + dumped);
    return back;
  };
  check(answer);
  const std::string right = exact(e.answer, e.unit);
  if (!check(right)["correct"].get<bool>()) mlsys_fuzz::fail("the exercise's own answer is judged wrong", where + "\n" + right);
  return 0;
}
