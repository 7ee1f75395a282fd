// The calculator registry: lookup, schemas, input validation (the only place inputs are
// checked), and the text contract shared by the command line and the WASM binding.
#include "registry.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "mlsys/foundations/dtype.hpp"
#include "mlsys/hardware/accelerator.hpp"

namespace mlsys::api {

namespace {

const std::vector<Calculator>& registry() {
  static const std::vector<Calculator> calculators = [] {
    Calculators groups;
    add_calculator_groups(groups);
    std::vector<Calculator> all = std::move(groups.list());
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return all;
  }();
  return calculators;
}

const Calculator& find(const std::string& name) {
  for (const auto& c : registry())
    if (c.name == name) return c;
  std::string names;
  for (const auto& c : registry()) names += (names.empty() ? "" : ", ") + c.name;
  throw InputError("", "Unknown calculator '" + name + "'; available: " + names + ".");
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string show(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

std::string with_unit(double x, const std::string& unit) { return show(x) + (unit.empty() ? "" : " " + unit); }

// A list field: IntegerList (shapes, strides, permutations) or NumberList (points), each item
// within [min, max], min_items to max_items long. Messages name the item that is wrong.
json check_list(const Field& f, const json& v) {
  const bool whole = f.type == Type::IntegerList;
  const std::string name = "'" + f.name + "'";
  const auto bound = [&](double x) { return whole ? std::to_string(static_cast<long long>(x)) : show(x); };
  const std::string count = f.min_items == f.max_items ? std::to_string(f.max_items)
                            : f.min_items == 0         ? "at most " + std::to_string(f.max_items)
                                                       : std::to_string(f.min_items) + " to " + std::to_string(f.max_items);
  const std::string what = "Field " + name + " must be a list of " + count + (whole ? " whole numbers" : " numbers") +
                           " from " + bound(*f.min) + " to " + bound(*f.max) + (whole ? ", such as [2, 3, 4]" : "");
  if (f.number_accepted && v.is_number()) return check_list(f, json::array({v}));
  if (!v.is_array()) throw InputError(f.name, what + ".");
  if (v.size() < f.min_items || v.size() > f.max_items)
    throw InputError(f.name, what + "; it has " + std::to_string(v.size()) + " items.");
  json out = json::array();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const json& x = v[i];
    const std::string item = "Item " + std::to_string(i) + " of " + name;
    if (!x.is_number()) throw InputError(f.name, what + "; item " + std::to_string(i) + " is not a number.");
    const double d = x.get<double>();
    if (!std::isfinite(d)) throw InputError(f.name, item + " must be a finite number.");
    if (whole && d != std::floor(d)) throw InputError(f.name, item + " must be a whole number.");
    if (d < *f.min) throw InputError(f.name, item + " must be at least " + bound(*f.min) + ".");
    if (d > *f.max) throw InputError(f.name, item + " must be at most " + bound(*f.max) + ".");
    if (whole) out.push_back(static_cast<long long>(d));
    else out.push_back(d);
  }
  return out;
}

// A list of names, or one string of names separated by commas; each trimmed, none empty.
json check_string_list(const Field& f, const json& v) {
  const std::string name = "'" + f.name + "'";
  const std::string count = f.min_items == f.max_items ? std::to_string(f.max_items)
                            : std::to_string(f.min_items) + " to " + std::to_string(f.max_items);
  std::string what = "Field " + name + " must be a list of " + count + " names";
  if (!f.options.empty()) what += " from: " + join(f.options);
  std::vector<json> given;
  if (v.is_string()) {
    const std::string text = v.get<std::string>();
    for (std::size_t start = 0;;) {
      const std::size_t comma = text.find(',', start);
      given.emplace_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  } else if (v.is_array()) {
    given.assign(v.begin(), v.end());
  } else {
    throw InputError(f.name, what + ".");
  }
  json out = json::array();
  for (std::size_t i = 0; i < given.size(); ++i) {
    if (!given[i].is_string()) throw InputError(f.name, what + "; item " + std::to_string(i) + " is not a string.");
    std::string item = given[i].get<std::string>();
    const auto first = item.find_first_not_of(" \t\n\r");
    item = first == std::string::npos ? "" : item.substr(first, item.find_last_not_of(" \t\n\r") - first + 1);
    if (item.empty()) throw InputError(f.name, what + "; item " + std::to_string(i) + " is empty.");
    if (!f.options.empty() && std::find(f.options.begin(), f.options.end(), item) == f.options.end())
      throw InputError(f.name, what + "; '" + item + "' is not one of them.");
    out.push_back(item);
  }
  if (out.size() < f.min_items || out.size() > f.max_items)
    throw InputError(f.name, what + "; it has " + std::to_string(out.size()) + " items.");
  return out;
}

json check_field(const Field& f, const json& v) {
  const std::string name = "'" + f.name + "'";
  switch (f.type) {
    case Type::Boolean:
      if (!v.is_boolean()) throw InputError(f.name, "Field " + name + " must be true or false.");
      return v;
    case Type::String:
      if (!v.is_string()) throw InputError(f.name, "Field " + name + " must be a string.");
      if (!f.options.empty() &&
          std::find(f.options.begin(), f.options.end(), v.get<std::string>()) == f.options.end())
        throw InputError(f.name, "Field " + name + " must be one of: " + join(f.options) + ".");
      return v;
    case Type::IntegerList:
    case Type::NumberList: return check_list(f, v);
    case Type::StringList: return check_string_list(f, v);
    case Type::NumberMap:
      if (!v.is_object()) throw InputError(f.name, "Field " + name + " must be an object of numbers, such as {\"x\": 2}.");
      if (v.size() > kMaxNumberMapEntries)
        throw InputError(f.name, "Field " + name + " has more than " + std::to_string(kMaxNumberMapEntries) + " entries.");
      for (const auto& item : v.items()) {
        if (!item.value().is_number() || !std::isfinite(item.value().get<double>()))
          throw InputError(f.name, "Field " + name + ": '" + item.key() + "' must be a finite number.");
      }
      return v;
    case Type::Number:
    case Type::Integer: break;
  }
  if (!v.is_number()) throw InputError(f.name, "Field " + name + " must be a number.");
  const double x = v.get<double>();
  if (!std::isfinite(x)) throw InputError(f.name, "Field " + name + " must be a finite number.");
  if (f.min) {
    if (f.min_exclusive && !(x > *f.min))
      throw InputError(f.name, "Field " + name + " must be greater than " + with_unit(*f.min, f.unit) + ".");
    if (!f.min_exclusive && x < *f.min)
      throw InputError(f.name, "Field " + name + " must be at least " + with_unit(*f.min, f.unit) + ".");
  }
  if (f.max && x > *f.max)
    throw InputError(f.name, "Field " + name + " must be at most " + with_unit(*f.max, f.unit) + ".");
  if (f.type == Type::Integer) {
    if (x != std::floor(x)) throw InputError(f.name, "Field " + name + " must be a whole number.");
    return static_cast<long long>(x);  // in range: integer fields always have a min and max
  }
  return x;
}

void check_finite(const json& j) {
  if (j.is_number_float() && !std::isfinite(j.get<double>()))
    throw InputError("", "These inputs give a result that is not a finite number; use smaller values.");
  if (j.is_structured())
    for (const auto& item : j) check_finite(item);
}

// Nesting depth of a JSON text (outside strings); bounded so that parsing cannot exhaust
// the stack on hostile input.
int nesting_depth(const std::string& text) {
  int depth = 0, max_depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') in_string = true;
    else if (c == '[' || c == '{') max_depth = std::max(max_depth, ++depth);
    else if (c == ']' || c == '}') --depth;
  }
  return max_depth;
}

}  // namespace

json calculator_groups() {
  json out = json::object();
  for (const auto& c : registry()) out[c.name] = c.group;
  return out;
}

Field number_field(std::string name, std::string unit, std::string description, json default_value,
                   std::optional<double> min, std::optional<double> max, bool min_exclusive) {
  Field f;
  f.name = std::move(name);
  f.type = Type::Number;
  f.unit = std::move(unit);
  f.description = std::move(description);
  f.required = default_value.is_null();
  f.default_value = std::move(default_value);
  f.min = min;
  f.max = max;
  f.min_exclusive = min_exclusive;
  return f;
}

Field integer_field(std::string name, std::string unit, std::string description, json default_value,
                    long long min, long long max) {
  Field f = number_field(std::move(name), std::move(unit), std::move(description), std::move(default_value),
                         static_cast<double>(min), static_cast<double>(max));
  f.type = Type::Integer;
  return f;
}

Field string_field(std::string name, std::string description, json default_value,
                   std::vector<std::string> options) {
  Field f;
  f.name = std::move(name);
  f.type = Type::String;
  f.description = std::move(description);
  f.required = default_value.is_null();
  f.default_value = std::move(default_value);
  f.options = std::move(options);
  return f;
}

Field boolean_field(std::string name, std::string description, bool default_value) {
  Field f;
  f.name = std::move(name);
  f.type = Type::Boolean;
  f.description = std::move(description);
  f.default_value = default_value;
  return f;
}

Field integer_list_field(std::string name, std::string unit, std::string description, json default_value,
                         long long min, long long max, std::size_t max_items) {
  Field f = integer_field(std::move(name), std::move(unit), std::move(description), std::move(default_value), min, max);
  f.type = Type::IntegerList;
  f.max_items = max_items;
  return f;
}

Field number_list_field(std::string name, std::string unit, std::string description, json default_value,
                        double min, double max, std::size_t min_items, std::size_t max_items) {
  Field f = number_field(std::move(name), std::move(unit), std::move(description), std::move(default_value), min, max);
  f.type = Type::NumberList;
  f.min_items = min_items;
  f.max_items = max_items;
  return f;
}

Field string_list_field(std::string name, std::string description, json default_value,
                        std::vector<std::string> options, std::size_t min_items, std::size_t max_items) {
  Field f = string_field(std::move(name), std::move(description), std::move(default_value), std::move(options));
  f.type = Type::StringList;
  f.min_items = min_items;
  f.max_items = max_items;
  return f;
}

Field number_map_field(std::string name, std::string description, json default_value) {
  Field f;
  f.name = std::move(name);
  f.type = Type::NumberMap;
  f.description = std::move(description);
  f.default_value = std::move(default_value);
  return f;
}

Field optional(Field f) {
  f.required = false;
  return f;
}

Field seed_field(long long default_seed) {
  return integer_field("seed", "", "Seed of the random draws (SplitMix64)", default_seed, 0, 4294967295LL);
}

Field hardware_field(bool required_with_default) {
  std::vector<std::string> ids;
  for (const auto& a : accelerators()) ids.push_back(a.id);
  Field f = string_field("hardware", "Accelerator id from the hardware table",
                         required_with_default ? json("h100-sxm") : json(), ids);
  f.required = false;  // optional when it has no default: explicit peaks can replace it
  return f;
}

Field dtype_field(const std::string& default_dtype) {
  return string_field("dtype", "Element data type", default_dtype, dtype_names());
}

std::vector<Field> machine_override_fields() {
  std::vector<Field> fields = {
      number_field("peak_flops", "FLOP/s", "Peak FLOP/s; overrides the hardware table", json(), 0.0, 1e21, true),
      number_field("bandwidth_Bps", "B/s", "Memory bandwidth; overrides the hardware table", json(), 0.0, 1e16, true)};
  for (auto& f : fields) f.required = false;
  return fields;
}

std::vector<Field> with_machine(std::vector<Field> fields) {
  for (auto& f : machine_override_fields()) fields.push_back(std::move(f));
  return fields;
}

double peak_from(const Inputs& in, const std::string& dtype, const std::string& instead) {
  if (in.has("peak_flops")) return in.num("peak_flops");
  if (!in.has("hardware")) throw InputError("hardware", "Give 'hardware' (an accelerator id) or " + instead + ".");
  const Accelerator* hw = find_accelerator(in.str("hardware"));
  if (auto peak = hw->peak_for(dtype)) return *peak;
  throw InputError("dtype", hw->name + " has no dense " + dtype +
                                " rate in the hardware table; choose another dtype or give 'peak_flops'.");
}

Machine machine_from(const Inputs& in, const std::string& dtype) {
  const std::string instead = "both 'peak_flops' and 'bandwidth_Bps'";
  Machine m{peak_from(in, dtype, instead), 0};
  if (in.has("bandwidth_Bps")) {
    m.bandwidth_Bps = in.num("bandwidth_Bps");
  } else if (!in.has("hardware")) {
    throw InputError("hardware", "Give 'hardware' (an accelerator id) or " + instead + ".");
  } else {
    m.bandwidth_Bps = find_accelerator(in.str("hardware"))->hbm_bandwidth_Bps;
  }
  return m;
}

std::optional<double> following_field(const Inputs& in, const std::string& name,
                                      std::initializer_list<const char*> follows) {
  if (in.given(name)) return in.num(name);
  for (const char* other : follows)
    if (in.changed(other)) return std::nullopt;
  return in.num_if(name);
}

Inputs validate(const std::vector<Field>& fields, const json& input) {
  if (!input.is_object()) throw InputError("", "The input must be a JSON object such as {\"name\": value}.");
  for (const auto& item : input.items()) {
    const std::string key = item.key();
    const bool known = std::any_of(fields.begin(), fields.end(), [&](const Field& f) { return f.name == key; });
    if (!known) {
      std::vector<std::string> names;
      for (const auto& f : fields) names.push_back(f.name);
      throw InputError(key, "Unknown field '" + key + "'; the fields are: " +
                                (names.empty() ? std::string("none") : join(names)) + ".");
    }
  }
  json values = json::object(), defaults = json::object();
  for (const auto& f : fields) {
    defaults[f.name] = f.default_value;
    if (!input.contains(f.name) || input.at(f.name).is_null()) {
      if (f.required)
        throw InputError(f.name, "Field '" + f.name + "' is required" + (f.unit.empty() ? "" : " (" + f.unit + ")") + ".");
      values[f.name] = f.default_value;
      continue;
    }
    values[f.name] = check_field(f, input.at(f.name));
  }
  return Inputs(std::move(values), input, std::move(defaults));
}

}  // namespace mlsys::api

namespace mlsys {

json error_json(const std::string& field, const std::string& message) {
  return {{"error", {{"field", field}, {"message", message}}}};
}

json calc(const std::string& name, const json& input) {
  const auto& c = api::find(name);
  json out = c.run(api::validate(c.fields, input));
  api::check_finite(out);
  return out;
}

std::vector<std::string> calc_names() {
  std::vector<std::string> names;
  for (const auto& c : api::registry()) names.push_back(c.name);
  return names;
}

json calc_schema(const std::string& name) {
  const auto& c = api::find(name);
  json fields = json::array();
  for (const auto& f : c.fields) {
    static const char* kTypes[] = {"number", "integer", "string", "boolean", "array", "array", "array", "object"};  // in Type's order
    static_assert(std::size(kTypes) == static_cast<std::size_t>(api::Type::NumberMap) + 1, "a name for every Type");
    json jf = {{"name", f.name},
               {"type", kTypes[static_cast<int>(f.type)]},
               {"unit", f.unit},
               {"description", f.description},
               {"required", f.required},
               {"default", f.default_value}};
    if (f.type == api::Type::IntegerList || f.type == api::Type::NumberList) {
      // The bounds are the items'; the list's own bounds are its lengths.
      jf["items"] = {{"type", f.type == api::Type::IntegerList ? "integer" : "number"}, {"min", *f.min}, {"max", *f.max}};
      jf["min_items"] = f.min_items;
      jf["max_items"] = f.max_items;
    } else if (f.type == api::Type::StringList) {
      jf["items"] = {{"type", "string"}};
      if (!f.options.empty()) jf["items"]["options"] = f.options;
      jf["min_items"] = f.min_items;
      jf["max_items"] = f.max_items;
    } else {
      if (f.min) jf["min"] = *f.min;
      if (f.min_exclusive) jf["min_exclusive"] = true;
      if (f.max) jf["max"] = *f.max;
    }
    if (!f.options.empty() && f.type != api::Type::StringList) jf["options"] = f.options;
    fields.push_back(std::move(jf));
  }
  return {{"name", c.name}, {"description", c.description}, {"fields", fields}, {"outputs", c.outputs()}};
}

CalcText calc_text(const std::string& name, const std::string& input_text) {
  constexpr std::size_t kMaxInputBytes = 1 << 20;
  constexpr int kMaxDepth = 32;
  // Messages quote the calculator name as given, which need not be valid UTF-8 (the CLI's
  // argv): replace such bytes rather than let dump() throw out of a function that never throws.
  const auto error = [](const std::string& field, const std::string& message) {
    return CalcText{false, error_json(field, message).dump(-1, ' ', false, json::error_handler_t::replace)};
  };
  try {
    if (input_text.size() > kMaxInputBytes) return error("", "The input is larger than 1 MiB.");
    if (api::nesting_depth(input_text) > kMaxDepth) return error("", "The input nests more than 32 levels deep.");
    json input;
    try {
      input = json::parse(input_text);
    } catch (const json::parse_error& e) {
      // A string that is not UTF-8 (or holds a lone surrogate escape) gets its own reason: free
      // text such as bpe's is where a reader meets it.
      const std::string what = e.what();
      const bool text = what.find("UTF-8") != std::string::npos || what.find("surrogate") != std::string::npos;
      return error("", "Malformed JSON input (at byte " + std::to_string(e.byte) + ")" +
                           (text ? ": a string is not valid UTF-8 text." : "."));
    } catch (const json::out_of_range&) {
      // 1e400: valid JSON, but no double holds it.
      return error("", "A number in the input is beyond the range of a double (about 1.8e308).");
    }
    return {true, calc(name, input).dump()};
  } catch (const InputError& e) {
    return error(e.field, e.what());
  } catch (const std::exception& e) {
    return error("", std::string("Internal error: ") + e.what());
  }
}

}  // namespace mlsys
