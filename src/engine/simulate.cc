#include "engine/simulate.h"

#include "core/python_format.h"
#include "engine/sglang/plan.h"
#include "sim/runner.h"

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

void add_sglang_facts(const sglang::Plan& p, Ledger& l) {
  const sglang::ResolvedArgs& a = p.args;
  l.facts.push_back({"--mem-fraction-static", a.mem_fraction_static});
  if (a.mem_fraction_static_is_auto) {
    l.facts.push_back({"mem_fraction_static source",
                       "SGLang's automatic default (reserved " + python_float_repr(a.reserved_mib) +
                           " MiB of " + std::to_string(p.gpu.memory_total / mib(1)) + " MiB)"});
  }
  l.facts.push_back({"chunked_prefill_size", a.chunked_prefill_size});
  l.facts.push_back({"cuda_graph_max_bs", a.cuda_graph_max_bs});
  l.facts.push_back({"context_len", p.facts.context_len});
  l.facts.push_back({"kv cache dtype", p.facts.kv_cache_dtype});
  l.facts.push_back({"attention backend", p.facts.attention_backend});
  l.facts.push_back({"page_size", p.facts.page_size});
  l.facts.push_back({"custom all-reduce", p.custom_all_reduce.reason});
  if (!a.speculative.algorithm.empty()) {
    l.facts.push_back(
        {"speculative", a.speculative.algorithm +
                            " steps=" + std::to_string(a.speculative.num_steps) +
                            " topk=" + std::to_string(a.speculative.eagle_topk) +
                            " draft_tokens=" + std::to_string(a.speculative.num_draft_tokens)});
  }
}

}  // namespace

std::optional<Ledger> simulate_scenario(const Scenario& scenario, const SimulationInputs& inputs,
                                        Diagnostics& diags) {
  if (scenario.engine.name != "sglang") {
    diags.error(scenario.engine.name_loc,
                "engine '" + scenario.engine.name + "' is not modelled yet; gpumem models sglang");
    return std::nullopt;
  }
  std::optional<sglang::Plan> plan = sglang::make_plan(scenario, inputs.gpus, inputs.models, diags);
  if (!plan) return std::nullopt;

  SimMachine machine;
  machine.gpu = plan->gpu;
  machine.device = inputs.constants.device;
  machine.nccl = inputs.constants.nccl;
  machine.links = links_for(scenario, plan->gpu);

  std::vector<SimRank> ranks;
  for (int r = 0; r < plan->world_size(); ++r) {
    SimRank s;
    s.rank = r;
    s.node = r / plan->gpus_per_node;
    s.local_rank = r % plan->gpus_per_node;
    s.preoccupied = plan->preoccupied[static_cast<size_t>(r)];
    // Ranks differ by pipeline stage and by what other processes hold on their GPU.
    s.signature = "stage " + std::to_string(plan->pp_rank_of(r)) + ", held " +
                  std::to_string(s.preoccupied.value());
    ranks.push_back(std::move(s));
  }

  Ledger ledger;
  ledger.scenario = scenario.name;
  ledger.engine = "sglang " + plan->version.to_string();
  ledger.gpu_type = plan->gpu.name;
  ledger.calibration = inputs.constants.name;
  ledger.calibrated = inputs.constants.calibrated;
  add_sglang_facts(*plan, ledger);
  ledger.gpus = run_ranks(machine, ranks, sglang::startup_program(*plan, inputs.constants.sglang));
  return ledger;
}

}  // namespace gpumem
