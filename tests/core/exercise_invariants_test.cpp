// Every exercise generator over 500 seeds: the invariants it declares of its draw hold (the
// setting can exist: it fits in memory, counts are whole, durations are realistic), every
// answer reached by a mistake the lesson warns against is rejected, and the universal
// invariants hold: hardware named in the parameters is a row of the hardware table, the answer
// is finite and positive. A generator that declares no invariant fails.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"

namespace {

constexpr std::uint32_t kSeeds = 500;

std::string where(const mlsys::Exercise& e) { return e.id + " #" + std::to_string(e.seed); }

// Hardware ids named by the parameters (keys "hardware", "gpu", "accelerator", and lists of
// them under "ids"), wherever they sit in the JSON.
void hardware_named(const nlohmann::json& j, const std::string& key, std::vector<std::string>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) hardware_named(v, k, out);
  } else if (j.is_array()) {
    for (const auto& v : j) hardware_named(v, key, out);
  } else if (j.is_string() && (key == "hardware" || key == "gpu" || key == "accelerator" || key == "ids")) {
    out.push_back(j.get<std::string>());
  }
}

TEST(ExerciseInvariants, EveryDrawCanExist) {
  for (const auto& id : mlsys::exercise_ids()) {
    int failures = 0;
    for (std::uint32_t s = 0; s < kSeeds && failures < 3; ++s) {
      const mlsys::Exercise e = mlsys::make_exercise(id, s);
      if (e.invariants.empty()) {
        ADD_FAILURE() << id << " declares no invariants of its draw (require_* in exercises/generators.hpp)";
        break;
      }
      for (const auto& inv : e.invariants)
        if (!inv.holds) ++failures, ADD_FAILURE() << where(e) << ": " << inv.what << "\n  " << e.prompt;
      std::vector<std::string> hardware;
      hardware_named(e.params, "", hardware);
      for (const auto& h : hardware)
        if (!mlsys::find_accelerator(h)) ++failures, ADD_FAILURE() << where(e) << ": hardware '" << h << "' is not in the table";
      if (!(std::isfinite(e.answer) && e.answer > 0)) ++failures, ADD_FAILURE() << where(e) << ": answer " << e.answer;
    }
  }
}

TEST(ExerciseInvariants, WarnedAgainstMistakesAreRejected) {
  for (const auto& id : mlsys::exercise_ids()) {
    int failures = 0;
    for (std::uint32_t s = 0; s < kSeeds && failures < 3; ++s) {
      const mlsys::Exercise e = mlsys::make_exercise(id, s);
      for (const auto& m : e.mistakes) {
        const std::string typed = mlsys::format_number(m.value, 6);
        if (mlsys::check_exercise(id, s, typed)["correct"].get<bool>())
          ++failures, ADD_FAILURE() << where(e) << ": the mistake '" << m.what << "' (" << typed << ") is accepted; answer "
                                    << e.answer;
      }
    }
  }
}

}  // namespace
