#include "engine/sglang/engine.h"

#include "core/python_format.h"
#include "engine/sglang/environment.h"
#include "engine/sglang/flags.h"
#include "engine/sglang/layout.h"
#include "engine/sglang/plan.h"
#include "engine/sglang/startup.h"
#include "engine/sglang/version.h"
#include "runtime/fact_ids.h"

namespace gpumem::sglang {
namespace {

class Startup final : public PlannedStartup {
 public:
  explicit Startup(Plan plan) : p_(std::move(plan)) {}

  std::string engine_label() const override { return "sglang " + p_.version.to_string(); }
  const GpuSpec& gpu() const override { return p_.gpu; }
  int world_size() const override { return p_.world_size(); }
  int nodes() const override { return p_.nodes; }
  int gpus_per_node() const override { return p_.gpus_per_node; }
  const std::vector<Bytes>& preoccupied() const override { return p_.preoccupied; }
  int rank_class(int rank) const override { return p_.pp_rank_of(rank); }
  const NcclSettings& nccl() const override { return p_.nccl; }
  const AllocatorConfig& allocator() const override { return p_.env.allocator.config; }
  RankProgram program(const EngineConstants& k) const override {
    return startup_program(p_, k.sglang);
  }

  std::vector<Fact> facts() const override {
    const ResolvedArgs& a = p_.args;
    std::vector<Fact> f;
    f.push_back(
        {std::string(fact_id::kMemFractionStatic), "--mem-fraction-static", a.mem_fraction_static});
    if (a.mem_fraction_static_is_auto) {
      f.push_back({"mem_fraction_static_source", "mem_fraction_static source",
                   "SGLang's automatic default (reserved " + python_float_repr(a.reserved_mib) +
                       " MiB of " + std::to_string(p_.gpu.memory_total / mib(1)) + " MiB" +
                       (a.vision_factor != 1.0 ? ", times " + python_float_repr(a.vision_factor) +
                                                     " for the vision tower"
                                               : "") +
                       ")"});
    }
    f.push_back({"chunked_prefill_size", "chunked_prefill_size", a.chunked_prefill_size});
    // One scheduler, with its own token pool, per --dp-size rank: replicas without DP
    // attention, attention groups with it (sglang v0.5.9 data_parallel_controller.py).
    f.push_back({std::string(fact_id::kDataParallelReplicas), "data-parallel schedulers",
                 static_cast<std::int64_t>(p_.flags.dp_size)});
    f.push_back({std::string(fact_id::kCudaGraphMaxBs), "cuda_graph_max_bs", a.cuda_graph_max_bs});
    f.push_back({std::string(fact_id::kContextLen), "context_len", p_.facts.context_len});
    f.push_back({"kv_cache_dtype", "kv cache dtype", p_.facts.kv_cache_dtype});
    f.push_back({"attention_backend", "attention backend", p_.facts.attention_backend});
    f.push_back({"page_size", "page_size", p_.facts.page_size});
    f.push_back({"custom_all_reduce", "custom all-reduce", p_.custom_all_reduce.reason});
    if (!a.speculative.algorithm.empty()) {
      f.push_back({"speculative", "speculative",
                   a.speculative.algorithm + " steps=" + std::to_string(a.speculative.num_steps) +
                       " topk=" + std::to_string(a.speculative.eagle_topk) +
                       " draft_tokens=" + std::to_string(a.speculative.num_draft_tokens)});
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

// The most rows the request pool can have: --max-running-requests, 48 under speculative
// decoding, else 4096 (sglang v0.5.9 model_runner_kv_cache_mixin.py init_memory: min(max(.,
// 2048), 4096)), one more through v0.4.6.x. cuda_graph_runner.py get_batch_sizes_to_capture
// drops every batch size above the pool. 0 when the flags or version cannot be read.
std::int64_t largest_request_pool(const Scenario& scenario) {
  Diagnostics ignored;  // the plan reports them
  const ServerFlags f = read_server_flags(scenario.engine, ignored);
  const std::optional<Version> v = parse_version(scenario.engine.version);
  if (!ignored.empty() || !v) return 0;
  std::int64_t rows = f.max_running_requests.value_or(f.speculative_algorithm ? 48 : 4096);
  if (rules_for(*v).req_pool_extra_row) ++rows;
  return rows;
}

class Model final : public EngineModel {
 public:
  std::string_view name() const override { return "sglang"; }
  std::string_view title() const override { return "SGLang"; }
  std::string releases_modelled() const override {
    return kOldestModelled.to_string() + " to " + kNewestModelled.to_string();
  }
  std::string newest_release() const override { return kNewestModelled.to_string(); }
  std::span<const FlagSpec> flags() const override { return flag_table(); }
  std::string canonical_flag(std::string_view flag) const override { return std::string(flag); }
  bool spelling_depends_on_release(std::string_view) const override { return false; }
  std::span<const std::string_view> environment() const override { return modelled_variables(); }
  void check_environment(const ScenarioEngine& engine, Diagnostics& diags) const override {
    (void)read_environment(engine, diags);
  }
  std::vector<FitKnob> fit_knobs(const Scenario& scenario) const override {
    // sglang v0.5.9 server_args.py: --mem-fraction-static in (0, 1); --cuda-graph-max-bs
    // replaces an explicit --cuda-graph-bs list; --context-length caps a request, and with it
    // the request pool's rows (model_runner.py init_memory_pool).
    std::vector<FitKnob> knobs = {
        FitKnob::fraction("--mem-fraction-static", fact_id::kMemFractionStatic, 99),
        FitKnob::count("--cuda-graph-max-bs", fact_id::kCudaGraphMaxBs, {"--cuda-graph-bs"}),
        FitKnob::max_length("--context-length", fact_id::kContextLen)};
    knobs[1].bound = largest_request_pool(scenario);
    // server_args.py: --disable-cuda-graph skips the capture and its memory.
    const EngineArg* no_graphs = scenario_arg(scenario, "--disable-cuda-graph");
    if (no_graphs == nullptr || no_graphs->values != std::vector<std::string>{"true"}) {
      knobs.push_back(FitKnob::toggle("--disable-cuda-graph", "true", "off"));
    }
    // model_runner.py configure_kv_cache_dtype: fp8_e4m3 halves a 16-bit KV cell.
    const EngineArg* kv = scenario_arg(scenario, "--kv-cache-dtype");
    if (kv == nullptr || kv->values == std::vector<std::string>{"auto"}) {
      knobs.push_back(FitKnob::toggle("--kv-cache-dtype", "fp8_e4m3", "auto"));
    }
    // server_args.py cpu_offload_gb: whole GiB of decoder-layer weights kept in CPU memory
    // (utils/offloader.py OffloaderV1), for weights that do not fit; searched only then.
    knobs.push_back(FitKnob::offload("--cpu-offload-gb", "weights"));
    return knobs;
  }
  std::optional<std::vector<std::string>> layout_flags(const GpuLayout& l,
                                                       std::string&) const override {
    // server_args.py: --tp-size, --pp-size, --dp-size (replicas, each a scheduler), and
    // --ep-size, the expert-parallel group inside a replica's tensor-parallel GPUs; each 1 by
    // default, and left out then, as users write them.
    std::vector<std::string> f;
    const auto add = [&f](const char* flag, int n) {
      if (n > 1) f.insert(f.end(), {flag, std::to_string(n)});
    };
    add("--tp-size", l.tp);
    add("--pp-size", l.pp);
    add("--dp-size", l.dp);
    if (l.expert_parallel) add("--ep-size", l.tp);
    return f;
  }
  std::vector<LaunchForm> launch_forms() const override {
    // sglang v0.5.9 launch_server.py (python -m sglang.launch_server) and the `sglang serve`
    // console script of later releases.
    return {{"", "", "sglang.launch_server", false}, {"sglang", "serve", "", false}};
  }
  std::vector<std::string_view> model_flags() const override {
    return {"--model-path", "--model"};  // server_args.py: "--model-path", "--model"
  }
  int gpus_used(const ScenarioEngine& engine) const override {
    static constexpr std::string_view kLayout[] = {"--tp-size", "--pp-size", "--dp-size",
                                                   "--enable-dp-attention"};
    ScenarioEngine layout = engine;
    layout.args = args_naming(engine.args, flag_table(), kLayout);
    Diagnostics ignored;  // the plan reports them
    const ServerFlags f = read_server_flags(layout, ignored);
    return ignored.empty() ? static_cast<int>(gpus_needed(f)) : 0;
  }
  std::span<const std::string_view> observed_keys() const override {
    // sglang v0.5.9 model_runner.py: F and A ("avail mem" before and after load_model), the
    // load's "mem usage".
    static constexpr std::string_view kKeys[] = {"free_before_weights", "free_after_weights",
                                                 "weight_load_usage"};
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

}  // namespace gpumem::sglang
