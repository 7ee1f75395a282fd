// Helpers shared by the engine tests.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "mlsys/api/calc.hpp"

namespace mlsys::test {

// Runs `name` on the JSON text through the text entry point (as the CLI and WASM do) and
// returns its {"field", "message"} error object; a test failure if the call did not fail.
inline json error_of(const std::string& name, const std::string& text) {
  const auto r = calc_text(name, text);
  EXPECT_FALSE(r.ok) << name << " " << text << " -> " << r.text;
  const json j = json::parse(r.text);
  EXPECT_TRUE(j.contains("error")) << r.text;
  EXPECT_TRUE(j["error"]["message"].is_string());
  EXPECT_FALSE(j["error"]["message"].get<std::string>().empty());
  return j["error"];
}

// Adds to `in` a value for each field that `calculator`'s schema requires (no default) and `in`
// lacks: 1 moved inside the field's bounds (mfu's tokens_per_s, ...).
inline void add_required_fields(const std::string& calculator, json& in) {
  const json schema = calc_schema(calculator);
  for (const auto& f : schema["fields"]) {
    if (!f["required"].get<bool>() || in.contains(f["name"])) continue;
    ASSERT_TRUE(f["type"] == "number" || f["type"] == "integer") << calculator << ": " << f.dump();
    double v = 1;
    const double min = f["min"], max = f["max"];
    if (v < min || (f.value("min_exclusive", false) && v <= min)) v = min + 1;
    in[f["name"].get<std::string>()] = v > max ? max : v;
  }
}

}  // namespace mlsys::test
