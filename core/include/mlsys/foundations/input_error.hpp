// The error every bad input becomes: models throw it with their own message, naming the
// input field at fault; the calculator API turns it into {"error": {"field", "message"}}.
#pragma once
#include <stdexcept>
#include <string>

namespace mlsys {

// `field` names the offending input field ("" when it is the whole input).
struct InputError : std::runtime_error {
  std::string field;
  InputError(std::string field_name, const std::string& message)
      : std::runtime_error(message), field(std::move(field_name)) {}
};

}  // namespace mlsys
