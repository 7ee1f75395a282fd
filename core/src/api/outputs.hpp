// Output declarations. A result struct is described once, field by field (JSON name, member,
// unit, description); its JSON form and the `outputs` of the calculator's schema both come
// from that description, so a calculator cannot return a field its schema does not declare.
//
//   MLSYS_DESCRIBE(RooflineResult,
//                  MLSYS_OUT(intensity, "FLOP/B", "FLOPs per byte moved"),
//                  MLSYS_OUT(bound, "", "compute or memory"));
//
// Members may be numbers, strings, booleans, other described structs, std::vector of any of
// these, std::map<std::string, ...> (an object keyed by name) and std::optional (left out of
// the JSON when empty; MLSYS_OUT_NULLABLE prints an empty one, or a number that is not
// finite, as null instead). A char is a
// one-letter string. MLSYS_FLAT(member) puts a described member's fields at this level
// (a model's result plus what the calculator adds to it). C++ types set the JSON types: double is "number", integral types are
// "integer". Descriptions live beside the calculators (in api/), never in the models.
#pragma once
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlsys::api {

using json = nlohmann::json;

// Specialised by MLSYS_DESCRIBE with `static constexpr auto fields` (a tuple of OutField).
template <class T>
struct Described;

template <class S, class M>
struct OutField {
  const char* name;
  M S::*member;
  const char* unit;
  const char* description;
  bool nullable = false;  // an empty std::optional or a non-finite number prints as null
};

// A described member whose fields are put at the level of the struct that holds it.
template <class S, class M>
struct FlatField {
  M S::*member;
};

template <class S, class M>
constexpr FlatField<S, M> flat_field(M S::*member) {
  return {member};
}

template <class S, class M>
constexpr OutField<S, M> out_field(const char* name, M S::*member, const char* unit, const char* description,
                                   bool nullable = false) {
  return {name, member, unit, description, nullable};
}

template <class T, class = void>
struct is_described : std::false_type {};
template <class T>
struct is_described<T, std::void_t<decltype(Described<T>::fields)>> : std::true_type {};

template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
struct optional_value {
  using type = T;
};
template <class T>
struct optional_value<std::optional<T>> {
  using type = T;
};
template <class T>
using optional_value_t = typename optional_value<T>::type;

template <class T>
struct is_map : std::false_type {};
template <class T>
struct is_map<std::map<std::string, T>> : std::true_type {};

template <class T>
json to_json(const T& value);

template <class T>
json to_json_value(const T& v) {
  if constexpr (is_described<T>::value) {
    return to_json(v);
  } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
    // vector<bool> hands out proxy references (of another type in each standard library).
    json a = json::array();
    for (const bool x : v) a.push_back(x);
    return a;
  } else if constexpr (is_vector<T>::value) {
    json a = json::array();
    for (const auto& x : v) a.push_back(to_json_value(x));
    return a;
  } else if constexpr (is_map<T>::value) {
    json o = json::object();
    for (const auto& [k, x] : v) o[k] = to_json_value(x);
    return o;
  } else if constexpr (std::is_same_v<T, char>) {
    return std::string(1, v);
  } else {
    static_assert(std::is_arithmetic_v<T> || std::is_same_v<T, std::string>,
                  "output members are numbers, strings, booleans, described structs or containers of them");
    return json(v);
  }
}

// JSON has no infinity or NaN: a nullable number that is not finite prints as null.
template <class T>
json or_null(const T& v) {
  if constexpr (is_optional<T>::value) return v ? or_null(*v) : json();
  else if constexpr (std::is_floating_point_v<T>) return std::isfinite(v) ? json(v) : json();
  else return to_json_value(v);
}

template <class S, class M>
void put(json& j, const S& value, const OutField<S, M>& field) {
  const M& m = value.*(field.member);
  if (field.nullable) {
    j[field.name] = or_null(m);
  } else if constexpr (is_optional<M>::value) {
    if (m) j[field.name] = to_json_value(*m);
  } else {
    j[field.name] = to_json_value(m);
  }
}

template <class S, class M>
void put(json& j, const S& value, const FlatField<S, M>& field) {
  const M& m = value.*(field.member);
  if constexpr (is_optional<M>::value) {
    if (m) j.update(to_json(*m));
  } else {
    j.update(to_json(m));
  }
}

// The JSON object of a described struct: one key per declared field (an empty optional is
// left out).
template <class T>
json to_json(const T& value) {
  json j = json::object();
  std::apply([&](const auto&... f) { (put(j, value, f), ...); }, Described<T>::fields);
  return j;
}

template <class T>
json output_fields();

// Type of one output value: {"type"} plus "fields" (objects), "items" (arrays) or "values"
// (objects keyed by name).
template <class T>
json type_schema() {
  if constexpr (is_optional<T>::value) {
    json t = type_schema<typename T::value_type>();
    t["optional"] = true;
    return t;
  } else if constexpr (is_described<T>::value) {
    return {{"type", "object"}, {"fields", output_fields<T>()}};
  } else if constexpr (is_vector<T>::value) {
    return {{"type", "array"}, {"items", type_schema<typename T::value_type>()}};
  } else if constexpr (is_map<T>::value) {
    return {{"type", "object"}, {"values", type_schema<typename T::mapped_type>()}};
  } else if constexpr (std::is_same_v<T, bool>) {
    return {{"type", "boolean"}};
  } else if constexpr (std::is_same_v<T, char>) {
    return {{"type", "string"}};
  } else if constexpr (std::is_integral_v<T>) {
    return {{"type", "integer"}};
  } else if constexpr (std::is_floating_point_v<T>) {
    return {{"type", "number"}};
  } else {
    static_assert(std::is_same_v<T, std::string>, "unsupported output member type");
    return {{"type", "string"}};
  }
}

template <class S, class M>
void describe(json& list, const OutField<S, M>& field) {
  json entry = {{"name", field.name}, {"unit", field.unit}, {"description", field.description}};
  entry.update(type_schema<M>());
  if (field.nullable) {
    entry.erase("optional");
    entry["nullable"] = true;  // always present, null when it does not apply
  }
  list.push_back(std::move(entry));
}

template <class S, class M>
void describe(json& list, const FlatField<S, M>& field) {
  (void)field;
  for (json entry : output_fields<optional_value_t<M>>()) {
    if (is_optional<M>::value) entry["optional"] = true;
    list.push_back(std::move(entry));
  }
}

// [{name, type, unit, description, ...}] of a described struct, in declaration order.
template <class T>
json output_fields() {
  json list = json::array();
  std::apply([&](const auto&... f) { (describe(list, f), ...); }, Described<T>::fields);
  return list;
}

}  // namespace mlsys::api

// Inside namespace mlsys::api.
#define MLSYS_DESCRIBE(T, ...)                                   \
  template <>                                                    \
  struct Described<T> {                                          \
    using Self = T;                                              \
    static constexpr auto fields = std::make_tuple(__VA_ARGS__); \
  }
#define MLSYS_OUT(member, unit, description) out_field(#member, &Self::member, unit, description)
#define MLSYS_OUT_AS(name, member, unit, description) out_field(name, &Self::member, unit, description)
#define MLSYS_OUT_NULLABLE(member, unit, description) out_field(#member, &Self::member, unit, description, true)
#define MLSYS_OUT_NULLABLE_AS(name, member, unit, description) out_field(name, &Self::member, unit, description, true)
#define MLSYS_FLAT(member) flat_field(&Self::member)
