#include "opstrace/export_ops.h"

#include <algorithm>
#include <memory>

#include "engine/allocator_environment.h"
#include "opstrace/recording_comm.h"
#include "opstrace/recording_device.h"
#include "probe/nccl_env.h"
#include "runtime/ledger_json.h"

namespace gpumem {

using nlohmann::ordered_json;

Result<std::string> pytorch_alloc_conf(const AllocatorConfig& config) {
  AllocatorConfig fixed;
  fixed.max_split_size = config.max_split_size;
  fixed.max_non_split_rounding = config.max_non_split_rounding;
  fixed.expandable_segments = config.expandable_segments;
  fixed.device_index = config.device_index;
  if (!(fixed == config)) {
    return invalid_input(
        "ops trace: the allocator's size constants differ from PyTorch's, which no "
        "PYTORCH_CUDA_ALLOC_CONF option sets");
  }
  std::string conf;
  const auto whole_mib = [](Bytes b) { return b.value() % mib(1).value() == 0; };
  if (config.max_split_size) {
    if (!whole_mib(*config.max_split_size)) {
      return invalid_input("ops trace: max_split_size is not a whole number of MiB");
    }
    conf += "max_split_size_mb:" + std::to_string(*config.max_split_size / mib(1));
  }
  if (config.max_non_split_rounding != AllocatorConfig{}.max_non_split_rounding) {
    if (!whole_mib(config.max_non_split_rounding)) {
      return invalid_input("ops trace: max_non_split_rounding is not a whole number of MiB");
    }
    if (!conf.empty()) conf += ",";
    conf += "max_non_split_rounding_mb:" + std::to_string(config.max_non_split_rounding / mib(1));
  }
  if (config.expandable_segments)
    conf += conf.empty() ? "expandable_segments:True" : ",expandable_segments:True";
  return conf;
}

Result<std::vector<ordered_json>> export_ops(const SimulatedStartup& run,
                                             const EngineConstants& constants,
                                             const OpsTraceHeader& header) {
  const PlannedStartup& p = *run.startup;
  Result<std::vector<probe::NcclEnvExpectation>> nccl = probe::nccl_env_expectations(p.nccl());
  if (!nccl.ok()) return nccl.status();
  Result<std::string> alloc_conf = pytorch_alloc_conf(run.machine.allocator);
  if (!alloc_conf.ok()) return alloc_conf.status();

  // Every rank on its own: a class of identical ranks would share one trace.
  std::vector<SimRank> ranks = run.ranks;
  for (SimRank& r : ranks) r.signature += ", rank " + std::to_string(r.rank);
  std::vector<std::unique_ptr<OpsRecorder>> recorders(ranks.size());
  std::vector<Status> failures(ranks.size());
  const RankProgram program = p.program(constants);
  const RankProgram recorded = [&](RankEnv& env) {
    auto recorder = std::make_unique<OpsRecorder>(env.observer, env.allocator);
    env.allocator.set_observer(recorder.get());
    RecordingDevice device(env.device, *recorder);
    RecordingComm comm(env.comm, *recorder, p.nccl());
    RankEnv seen{env.rank, env.world_size, env.local_rank, env.node,  device,
                 comm,     env.allocator,  *recorder,      env.facts, nullptr};
    program(seen);
    env.allocator.set_observer(nullptr);
    recorders[static_cast<size_t>(env.rank)] = std::move(recorder);
  };
  const std::vector<GpuLedger> ledgers = run_ranks(run.machine, ranks, recorded);

  ordered_json set = ordered_json::object();
  ordered_json unset = ordered_json::array();
  // The allocator's variables are the simulated configuration, `pytorch_cuda_alloc_conf`.
  for (const auto& [name, value] : header.env) {
    const std::span<const std::string_view> allocator = allocator_variables();
    if (std::find(allocator.begin(), allocator.end(), name) == allocator.end()) set[name] = value;
  }
  for (const auto& [name, value] : *nccl) {
    set.erase(name);
    if (value) {
      set[name] = *value;
    } else {
      unset.push_back(name);
    }
  }
  std::vector<ordered_json> out;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const SimRank& r = ranks[i];
    ordered_json t;
    t["format"] = kOpsTraceFormat;
    t["scenario"] = header.scenario;
    t["scenario_file"] = header.scenario_file;
    t["engine"] = p.engine_label();
    t["gpu_type"] = header.gpu_type;
    t["calibration"] = header.calibration;
    t["rank"] = r.rank;
    t["world_size"] = static_cast<int>(ranks.size());
    t["local_rank"] = r.local_rank;
    t["node"] = r.node;
    t["interconnect_modelled"] = header.interconnect_modelled;
    t["emulated"] = header.emulated;
    t["environment"] = {{"set", set}, {"unset", unset}};
    t["pytorch_cuda_alloc_conf"] = *alloc_conf;
    t["facts"] = facts_to_json(ledgers[i].facts);
    t["ops"] = ordered_json::parse(recorders[i]->ops().dump());
    out.push_back(std::move(t));
  }
  return out;
}

std::string ops_trace_text(const ordered_json& trace) {
  std::string out = "{\n";
  bool first = true;
  for (const auto& [key, value] : trace.items()) {
    out += first ? "" : ",\n";
    first = false;
    out += ordered_json(key).dump() + ": ";
    if (key != "ops") {
      out += value.dump();
      continue;
    }
    out += "[";
    for (size_t i = 0; i < value.size(); ++i) out += (i == 0 ? "\n" : ",\n") + value[i].dump();
    out += "\n]";
  }
  return out + "\n}\n";
}

}  // namespace gpumem
