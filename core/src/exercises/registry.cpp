// Exercise registry: lookup by id, seeding, JSON form and answer checking.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string_view>

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

std::string trim_text(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\n\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\n\r") - a + 1);
}

// The value a reading stands for: as read in the exercise's unit, or, for a bare number asked
// in a scale, as the whole quantity where that reading is the answer ("1552000000" asked in
// billions) or, when neither is, the nearer to it. Sets `whole` when it is the second.
double reading_value(const Exercise& e, const QuantityReading& r, bool& whole) {
  whole = false;
  if (within_tolerance(e, r.value) || !std::isfinite(r.whole)) return r.value;
  // How many times too large or too small (no logarithm: the same bits natively and in WASM).
  const auto distance = [&](double v) { return v > 0 && e.answer > 0 ? std::max(v / e.answer, e.answer / v) : HUGE_VAL; };
  whole = within_tolerance(e, r.whole) || distance(r.whole) < distance(r.value);
  return whole ? r.whole : r.value;
}

// Whether a number the prompt prints, typed as printed, would be accepted.
bool answer_in_prompt(const Exercise& e) {
  for (const auto& p : printed_numbers(e.prompt)) {
    if (within_tolerance(e, p.value)) return true;
    try {
      bool whole = false;
      if (within_tolerance(e, reading_value(e, read_quantity(p.text, e.unit, e.prompt), whole))) return true;
    } catch (const InputError&) {
    }
  }
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

// Half a unit of the last place the prompt asks for (asked_decimals, asked_significant), in
// the exercise's unit; 0 when it asks for none. Computed through decimal text (snprintf and
// strtod round correctly, natively and in WASM alike).
double half_asked_place(const Exercise& e) {
  int last = 0;  // the power of ten of the last place asked for
  if (e.asked_decimals >= 0) {
    last = -e.asked_decimals;
  } else if (e.asked_significant > 0 && e.answer != 0 && std::isfinite(e.answer)) {
    char buf[64];  // the answer rounded as asked: its exponent is that of its first digit
    std::snprintf(buf, sizeof buf, "%.*e", e.asked_significant - 1, std::fabs(e.answer));
    const char* exponent = buf;
    while (*exponent != 'e') ++exponent;
    last = std::atoi(exponent + 1) - e.asked_significant + 1;
  } else {
    return 0;
  }
  return std::strtod(("5e" + std::to_string(last - 1)).c_str(), nullptr);
}

Exercise make_exercise(const std::string& id, std::uint32_t seed) {
  for (const auto& g : generators()) {
    if (g.id != id) continue;
    exercises::Rng rng(seed, id);
    const auto draw = [&] {
      Exercise e = g.make(rng);
      if (e.integer) {
        e.rel_tolerance = e.abs_tolerance = 0;  // a count is right or wrong
      } else if (const double half = half_asked_place(e); half > 0) {
        // The answer rounded as the prompt asks, from an answer within the relative tolerance.
        e.abs_tolerance = std::max(e.abs_tolerance, e.rel_tolerance * std::fabs(e.answer) + half);
      }
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

namespace {
// The parts joined: one loop rather than a chain of operator+ at each message (smaller code).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (auto p : parts) s += p;
  return s;
}

// "±0.1%" or "±0.5 MB": how far from the answer the checker accepts.
std::string tolerance_text(const Exercise& e) {
  const double rel = e.rel_tolerance * std::fabs(e.answer);
  if (e.abs_tolerance > rel) return cat({"\u00B1", with_unit(format_number(e.abs_tolerance, 2), e.unit)});
  return cat({"\u00B1", format_number(100 * e.rel_tolerance, 2), "%"});
}
}  // namespace

nlohmann::json check_exercise(const std::string& id, std::uint32_t seed, const std::string& answer_text) {
  const Exercise e = make_exercise(id, seed);
  QuantityReading r;
  try {
    r = read_quantity(answer_text, e.unit, e.prompt);
  } catch (const InputError& err) {
    return {{"correct", false}, {"value", nullptr}, {"message", err.what()}};
  }
  bool whole = false;
  const double value = reading_value(e, r, whole);
  const bool correct = within_tolerance(e, value);
  // A difference of percentages asked in percentage points is shown in points ("2.51 points"), not "2.51%".
  const bool points = e.unit == "%" && e.prompt.find("percentage points") != std::string::npos;
  const std::string shown_unit = points ? "points" : e.unit;
  const auto show = [&](double v) { return with_unit(e.integer && std::fabs(v) < 1e15 ? format_int(v) : format_number(v, 4), shown_unit); };
  const std::string typed = quotable(trim_text(answer_text)), shown = show(value);
  // How the answer was read, where it was converted: "5158M (read in millions) = 5.158 billion".
  std::string read = shown;
  if (whole && typed != shown) read = cat({typed, " = ", shown});
  else if (!r.read_as.empty()) read = cat({typed, " (read in ", r.read_as, ") = ", shown});
  std::string message = cat({"Correct: ", read, "."});
  const std::string v4 = format_number(value, 4);
  if (e.integer && value != std::floor(value)) {
    message = cat({"This answer is a whole number (a count); ", v4, " is not one."});
  } else if (!correct && e.unit == "%" && within_tolerance(e, 100 * value)) {
    const std::string p = format_number(100 * value, 4);
    message = points ? cat({"Not quite: ", v4, " reads as ", v4, " points. This answer is in percentage points: type ", p,
                            " or ", p, " points."})
                     : cat({"Not quite: ", v4, " reads as ", v4, "%. This answer is a percent: type ", p, " or ", p, "%."});
  } else if (!correct && std::isfinite(r.comma_as_point) && within_tolerance(e, r.comma_as_point)) {
    message = cat({"Not quite: the comma in ", typed, " separates thousands, so it reads as ", shown,
                   ". For a decimal, use a point: ", format_number(r.comma_as_point, 6), "."});
  } else if (!correct) {
    // A bare number asked in a scale: say it was read in it ("billions", "units of 10^21 FLOP").
    const bool scaled = r.bare && std::isfinite(r.whole) && !whole;
    const bool power = e.unit.compare(0, 2, "10") == 0;
    message = cat({"Not quite: ", read, scaled ? " (a number without a unit is read in " : "", scaled && power ? "units of " : "",
                   scaled ? e.unit : "", scaled && !power ? "s" : "", scaled ? ", as asked)" : "",
                   e.integer ? " is not the answer." : " is off by more than the tolerance (",
                   e.integer ? "" : tolerance_text(e), e.integer ? "" : ").", " Try the hint."});
  }
  return {{"correct", correct}, {"value", value}, {"message", message}};
}

}  // namespace mlsys
