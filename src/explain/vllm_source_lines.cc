#include "explain/vllm_source_lines.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <vector>

#include "engine/vllm/version.h"

namespace gpumem {
namespace {

// tests/data/vllm-source-lines/seen.tsv, one row per (statement, tag, release), releases as
// their logs print them less release-candidate and post suffixes; development builds and a
// vendor build whose numbering is another release's are left out (the test checks the two
// agree).
constexpr SourceLineSeen kSeen[] = {
    {"Available KV cache memory:", "gpu_worker.py:227", "0.9.1"},
    {"Available KV cache memory:", "gpu_worker.py:232", "0.9.2"},
    {"Available KV cache memory:", "gpu_worker.py:255", "0.10.0"},
    {"Available KV cache memory:", "gpu_worker.py:276", "0.10.1.1"},
    {"Available KV cache memory:", "gpu_worker.py:298", "0.10.2"},
    {"Available KV cache memory:", "gpu_worker.py:298", "0.11.0"},
    {"Available KV cache memory:", "gpu_worker.py:375", "0.13.0"},
    {"GPU KV cache size:", "kv_cache_utils.py:634", "0.8.4"},
    {"GPU KV cache size:", "kv_cache_utils.py:634", "0.8.5"},
    {"GPU KV cache size:", "kv_cache_utils.py:637", "0.9.0.1"},
    {"GPU KV cache size:", "kv_cache_utils.py:715", "0.9.1"},
    {"GPU KV cache size:", "kv_cache_utils.py:716", "0.9.2"},
    {"GPU KV cache size:", "kv_cache_utils.py:833", "0.10.0"},
    {"GPU KV cache size:", "kv_cache_utils.py:849", "0.10.1.1"},
    {"GPU KV cache size:", "kv_cache_utils.py:1028", "0.10.2"},
    {"GPU KV cache size:", "kv_cache_utils.py:1087", "0.11.0"},
    {"GPU KV cache size:", "kv_cache_utils.py:1291", "0.13.0"},
    {"Maximum concurrency for", "kv_cache_utils.py:637", "0.8.4"},
    {"Maximum concurrency for", "kv_cache_utils.py:637", "0.8.5"},
    {"Maximum concurrency for", "kv_cache_utils.py:640", "0.9.0.1"},
    {"Maximum concurrency for", "kv_cache_utils.py:719", "0.9.1"},
    {"Maximum concurrency for", "kv_cache_utils.py:720", "0.9.2"},
    {"Maximum concurrency for", "kv_cache_utils.py:837", "0.10.0"},
    {"Maximum concurrency for", "kv_cache_utils.py:853", "0.10.1.1"},
    {"Maximum concurrency for", "kv_cache_utils.py:1032", "0.10.2"},
    {"Maximum concurrency for", "kv_cache_utils.py:1091", "0.11.0"},
    {"Maximum concurrency for", "kv_cache_utils.py:1296", "0.13.0"},
    {"Model loading took", "gpu_model_runner.py:1291", "0.8.4"},
    {"Model loading took", "gpu_model_runner.py:1347", "0.8.5"},
    {"Model loading took", "gpu_model_runner.py:1549", "0.9.0.1"},
    {"Model loading took", "gpu_model_runner.py:1624", "0.9.1"},
    {"Model loading took", "gpu_model_runner.py:1801", "0.9.2"},
    {"Model loading took", "gpu_model_runner.py:1892", "0.10.0"},
    {"Model loading took", "gpu_model_runner.py:2007", "0.10.1.1"},
    {"Model loading took", "gpu_model_runner.py:2392", "0.10.2"},
    {"Model loading took", "gpu_model_runner.py:2653", "0.11.0"},
    {"Model loading took", "gpu_model_runner.py:3659", "0.13.0"},
    {"Graph capturing finished in", "gpu_model_runner.py:1626", "0.8.4"},
    {"Graph capturing finished in", "gpu_model_runner.py:1686", "0.8.5"},
    {"Graph capturing finished in", "gpu_model_runner.py:1933", "0.9.0.1"},
    {"Graph capturing finished in", "gpu_model_runner.py:2048", "0.9.1"},
    {"Graph capturing finished in", "gpu_model_runner.py:2326", "0.9.2"},
    {"Graph capturing finished in", "gpu_model_runner.py:2708", "0.10.1.1"},
    {"Graph capturing finished in", "gpu_model_runner.py:3118", "0.10.2"},
    {"Graph capturing finished in", "gpu_model_runner.py:3480", "0.11.0"},
    {"init engine (profile, create kv cache, warmup model) took", "core.py:163", "0.8.4"},
    {"init engine (profile, create kv cache, warmup model) took", "core.py:159", "0.8.5"},
    {"init engine (profile, create kv cache, warmup model) took", "core.py:167", "0.9.0.1"},
    {"init engine (profile, create kv cache, warmup model) took", "core.py:171", "0.9.1"},
    {"init engine (profile, create kv cache, warmup model) took", "core.py:172", "0.9.2"},
    {"init engine (profile, create kv cache, warmup model) took", "core.py:193", "0.10.0"},
    {"init engine (profile, create kv cache, warmup model) took", "core.py:214", "0.10.1.1"},
    {"init engine (profile, create kv cache, warmup model) took", "core.py:210", "0.11.0"},
    {"init engine (profile, create kv cache, warmup model) took", "core.py:259", "0.13.0"},
    {"Loading weights took", "loader.py:458", "0.8.4"},
    {"Loading weights took", "loader.py:458", "0.8.5"},
    {"Loading weights took", "default_loader.py:272", "0.9.1"},
    {"Loading weights took", "default_loader.py:272", "0.9.2"},
    {"Loading weights took", "default_loader.py:262", "0.10.0"},
    {"Loading weights took", "default_loader.py:262", "0.10.1.1"},
    {"Loading weights took", "default_loader.py:268", "0.10.2"},
    {"Loading weights took", "default_loader.py:267", "0.11.0"},
    {"Loading weights took", "default_loader.py:308", "0.13.0"},
    {"Resolved architecture:", "__init__.py:711", "0.10.1.1"},
    {"Resolved architecture:", "__init__.py:742", "0.10.2"},
    {"Resolved architecture:", "model.py:547", "0.11.0"},
    {"Resolved architecture:", "model.py:631", "0.11.1"},
    {"Resolved architecture:", "model.py:514", "0.13.0"},
    {"Using max model len", "config.py:1472", "0.9.2"},
    {"Using max model len", "config.py:1604", "0.10.0"},
    {"Using max model len", "__init__.py:1750", "0.10.1.1"},
    {"Using max model len", "__init__.py:1815", "0.10.2"},
    {"Using max model len", "model.py:1510", "0.11.0"},
    {"Using max model len", "model.py:1745", "0.11.1"},
    {"Using max model len", "model.py:1661", "0.13.0"},
    {"Chunked prefill is enabled with max_num_batched_tokens", "config.py:1901", "0.8.4"},
    {"Chunked prefill is enabled with max_num_batched_tokens", "config.py:2003", "0.8.5"},
    {"Chunked prefill is enabled with max_num_batched_tokens", "config.py:2118", "0.9.0.1"},
    {"Chunked prefill is enabled with max_num_batched_tokens", "config.py:2195", "0.9.1"},
    {"Chunked prefill is enabled with max_num_batched_tokens", "config.py:2285", "0.9.2"},
    {"Chunked prefill is enabled with max_num_batched_tokens", "config.py:2434", "0.10.0"},
    {"Chunked prefill is enabled with max_num_batched_tokens", "scheduler.py:222", "0.10.1.1"},
    {"Chunked prefill is enabled with max_num_batched_tokens", "scheduler.py:222", "0.10.2"},
    {"Chunked prefill is enabled with max_num_batched_tokens", "scheduler.py:205", "0.11.0"},
    {"Chunked prefill is enabled with max_num_batched_tokens", "scheduler.py:228", "0.12.0"},
    {"Chunked prefill is enabled with max_num_batched_tokens", "scheduler.py:230", "0.13.0"},
    {"non-default args:", "cli_args.py:300", "0.9.0"},
    {"non-default args:", "cli_args.py:300", "0.9.0.1"},
    {"non-default args:", "cli_args.py:309", "0.9.1"},
    {"non-default args:", "cli_args.py:325", "0.9.2"},
    {"non-default args:", "cli_args.py:261", "0.10.0"},
    {"non-default args:", "utils.py:326", "0.10.1.1"},
    {"non-default args:", "utils.py:328", "0.10.2"},
    {"non-default args:", "utils.py:233", "0.11.0"},
    {"non-default args:", "utils.py:253", "0.11.1"},
    {"non-default args:", "utils.py:253", "0.13.0"},
};

using Key = std::tuple<int, int, int, int>;

Key key_of(std::string_view version) {
  const std::optional<vllm::Version> v = vllm::parse_version(std::string(version));
  return v ? Key{v->major, v->minor, v->patch, v->hotfix} : Key{};
}

// The release after `version` in the numbering: "0.10.1.1" -> "0.10.2".
std::string next_patch(std::string_view version) {
  const Key k = key_of(version);
  return std::to_string(std::get<0>(k)) + "." + std::to_string(std::get<1>(k)) + "." +
         std::to_string(std::get<2>(k) + 1);
}

}  // namespace

std::span<const SourceLineSeen> vllm_source_lines_seen() { return kSeen; }

std::optional<SourceLineBounds> vllm_source_line_bounds(std::string_view tag,
                                                        std::string_view message) {
  std::vector<const SourceLineSeen*> same;   // this statement at this tag
  std::vector<const SourceLineSeen*> other;  // this statement elsewhere
  for (const SourceLineSeen& s : kSeen) {
    if (!message.starts_with(s.statement)) continue;
    (s.tag == tag ? same : other).push_back(&s);
  }
  if (same.empty()) return std::nullopt;
  const auto by_release = [](const SourceLineSeen* a, const SourceLineSeen* b) {
    return key_of(a->version) < key_of(b->version);
  };
  std::sort(same.begin(), same.end(), by_release);
  const Key lowest = key_of(same.front()->version);
  const Key highest = key_of(same.back()->version);
  SourceLineBounds b;
  const SourceLineSeen* below = nullptr;
  const SourceLineSeen* above = nullptr;
  for (const SourceLineSeen* o : other) {
    const Key k = key_of(o->version);
    if (k < lowest && (below == nullptr || k > key_of(below->version))) below = o;
    if (k > highest && (above == nullptr || k < key_of(above->version))) above = o;
  }
  if (below != nullptr) b.from = next_patch(below->version);
  if (above != nullptr) b.before = std::string(above->version);
  if (b.from.empty() && b.before.empty()) return std::nullopt;
  b.newest_seen = std::string(same.back()->version);
  std::string releases;
  for (size_t i = 0; i < same.size(); ++i) {
    if (i > 0 && same[i]->version == same[i - 1]->version) continue;
    releases += (releases.empty() ? "" : ", ") + std::string(same[i]->version);
  }
  std::string statement(same.front()->statement);
  if (statement.ends_with(':')) statement.pop_back();
  b.why = "'" + statement + "' at " + std::string(tag) + ", where vLLM " + releases + " logs it";
  return b;
}

}  // namespace gpumem
