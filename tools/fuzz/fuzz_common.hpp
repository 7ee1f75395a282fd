// Shared checks of the fuzz targets: the engine's output must be valid JSON, either a
// structured error or a result whose numbers are all finite. Any violation aborts, which
// libFuzzer reports as a crash with the input that caused it.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace mlsys_fuzz {

[[noreturn]] inline void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz check failed: %s\n%.2000s\n", what, detail.c_str());
  std::abort();
}

inline void require_finite(const nlohmann::json& j, const std::string& where) {
  if (j.is_number_float() && !std::isfinite(j.get<double>())) fail("non-finite number", where);
  if (j.is_structured())
    for (const auto& item : j) require_finite(item, where);
}

inline void require_error(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object() || j.size() != 1 || !j.contains("error")) fail("error is not {\"error\": {...}}", where);
  const auto& e = j["error"];
  if (!e.is_object() || e.size() != 2 || !e.contains("field") || !e.contains("message") ||
      !e["field"].is_string() || !e["message"].is_string() || e["message"].get<std::string>().empty())
    fail("error lacks a string field and a message", where);
}

// The text must parse: the CLI and the WASM binding hand it on as JSON.
inline nlohmann::json require_json(const std::string& text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    fail("output is not valid JSON", text);
  }
}

// LLVMFuzzerInitialize of both targets: with MLSYS_FUZZ_SEEDS=DIR, write the seeds there
// and exit instead of fuzzing.
template <class WriteSeeds>
int seeds_or_fuzz(WriteSeeds write_seeds) {
  if (const char* dir = std::getenv("MLSYS_FUZZ_SEEDS")) {
    write_seeds(dir);
    std::exit(0);
  }
  return 0;
}

// Writes one seed file (MLSYS_FUZZ_SEEDS mode of the targets).
inline void write_seed(const std::filesystem::path& dir, const std::string& name, const std::string& bytes) {
  std::ofstream(dir / name, std::ios::binary) << bytes;
}

}  // namespace mlsys_fuzz
