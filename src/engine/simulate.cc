#include "engine/simulate.h"

#include <functional>

#include "core/python_format.h"
#include "engine/sglang/plan.h"
#include "engine/vllm/plan.h"
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

SimMachine machine_for(const Scenario& scenario, const GpuSpec& gpu, const SimulationInputs& in) {
  SimMachine machine;
  machine.gpu = gpu;
  machine.device = in.constants.device;
  machine.nccl = in.constants.nccl;
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

Ledger ledger_head(const Scenario& scenario, std::string engine, const GpuSpec& gpu,
                   const SimulationInputs& in) {
  Ledger ledger;
  ledger.scenario = scenario.name;
  ledger.engine = std::move(engine);
  ledger.gpu_type = gpu.name;
  ledger.calibration = in.constants.name;
  ledger.calibrated = in.constants.calibrated;
  return ledger;
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

std::optional<Ledger> simulate_sglang(const Scenario& scenario, const SimulationInputs& inputs,
                                      Diagnostics& diags) {
  std::optional<sglang::Plan> plan = sglang::make_plan(scenario, inputs.gpus, inputs.models, diags);
  if (!plan) return std::nullopt;
  const sglang::Plan& p = *plan;
  Ledger ledger = ledger_head(scenario, "sglang " + p.version.to_string(), p.gpu, inputs);
  add_sglang_facts(p, ledger);
  ledger.gpus = run_ranks(machine_for(scenario, p.gpu, inputs),
                          sim_ranks(p.world_size(), p.gpus_per_node, p.preoccupied,
                                    [&p](int r) { return p.pp_rank_of(r); }),
                          sglang::startup_program(p, inputs.constants.sglang));
  return ledger;
}

void add_vllm_facts(const vllm::Plan& p, Ledger& l) {
  const vllm::ResolvedArgs& a = p.args;
  l.facts.push_back({"--gpu-memory-utilization", a.gpu_memory_utilization});
  l.facts.push_back({"max_model_len", a.max_model_len});
  l.facts.push_back({"max_num_seqs", a.max_num_seqs});
  l.facts.push_back({"max_num_batched_tokens", a.max_num_batched_tokens});
  l.facts.push_back({"kv cache dtype", p.facts.kv_cache_dtype});
  l.facts.push_back({"attention backend", p.facts.attention_backend});
  l.facts.push_back({"block_size", p.facts.block_size});
  l.facts.push_back({"cudagraph_mode", std::string(vllm::cudagraph_mode_name(a.cudagraph_mode))});
  if (!a.capture_sizes.empty()) {
    l.facts.push_back({"max_cudagraph_capture_size", a.max_cudagraph_capture_size});
    l.facts.push_back({"cuda graph capture sizes", a.capture_sizes});
    l.facts.push_back(
        {"graphs captured (PIECEWISE, FULL)",
         std::to_string(a.piecewise_sizes.size()) + ", " + std::to_string(a.full_sizes.size())});
  }
  l.facts.push_back({"CUDA-graph memory estimate", p.estimate_cudagraphs ? "on" : "off"});
  l.facts.push_back({"custom all-reduce", p.all_reduce.custom.reason});
  if (p.tp > 1) l.facts.push_back({"symmetric-memory all-reduce", p.all_reduce.symm_mem.reason});
  l.facts.push_back({"NCCL_CUMEM_ENABLE", !p.nccl.cumem_enable   ? "NCCL's default"
                                          : *p.nccl.cumem_enable ? "1"
                                                                 : "0"});
  if (p.flags.speculative) {
    l.facts.push_back({"speculative", p.flags.speculative->method +
                                          " tokens=" + std::to_string(a.num_speculative_tokens)});
  }
}

std::optional<Ledger> simulate_vllm(const Scenario& scenario, const SimulationInputs& inputs,
                                    Diagnostics& diags) {
  std::optional<vllm::Plan> plan = vllm::make_plan(scenario, inputs.gpus, inputs.models, diags);
  if (!plan) return std::nullopt;
  const vllm::Plan& p = *plan;
  Ledger ledger = ledger_head(scenario, "vllm " + p.version.to_string(), p.gpu, inputs);
  add_vllm_facts(p, ledger);
  ledger.gpus = run_ranks(machine_for(scenario, p.gpu, inputs),
                          sim_ranks(p.world_size(), p.gpus_per_node, p.preoccupied,
                                    [&p](int r) { return p.pp_rank_of(r); }),
                          vllm::startup_program(p, inputs.constants.vllm));
  return ledger;
}

}  // namespace

std::optional<Ledger> simulate_scenario(const Scenario& scenario, const SimulationInputs& inputs,
                                        Diagnostics& diags) {
  if (scenario.engine.name == "sglang") return simulate_sglang(scenario, inputs, diags);
  if (scenario.engine.name == "vllm") return simulate_vllm(scenario, inputs, diags);
  diags.error(scenario.engine.name_loc, "engine '" + scenario.engine.name +
                                            "' is not modelled; gpumem models sglang and vllm");
  return std::nullopt;
}

}  // namespace gpumem
