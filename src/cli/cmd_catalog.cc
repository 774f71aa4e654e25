// `gpumem catalog [models|gpus]`: the catalog entries with their key numbers.
#include <fmt/format.h>

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
  if (a.num_key_value_heads == a.num_attention_heads) return "MHA";
  return "GQA " + std::to_string(a.num_attention_heads) + "/" +
         std::to_string(a.num_key_value_heads);
}

// Key numbers per model: computed parameters, the bytes one GPU holds at TP 1 as SGLang
// allocates them (quantized checkpoints at their own precision), and the bytes per parameter
// at 16 and 8 bits for comparison.
ExitCode print_models(const Workspace& ws) {
  fmt::print("{:<34} {:>17} {:>12} {:>11} {:>11} {:>6} {:<10} {:>8} {:>8}\n", "model", "parameters",
             "TP1 weights", "at 16-bit", "at 8-bit", "layers", "attention", "experts", "context");
  Diagnostics diags;
  for (const std::string& slug : ws.models.slugs()) {
    Result<ModelEntry> e = ws.models.find(slug, diags);
    if (!e.ok()) continue;
    const Architecture& a = e->architecture;
    const std::int64_t params = parameter_count(a);
    Result<WeightList> w = a.is_draft_head() ? Result<WeightList>(WeightList())
                                             : rank_weights(a, ParallelLayout{}, WeightRules{});
    const std::string tp1 =
        !a.is_draft_head() && w.ok()
            ? fmt::format("{:.1f} GiB",
                          static_cast<double>(resident_bytes(tensors_of(*w)).value()) / (1 << 30))
            : "-";
    fmt::print(
        "{:<34} {:>17} {:>12} {:>11} {:>11} {:>6} {:<10} {:>8} {:>8}\n", slug, format_count(params),
        tp1, fmt::format("{:.1f} GiB", static_cast<double>(params) * 2 / (1 << 30)),
        fmt::format("{:.1f} GiB", static_cast<double>(params) / (1 << 30)), a.num_hidden_layers,
        attention_text(a), a.moe.num_experts > 0 ? std::to_string(a.moe.num_experts) : "-",
        a.max_position_embeddings);
  }
  if (!diags.empty()) return report_diagnostics(diags);
  return kExitOk;
}

}  // namespace

Command catalog_command() {
  return {
      "catalog", "list the models or GPU types of the catalog with their key numbers",
      [](CLI::App& app, const GlobalOptions& global) {
        auto what = std::make_shared<std::string>("models");
        app.add_option("what", *what, "models or gpus")->check(CLI::IsMember({"models", "gpus"}));
        return [what, &global]() -> ExitCode {
          Diagnostics diags;
          std::optional<Workspace> ws = open_workspace(global, diags);
          if (!ws) return report_diagnostics(diags);
          if (*what == "models") return print_models(*ws);
          print_gpus(*ws);
          return kExitOk;
        };
      }};
}

}  // namespace gpumem::cli
