// libFuzzer target over the calculator text entry point (calc_text: what the CLI and the
// WASM binding call). Input: a first line naming the calculator, then the JSON text.
//   "roofline\n{...}"  a calculator by name (free text: unknown names must be rejected cleanly)
//   "@17\n{...}"       the 17th of calc_names() (modulo their count)
// Checks: the output is valid JSON, {"error": {field, message}} when not ok, else an object
// whose numbers are all finite.
// Seeds: MLSYS_FUZZ_SEEDS=DIR ./fuzz_calc writes one file per calculator from its schema's
// defaults, and a few per field at its edges (min, max, just past them, each option), then exits.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "mlsys/api/calc.hpp"

namespace {

using nlohmann::json;

// A value for field `f` of a schema: its default, else something inside its range.
json usual_value(const json& f) {
  if (!f["default"].is_null()) return f["default"];
  if (f.contains("options")) return f["options"][0];
  if (f["type"] == "boolean") return false;
  if (f["type"] == "string") return "";
  if (f["type"] == "array" && f["items"]["type"] == "string") {  // names: the first allowed, or any
    return json::array({f["items"].contains("options") ? f["items"]["options"][0] : json("a")});
  }
  if (f["type"] == "array") {  // a short list inside the items' range, such as a shape [2, 3]
    const auto lo = static_cast<long long>(f["items"]["min"].get<double>());
    return json::array({std::max(lo, 2LL), std::max(lo, 3LL)});
  }
  if (f.contains("max")) return f["max"];
  if (f.contains("min")) return f["min"].get<double>() + 1;
  return 1;
}

void write_seeds(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  int count = 0;
  for (const auto& name : mlsys::calc_names()) {
    const json schema = mlsys::calc_schema(name);
    json base = json::object();
    for (const auto& f : schema["fields"])  // optional fields without a default stay out
      if (!f["default"].is_null() || f["required"].get<bool>()) base[f["name"].get<std::string>()] = usual_value(f);
    auto seed = [&](const std::string& tag, const json& input) {
      mlsys_fuzz::write_seed(dir, name + "-" + tag, name + "\n" + input.dump());
      ++count;
    };
    seed("defaults", base);
    seed("empty", json::object());
    json all_max = base, all_min = base;
    for (const auto& f : schema["fields"]) {
      const std::string key = f["name"];
      const bool integer = f["type"] == "integer";
      if (f.contains("options")) {
        for (const auto& o : f["options"]) {
          json v = base;
          v[key] = o;
          seed(key + "=" + o.get<std::string>(), v);
        }
        continue;
      }
      if (f["type"] == "array" && f["items"]["type"] == "string") {  // as many names as allowed, and one more
        const auto n = f["max_items"].get<std::size_t>();
        json v = base;
        v[key] = json(std::vector<json>(n, usual_value(f)[0]));
        seed(key + "-max-items", v);
        v[key] = json(std::vector<json>(n + 1, usual_value(f)[0]));
        seed(key + "-too-long", v);
        continue;
      }
      if (f["type"] == "array") {  // the longest list allowed, of the largest items, and one item more
        const auto hi = static_cast<long long>(f["items"]["max"].get<double>());
        const auto n = f["max_items"].get<std::size_t>();
        json v = base;
        v[key] = json(std::vector<long long>(n, hi));
        seed(key + "-max-items", v);
        v[key] = json(std::vector<long long>(n + 1, 1));
        seed(key + "-too-long", v);
        continue;
      }
      if (f["type"] == "boolean") {
        json v = base;
        v[key] = !usual_value(f).get<bool>();
        seed(key + "-flip", v);
        continue;
      }
      auto edge = [&](const std::string& tag, double x) {
        json v = base;
        if (integer) v[key] = static_cast<long long>(x);
        else v[key] = x;
        seed(key + "-" + tag, v);
      };
      if (f.contains("max")) {
        const double mx = f["max"];
        edge("max", mx);
        edge("over-max", integer ? mx + 1 : mx * 2 + 1);
        all_max[key] = integer ? json(static_cast<long long>(mx)) : json(mx);
      }
      if (f.contains("min")) {
        const double mn = f["min"];
        const bool exclusive = f.value("min_exclusive", false);
        const double lo = exclusive ? (integer ? mn + 1 : (mn == 0 ? 1e-300 : mn * (1 + 1e-12))) : mn;
        edge("min", lo);
        edge("under-min", integer ? mn - 1 : mn - 1);
        all_min[key] = integer ? json(static_cast<long long>(lo)) : json(lo);
      }
    }
    seed("all-max", all_max);
    seed("all-min", all_min);
  }
  // A few malformed or hostile texts.
  mlsys_fuzz::write_seed(dir, "malformed", "roofline\n{\"flops\": ");
  mlsys_fuzz::write_seed(dir, "nested", "roofline\n" + std::string(40, '[') + std::string(40, ']'));
  mlsys_fuzz::write_seed(dir, "unknown-name", "no-such-calculator\n{}");
  mlsys_fuzz::write_seed(dir, "by-index", "@3\n{}");
  std::fprintf(stderr, "wrote %d calculator seeds to %s\n", count + 4, dir.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return mlsys_fuzz::seeds_or_fuzz(write_seeds); }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::string> names = mlsys::calc_names();
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::size_t nl = bytes.find('\n');
  std::string name = bytes.substr(0, nl);
  const std::string text = nl == std::string::npos ? std::string() : bytes.substr(nl + 1);
  if (name.size() > 1 && name[0] == '@' && name.size() <= 6 &&
      name.find_first_not_of("0123456789", 1) == std::string::npos)
    name = names[std::stoul(name.substr(1)) % names.size()];

  const mlsys::CalcText out = mlsys::calc_text(name, text);  // must not throw
  const json j = mlsys_fuzz::require_json(out.text);
  if (out.ok) {
    if (!j.is_object() || j.contains("error")) mlsys_fuzz::fail("ok result is not a plain object", out.text);
    mlsys_fuzz::require_finite(j, name + "\n" + text + "\n-> " + out.text);
  } else {
    mlsys_fuzz::require_error(j, out.text);
  }
  return 0;
}
