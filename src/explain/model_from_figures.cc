#include "explain/model_from_figures.h"

#include <cmath>
#include <cstdint>

#include "catalog/parameter_count.h"
#include "explain/partial_arithmetic.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {
namespace {

using partial::half_unit;
using partial::kGiB;

// The figure of `q` that the first GPU printed (rank 0 of the first stage), else the first.
const Observation* first_gpu(const LogRun& run, Quantity q) {
  const std::vector<const Observation*> all = run.all(q);
  for (const Observation* o : all) {
    if (o->rank.value_or(0) == 0 && o->pp.value_or(0) == 0 && o->dp.value_or(0) == 0) return o;
  }
  return all.empty() ? nullptr : all.front();
}

// The figure of `q` printed on `line`.
const Observation* on_line(const LogRun& run, Quantity q, int line) {
  for (const Observation* o : run.all(q)) {
    if (o->line == line) return o;
  }
  return nullptr;
}

}  // namespace

std::optional<ModelEvidence> model_evidence(const LogRun& run, LogEngine engine) {
  const bool sglang = engine == LogEngine::kSglang;
  const Observation* w = first_gpu(run, sglang ? Quantity::kWeightUsage : Quantity::kModelLoading);
  if (w == nullptr || w->value <= 0) return std::nullopt;
  ModelEvidence e;
  e.weights = *w;
  e.architecture = run.architecture;
  if (sglang) {
    // sglang v0.5.9 mem_cache/memory_pool.py MHATokenToKVPool._create_buffers prints the K and
    // V buffers (MLA: one latent buffer) beside the pool's token count on one line.
    const Observation* tokens = first_gpu(run, Quantity::kKvTokens);
    const Observation* k = tokens ? on_line(run, Quantity::kKSize, tokens->line) : nullptr;
    const Observation* v = tokens ? on_line(run, Quantity::kVSize, tokens->line) : nullptr;
    const Observation* kv = tokens ? on_line(run, Quantity::kKvSize, tokens->line) : nullptr;
    if (tokens != nullptr && tokens->value > 0) {
      if (k != nullptr && v != nullptr) {
        e.kv_bytes_per_token = (k->value + v->value) * kGiB / tokens->value;
        e.kv_bytes_rounding =
            (half_unit(k->decimals) + half_unit(v->decimals)) * kGiB / tokens->value;
      } else if (kv != nullptr) {
        e.kv_bytes_per_token = kv->value * kGiB / tokens->value;
        e.kv_bytes_rounding = half_unit(kv->decimals) * kGiB / tokens->value;
      }
    }
  } else {
    // vllm v0.10.2 v1/core/kv_cache_utils.py: the tokens are the KV memory in whole blocks.
    const Observation* memory = first_gpu(run, Quantity::kAvailableKvMemory);
    const Observation* tokens = first_gpu(run, Quantity::kKvTokens);
    if (memory != nullptr && tokens != nullptr && memory->value > 0 && tokens->value > 0) {
      e.kv_bytes_per_token = memory->value * kGiB / tokens->value;
      e.kv_bytes_rounding = half_unit(memory->decimals) * kGiB / tokens->value;
    }
  }
  return e;
}

std::vector<std::string> size_candidates(const ModelEvidence& e, int weight_shards,
                                         const ModelCatalog& models) {
  std::vector<std::string> references = models.slugs();
  for (const ModelCatalog::BundledConfig& b : models.bundled_configs()) {
    // A bundled config that a catalog entry curates is the entry's.
    if (!models.find_by_repo_id(b.repo_id)) references.push_back(b.repo_id);
  }
  const double logged_bytes = e.weights.value * kGiB * std::max(weight_shards, 1);
  std::vector<std::string> out;
  for (const std::string& ref : references) {
    Diagnostics ignored;
    const Result<ResolvedModel> m = models.resolve(ref, "", ignored);
    if (!m.ok()) continue;
    const Architecture& a = m.value().architecture;
    if (!e.architecture.empty() && a.hf_architecture != e.architecture) continue;
    // From 4-bit to 16-bit weights: the parameter count bounds the checkpoint before its
    // tensors are listed (a large MoE lists hundreds of thousands).
    const double params = static_cast<double>(parameter_count(a));
    if (logged_bytes < 0.4 * params || logged_bytes > 2.5 * params) continue;
    const Result<std::vector<CheckpointTensor>> tensors = checkpoint_tensors(a);
    if (!tensors.ok()) continue;
    double checkpoint = 0;
    for (const CheckpointTensor& t : tensors.value()) {
      checkpoint += static_cast<double>(t.bytes.value());
    }
    if (std::fabs(checkpoint - logged_bytes) <= 0.25 * logged_bytes) out.push_back(ref);
  }
  return out;
}

bool figures_agree(const ModelEvidence& e, double predicted_weights_gib,
                   std::optional<double> predicted_kv_bytes_per_token) {
  const double weights_slack =
      0.04 * e.weights.value + half_unit(e.weights.decimals) + partial::kShownHalf;
  if (std::fabs(predicted_weights_gib - e.weights.value) > weights_slack) return false;
  if (!e.kv_bytes_per_token || !predicted_kv_bytes_per_token) return !e.architecture.empty();
  return std::fabs(*predicted_kv_bytes_per_token - *e.kv_bytes_per_token) <=
         0.015 * *e.kv_bytes_per_token + e.kv_bytes_rounding;
}

}  // namespace gpumem
