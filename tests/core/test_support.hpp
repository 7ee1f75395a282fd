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

}  // namespace mlsys::test
