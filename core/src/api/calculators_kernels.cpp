// Calculators of the kernels lesson(s).
#include "registry.hpp"

namespace mlsys::api {

void add_kernel_calculators(std::vector<Calculator>& out) { (void)out; }

}  // namespace mlsys::api
