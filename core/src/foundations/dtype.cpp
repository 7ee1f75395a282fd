// Storage sizes follow the formats' definitions: IEEE 754 binary64/32/16, bfloat16, TF32
// (stored in 32-bit registers), OCP FP8 (E4M3, E5M2), and packed integers.
#include "mlsys/foundations/dtype.hpp"

#include <stdexcept>

namespace mlsys {

namespace {
struct DtypeInfo {
  const char* name;
  double bytes;
  const char* peak_key;
};
constexpr DtypeInfo kDtypes[] = {
    {"fp64", 8, "fp64"},     {"fp32", 4, "fp32"}, {"tf32", 4, "tf32"},
    {"bf16", 2, "bf16"},     {"fp16", 2, "fp16"}, {"fp8-e4m3", 1, "fp8"},
    {"fp8-e5m2", 1, "fp8"}, {"int8", 1, "int8"}, {"int4", 0.5, "int4"},
};

const DtypeInfo& find(const std::string& dtype) {
  for (const auto& d : kDtypes)
    if (dtype == d.name) return d;
  throw std::invalid_argument("unknown dtype '" + dtype + "'");
}
}  // namespace

const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& d : kDtypes) v.emplace_back(d.name);
    return v;
  }();
  return names;
}

double dtype_bytes(const std::string& dtype) { return find(dtype).bytes; }

std::string dtype_peak_key(const std::string& dtype) { return find(dtype).peak_key; }

}  // namespace mlsys
