// Which GPU a logged start-up ran on, from what the log says about it: a name (nvidia-smi's
// table, torch's device properties, collect_env's "GPU 0: ...", the device_name= of a fused-MoE
// config file SGLang and vLLM look for), else a total (vLLM's CUDA total, torch's "total
// capacity of X GiB" in an out-of-memory error, nvidia-smi's memory.total), mapped to the
// GPU catalog by nvidia_smi_name, name and aliases. A total several catalog GPUs share is
// not guessed at. A total no catalog GPU is near is a GPU of its own: an unlisted GPU of that
// CUDA total, with the other properties (SMs, interconnect, the driver's reserve) of the
// catalog GPU of the nearest size, and the note says so. `--gpu` takes the same: a catalog
// name or alias, an nvidia-smi name, or a bare total for an unlisted GPU.
#ifndef GPUMEM_EXPLAIN_GPU_CHOICE_H_
#define GPUMEM_EXPLAIN_GPU_CHOICE_H_

#include <optional>
#include <string>
#include <string_view>

#include "catalog/gpu_catalog.h"
#include "explain/log_line.h"
#include "explain/startup_log.h"

namespace gpumem {

struct GpuChoice {
  std::string name;                 // a catalog name, or the unlisted GPU's; "" when unknown
  std::string note;                 // how it was chosen
  LogPosition at;                   // the line that says so; line 0 when none
  std::optional<GpuSpec> unlisted;  // set when the GPU is not in the catalog
  std::string template_name;        // the catalog GPU whose other properties it takes
  // Taken as the catalog GPU whose CUDA total is nearest the one the log prints: a guess by
  // size, not a GPU the log or the user names.
  bool by_nearest_total = false;
};

// An unlisted GPU whose CUDA total is `total_gib`.
GpuChoice unlisted_gpu(const GpuCatalog& gpus, double total_gib, const std::string& why,
                       LogPosition at);

// The GPU of `run`.
GpuChoice choose_gpu(const LogRun& run, const GpuCatalog& gpus);

// The GPU `chosen` (a catalog GPU) with the CUDA total `run` prints, where that differs from
// the catalog's beyond the print's rounding: the same card on a box whose driver, display or
// ECC setting keeps a different share (an RTX 3090 prints 23.56 GiB beside the catalog's
// 23.69). Its other properties and constants are `chosen`'s. Nothing when the totals agree.
std::optional<GpuChoice> with_logged_total(const GpuSpec& chosen, const LogRun& run);

// What `--gpu VALUE` names: a GPU of the catalog by any of its names, or a size ("8GiB",
// "47.37GiB") for an unlisted GPU of that CUDA total. Nothing when it is neither.
std::optional<GpuChoice> gpu_from_option(const GpuCatalog& gpus, const std::string& value);

// Why `value` is no `--gpu` of explain: "unknown GPU 'x'; did you mean 'y'? (what it may be)".
std::string unknown_gpu_option(const GpuCatalog& gpus, const std::string& value);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_GPU_CHOICE_H_
