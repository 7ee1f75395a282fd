// Calculators of the gpu lesson(s).
#include "registry.hpp"

namespace mlsys::api {

void add_gpu_calculators(std::vector<Calculator>& out) { (void)out; }

}  // namespace mlsys::api
