// Every calculator's schema declares its outputs, and its results agree with them: over every
// case of tests/cases/*.json and each calculator's defaults, no result has a key its schema
// does not declare or a value of another JSON type, every non-optional output is always
// there, and every declared output (optional ones included) appears in some result.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "mlsys/api/calc.hpp"

namespace {

using mlsys::json;

struct Seen {
  std::set<std::string> paths;       // every declared output path returned at least once
  std::vector<std::string> problems;  // undeclared keys, wrong types, missing required ones
};

bool type_matches(const std::string& type, const json& v) {
  if (type == "number") return v.is_number_float();
  if (type == "integer") return v.is_number_integer();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "array") return v.is_array();
  if (type == "object") return v.is_object();
  return false;
}

void check_value(const json& decl, const json& v, const std::string& path, Seen& seen);

void check_object(const json& fields, const json& obj, const std::string& path, Seen& seen) {
  std::map<std::string, json> declared;
  for (const auto& f : fields) declared[f.at("name").get<std::string>()] = f;
  for (const auto& [key, value] : obj.items()) {
    auto it = declared.find(key);
    if (it == declared.end()) {
      seen.problems.push_back(path + key + ": returned but not declared");
      continue;
    }
    check_value(it->second, value, path + key, seen);
  }
  for (const auto& [name, f] : declared)
    if (!f.value("optional", false) && !obj.contains(name))
      seen.problems.push_back(path + name + ": declared (not optional) but missing");
}

void check_value(const json& decl, const json& v, const std::string& path, Seen& seen) {
  seen.paths.insert(path);
  if (v.is_null() && decl.value("nullable", false)) return;
  const std::string type = decl.at("type");
  if (!type_matches(type, v)) {
    seen.problems.push_back(path + ": declared " + type + ", returned " + v.dump().substr(0, 40));
    return;
  }
  if (type == "object" && decl.contains("fields")) check_object(decl["fields"], v, path + ".", seen);
  if (type == "object" && decl.contains("values"))
    for (const auto& [key, item] : v.items()) check_value(decl["values"], item, path + "{}", seen);
  if (type == "array")
    for (const auto& item : v) check_value(decl.at("items"), item, path + "[]", seen);
}

// Every declared path, as check_value names them.
void declared_paths(const json& fields, const std::string& path, std::set<std::string>& out) {
  for (const auto& f : fields) {
    const std::string p = path + f.at("name").get<std::string>();
    out.insert(p);
    json t = f;
    std::string suffix;
    while (t.contains("items")) t = t["items"], suffix += "[]";
    if (t.contains("values")) t = t["values"], suffix += "{}";
    if (!suffix.empty()) out.insert(p + suffix);
    if (t.contains("fields")) declared_paths(t["fields"], p + suffix + ".", out);
  }
}

std::map<std::string, std::vector<json>> inputs_by_calculator() {
  std::map<std::string, std::vector<json>> inputs;
  for (const auto& name : mlsys::calc_names()) inputs[name].push_back(json::object());
  for (const auto& entry : std::filesystem::directory_iterator(MLSYS_CASES_DIR)) {
    std::ifstream file(entry.path());
    for (const auto& c : json::parse(file))
      if (c.contains("input") && inputs.count(c["calc"].get<std::string>())) inputs[c["calc"]].push_back(c["input"]);
  }
  return inputs;
}

TEST(OutputSchema, EveryCalculatorDeclaresItsOutputsAndReturnsExactlyThem) {
  for (const auto& [name, inputs] : inputs_by_calculator()) {
    const json outputs = mlsys::calc_schema(name).at("outputs");
    ASSERT_TRUE(outputs.is_array()) << name;
    EXPECT_FALSE(outputs.empty()) << name << " declares no outputs";
    std::set<std::string> names;
    for (const auto& f : outputs) {
      EXPECT_TRUE(names.insert(f.at("name").get<std::string>()).second) << name << ": output declared twice";
      EXPECT_FALSE(f.at("description").get<std::string>().empty()) << name << "." << f["name"] << " has no description";
    }
    Seen seen;
    int results = 0;
    for (const auto& input : inputs) {
      json result;
      try {
        result = mlsys::calc(name, input);
      } catch (const mlsys::InputError&) {
        continue;  // error cases
      }
      ++results;
      check_object(outputs, result, "", seen);
    }
    EXPECT_GT(results, 0) << name << ": no case gives a result";
    for (const auto& p : seen.problems) ADD_FAILURE() << name << ": " << p;
    std::set<std::string> declared;
    declared_paths(outputs, "", declared);
    for (const auto& p : declared)
      if (!seen.paths.count(p)) ADD_FAILURE() << name << ": " << p << " is declared but no case returns it";
  }
}

TEST(OutputSchema, TheTestCatchesAnUndeclaredKeyAndAWrongType) {
  const json outputs = json::parse(R"([{"name": "time_s", "type": "number", "unit": "s", "description": "t"},
                                      {"name": "n", "type": "integer", "unit": "", "description": "n", "optional": true}])");
  Seen seen;
  check_object(outputs, json::parse(R"({"time_s": 1.0, "extra": 2})"), "", seen);
  check_object(outputs, json::parse(R"({"time_s": 1, "n": 2.5})"), "", seen);
  ASSERT_EQ(seen.problems.size(), 3u);
  EXPECT_NE(seen.problems[0].find("extra"), std::string::npos);
}

}  // namespace
