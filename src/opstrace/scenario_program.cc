#include "opstrace/scenario_program.h"

#include "engine/sglang/plan.h"
#include "engine/vllm/plan.h"

namespace gpumem {
namespace {

// engine/simulate.cc links_for
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

// engine/simulate.cc machine_for and sim_ranks, for either engine's plan.
template <typename Plan>
ScenarioProgram assemble(const Scenario& scenario, const SimulationInputs& inputs,
                         std::shared_ptr<const Plan> plan, std::string engine) {
  ScenarioProgram out;
  out.engine = std::move(engine);
  out.machine.gpu = plan->gpu;
  out.machine.device = inputs.constants.device;
  out.machine.nccl = inputs.constants.nccl;
  out.machine.links = links_for(scenario, plan->gpu);
  for (int r = 0; r < plan->world_size(); ++r) {
    SimRank s;
    s.rank = r;
    s.node = r / plan->gpus_per_node;
    s.local_rank = r % plan->gpus_per_node;
    s.preoccupied = plan->preoccupied[static_cast<size_t>(r)];
    s.signature = "stage " + std::to_string(plan->pp_rank_of(r)) + ", held " +
                  std::to_string(s.preoccupied.value());
    out.ranks.push_back(std::move(s));
  }
  out.nccl = plan->nccl;
  out.constants = std::make_shared<const SimulationConstants>(inputs.constants);
  out.plan = plan;
  return out;
}

}  // namespace

std::optional<ScenarioProgram> scenario_program(const Scenario& scenario,
                                                const SimulationInputs& inputs,
                                                Diagnostics& diags) {
  if (scenario.engine.name == "sglang") {
    std::optional<sglang::Plan> p = sglang::make_plan(scenario, inputs.gpus, inputs.models, diags);
    if (!p) return std::nullopt;
    auto plan = std::make_shared<const sglang::Plan>(std::move(*p));
    ScenarioProgram out = assemble(scenario, inputs, plan, "sglang " + plan->version.to_string());
    out.program = sglang::startup_program(*plan, out.constants->sglang);
    return out;
  }
  if (scenario.engine.name == "vllm") {
    std::optional<vllm::Plan> p = vllm::make_plan(scenario, inputs.gpus, inputs.models, diags);
    if (!p) return std::nullopt;
    auto plan = std::make_shared<const vllm::Plan>(std::move(*p));
    ScenarioProgram out = assemble(scenario, inputs, plan, "vllm " + plan->version.to_string());
    out.program = vllm::startup_program(*plan, out.constants->vllm);
    return out;
  }
  diags.error(scenario.engine.name_loc, "engine '" + scenario.engine.name +
                                            "' is not modelled; gpumem models sglang and vllm");
  return std::nullopt;
}

}  // namespace gpumem
