// The command-line calculator: `mlsys calc ...` and `mlsys exercise ...` (shared/API.md).
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"

namespace {

constexpr const char* kUsage =
    "usage:\n"
    "  mlsys calc --list                 names of the calculators\n"
    "  mlsys calc NAME --schema          input fields of one calculator\n"
    "  mlsys calc NAME '<json>'          run it on a JSON object\n"
    "  mlsys calc NAME -                 ... read from standard input\n"
    "  mlsys calc --batch -              one request a line on standard input, {\"name\", \"input\"}\n"
    "                                    (or \"text\": the input as JSON text); one result a line\n"
    "  mlsys exercise --list             exercise generator ids\n"
    "  mlsys exercise ID SEED            draw an exercise\n"
    "  mlsys exercise ID SEED --check ANSWER\n";

int fail(const std::string& field, const std::string& message) {
  // Messages may quote argv (a name or id), which need not be valid UTF-8.
  std::cout << mlsys::error_json(field, message).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return 2;
}

int usage() {
  std::cerr << kUsage;
  return 2;
}

// One request per line: {"name": ..., "input": {...}} or {"name": ..., "text": "..."}; one
// result per line, the same text `mlsys calc NAME -` prints. A line that is not such a
// request gets an error line; the exit code is 0 unless standard input cannot be read.
int run_batch() {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::string name, text;
    try {
      const auto request = nlohmann::json::parse(line);
      if (!request.is_object() || !request.contains("name") || !request["name"].is_string() ||
          (request.contains("input") == request.contains("text")) ||
          (request.contains("text") && !request["text"].is_string()))
        throw std::invalid_argument("shape");
      name = request["name"].get<std::string>();
      text = request.contains("text") ? request["text"].get<std::string>() : request["input"].dump();
    } catch (const std::exception&) {
      std::cout << mlsys::error_json("", "A batch line must be {\"name\": calculator, \"input\": object} or "
                                         "{\"name\", \"text\"}.").dump()
                << "\n";
      continue;
    }
    std::cout << mlsys::calc_text(name, text).text << "\n";
  }
  std::cout.flush();
  return std::cin.bad() ? 1 : 0;
}

int run_calc(const std::vector<std::string>& args) {
  if (args.size() == 2 && args[0] == "--batch" && args[1] == "-") return run_batch();
  if (args.size() == 1 && args[0] == "--list") {
    std::cout << nlohmann::json(mlsys::calc_names()).dump() << "\n";
    return 0;
  }
  if (args.size() != 2) return usage();
  const std::string& name = args[0];
  try {
    if (args[1] == "--schema") {
      std::cout << mlsys::calc_schema(name).dump(2) << "\n";
      return 0;
    }
  } catch (const mlsys::InputError& e) {
    return fail(e.field, e.what());
  }
  std::string text = args[1];
  if (text == "-") text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  const auto result = mlsys::calc_text(name, text);
  std::cout << result.text << "\n";
  return result.ok ? 0 : 2;
}

int run_exercise(const std::vector<std::string>& args) {
  if (args.size() == 1 && args[0] == "--list") {
    std::cout << nlohmann::json(mlsys::exercise_ids()).dump() << "\n";
    return 0;
  }
  if (args.size() != 2 && !(args.size() == 4 && args[2] == "--check")) return usage();
  char* end = nullptr;
  const unsigned long long seed = std::strtoull(args[1].c_str(), &end, 10);
  if (args[1].empty() || *end != '\0' || args[1][0] == '-' || seed > 0xFFFFFFFFULL)
    return fail("seed", "The seed must be a whole number from 0 to 4294967295.");
  try {
    if (args.size() == 4) {
      std::cout << mlsys::check_exercise(args[0], static_cast<std::uint32_t>(seed), args[3]).dump() << "\n";
    } else {
      std::cout << mlsys::exercise_json(mlsys::make_exercise(args[0], static_cast<std::uint32_t>(seed))).dump(2) << "\n";
    }
  } catch (const mlsys::InputError& e) {
    return fail(e.field, e.what());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage();
  const std::string command = args[0];
  args.erase(args.begin());
  if (command == "calc") return run_calc(args);
  if (command == "exercise") return run_exercise(args);
  return usage();
}
