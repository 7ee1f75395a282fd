// Deterministic exp, log and normal draws (see foundations/deterministic.hpp).
#include "mlsys/foundations/deterministic.hpp"

#include <cmath>

namespace mlsys {

namespace {
// Marsaglia's polar method on uniforms from `draw` (a SeededStream member).
template <class Draw>
NormalPair polar(Draw draw) {
  double u, v, s;
  do {
    u = 2 * draw() - 1;
    v = 2 * draw() - 1;
    s = u * u + v * v;
  } while (s >= 1 || s == 0);
  const double f = std::sqrt(-2 * log_det(s) / s);
  return {u * f, v * f};
}
}  // namespace

NormalPair SeededStream::normal_pair() {
  return polar([this] { return uniform(); });
}

NormalPair SeededStream::normal_pair_open_closed() {
  return polar([this] { return uniform_open_closed(); });
}

double SeededStream::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  const NormalPair n = normal_pair();
  spare_ = n.b;
  has_spare_ = true;
  return n.a;
}

}  // namespace mlsys
