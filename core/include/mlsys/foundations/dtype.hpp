// Numeric data types named by the API (fp64 ... int4) and their storage size in bytes.
#pragma once
#include <string>
#include <vector>

namespace mlsys {

// Every dtype the API accepts, in the order the schemas list them.
const std::vector<std::string>& dtype_names();

// Storage bytes per element (int4 is 0.5). Throws std::invalid_argument for an unknown name.
double dtype_bytes(const std::string& dtype);

// Key of the accelerator's peak_flops table that runs this dtype (fp8-e4m3 -> "fp8").
std::string dtype_peak_key(const std::string& dtype);

}  // namespace mlsys
