// `gpumem catalog [models|gpus]`: the catalog entries with their key numbers.
#include <fmt/format.h>

#include "cli/command.h"
#include "cli/workspace.h"

namespace gpumem::cli {
namespace {

void print_gpus(const Workspace& ws) {
  fmt::print("{:<24} {:<48} {:>12} {:>12} {:>5} {:>5} {}\n", "gpu", "nvidia-smi name",
             "smi total", "cuda total", "cc", "SMs", "link");
  for (const GpuSpec& g : ws.gpus.gpus()) {
    fmt::print("{:<24} {:<48} {:>9} MiB {:>12} {:>5} {:>5} {}\n", g.name, g.nvidia_smi_name,
               g.memory_total / mib(1),
               g.cuda_total ? fmt::format("{} MiB", *g.cuda_total / mib(1)) : "unknown",
               fmt::format("{}.{}", g.compute_capability_major, g.compute_capability_minor),
               g.sm_count, interconnect_name(g.interconnect));
  }
}

}  // namespace

Command catalog_command() {
  return {"catalog", "list the GPU types (and models) of the catalog with their key numbers",
          [](CLI::App& app, const GlobalOptions& global) {
            auto what = std::make_shared<std::string>("gpus");
            app.add_option("what", *what, "gpus")->check(CLI::IsMember({"gpus"}));
            return [what, &global]() -> ExitCode {
              Diagnostics diags;
              std::optional<Workspace> ws = open_workspace(global, diags);
              if (!ws) return report_diagnostics(diags);
              print_gpus(*ws);
              return kExitOk;
            };
          }};
}

}  // namespace gpumem::cli
