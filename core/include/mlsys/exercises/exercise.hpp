// Engine-checked exercises: a generator draws parameters from a seed, computes the answer,
// and fills the prompt, hint and worked solution. Same id + seed, same exercise everywhere.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlsys {

struct Exercise {
  std::string id;
  std::uint32_t seed = 0;
  std::string title;     // short name shown above the prompt
  std::string prompt;    // the question, with its numbers
  std::string unit;      // unit the answer is read in ("µs", "FLOP/B", "%", "h", "$", "" for a plain
                         // number); a scale the prompt asks in is part of it: "billion" ("in
                         // billions"), "million", "thousand", "10^21 FLOP", "10⁻⁴" (read_quantity)
  std::string hint;
  std::string solution;  // worked solution ending with the answer
  double answer = 0;     // in `unit`
  double rel_tolerance = 0.01;
  double abs_tolerance = 0;  // in `unit`
  // The answer is whole by its nature (a count of blocks, passes or tokens, a power-of-two
  // scale): accepted only exactly, whatever the tolerances say (make_exercise sets them to 0).
  bool integer = false;
  // The answer can only take a few values whatever the draw (a power of two among a handful,
  // a count bounded by the hardware), so "at least 10 distinct answers in 100 draws" cannot
  // hold. Set it only where that is inherent to the question, with a comment saying why.
  bool small_answer_set = false;
  // What makes the drawn setting one that can exist, declared by the generator (require_* in
  // exercises/generators.hpp) and checked over 500 seeds by the generic invariant suite: it
  // fits in memory, counts are whole, durations are realistic, hardware comes from the
  // table. A generator that declares none fails the suite.
  struct Invariant {
    std::string what;  // "weights and cache (61.2 GB) fit in the H100's 80 GB"
    bool holds = false;
  };
  std::vector<Invariant> invariants;
  // Answers a reader reaches by a mistake the lesson warns against (in `unit`); each must be
  // rejected by the checker. The suite checks every one.
  struct Mistake {
    std::string what;  // "forgot the factor 2 of the backward pass"
    double value = 0;
  };
  std::vector<Mistake> mistakes;
  nlohmann::json params = nlohmann::json::object();  // the drawn numbers, as calculator inputs

  // The rounding the prompt asks for, if it asks for one: `asked_decimals` places after the
  // point ("to the nearest unit", "as a whole percent": 0; "to one decimal": 1) or
  // `asked_significant` significant digits ("to three significant digits": 3). make_exercise
  // widens the absolute tolerance to the relative one plus half a unit of that last place, so
  // the answer rounded as asked (from the prompt's printed numbers too) is accepted.
  int asked_decimals = -1;
  int asked_significant = 0;
};

// Ids of every generator, sorted.
std::vector<std::string> exercise_ids();

// The exercise `id` drawn with `seed`. Throws InputError("id", ...) for an unknown id.
Exercise make_exercise(const std::string& id, std::uint32_t seed);

// {id, seed, title, prompt, unit, hint, solution, answer, integer, tolerance: {relative, absolute}, params}
nlohmann::json exercise_json(const Exercise& e);

// Checks a typed answer: {correct, value (in the exercise's unit), message}. A malformed
// answer is not an error here: it gives correct=false, and the message says what is wrong.
// The answer is read by read_quantity (foundations/units.hpp): notations such as 1.6 × 10^-6
// and $2.87, any unit of the asked dimension (converted), scales (1552M asked in billions),
// nouns of the prompt ("96 elements"); a decimal comma is refused. A bare number asked in a
// scale is read in it, or as the whole quantity where that is the answer (1,552,000,000 asked
// in billions). The message says how a converted answer was read, and a wrong one's tolerance.
// A percent answer (unit "%") is read in percent points: "59.3%", "59.3 %", "59.3" and "59.3
// points"; a fraction such as 0.593 is wrong, and the message says to type it as a percent.
nlohmann::json check_exercise(const std::string& id, std::uint32_t seed, const std::string& answer_text);

}  // namespace mlsys
