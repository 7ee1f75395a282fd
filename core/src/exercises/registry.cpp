// Exercise registry: lookup by id, seeding, JSON form and answer checking.
#include <algorithm>
#include <cmath>

#include "generators.hpp"
#include "mlsys/api/calc.hpp"
#include "mlsys/foundations/units.hpp"

namespace mlsys {

namespace {
const std::vector<exercises::Generator>& generators() {
  static const std::vector<exercises::Generator> all = [] {
    std::vector<exercises::Generator> g;
    exercises::add_exercise_groups(g);
    std::sort(g.begin(), g.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    return g;
  }();
  return all;
}

// Whether `value`, in the exercise's unit, is accepted as its answer.
bool within_tolerance(const Exercise& e, double value) {
  return std::fabs(value - e.answer) <= std::max(e.rel_tolerance * std::fabs(e.answer), e.abs_tolerance);
}

bool answer_in_prompt(const Exercise& e) {
  for (const auto& p : printed_numbers(e.prompt))
    if (within_tolerance(e, p.value)) return true;
  return false;
}
}  // namespace

nlohmann::json exercises::exercise_groups() {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& g : generators()) out[g.id] = g.group;
  return out;
}

std::vector<std::string> exercise_ids() {
  std::vector<std::string> ids;
  for (const auto& g : generators()) ids.push_back(g.id);
  return ids;
}

Exercise make_exercise(const std::string& id, std::uint32_t seed) {
  for (const auto& g : generators()) {
    if (g.id != id) continue;
    exercises::Rng rng(seed, id);
    const auto draw = [&] {
      Exercise e = g.make(rng);
      if (e.integer) e.rel_tolerance = e.abs_tolerance = 0;  // a count is right or wrong
      return e;
    };
    // A reader who copies a number from the question must not be marked right, so a draw
    // whose answer the prompt prints (a split count equal to the batch, an exposed time equal
    // to one all-reduce) is drawn again, further along the same stream: the seed still names
    // one exercise. A generator whose answer is always in its prompt fails the suite still.
    Exercise e = draw();
    for (int tries = 0; tries < 16 && answer_in_prompt(e); ++tries) e = draw();
    e.id = id;
    e.seed = seed;
    return e;
  }
  throw InputError("id", "Unknown exercise '" + id + "'.");
}

nlohmann::json exercise_json(const Exercise& e) {
  return {{"id", e.id},         {"seed", e.seed},     {"title", e.title},
          {"prompt", e.prompt}, {"unit", e.unit},     {"hint", e.hint},
          {"solution", e.solution}, {"answer", e.answer}, {"integer", e.integer},
          {"tolerance", {{"relative", e.rel_tolerance}, {"absolute", e.abs_tolerance}}},
          {"params", e.params}};
}

nlohmann::json check_exercise(const std::string& id, std::uint32_t seed, const std::string& answer_text) {
  const Exercise e = make_exercise(id, seed);
  double value = 0;
  try {
    value = parse_quantity(answer_text, e.unit);
  } catch (const InputError& err) {
    return {{"correct", false}, {"value", nullptr}, {"message", err.what()}};
  }
  const bool correct = within_tolerance(e, value);
  const std::string unit = e.unit.empty() ? "" : e.unit == "%" ? "%" : " " + e.unit;
  const bool whole = e.integer && std::fabs(value) < 1e15;
  const std::string shown = (whole ? format_int(value) : format_number(value, 4)) + unit;
  std::string message = "Correct: " + shown + ".";
  if (e.integer && value != std::floor(value))
    message = "This answer is a whole number (a count); " + format_number(value, 4) + " is not one.";
  else if (!correct && e.unit == "%" && within_tolerance(e, 100 * value))
    message = "Not quite: " + format_number(value, 4) + " reads as " + format_number(value, 4) +
              "%. This answer is a percent: type " + format_number(100 * value, 4) + " or " +
              format_number(100 * value, 4) + "%.";
  else if (!correct)
    message = "Not quite: " + shown + (e.integer ? " is not the count." : " is off by more than the tolerance.") +
              " Try the hint.";
  return {{"correct", correct}, {"value", value}, {"message", message}};
}

}  // namespace mlsys
