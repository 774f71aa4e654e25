// `gpumem catalog [models [--cache] | gpus]`: the catalog entries and bundled configs (with
// --cache also the models of the local Hugging Face cache) with their key numbers.
#include <fmt/format.h>

#include "catalog/hf_cache.h"
#include "catalog/parameter_count.h"
#include "cli/command.h"
#include "cli/workspace.h"
#include "weights/parallel_layout.h"
#include "weights/rank_weights.h"

namespace gpumem::cli {
namespace {

void print_gpus(const Workspace& ws) {
  fmt::print("{:<24} {:<48} {:>14} {:>14} {:>5} {:>5} {}\n", "gpu", "nvidia-smi name", "smi total",
             "cuda total", "cc", "SMs", "link");
  for (const GpuSpec& g : ws.gpus.gpus()) {
    // Two decimals: a measured CUDA total need not be a whole number of MiB.
    fmt::print("{:<24} {:<48} {:>14} {:>14} {:>5} {:>5} {}\n", g.name, g.nvidia_smi_name,
               format_mib(g.memory_total), g.cuda_total ? format_mib(*g.cuda_total) : "unknown",
               fmt::format("{}.{}", g.compute_capability_major, g.compute_capability_minor),
               g.sm_count, interconnect_name(g.interconnect));
  }
}

std::string attention_text(const Architecture& a) {
  if (a.attention == AttentionKind::kMla) return "MLA";
  if (a.csa.present()) return "CSA";  // DeepSeek-V4's compressed sparse attention
  if (a.attention_free()) return "none (SSM)";
  if (a.num_key_value_heads == a.num_attention_heads) return "MHA";
  return "GQA " + std::to_string(a.num_attention_heads) + "/" +
         std::to_string(a.num_key_value_heads);
}

// One row of key numbers: computed parameters, the bytes one GPU holds at TP 1 as SGLang
// allocates them (quantized checkpoints at their own precision; DeepSeek-V4, modelled in vLLM
// only, as vLLM does), and the bytes per parameter at 16 and 8 bits for comparison.
void print_model_row(const std::string& name, const Architecture& a) {
  const std::int64_t params = parameter_count(a);
  // sglang mllama4.py builds Llama 4's vision tower only with --enable-multimodal.
  Architecture served = a;
  if (served.vision.kind == VisionKind::kLlama4Vit) served.vision = VisionTower{};
  Result<WeightList> w = a.is_draft_head() ? Result<WeightList>(WeightList())
                                           : rank_weights(served, ParallelLayout{}, WeightRules{});
  const std::string tp1 =
      !a.is_draft_head() && w.ok()
          ? fmt::format("{:.1f} GiB",
                        static_cast<double>(resident_bytes(tensors_of(*w)).value()) / (1 << 30))
          : "-";
  fmt::print(
      "{:<42} {:>17} {:>12} {:>11} {:>11} {:>6} {:<10} {:>8} {:>8}\n", name, format_count(params),
      tp1, fmt::format("{:.1f} GiB", static_cast<double>(params) * 2 / (1 << 30)),
      fmt::format("{:.1f} GiB", static_cast<double>(params) / (1 << 30)), a.num_hidden_layers,
      attention_text(a), a.moe.num_experts > 0 ? std::to_string(a.moe.num_experts) : "-",
      a.max_position_embeddings);
}

void print_model_header() {
  fmt::print("{:<42} {:>17} {:>12} {:>11} {:>11} {:>6} {:<10} {:>8} {:>8}\n", "model", "parameters",
             "TP1 weights", "at 16-bit", "at 8-bit", "layers", "attention", "experts", "context");
}

// The row of a model read from its config.json; one that cannot be read (an architecture
// gpumem refuses) says why instead of its numbers.
void print_config_row(const std::string& repo_id, const std::string& config) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(config, diags);
  if (!a.ok()) {
    // The first line of the reason, its location written from the config file's own name.
    std::string why = a.status().message();
    why = why.substr(0, why.find('\n'));
    if (why.starts_with(config)) why = "config.json" + why.substr(config.size());
    fmt::print("{:<42} (not read: {})\n", repo_id, why);
    return;
  }
  print_model_row(repo_id, *a);
}

// The catalog's bundled Hugging Face configs (catalog/model_catalog.h).
void print_bundled_models(const Workspace& ws) {
  const auto& bundled = ws.models.bundled_configs();
  fmt::print("\nBundled Hugging Face configs (the catalog's configs/): {}\n", bundled.size());
  if (bundled.empty()) return;
  print_model_header();
  for (const ModelCatalog::BundledConfig& b : bundled) print_config_row(b.repo_id, b.config_path);
}

// The models of the local Hugging Face cache (catalog/hf_cache.h), each read from the snapshot
// refs/main names; one that cannot be read says why instead of its numbers.
void print_cached_models(const Workspace& ws) {
  const std::string& dir = ws.models.hub().settings.cache_dir;
  const std::vector<CachedModel> cached = list_cached_models(dir);
  fmt::print("\nHugging Face cache {}: {} model{}\n", dir, cached.size(),
             cached.size() == 1 ? "" : "s");
  if (cached.empty()) return;
  print_model_header();
  for (const CachedModel& m : cached) {
    if (m.snapshot.empty()) {
      fmt::print("{:<42} (refs/main names no snapshot)\n", m.repo_id);
      continue;
    }
    if (!m.has_config) {
      fmt::print("{:<42} (snapshot {} holds no config.json)\n", m.repo_id,
                 snapshot_commit(m.snapshot));
      continue;
    }
    print_config_row(m.repo_id, m.snapshot + "/config.json");
  }
}

ExitCode print_models(const Workspace& ws, bool cache) {
  print_model_header();
  Diagnostics diags;
  for (const std::string& slug : ws.models.slugs()) {
    Result<ModelEntry> e = ws.models.find(slug, diags);
    if (!e.ok()) continue;
    print_model_row(slug, e->architecture);
  }
  print_bundled_models(ws);
  if (cache) print_cached_models(ws);
  if (!diags.empty()) return report_diagnostics(diags);
  return kExitOk;
}

}  // namespace

Command catalog_command() {
  return {
      "catalog", "list the models or GPU types of the catalog with their key numbers",
      [](CLI::App& app, const GlobalOptions& global) {
        auto what = std::make_shared<std::string>("models");
        auto cache = std::make_shared<bool>(false);
        app.add_option("what", *what, "models or gpus")->check(CLI::IsMember({"models", "gpus"}));
        app.add_flag("--cache", *cache,
                     "models: also list the models of the local Hugging Face cache");
        return [what, cache, &global]() -> ExitCode {
          Diagnostics diags;
          std::optional<Workspace> ws = open_workspace(global, diags);
          if (!ws) return report_diagnostics(diags);
          if (*what == "models") return print_models(*ws, *cache);
          print_gpus(*ws);
          return kExitOk;
        };
      }};
}

}  // namespace gpumem::cli
