// Calculator registry internals: schemas and the one place where inputs are validated.
#pragma once
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mlsys/api/calc.hpp"
#include "outputs.hpp"

namespace mlsys::api {

// IntegerList: a JSON array of whole numbers (tensor shapes, strides, permutations); NumberList:
// of numbers (points). Each item within [min, max], min_items .. max_items long. StringList: of
// names (ids, profiles), each one of `options` when there are options; one string of names
// separated by commas is accepted too ("a, b"). NumberMap: a
// JSON object of finite numbers keyed by name ({"x": 2, "y": -1}), schema type "object", at
// most kMaxNumberMapEntries entries.
enum class Type { Number, Integer, String, Boolean, IntegerList, NumberList, StringList, NumberMap };
inline constexpr std::size_t kMaxNumberMapEntries = 64;

struct Field {
  std::string name;
  Type type = Type::Number;
  std::string unit;         // SI unit or "" for dimensionless / strings
  std::string description;
  json default_value;       // null: no default
  bool required = false;    // required fields have no default
  std::optional<double> min, max;
  bool min_exclusive = false;  // value must be > min (not >=)
  std::vector<std::string> options;  // allowed strings, or StringList items (empty: any)
  std::size_t min_items = 0, max_items = 0;  // IntegerList, NumberList, StringList: the list's length
  // NumberList: a plain number is also accepted, as the list of that one number (a field that
  // is one value in one use and a list in another: scaling-law's `params`).
  bool number_accepted = false;
};

// Validated input: every schema field either present (checked) or its default.
class Inputs {
 public:
  // `defaults`: each field's schema default (null: none).
  Inputs(json values, json given, json defaults)
      : values_(std::move(values)), given_(std::move(given)), defaults_(std::move(defaults)) {}
  bool has(const std::string& name) const { return values_.contains(name) && !values_[name].is_null(); }
  // Present in the caller's input (not a default).
  bool given(const std::string& name) const { return given_.contains(name) && !given_[name].is_null(); }
  // Given with a value other than the field's default (any value, for a field without one).
  bool changed(const std::string& name) const {
    return given(name) && (!defaults_.contains(name) || values_[name] != defaults_[name]);
  }
  double num(const std::string& name) const { return values_.at(name).get<double>(); }
  long long integer(const std::string& name) const { return values_.at(name).get<long long>(); }
  std::string str(const std::string& name) const { return values_.at(name).get<std::string>(); }
  bool boolean(const std::string& name) const { return values_.at(name).get<bool>(); }
  std::vector<long long> integers(const std::string& name) const {
    return values_.at(name).get<std::vector<long long>>();
  }
  std::vector<double> numbers(const std::string& name) const { return values_.at(name).get<std::vector<double>>(); }
  std::vector<std::string> strings(const std::string& name) const {
    return values_.at(name).get<std::vector<std::string>>();
  }
  std::map<std::string, double> number_map(const std::string& name) const {
    return values_.at(name).get<std::map<std::string, double>>();
  }
  // An optional field without a default: its value, or nullopt when absent.
  std::optional<double> num_if(const std::string& name) const {
    return has(name) ? std::optional<double>(num(name)) : std::nullopt;
  }
  std::optional<long long> integer_if(const std::string& name) const {
    return has(name) ? std::optional<long long>(integer(name)) : std::nullopt;
  }
  const json& raw() const { return values_; }

 private:
  json values_;
  json given_;
  json defaults_;
};

struct Calculator {
  std::string name;
  std::string description;
  std::vector<Field> fields;
  json (*outputs)();  // [{name, type, unit, description, ...}] (outputs.hpp), built when asked for
  std::function<json(const Inputs&)> run;
  std::string group;  // the calculators_<group>.cpp that declares it (set by the generated registry)
};

// The calculators of one group. `add` declares a calculator from its inputs and a function of
// the validated inputs that returns a described struct (outputs.hpp): the JSON result and the
// schema's outputs both come from that struct's description.
class Calculators {
 public:
  template <class F>
  void add(std::string name, std::string description, std::vector<Field> fields, F run) {
    using R = std::decay_t<std::invoke_result_t<F, const Inputs&>>;
    static_assert(is_described<R>::value, "a calculator returns a struct described with MLSYS_DESCRIBE");
    list_.push_back({std::move(name), std::move(description), std::move(fields), &output_fields<R>,
                     [run](const Inputs& in) { return to_json(run(in)); }, group_});
  }
  std::vector<Calculator>& list() { return list_; }
  // The group of the calculators added next (the generated registry calls it before each group).
  void group(std::string name) { group_ = std::move(name); }

 private:
  std::vector<Calculator> list_;
  std::string group_;
};

// Registration: each core/src/api/calculators_<group>.cpp defines add_<group>_calculators;
// the build generates the file that calls them (core/cmake/groups.cmake), so a new group is
// its own file and nothing else.
void add_calculator_groups(Calculators& out);

// {calculator name: its group}, of the calculators this engine holds (the WASM build's plan
// of the engine parts reads it from the full engine: wasm/bindings.cpp).
json calculator_groups();

// Field builders shared by calculators.
Field optional(Field f);  // not required, no default: the calculator decides when absent
Field number_field(std::string name, std::string unit, std::string description, json default_value,
                   std::optional<double> min, std::optional<double> max, bool min_exclusive = false);
Field integer_field(std::string name, std::string unit, std::string description, json default_value,
                    long long min, long long max);
Field string_field(std::string name, std::string description, json default_value,
                   std::vector<std::string> options);
Field boolean_field(std::string name, std::string description, bool default_value);
// A list of at most max_items whole numbers, each in [min, max] (schema type "array", with
// "items": {"type": "integer", "min", "max"} and "max_items").
Field integer_list_field(std::string name, std::string unit, std::string description, json default_value,
                         long long min, long long max, std::size_t max_items);
// A list of numbers (schema type "array", "items": {"type": "number", "min", "max"}, "min_items", "max_items"), each within [min, max].
Field number_list_field(std::string name, std::string unit, std::string description, json default_value,
                        double min, double max, std::size_t min_items, std::size_t max_items);
// A list of min_items to max_items names (schema type "array", "items": {"type": "string",
// "options"}), each one of `options` unless it is empty; the validated value is a JSON array of
// the names, trimmed, in the order given.
Field string_list_field(std::string name, std::string description, json default_value,
                        std::vector<std::string> options, std::size_t min_items, std::size_t max_items);
Field number_map_field(std::string name, std::string description, json default_value);  // Type::NumberMap
Field hardware_field(bool required_with_default);  // "hardware": an id of the table
Field dtype_field(const std::string& default_dtype);
Field seed_field(long long default_seed = 1);  // seeded simulations (foundations/deterministic.hpp)

// Peak FLOP/s and bandwidth from `hardware` (+ `dtype`), overridden by explicit
// `peak_flops` and `bandwidth_Bps` when given (API.md convention).
struct Machine {
  double peak_flops;
  double bandwidth_Bps;
};
Machine machine_from(const Inputs& in, const std::string& dtype);
// Peak FLOP/s for `dtype` alone: `peak_flops` if given, else the table's dense rate of
// `hardware`; without either, an InputError naming `instead`, the inputs that replace hardware.
double peak_from(const Inputs& in, const std::string& dtype, const std::string& instead = "'peak_flops'");
std::vector<Field> machine_override_fields();
std::vector<Field> with_machine(std::vector<Field> fields);  // fields + machine_override_fields()

// The value of a model field that follows others (kv_heads follows heads; head_dim follows
// hidden and heads; ffn_hidden follows hidden and the MLP's gating): the caller's value, else
// the calculator's default while each of `follows` keeps its default value (absent, or given
// equal to it); nullopt when one of them is changed and the field must come from them (by
// their rule, or by asking the caller for it), so that a model given by its fields does not
// keep the default model's. model_config_from (model_inputs.hpp) reads the shared transformer
// fields this way.
std::optional<double> following_field(const Inputs& in, const std::string& name,
                                      std::initializer_list<const char*> follows);

// Validates `input` against `fields`; throws InputError naming the field.
Inputs validate(const std::vector<Field>& fields, const json& input);

}  // namespace mlsys::api
