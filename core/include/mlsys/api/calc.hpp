// The calculator API (shared/API.md): one registry of named calculators, reached from C++,
// the command line and JavaScript with the same names, fields and results.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

using json = nlohmann::json;

// Runs calculator `name` on `input` (a JSON object). Throws InputError on bad input.
json calc(const std::string& name, const json& input);

// Names of all calculators, sorted.
std::vector<std::string> calc_names();

// Schema of calculator `name`: {name, description, fields: [{name, type, unit,
// default, min, max, options, required, description}], outputs: [{name, type, unit,
// description, fields | items | values, optional}]}. Throws InputError if unknown.
json calc_schema(const std::string& name);

// The whole text-in, text-out contract used by the command line and the WASM binding:
// parses `input_text`, runs the calculator, and returns {"ok": bool, "json": text} where
// text is the result or {"error": {"field", "message"}}. Never throws.
struct CalcText {
  bool ok;
  std::string text;
};
CalcText calc_text(const std::string& name, const std::string& input_text);

// {"error": {"field": ..., "message": ...}}
json error_json(const std::string& field, const std::string& message);

}  // namespace mlsys
