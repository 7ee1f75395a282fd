// The published-models table (see published_models.hpp); the rows are generated from
// content/data/models.json (published_models_data.cpp.in).
#include "mlsys/transformer/published_models.hpp"

namespace mlsys {

extern const char* const kModelsAbout;
std::vector<PublishedModel> compiled_published_models();

const std::vector<PublishedModel>& published_models() {
  static const std::vector<PublishedModel> rows = compiled_published_models();
  return rows;
}

const PublishedModel* find_published_model(const std::string& id) {
  for (const auto& m : published_models())
    if (m.id == id) return &m;
  return nullptr;
}

const char* published_models_about() { return kModelsAbout; }

PublishedCounts published_counts(const PublishedModel& m) {
  const double dense = model_counts(m.config).params;
  if (!m.moe()) return {dense, dense};
  const double mlp = mlp_params_per_layer(m.config), router = m.config.hidden * m.experts;
  return {dense + m.config.layers * ((m.experts - 1) * mlp + router),
          dense + m.config.layers * ((m.experts_per_token - 1) * mlp + router)};
}

}  // namespace mlsys
