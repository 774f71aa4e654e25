// One reading of a GPU's memory, from every source the probe has, at one instant.
//
// Sources: cudaMemGetInfo (free and total as CUDA sees them; device-wide), NVML v1
// (total/free/used, reserved memory inside used), NVML v2 (reserved on its own), and NVML's
// per-process list (what the driver charges this PID). A source that is not available —
// no NVML, no CUDA context yet (the probe's first reading comes before any CUDA call so that
// the context itself is measured), a PID the driver does not list — leaves its fields
// absent (null in JSON), never 0. Sizes are bytes; the timestamp is CLOCK_MONOTONIC seconds,
// comparable between the ranks of one host.
#ifndef GPUMEM_PROBE_SAMPLE_H_
#define GPUMEM_PROBE_SAMPLE_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/units.h"
#include "probe/nvml.h"

namespace gpumem::probe {

struct Sample {
  double t_mono_s = 0;
  std::optional<Bytes> cuda_free;
  std::optional<Bytes> cuda_total;
  std::optional<Bytes> nvml_total;
  std::optional<Bytes> nvml_free;
  std::optional<Bytes> nvml_used;
  std::optional<Bytes> nvml_v2_total;
  std::optional<Bytes> nvml_v2_reserved;
  std::optional<Bytes> nvml_v2_free;
  std::optional<Bytes> nvml_v2_used;
  std::optional<Bytes> process_used;
};

double monotonic_seconds();

// The timestamp and the NVML fields; `nvml` may be null (no NVML), then only the time is set.
Sample sample_nvml(const Nvml* nvml, Nvml::Device device);

nlohmann::json to_json(const Sample& s);

// after - before, field by field; a field absent from either side is null.
nlohmann::json delta_json(const Sample& before, const Sample& after);

// JSON for an optional size: its byte count, or null.
nlohmann::json bytes_or_null(const std::optional<Bytes>& b);

// Device memory taken between two samples by cudaMemGetInfo: before.free - after.free.
std::optional<Bytes> cuda_taken(const Sample& before, const Sample& after);

// The samples of one measurement, named, in the order taken. In JSON each sample appears
// with its name ("samples") and each step with its cost against the sample before it
// ("deltas"), so that a reader sees both the levels and the increments.
class SampleLog {
 public:
  void add(std::string name, const Sample& s) { entries_.emplace_back(std::move(name), s); }
  nlohmann::json to_json() const;

 private:
  std::vector<std::pair<std::string, Sample>> entries_;
};

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_SAMPLE_H_
