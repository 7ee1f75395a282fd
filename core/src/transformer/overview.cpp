// The overview page's sizes (transformer/overview.hpp).
#include "mlsys/transformer/overview.hpp"

namespace mlsys {

AttentionScores attention_scores(double seq, double heads, double batch, double bytes_per_element) {
  const double elements = seq * seq * heads * batch;
  return {elements, elements * bytes_per_element, 2 * elements * bytes_per_element, seq * heads * batch * 4};
}

GlobalBatch global_batch(double per_device_batch, double devices, double accumulation, double seq) {
  const double sequences = per_device_batch * devices * accumulation;
  return {sequences, sequences * seq};
}

}  // namespace mlsys
