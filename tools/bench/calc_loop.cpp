// Times a loop of calculator calls through the text entry point (the same path the WASM
// binding takes). Usage: mlsys_bench CASES.json ITERATIONS -> {"calls", "seconds", "per_call_s"}.
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include "mlsys/api/calc.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: mlsys_bench CASES.json ITERATIONS\n";
    return 2;
  }
  std::ifstream file(argv[1]);
  std::stringstream text;
  text << file.rdbuf();
  const auto cases = nlohmann::json::parse(text.str());
  const long iterations = std::stol(argv[2]);
  std::vector<std::pair<std::string, std::string>> calls;
  for (const auto& c : cases) calls.emplace_back(c["calc"].get<std::string>(), c["input"].dump());
  std::size_t sink = 0;
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < iterations; ++i)
    for (const auto& [name, input] : calls) sink += mlsys::calc_text(name, input).text.size();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double n = static_cast<double>(iterations) * static_cast<double>(calls.size());
  std::cout << nlohmann::json{{"calls", n}, {"seconds", seconds}, {"per_call_s", seconds / n}, {"sink", sink}}.dump()
            << "\n";
  return 0;
}
