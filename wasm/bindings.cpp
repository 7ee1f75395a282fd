// Embind bindings: text in, text out; the JavaScript wrapper (web/src/runtime/engine.js)
// parses the JSON. Every entry point catches, so no C++ exception reaches JavaScript.
#include <emscripten/bind.h>

#include <string>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "generators.hpp"
#include "registry.hpp"

namespace {

template <class F>
std::string guarded(F&& f) {
  try {
    return f();
  } catch (const mlsys::InputError& e) {
    return mlsys::error_json(e.field, e.what()).dump();
  } catch (const std::exception& e) {
    return mlsys::error_json("", std::string("Internal error: ") + e.what()).dump();
  }
}

std::string calc(const std::string& name, const std::string& input) { return mlsys::calc_text(name, input).text; }

std::string calc_names() { return nlohmann::json(mlsys::calc_names()).dump(); }

std::string calc_schema(const std::string& name) {
  return guarded([&] { return mlsys::calc_schema(name).dump(); });
}

// [[id, name], ...] in table order: the labels of a figure's accelerator select, without the
// whole table that the `hardware` calculator returns (about 30 KB of JSON).
std::string accelerator_names() {
  nlohmann::json names = nlohmann::json::array();
  for (const auto& a : mlsys::accelerators()) names.push_back({a.id, a.name});
  return names.dump();
}

std::string exercise_ids() { return nlohmann::json(mlsys::exercise_ids()).dump(); }

std::string exercise(const std::string& id, double seed) {
  return guarded([&] { return mlsys::exercise_json(mlsys::make_exercise(id, static_cast<std::uint32_t>(seed))).dump(); });
}

std::string check_exercise(const std::string& id, double seed, const std::string& answer) {
  return guarded([&] { return mlsys::check_exercise(id, static_cast<std::uint32_t>(seed), answer).dump(); });
}

// {"calculators": {name: group}, "exercises": {id: group}}: the group (calculators_<group>.cpp,
// <group>_exercises.cpp) of everything this engine holds. The build reads it from the full
// engine to plan the parts (web/scripts/engine-plan.mjs).
std::string engine_groups() {
  return guarded([] {
    return nlohmann::json{{"calculators", mlsys::api::calculator_groups()},
                          {"exercises", mlsys::exercises::exercise_groups()}}.dump();
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(mlsys_engine) {
  emscripten::function("calc", &calc);
  emscripten::function("calcNames", &calc_names);
  emscripten::function("calcSchema", &calc_schema);
  emscripten::function("acceleratorNames", &accelerator_names);
  emscripten::function("exerciseIds", &exercise_ids);
  emscripten::function("exercise", &exercise);
  emscripten::function("checkExercise", &check_exercise);
  emscripten::function("engineGroups", &engine_groups);
}
