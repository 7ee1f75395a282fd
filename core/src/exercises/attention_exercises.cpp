// Exercises of the attention lesson(s).
#include "generators.hpp"

namespace mlsys::exercises {

void add_attention_exercises(std::vector<Generator>& out) { (void)out; }

}  // namespace mlsys::exercises
