// Exercises of the kernels lesson(s).
#include "generators.hpp"

namespace mlsys::exercises {

void add_kernel_exercises(std::vector<Generator>& out) { (void)out; }

}  // namespace mlsys::exercises
