// GPU types (model/gpu/*.yaml): the facts about a GPU that decide its memory at start-up.
//
// `memory_total` is memory.total as nvidia-smi prints it — what SGLang's heuristics read.
// `cuda_total`, when known, is what CUDA reports as total (torch's total_memory); the
// difference is the driver's reserve. Both are exact byte counts from MiB figures. Each entry
// keeps the sources of its values (see model/gpu/README.md).
#ifndef GPUMEM_CATALOG_GPU_CATALOG_H_
#define GPUMEM_CATALOG_GPU_CATALOG_H_

#include <optional>
#include <string>
#include <vector>

#include "core/diagnostics.h"
#include "core/status.h"
#include "core/units.h"

namespace gpumem {

enum class Interconnect { kNvlink, kPcie };

std::string_view interconnect_name(Interconnect i);

struct GpuSpec {
  std::string name;             // catalog slug, e.g. "h200-sxm-141gb"
  std::string nvidia_smi_name;  // "NVIDIA H200"
  Bytes memory_total;           // nvidia-smi memory.total
  std::optional<Bytes> cuda_total;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  std::string memory_type;
  Interconnect interconnect = Interconnect::kPcie;
  std::string interconnect_detail;
  // CUDA peer-to-peer between two such GPUs works (false: GeForce boards with stock drivers).
  bool peer_to_peer = true;
  std::vector<std::string> aliases;  // other names users write ("h200")
  std::string file;                  // where it was read from

  friend bool operator==(const GpuSpec&, const GpuSpec&) = default;
};

// Reads one model/gpu/*.yaml file; errors go to `diags` with file:line:col.
std::optional<GpuSpec> load_gpu_file(const std::string& path, Diagnostics& diags);
// The same, from the file's text; `file` is used in messages.
std::optional<GpuSpec> parse_gpu_entry(const std::string& file, const std::string& text,
                                       Diagnostics& diags);

// Lower case, '_' as ' ': a device name as SGLang's and vLLM's config file names spell it,
// for comparing names however they are written.
std::string normalized_gpu_name(std::string_view name);

// All GPU types of a directory, found by name or alias.
class GpuCatalog {
 public:
  // Loads every *.yaml in `dir`, sorted by file name.
  static Result<GpuCatalog> load(const std::string& dir, Diagnostics& diags);

  const std::vector<GpuSpec>& gpus() const { return gpus_; }
  const GpuSpec* find(std::string_view name) const;
  // The GPU `name` denotes: a name or alias, or an nvidia-smi name, case and '_' for ' '
  // aside ("NVIDIA_H20", "nvidia h20", as engines' config file names and logs spell them).
  const GpuSpec* find_by_any_name(std::string_view name) const;
  // A copy with one more GPU type: a GPU a log describes that no entry holds (gpumem
  // explain), found by its name like the others; or with `gpu` in place of the entry of its
  // name (a probe trace's machine, calib/replayed_decisions.h).
  GpuCatalog with(GpuSpec gpu) const;
  // Every name and alias, for did-you-mean.
  std::vector<std::string> names() const;

 private:
  std::vector<GpuSpec> gpus_;
};

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_GPU_CATALOG_H_
