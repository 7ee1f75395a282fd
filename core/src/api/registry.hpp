// Calculator registry internals: schemas and the one place where inputs are validated.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mlsys/api/calc.hpp"

namespace mlsys::api {

enum class Type { Number, Integer, String, Boolean };

struct Field {
  std::string name;
  Type type = Type::Number;
  std::string unit;         // SI unit or "" for dimensionless / strings
  std::string description;
  json default_value;       // null: no default
  bool required = false;    // required fields have no default
  std::optional<double> min, max;
  bool min_exclusive = false;  // value must be > min (not >=)
  std::vector<std::string> options;  // allowed strings (empty: any)
};

// Validated input: every schema field either present (checked) or its default.
class Inputs {
 public:
  explicit Inputs(json values) : values_(std::move(values)) {}
  bool has(const std::string& name) const { return values_.contains(name) && !values_[name].is_null(); }
  double num(const std::string& name) const { return values_.at(name).get<double>(); }
  long long integer(const std::string& name) const { return values_.at(name).get<long long>(); }
  std::string str(const std::string& name) const { return values_.at(name).get<std::string>(); }
  bool boolean(const std::string& name) const { return values_.at(name).get<bool>(); }
  const json& raw() const { return values_; }

 private:
  json values_;
};

struct Calculator {
  std::string name;
  std::string description;
  std::vector<Field> fields;
  std::function<json(const Inputs&)> run;
};

// Registration: each calculators_*.cpp file contributes through a function listed in
// calculator_groups.cpp, so the set is explicit (no static-initialisation tricks).
void add_calculator_groups(std::vector<Calculator>& out);
void add_hardware_calculators(std::vector<Calculator>& out);
void add_roofline_calculators(std::vector<Calculator>& out);
void add_transformer_calculators(std::vector<Calculator>& out);
void add_gpu_calculators(std::vector<Calculator>& out);        // calculators_gpu.cpp
void add_kernel_calculators(std::vector<Calculator>& out);     // calculators_kernels.cpp
void add_attention_calculators(std::vector<Calculator>& out);  // calculators_attention.cpp
void add_numerics_calculators(std::vector<Calculator>& out);   // calculators_numerics.cpp
void add_memory_calculators(std::vector<Calculator>& out);     // calculators_memory.cpp
void add_collective_calculators(std::vector<Calculator>& out);  // calculators_collectives.cpp
void add_data_parallel_calculators(std::vector<Calculator>& out);  // calculators_data_parallel.cpp
void add_model_parallel_calculators(std::vector<Calculator>& out);  // calculators_model_parallel.cpp
void add_sequence_calculators(std::vector<Calculator>& out);  // calculators_sequence.cpp
void add_quantization_calculators(std::vector<Calculator>& out);  // calculators_quantization.cpp
void add_serving_calculators(std::vector<Calculator>& out);  // calculators_serving.cpp
void add_profiling_calculators(std::vector<Calculator>& out);  // calculators_profiling.cpp
void add_overview_calculators(std::vector<Calculator>& out);  // calculators_overview.cpp

// Field builders shared by calculators.
Field number_field(std::string name, std::string unit, std::string description, json default_value,
                   std::optional<double> min, std::optional<double> max, bool min_exclusive = false);
Field integer_field(std::string name, std::string unit, std::string description, json default_value,
                    long long min, long long max);
Field string_field(std::string name, std::string description, json default_value,
                   std::vector<std::string> options);
Field boolean_field(std::string name, std::string description, bool default_value);
Field hardware_field(bool required_with_default);  // "hardware": an id of the table
Field dtype_field(const std::string& default_dtype);

// Peak FLOP/s and bandwidth from `hardware` (+ `dtype`), overridden by explicit
// `peak_flops` and `bandwidth_Bps` when given (API.md convention).
struct Machine {
  double peak_flops;
  double bandwidth_Bps;
};
Machine machine_from(const Inputs& in, const std::string& dtype);
std::vector<Field> machine_override_fields();

// Validates `input` against `fields`; throws InputError naming the field.
Inputs validate(const std::vector<Field>& fields, const json& input);

}  // namespace mlsys::api
