#include "calib/trace.h"

#include <algorithm>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/directory.h"
#include "core/json_location.h"
#include "runtime/json_integer.h"
#include "runtime/ledger_json.h"

namespace gpumem {

using Json = nlohmann::ordered_json;

const TraceStep* Trace::step(std::string_view name) const {
  for (const TraceStep& s : steps) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

namespace {

// A memory reading; never negative, so the difference of two cannot overflow.
std::optional<Bytes> field(const Json& sample, const char* key) {
  if (!sample.contains(key) || sample.at(key).is_null()) return std::nullopt;
  return bytes(json_integer<std::int64_t>(sample.at(key), 0));
}

}  // namespace

Result<Trace> read_trace(const std::string& path) {
  Result<std::string> text = read_file(path, InputKind::kTrace);
  if (!text.ok()) return text.status();
  return parse_trace(path, *text);
}

Result<Trace> parse_trace(const std::string& path, const std::string& text) {
  try {
    const Json j = Json::parse(text);
    // v1 and /2 differ only in how facts are keyed, which facts_from_json reads both ways.
    const std::string format = j.at("format").get<std::string>();
    if (format != "gpumem.trace/2" && format != "gpumem.trace.v1") {
      return invalid_input(Diagnostic{location_of_pointer(path, text, "/format"),
                                      "not a gpumem probe trace (format '" + format +
                                          "'; gpumem reads "
                                          "gpumem.trace/2 and gpumem.trace.v1)"}
                               .to_string());
    }
    Trace t;
    t.file = path;
    if (j.contains("probe")) {
      t.probe = j.at("probe").get<std::string>();
      if (t.probe != kRawProbe && t.probe != kTorchProbe) {
        return invalid_input(path + ": unknown probe '" + t.probe + "' (gpumem knows " +
                             std::string(kRawProbe) + " and " + std::string(kTorchProbe) + ")");
      }
    }
    t.scenario = j.at("scenario").get<std::string>();
    t.scenario_file = j.at("scenario_file").get<std::string>();
    t.rank = json_integer<int>(j.at("rank"), 0);
    t.world_size = json_integer<int>(j.at("world_size"), 1);
    t.emulated = j.at("emulated").get<bool>();
    const Json& prov = j.at("provenance");
    const Json& device = prov.at("device");
    t.gpu_name = device.at("name").get<std::string>();
    if (device.contains("nvml") && device.at("nvml").contains("driver_version")) {
      t.driver_version = device.at("nvml").at("driver_version").get<std::string>();
    }
    if (prov.contains("torch_version"))
      t.torch_version = prov.at("torch_version").get<std::string>();
    if (t.probe == kTorchProbe) {
      t.ops_format = j.contains("ops_trace") && j.at("ops_trace").contains("format")
                         ? j.at("ops_trace").at("format").get<std::string>()
                         : "gpumem.ops.v1";
    }
    t.cuda_runtime = json_integer<int>(prov.at("cuda_runtime_version"), 0);
    t.nccl_version = json_integer<int>(prov.at("nccl_version"), 0);
    t.cuda_total = bytes(json_integer<std::int64_t>(device.at("total_global_mem"), 0));
    for (const Json& s : j.at("steps")) {
      TraceStep step;
      step.name = s.at("name").get<std::string>();
      step.outcome = s.at("outcome").get<std::string>();
      const Json& before = s.at("before");
      const Json& after = s.at("after");
      step.free_after = field(after, "cuda_free");
      if (std::optional<Bytes> b = field(before, "cuda_free"); b && step.free_after) {
        step.taken = *b - *step.free_after;
      } else if (std::optional<Bytes> nb = field(before, "nvml_used")) {
        if (std::optional<Bytes> na = field(after, "nvml_used")) step.taken = *na - *nb;
      }
      step.allocated_after = bytes(json_integer<std::int64_t>(s.at("allocated_after_bytes"), 0));
      step.reserved_after = bytes(json_integer<std::int64_t>(s.at("reserved_after_bytes"), 0));
      step.wall_s = s.at("wall_s").get<double>();
      if (before.contains("t_mono_s") && before.at("t_mono_s").is_number()) {
        step.start_s = before.at("t_mono_s").get<double>();
      } else if (!t.steps.empty()) {
        step.start_s = t.steps.back().start_s + t.steps.back().wall_s;
      }
      const Json& own = s.at("own_allocations_after_bytes");
      for (size_t c = 0; c < kCategoryCount; ++c) {
        const std::string key(kCategoryNames[c]);
        if (own.contains(key)) step.own_after[c] = bytes(own.at(key).get<std::int64_t>());
      }
      t.steps.push_back(std::move(step));
    }
    t.facts = facts_from_json(j.at("facts"));
    return t;
  } catch (const nlohmann::json::exception& e) {
    return invalid_input(json_error(path, text, "malformed trace", e));
  }
}

Result<std::vector<Trace>> read_trace_dir(const std::string& dir) {
  std::vector<Trace> out;
  Result<std::vector<std::filesystem::path>> entries = list_directory(dir);
  if (!entries.ok()) return entries.status();
  for (const std::filesystem::path& p : *entries) {
    const std::string name = p.filename().string();
    if (name.rfind("trace.rank", 0) != 0 || p.extension() != ".json") continue;
    Result<Trace> t = read_trace(p.string());
    if (!t.ok()) return t.status();
    out.push_back(std::move(*t));
  }
  if (out.empty()) return not_found(dir + ": no trace.rank<R>.json here");
  std::sort(out.begin(), out.end(), [](const Trace& a, const Trace& b) { return a.rank < b.rank; });
  // One run of one scenario: every rank once, and the ranks agree on what they ran. A missing
  // or doubled rank, or traces of two runs mixed in one directory, would be checked (and
  // fitted) as if they were one start-up.
  const Trace& first = out.front();
  for (const Trace& t : out) {
    const auto disagree = [&](const char* what, const std::string& a, const std::string& b) {
      return invalid_input(t.file + ": " + what + " '" + b + "' disagrees with " + first.file +
                           " ('" + a + "'); a trace directory holds one run");
    };
    if (t.world_size != first.world_size) {
      return disagree("world size", std::to_string(first.world_size), std::to_string(t.world_size));
    }
    if (t.scenario != first.scenario) return disagree("scenario", first.scenario, t.scenario);
    if (t.gpu_name != first.gpu_name) return disagree("GPU", first.gpu_name, t.gpu_name);
    // Each probe's traces are checked with its own calibration.
    if (t.probe != first.probe) return disagree("probe", first.probe, t.probe);
    if (t.rank >= t.world_size) {
      return invalid_input(t.file + ": rank " + std::to_string(t.rank) +
                           " is not below the world size " + std::to_string(t.world_size));
    }
  }
  for (size_t r = 0; r < out.size(); ++r) {
    if (r > 0 && out[r].rank == out[r - 1].rank) {
      return invalid_input(out[r].file + ": rank " + std::to_string(out[r].rank) +
                           " is traced twice (also " + out[r - 1].file + ")");
    }
  }
  if (static_cast<int>(out.size()) != first.world_size) {
    std::string missing;
    size_t next = 0;
    for (int r = 0; r < first.world_size; ++r) {
      if (next < out.size() && out[next].rank == r) {
        ++next;
      } else {
        missing += (missing.empty() ? "" : ", ") + std::to_string(r);
      }
    }
    return invalid_input(dir + ": world size " + std::to_string(first.world_size) + " but " +
                         std::to_string(out.size()) + " rank traces" +
                         (missing.empty() ? "" : "; missing rank " + missing));
  }
  return out;
}

Status check_traces_match(const Scenario& scenario, const GpuSpec& gpu,
                          const std::vector<Trace>& traces) {
  const Trace& t = traces.front();
  if (scenario.total_gpus() != t.world_size) {
    return invalid_input(t.file + ": traced on " + std::to_string(t.world_size) +
                         " ranks, but the scenario " + scenario.file + " runs " +
                         std::to_string(scenario.total_gpus()) + " GPUs");
  }
  // The probe records the driver's name of the GPU; the catalog knows it as nvidia_smi_name.
  if (!t.gpu_name.empty() && t.gpu_name != gpu.nvidia_smi_name) {
    return invalid_input(t.file + ": measured on '" + t.gpu_name + "', but the scenario " +
                         scenario.file + " names " + gpu.name + " ('" + gpu.nvidia_smi_name + "')");
  }
  return {};
}

std::vector<std::string> find_trace_dirs(const std::string& root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() == "trace.rank0.json")
      out.push_back(it->path().parent_path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace gpumem
