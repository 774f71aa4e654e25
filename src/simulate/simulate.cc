#include "simulate/simulate.h"

#include <functional>
#include <memory>

namespace gpumem {
namespace {

SimLinks links_for(const Scenario& s, const GpuSpec& gpu) {
  SimLinks links;
  const Interconnect link = s.hardware.interconnect.value_or(gpu.interconnect);
  if (link == Interconnect::kNvlink) {
    links.interconnect = NcclInterconnect::kNvlink;
  } else {
    links.interconnect =
        gpu.peer_to_peer ? NcclInterconnect::kPciePeerToPeer : NcclInterconnect::kPcieNoPeerToPeer;
  }
  links.compute_capability = gpu.compute_capability_major * 10 + gpu.compute_capability_minor;
  links.resident_threads = gpu.sm_count * gpu.max_threads_per_sm;
  links.nodes = s.hardware.nodes;
  return links;
}

SimMachine machine_for(const Scenario& scenario, const GpuSpec& gpu,
                       const AllocatorConfig& allocator, const SimulationInputs& in) {
  SimMachine machine;
  machine.gpu = gpu;
  machine.device = in.constants.device;
  machine.nccl = in.constants.nccl;
  machine.allocator = allocator;
  machine.links = links_for(scenario, gpu);
  return machine;
}

// One SimRank per GPU; ranks differ by pipeline stage and by what other processes hold on
// their GPU.
std::vector<SimRank> sim_ranks(int world_size, int gpus_per_node,
                               const std::vector<Bytes>& preoccupied,
                               const std::function<int(int)>& stage_of) {
  std::vector<SimRank> ranks;
  for (int r = 0; r < world_size; ++r) {
    SimRank s;
    s.rank = r;
    s.node = r / gpus_per_node;
    s.local_rank = r % gpus_per_node;
    s.preoccupied = preoccupied[static_cast<size_t>(r)];
    s.signature =
        "stage " + std::to_string(stage_of(r)) + ", held " + std::to_string(s.preoccupied.value());
    ranks.push_back(std::move(s));
  }
  return ranks;
}

}  // namespace

std::optional<SimulatedStartup> simulated_startup(const Scenario& scenario,
                                                  const SimulationInputs& inputs,
                                                  Diagnostics& diags) {
  const EngineModel* engine = engine_of(scenario, diags);
  if (engine == nullptr) return std::nullopt;
  SimulationCache* cache = inputs.cache;
  const PlanInputs plan_inputs{inputs.gpus, inputs.models,
                               cache != nullptr ? &cache->weight_lists : nullptr};
  std::unique_ptr<PlannedStartup> startup = engine->plan(scenario, plan_inputs, diags);
  if (!startup) return std::nullopt;
  const PlannedStartup& p = *startup;
  SimulatedStartup out{nullptr, machine_for(scenario, p.gpu(), p.allocator(), inputs),
                       sim_ranks(p.world_size(), p.gpus_per_node(), p.preoccupied(),
                                 [&p](int r) { return p.rank_class(r); })};
  out.startup = std::move(startup);
  return out;
}

std::optional<Ledger> simulate_scenario(const Scenario& scenario, const SimulationInputs& inputs,
                                        Diagnostics& diags) {
  std::optional<SimulatedStartup> run = simulated_startup(scenario, inputs, diags);
  if (!run) return std::nullopt;
  const PlannedStartup& p = *run->startup;
  Ledger ledger;
  ledger.scenario = scenario.name;
  ledger.engine = p.engine_label();
  ledger.gpu_type = p.gpu().name;
  ledger.calibration = inputs.constants.name;
  ledger.calibrated = inputs.constants.calibrated;
  ledger.facts = p.facts();
  SimMemos memos;
  if (inputs.cache != nullptr) {
    memos.weight_loads = &inputs.cache->weight_loads;
    if (inputs.cache->memoize_captures) memos.captures = &inputs.cache->captures;
  }
  ledger.gpus = run_ranks(run->machine, run->ranks, p.program(inputs.constants.engines), memos);
  return ledger;
}

}  // namespace gpumem
