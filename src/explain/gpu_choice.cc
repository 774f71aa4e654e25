#include "explain/gpu_choice.h"

#include <cctype>
#include <cmath>

#include "core/python_format.h"
#include "core/size_parse.h"
#include "core/spelling.h"

namespace gpumem {
namespace {

constexpr double kBytesPerGib = 1073741824.0;

double gib(Bytes b) { return static_cast<double>(b.value()) / kBytesPerGib; }

std::string line_note(int line) { return "line " + std::to_string(line); }

bool same_printed(double printed, int decimals, double actual) {
  const double unit = std::pow(10.0, -(decimals < 0 ? 2 : decimals));
  return std::fabs(printed - actual) <= unit / 2 + 1e-9;
}

// The catalog GPU whose CUDA total is nearest `total_gib`, among those that state one.
const GpuSpec* nearest_by_total(const GpuCatalog& gpus, double total_gib) {
  const GpuSpec* nearest = nullptr;
  for (const GpuSpec& g : gpus.gpus()) {
    if (!g.cuda_total) continue;
    if (nearest == nullptr || std::fabs(gib(*g.cuda_total) - total_gib) <
                                  std::fabs(gib(*nearest->cuda_total) - total_gib)) {
      nearest = &g;
    }
  }
  return nearest;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

GpuChoice unlisted_gpu(const GpuCatalog& gpus, double total_gib, const std::string& why,
                       LogPosition at) {
  GpuChoice c;
  const GpuSpec* like = nearest_by_total(gpus, total_gib);
  if (like == nullptr) {
    c.note = why + " matches no GPU of the catalog, and none states a CUDA total to model it on";
    return c;
  }
  GpuSpec g = *like;
  const std::string total = python_fixed(total_gib, 2);
  g.name = "unlisted-" + total + "gib";
  g.nvidia_smi_name.clear();
  g.aliases.clear();
  g.file.clear();
  const Bytes cuda = bytes(std::llround(total_gib * kBytesPerGib));
  // The driver's reserve (nvidia-smi's total less CUDA's) of the GPU it is modelled on.
  g.memory_total = cuda + (like->memory_total - *like->cuda_total);
  g.cuda_total = cuda;
  c.name = g.name;
  c.template_name = like->name;
  c.note = why + ": an unlisted GPU of " + total + " GiB, otherwise modelled on " + like->name +
           " (the catalog GPU of the nearest size)";
  c.at = at;
  c.unlisted = std::move(g);
  return c;
}

GpuChoice choose_gpu(const LogRun& run, const GpuCatalog& gpus) {
  if (run.platform) {
    return {"",
            "the log runs on " + *run.platform + " (" + line_note(run.platform_line) +
                "), not an NVIDIA GPU: gpumem models NVIDIA GPUs only (--gpu replays it as if on "
                "the one named)",
            {run.platform_line, 0},
            std::nullopt,
            ""};
  }
  const LogPosition name_at{run.gpu_name_line, 0};
  std::string unknown_name;
  if (run.gpu_name) {
    const GpuSpec* g = run.gpu_name_partial ? nullptr : gpus.find_by_any_name(*run.gpu_name);
    if (g != nullptr) {
      return {g->name, "printed name '" + *run.gpu_name + "', " + line_note(run.gpu_name_line),
              name_at, std::nullopt, ""};
    }
    if (run.gpu_name_partial) {
      // The tail of a config file name cut at its start ("A_A800-SXM4-80GB.json"): the
      // catalog GPU whose name ends in it.
      std::vector<const GpuSpec*> ends;
      for (const GpuSpec& spec : gpus.gpus()) {
        if (normalized_gpu_name(spec.nvidia_smi_name)
                .ends_with(" " + normalized_gpu_name(*run.gpu_name))) {
          ends.push_back(&spec);
        }
      }
      if (ends.size() == 1) {
        return {ends.front()->name,
                "'" + *run.gpu_name + "', the end of a device name, " +
                    line_note(run.gpu_name_line) + ", ends " + ends.front()->nvidia_smi_name,
                name_at, std::nullopt, ""};
      }
    } else {
      // The end of a file name that ends no GPU's name was not a GPU's name at all.
      unknown_name = "printed name '" + *run.gpu_name + "' (" + line_note(run.gpu_name_line) +
                     ") is not in the GPU catalog; ";
    }
  }
  std::vector<std::string> matches;
  std::string why;
  LogPosition at;
  const Observation* total = run.first(Quantity::kTotalMemory);
  if (total != nullptr) {
    for (const GpuSpec& g : gpus.gpus()) {
      if (g.cuda_total && same_printed(total->value, total->decimals, gib(*g.cuda_total))) {
        matches.push_back(g.name);
      }
    }
    why = "CUDA total " + python_fixed(total->value, 2) + " GiB (" + line_note(total->line) + ")";
    at = {total->line, 0};
  } else if (run.gpu_memory_total_mib) {
    for (const GpuSpec& g : gpus.gpus()) {
      const double mib = static_cast<double>(g.memory_total.value()) / (1 << 20);
      if (std::fabs(mib - *run.gpu_memory_total_mib) < 0.5) matches.push_back(g.name);
    }
    why = "nvidia-smi memory.total " + std::to_string(std::llround(*run.gpu_memory_total_mib)) +
          "MiB";
  }
  why = unknown_name + why;
  if (matches.size() > 1) {
    return {
        "",
        why + " matches several GPUs of the catalog (" + joined(matches) + "): give one with --gpu",
        at, std::nullopt, ""};
  }
  if (matches.size() == 1)
    return {matches.front(), why + " matches " + matches.front(), at, std::nullopt, ""};
  if (total == nullptr) {
    return {"",
            why.empty() ? "neither the GPU's name nor its total memory is printed"
                        : why + " matches no GPU in the catalog",
            at, std::nullopt, ""};
  }
  // A driver's reserve moves CUDA's total by a few tens of MiB between releases: failing an
  // exact match, the nearest CUDA total within 1% is taken, and the note says so.
  const GpuSpec* nearest = nearest_by_total(gpus, total->value);
  if (nearest != nullptr &&
      std::fabs(gib(*nearest->cuda_total) - total->value) <= 0.01 * total->value) {
    return {nearest->name,
            why + " is nearest to " + nearest->name + " (CUDA total " +
                python_fixed(gib(*nearest->cuda_total), 2) +
                " GiB; no GPU of the catalog has exactly this total)",
            at,
            std::nullopt,
            "",
            true};
  }
  return unlisted_gpu(gpus, total->value, why + " matches no GPU in the catalog", at);
}

std::optional<GpuChoice> with_logged_total(const GpuSpec& chosen, const LogRun& run) {
  const Observation* total = run.first(Quantity::kTotalMemory);
  if (total == nullptr || !chosen.cuda_total ||
      same_printed(total->value, total->decimals, gib(*chosen.cuda_total))) {
    return std::nullopt;
  }
  GpuSpec g = chosen;
  const std::string printed = python_fixed(total->value, 2);
  g.name = chosen.name + "-cuda-" + printed + "gib";
  g.nvidia_smi_name.clear();
  g.aliases.clear();
  g.file.clear();
  const Bytes cuda = bytes(std::llround(total->value * kBytesPerGib));
  g.memory_total = cuda + (chosen.memory_total - *chosen.cuda_total);
  g.cuda_total = cuda;
  GpuChoice c;
  c.name = g.name;
  c.template_name = chosen.name;
  c.note = "replayed with the CUDA total the log prints (" + printed + " GiB, " +
           line_note(total->line) + ") instead of the catalog's " +
           python_fixed(gib(*chosen.cuda_total), 2) + " GiB";
  c.at = {total->line, 0};
  c.unlisted = std::move(g);
  return c;
}

std::optional<GpuChoice> gpu_from_option(const GpuCatalog& gpus, const std::string& value) {
  if (const GpuSpec* g = gpus.find_by_any_name(value)) {
    return GpuChoice{g->name, "given with --gpu", {}, std::nullopt, ""};
  }
  const Result<Bytes> size = parse_size(value);
  if (!size.ok() || size->value() <= 0) return std::nullopt;
  return unlisted_gpu(gpus, gib(*size), "--gpu " + value, {});
}

std::string unknown_gpu_option(const GpuCatalog& gpus, const std::string& value) {
  return "unknown GPU '" + value + "'" + did_you_mean(value, gpus.names()) +
         " (a catalog name, an nvidia-smi name, or the CUDA total of an unlisted GPU as "
         "47.37GiB; gpumem catalog gpus lists them)";
}

}  // namespace gpumem
