#include "engine/vllm/engine.h"

#include "engine/vllm/environment.h"
#include "engine/vllm/flags.h"
#include "engine/vllm/plan.h"
#include "engine/vllm/startup.h"
#include "engine/vllm/version.h"
#include "runtime/fact_ids.h"

namespace gpumem::vllm {
namespace {

class Startup final : public PlannedStartup {
 public:
  explicit Startup(Plan plan) : p_(std::move(plan)) {}

  std::string engine_label() const override { return "vllm " + p_.version.to_string(); }
  const GpuSpec& gpu() const override { return p_.gpu; }
  int world_size() const override { return p_.world_size(); }
  int nodes() const override { return p_.nodes; }
  int gpus_per_node() const override { return p_.gpus_per_node; }
  const std::vector<Bytes>& preoccupied() const override { return p_.preoccupied; }
  int rank_class(int rank) const override { return p_.pp_rank_of(rank); }
  const NcclSettings& nccl() const override { return p_.nccl; }
  const AllocatorConfig& allocator() const override { return p_.env.allocator.config; }
  RankProgram program(const EngineConstants& k) const override {
    return startup_program(p_, k.vllm);
  }

  std::vector<Fact> facts() const override {
    const ResolvedArgs& a = p_.args;
    std::vector<Fact> f;
    f.push_back({std::string(fact_id::kGpuMemoryUtilization), "--gpu-memory-utilization",
                 a.gpu_memory_utilization});
    f.push_back({std::string(fact_id::kMaxModelLen), "max_model_len", a.max_model_len});
    f.push_back({std::string(fact_id::kMaxNumSeqs), "max_num_seqs", a.max_num_seqs});
    // vllm v0.21 v1/engine/core.py DPEngineCoreProc: one engine core per data-parallel rank,
    // each with a KV cache of its own.
    f.push_back({std::string(fact_id::kDataParallelReplicas), "data-parallel replicas",
                 static_cast<std::int64_t>(p_.dp)});
    f.push_back({std::string(fact_id::kMaxNumBatchedTokens), "max_num_batched_tokens",
                 a.max_num_batched_tokens});
    f.push_back({"kv_cache_dtype", "kv cache dtype", p_.facts.kv_cache_dtype});
    f.push_back({"attention_backend", "attention backend", p_.facts.attention_backend});
    f.push_back({"block_size", "block_size", p_.facts.block_size});
    f.push_back(
        {"cudagraph_mode", "cudagraph_mode", std::string(cudagraph_mode_name(a.cudagraph_mode))});
    if (!a.capture_sizes.empty()) {
      f.push_back({std::string(fact_id::kMaxCudagraphCaptureSize), "max_cudagraph_capture_size",
                   a.max_cudagraph_capture_size});
      f.push_back({"cuda_graph_capture_sizes", "cuda graph capture sizes", a.capture_sizes});
      f.push_back(
          {"cuda_graphs_captured", "graphs captured (PIECEWISE, FULL)",
           std::to_string(a.piecewise_sizes.size()) + ", " + std::to_string(a.full_sizes.size())});
    }
    if (p_.rules.v2_runner_default != V2RunnerDefault::kNever ||
        p_.env.use_v2_model_runner.has_value()) {
      f.push_back({"model_runner", "model runner", p_.runner.why});
    }
    const bool v2_returns_zero =
        p_.runner.v2 && !p_.rules.v2_estimates_cudagraphs && !a.capture_sizes.empty();
    f.push_back({"cuda_graph_estimate_enabled", "CUDA-graph memory estimate",
                 p_.charge_cudagraph_estimate ? "on"
                 : p_.estimate_cudagraphs     ? "measured, not charged"
                 : v2_returns_zero
                     ? "0: Model Runner V2 reserves nothing for the graphs before 0.29.0"
                     : "off"});
    f.push_back({"custom_all_reduce", "custom all-reduce", p_.all_reduce.custom.reason});
    if (p_.tp > 1) {
      f.push_back(
          {"symm_mem_all_reduce", "symmetric-memory all-reduce", p_.all_reduce.symm_mem.reason});
    }
    f.push_back({"nccl_cumem_enable", "NCCL_CUMEM_ENABLE",
                 !p_.nccl.cumem_enable   ? "NCCL's default"
                 : *p_.nccl.cumem_enable ? "1"
                                         : "0"});
    if (p_.flags.speculative) {
      f.push_back(
          {"speculative", "speculative",
           p_.flags.speculative->method + " tokens=" + std::to_string(a.num_speculative_tokens)});
      if (p_.draft) {
        // gpu_model_runner.py: _dummy_run calls drafter.dummy_run, and the drafter captures its
        // own piecewise graphs beside the target's (eagle.py); neither is in gpumem's replay.
        f.push_back({"speculative_not_modelled", "not modelled",
                     "the drafter's CUDA graphs and its activations in the profile run"});
      }
    }
    f.push_back({"weights_source", "weights from", p_.weights_source});
    if (!p_.model_assumed.empty()) {
      f.push_back({std::string(fact_id::kModelAssumed), "model assumed", p_.model_assumed});
    }
    return f;
  }

 private:
  Plan p_;
};

class Model final : public EngineModel {
 public:
  std::string_view name() const override { return "vllm"; }
  std::string_view title() const override { return "vLLM"; }
  std::string releases_modelled() const override { return modelled_range(); }
  std::string newest_release() const override {
    return std::to_string(kFirstUnmodelled.major) + "." +
           std::to_string(kFirstUnmodelled.minor - 1) + ".0";
  }
  std::span<const FlagSpec> flags() const override { return flag_table(); }
  std::string canonical_flag(std::string_view flag) const override { return dashed_flag(flag); }
  // "-O" is --compilation-config before 0.12.0, --optimization-level with a level from then.
  bool spelling_depends_on_release(std::string_view flag) const override { return flag == "-O"; }
  std::span<const std::string_view> environment() const override { return modelled_variables(); }
  void check_environment(const ScenarioEngine& engine, Diagnostics& diags) const override {
    (void)read_environment(engine, diags);
  }
  std::vector<FitKnob> fit_knobs(const Scenario& scenario) const override {
    // vllm config/cache.py: gpu_memory_utilization in (0, 1]. PR #26016 (v0.11.1):
    // --max-cudagraph-capture-size replaces the capture-size lists; before it, the list
    // --cuda-graph-sizes was the knob.
    FitKnob fraction =
        FitKnob::fraction("--gpu-memory-utilization", fact_id::kGpuMemoryUtilization, 100);
    FitKnob graphs = FitKnob::count("--cuda-graph-sizes", fact_id::kMaxCudagraphCaptureSize);
    const std::optional<Version> v = parse_version(scenario.engine.version);
    if (v && rules_for(*v).two_step_capture_sizes) {
      graphs.flag = "--max-cudagraph-capture-size";
      graphs.replaces = {"--cudagraph-capture-sizes", "--cuda-graph-sizes"};
    }
    std::vector<FitKnob> knobs = {
        fraction, graphs, FitKnob::max_length("--max-model-len", fact_id::kMaxModelLen),
        // config/scheduler.py: max_num_seqs sizes the input batch's persistent buffers, the
        // dummy sampler run and the default capture sizes; max_num_batched_tokens the
        // profile run's activation peak (gpu_model_runner.py profile_run).
        FitKnob::count("--max-num-seqs", fact_id::kMaxNumSeqs),
        FitKnob::count("--max-num-batched-tokens", fact_id::kMaxNumBatchedTokens)};
    // arg_utils.py: --enforce-eager captures no CUDA graph.
    const EngineArg* eager = scenario_arg(scenario, "--enforce-eager");
    if (eager == nullptr || eager->values != std::vector<std::string>{"true"}) {
      knobs.push_back(FitKnob::toggle("--enforce-eager", "true", "off"));
    }
    // config/cache.py cpu_offload_gb: decoder-layer weights kept in CPU memory
    // (weights/cpu_offload.h), for weights that do not fit; searched only then.
    knobs.push_back(FitKnob::offload("--cpu-offload-gb", "weights"));
    // cache.py CacheDType: fp8 halves a 16-bit KV cell.
    const EngineArg* kv = scenario_arg(scenario, "--kv-cache-dtype");
    if (kv == nullptr || kv->values == std::vector<std::string>{"auto"}) {
      knobs.push_back(FitKnob::toggle("--kv-cache-dtype", "fp8", "auto"));
    }
    return knobs;
  }
  std::optional<std::vector<std::string>> layout_flags(const GpuLayout& l,
                                                       std::string&) const override {
    // arg_utils.py: --tensor-parallel-size, --pipeline-parallel-size, --data-parallel-size
    // (1 by default, and left out then), and --enable-expert-parallel (experts sharded over
    // the TP x DP group).
    std::vector<std::string> f;
    if (l.tp > 1) f.insert(f.end(), {"--tensor-parallel-size", std::to_string(l.tp)});
    if (l.pp > 1) f.insert(f.end(), {"--pipeline-parallel-size", std::to_string(l.pp)});
    if (l.dp > 1) f.insert(f.end(), {"--data-parallel-size", std::to_string(l.dp)});
    if (l.expert_parallel) f.emplace_back("--enable-expert-parallel");
    return f;
  }
  std::vector<LaunchForm> launch_forms() const override {
    // vllm entrypoints/cli/serve.py (`vllm serve MODEL`) and the OpenAI-compatible server
    // module the documentation's older examples start; all parse with vllm v0.21
    // utils/argparse_utils.py FlexibleArgumentParser, which reads dotted JSON keys. The
    // vllm/vllm-openai image's ENTRYPOINT is `vllm serve` (vllm docker/Dockerfile,
    // vllm-openai stage).
    return {{"vllm", "serve", "", true, true, "vllm/vllm-openai"},
            {"", "", "vllm.entrypoints.openai.api_server", false, true},
            {"", "", "vllm.entrypoints.api_server", false, true}};
  }
  std::vector<std::string_view> model_flags() const override { return {"--model"}; }
  int gpus_used(const ScenarioEngine& engine) const override {
    static constexpr std::string_view kLayout[] = {
        "--tensor-parallel-size", "--pipeline-parallel-size", "--data-parallel-size"};
    ScenarioEngine layout = engine;
    for (EngineArg& a : layout.args) a.flag = dashed_flag(a.flag);
    layout.args = args_naming(layout.args, flag_table(), kLayout);
    Diagnostics ignored;  // the plan reports them
    const std::optional<Version> v = parse_version(engine.version);
    const EngineFlags f =
        read_engine_flags(layout, rules_for(v.value_or(kOldestModelled)), ignored);
    return ignored.empty() ? f.tp_size * f.pp_size * f.dp_size : 0;
  }
  std::span<const std::string_view> observed_keys() const override {
    // vllm v0.10.2 v1/worker/gpu_worker.py determine_available_memory: its "Model loading
    // took", peak activation, non-torch memory, graph estimate and available KV memory.
    static constexpr std::string_view kKeys[] = {"model_loading", "activation_peak",
                                                 "non_torch_memory", "cuda_graph_estimate",
                                                 "kv_cache_memory"};
    return kKeys;
  }
  std::unique_ptr<PlannedStartup> plan(const Scenario& scenario, const PlanInputs& in,
                                       Diagnostics& diags) const override {
    const bool observed_ok = check_observed_keys(scenario, *this, diags);
    std::optional<Plan> p = make_plan(scenario, in, diags);
    if (!p || !observed_ok) return nullptr;
    return std::make_unique<Startup>(std::move(*p));
  }
};

}  // namespace

const EngineModel& engine_model() {
  static const Model kModel;
  return kModel;
}

}  // namespace gpumem::vllm
