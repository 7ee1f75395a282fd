// shared/API.md's error object names the offending field: for every calculator and every input
// field, a bad value of that field alone (wrong type, below or above its bounds, an unknown
// option, a list too long) gives an error whose `field` is that field; and a value inside the
// bounds that the calculator still rejects (a combination it cannot compute, such as shapes
// that do not broadcast) gives an error whose `field` names one of its inputs, never "".
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "mlsys/api/calc.hpp"
#include "test_support.hpp"

using mlsys::calc_text;
using mlsys::json;

namespace {

// Values of field `f` that its schema rejects.
std::vector<json> bad_values(const json& f) {
  const std::string type = f["type"];
  std::vector<json> out = {json::object({{"x", "y"}})};  // no field takes an object of strings
  if (type == "number" || type == "integer") out.push_back("1");
  if (type == "string" || type == "boolean") out.push_back(7);
  if (type == "boolean") out.push_back("true");
  if (type == "integer") out.push_back(1.5);
  const json* bounds = f.contains("items") ? &f["items"] : &f;
  const auto wrap = [&](json v) { return f.contains("items") ? json::array({v}) : v; };
  // Past a bound by at least 1 and by at least the bound's size (-1e300 - 1 is -1e300).
  if (bounds->contains("min")) {
    const double min = (*bounds)["min"];
    out.push_back(wrap(f.value("min_exclusive", false) ? min : min - std::max(1.0, std::fabs(min))));
  }
  if (bounds->contains("max")) {
    const double max = (*bounds)["max"];
    out.push_back(wrap(max + std::max(1.0, std::fabs(max))));
  }
  const json* options = f.contains("options") ? &f["options"] : bounds->contains("options") ? &(*bounds)["options"] : nullptr;
  if (options) out.push_back(wrap("no-such-option"));
  if (f.value("min_items", 0) > 0) out.push_back(json::array());  // too few items, then too many
  if (f.contains("max_items") && f.contains("items") && f["items"].contains("min")) {
    const auto n = f["max_items"].get<std::size_t>() + 1;
    out.push_back(json(std::vector<json>(n, f["items"].contains("options") ? f["items"]["options"][0] : f["items"]["min"])));
  }
  return out;
}

// Values of field `f` within its schema: its bounds, each option, the other boolean.
std::vector<json> edge_values(const json& f) {
  std::vector<json> out;
  const json* bounds = f.contains("items") ? &f["items"] : &f;
  const auto wrap = [&](json v) { return f.contains("items") ? json::array({v}) : v; };
  if (bounds->contains("min") && !f.value("min_exclusive", false)) out.push_back(wrap((*bounds)["min"]));
  if (bounds->contains("max")) out.push_back(wrap((*bounds)["max"]));
  if (f.contains("options"))
    for (const auto& o : f["options"]) out.push_back(o);
  if (f["type"] == "boolean")
    for (const bool b : {false, true}) out.push_back(b);
  return out;
}

json with_field(const std::string& calculator, const std::string& field, const json& value) {
  json in = {{field, value}};
  mlsys::test::add_required_fields(calculator, in);
  return in;
}

}  // namespace

TEST(ErrorFields, BadValueNamesItsField) {
  std::size_t checked = 0;
  for (const auto& name : mlsys::calc_names()) {
    const json schema = mlsys::calc_schema(name);
    for (const auto& f : schema["fields"]) {
      const std::string field = f["name"];
      for (const json& v : bad_values(f)) {
        const json in = with_field(name, field, v);
        const auto r = calc_text(name, in.dump());
        ASSERT_FALSE(r.ok) << name << " accepted " << in.dump();
        EXPECT_EQ(json::parse(r.text)["error"]["field"], field) << name << " " << in.dump() << " -> " << r.text;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1000u);
}

TEST(ErrorFields, RejectedValueInsideTheBoundsNamesAnInput) {
  std::size_t rejected = 0;
  for (const auto& name : mlsys::calc_names()) {
    const json schema = mlsys::calc_schema(name);
    std::set<std::string> inputs;
    for (const auto& f : schema["fields"]) inputs.insert(f["name"].get<std::string>());
    for (const auto& f : schema["fields"]) {
      for (const json& v : edge_values(f)) {
        const json in = with_field(name, f["name"], v);
        const auto r = calc_text(name, in.dump());
        if (r.ok) continue;
        ++rejected;
        const json e = json::parse(r.text)["error"];
        EXPECT_TRUE(inputs.count(e["field"].get<std::string>())) << name << " " << in.dump() << " -> " << r.text;
      }
    }
  }
  EXPECT_GT(rejected, 0u);  // some combinations are rejected, so the check above is exercised
}

// A number no double holds is valid JSON: it gets a sentence, not an internal error. No field
// can be named (the parser does not say whose it was).
TEST(ErrorFields, NumberBeyondADoubleIsAClearError) {
  const json e = mlsys::test::error_of("roofline", R"({"flops": 1e400, "bytes": 1})");
  EXPECT_EQ(e["message"], "A number in the input is beyond the range of a double (about 1.8e308).");
}
