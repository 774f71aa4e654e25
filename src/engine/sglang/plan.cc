#include "engine/sglang/plan.h"

#include <algorithm>
#include <set>

#include "catalog/nextn_draft.h"
#include "engine/config_overrides.h"
#include "engine/model_resolution.h"
#include "engine/online_quantization.h"
#include "engine/retired_flags.h"
#include "engine/sglang/layout.h"
#include "engine/sglang/older_flags.h"
#include "engine/sglang/plan_checks.h"
#include "weights/cpu_offload.h"
#include "weights/draft_weights.h"
#include "weights/pinned_weights.h"
#include "weights/rank_weights.h"

namespace gpumem::sglang {

std::vector<std::int64_t> batch_sizes_to_capture(std::vector<std::int64_t> bs,
                                                 std::int64_t req_pool_rows) {
  if (!bs.empty() && *std::max_element(bs.begin(), bs.end()) > req_pool_rows) {
    bs.push_back(req_pool_rows);
  }
  std::erase_if(bs, [&](std::int64_t b) { return b > req_pool_rows; });
  std::set<std::int64_t> unique(bs.begin(), bs.end());
  return {unique.begin(), unique.end()};
}

namespace {

// sglang v0.5.9 server_args.py _handle_speculative_decoding: NEXTN runs as EAGLE. Over a model
// with a NextN class (nextn_draft.h) EAGLE drafts with the model's own MTP layer unless a draft
// is given, and a given draft that is not an EAGLE-3 head is built as a NextN model too
// (configs/model_config.py _config_draft_model). Other EAGLE runs need a draft.
bool resolve_draft(Plan& p, std::optional<Architecture> given, Diagnostics& diags) {
  if (!p.flags.speculative_algorithm) return true;
  const std::string& algorithm = *p.flags.speculative_algorithm;
  const SourceLoc where = *p.flags.raw.location("--speculative-algorithm");
  const bool eagle = algorithm == "NEXTN" || algorithm == "EAGLE";
  if (!eagle || (given && given->is_draft_head())) {
    p.draft = std::move(given);
    return true;
  }
  const Architecture& source = given ? *given : p.model;
  if (algorithm == "EAGLE" && !nextn_architecture(source.hf_architecture)) {
    if (!given) {
      diags.error(where, "--speculative-algorithm EAGLE needs --speculative-draft-model-path");
      return false;
    }
    p.draft = std::move(given);  // laid out as an EAGLE draft head, or refused there
    return true;
  }
  Result<Architecture> draft = nextn_draft(source);
  if (!draft.ok()) {
    diags.error(p.flags.raw.location("--speculative-draft-model-path").value_or(where),
                "--speculative-algorithm " + algorithm + ": " + draft.status().message());
    return false;
  }
  p.draft = std::move(*draft);
  return true;
}

// A hybrid linear-attention model's state cache, and what of it gpumem does not model.
bool plan_mamba_cache(Plan& p, const ScenarioEngine& engine, Diagnostics& diags) {
  const std::string& arch = p.model.hf_architecture;
  bool ok = true;
  // sglang models/qwen3_5.py: EntryClass lists the ConditionalGeneration classes only; its
  // Qwen3_5ForCausalLM classes are their language-model backbones, not served alone.
  if (arch == "Qwen3_5ForCausalLM" || arch == "Qwen3_5MoeForCausalLM") {
    diags.error(engine.name_loc, "SGLang has no model class for " + arch +
                                     " (models/qwen3_5.py serves Qwen3_5ForConditionalGeneration "
                                     "and Qwen3_5MoeForConditionalGeneration)");
    return false;
  }
  // sglang issue #1190 (Jamba support) is open; the stored copies of models/jamba.py disagree
  // (RoPE on attention, renormalized routing, no x_proj all-reduce) and no release is known to
  // carry one, so its memory is not modelled.
  if (p.model.family == ArchitectureFamily::kJamba) {
    diags.error(engine.name_loc, "SGLang's " + arch +
                                     " is not modelled: no release is known to serve it (its "
                                     "models/jamba.py copies disagree; issue #1190 is open)");
    return false;
  }
  // sglang PR #34556 ("Inference Support Mamba 2 and 1", merged September 2026) added
  // models/mamba2.py and mamba.py; before it SGLang has no class for them, and the pure-SSM
  // pool it sizes (no KV cells) is not in any stored source.
  if (p.model.attention_free()) {
    diags.error(engine.name_loc, "SGLang's " + arch +
                                     " is not modelled: SGLang serves attention-free Mamba "
                                     "models only from PR #34556 (September 2026), whose release "
                                     "and state pool gpumem has not pinned down");
    return false;
  }
  // sglang v0.5.2 (September 2025) added Qwen3NextForCausalLM (models/qwen3_next.py); the
  // state-cache rules modelled are v0.5.9's. PR #18040 (opened 2026-01-31) added
  // models/granitemoehybrid.py; whether v0.5.9 (tagged 2026-02-23) carries it is not pinned
  // down, so it is taken from v0.5.10. NemotronH's MoE layers came with PR #12690 (merged
  // 2025-11-21), taken as v0.5.6.
  // Kimi Linear came with PR #12469 (opened 2025-10-31), taken as v0.5.5.
  const bool nemotron_moe =
      p.model.family == ArchitectureFamily::kNemotronH && p.model.moe.num_experts > 0;
  const bool kimi = p.model.family == ArchitectureFamily::kKimiLinear;
  const Version first = p.model.family == ArchitectureFamily::kGraniteHybrid ? Version{0, 5, 10}
                        : nemotron_moe                                       ? Version{0, 5, 6}
                        : kimi                                               ? Version{0, 5, 5}
                                                                             : Version{0, 5, 2};
  if (p.version < first) {
    diags.error(engine.version_loc, arch + " is not served by SGLang " + p.version.to_string() +
                                        " (from " + first.to_string() + ")");
    ok = false;
  }
  if (p.flags.speculative_algorithm) {
    // memory_pool.py MambaPool: speculative decoding adds intermediate SSM and conv-window
    // buffers per draft token, sized by rules that changed in PR #32184.
    diags.error(*p.flags.raw.location("--speculative-algorithm"),
                "--speculative-algorithm with " + arch +
                    "'s linear-attention layers is not modelled (the state cache's intermediate "
                    "buffers per draft token)" +
                    (p.model.is_qwen_hybrid() ? "; vLLM's MTP of this model is modelled" : ""));
    ok = false;
  }
  if (p.pp > 1) {
    // sglang qwen3_next.py Qwen3NextForCausalLM.__init__ asserts a single pipeline stage; the
    // state cache of a stage's own linear layers is not modelled for the others.
    diags.error(
        *p.flags.raw.location("--pp-size"),
        "--pp-size " + std::to_string(p.pp) +
            (p.model.is_qwen_hybrid()
                 ? " is refused by SGLang for " + arch + " (its model asserts one pipeline stage)"
                 : " with " + arch + "'s linear-attention layers is not modelled"));
    ok = false;
  }
  if (p.model.family == ArchitectureFamily::kNemotronH && p.facts.attention_backend == "triton") {
    // sglang server_args.py _handle_model_specific_adjustments (NemotronHForCausalLM)
    diags.error(p.flags.raw.location("--attention-backend").value_or(engine.name_loc),
                "AssertionError: NemotronH does not support the triton attention backend");
    ok = false;
  }
  const LinearAttentionConfig& g = p.model.linear;
  // Mamba2StateShape.create: a single group is copied to every rank; more must split.
  const bool groups_split = g.num_key_heads % p.attention_tp == 0 ||
                            (g.kind == LinearKind::kMamba2 && g.num_key_heads == 1);
  if (!groups_split || g.num_value_heads % p.attention_tp != 0) {
    diags.error(p.flags.raw.location("--tp-size").value_or(engine.name_loc),
                "--tp-size " + std::to_string(p.tp) + " does not divide the " +
                    std::to_string(g.num_key_heads) + " key heads and " +
                    std::to_string(g.num_value_heads) + " value heads of " + p.model.name +
                    "'s linear attention; SGLang stops with AssertionError: " +
                    std::to_string(!groups_split ? g.num_key_heads : g.num_value_heads) +
                    " is not divisible by " + std::to_string(p.attention_tp));
    ok = false;
  }
  if (!ok) return false;
  // server_args.py _handle_model_specific_adjustments (KimiLinearForCausalLM): "Disabling Radix
  // Cache for KimiLinearForCausalLM as it is not yet supported", so a request holds one state
  // slot.
  if (kimi) p.flags.disable_radix_cache = true;
  p.mamba =
      linear_state_shape(p.model, p.attention_tp, p.flags.mamba_ssm_dtype == "float32" ? 4 : 2);
  return true;
}

// The first release whose models/ serves a model added after the oldest modelled one; nothing
// for the others.
std::optional<Version> first_serving_release(const Architecture& m) {
  // sglang PR #7907 (merged 2025-07-09) added models/phimoe.py; taken as first released in
  // v0.4.10, since which 0.4.9 post release carries it is not pinned down.
  if (m.family == ArchitectureFamily::kPhiMoe) return Version{0, 4, 10};
  // sglang PR #8154 (opened 2025-07-18) added models/arcee.py; taken as first released in
  // v0.4.10 (UNCONFIRMED).
  if (m.hf_architecture == "ArceeForCausalLM") return Version{0, 4, 10};
  // sglang PR #9067 (merged 2025-08-17) added models/nemotron_nas.py; v0.5.1 (2025-08-23) is
  // the first release published after it.
  if (m.family == ArchitectureFamily::kDeciLM) return Version{0, 5, 1};
  // sglang models/kimi_k25.py was on main on 2026-01-27 ("will land in the next release",
  // docs basic_usage/kimi_k2_5): taken as first released in 0.5.9 (UNCONFIRMED).
  if (m.vision.kind == VisionKind::kMoonVit) return Version{0, 5, 9};
  return std::nullopt;
}

}  // namespace

std::optional<Plan> make_plan(const Scenario& scenario, const PlanInputs& in, Diagnostics& diags) {
  const GpuCatalog& gpus = in.gpus;
  const ModelCatalog& models = in.models;
  const size_t errors_before = diags.count();
  Plan p;
  p.scenario = scenario.name;
  std::optional<Version> version = parse_version(scenario.engine.version);
  if (!version || !is_modelled(*version)) {
    diags.error(scenario.engine.version_loc,
                "SGLang version '" + scenario.engine.version + "' is not modelled; gpumem models " +
                    kOldestModelled.to_string() + " to " + kNewestModelled.to_string());
    return std::nullopt;
  }
  p.version = *version;
  p.rules = rules_for(p.version);
  p.flags = read_server_flags(scenario.engine, diags);
  check_retired_flags(
      p.flags.raw, older_release_flags(), "SGLang", p.version.to_string(),
      [&](std::string_view removed_in) { return p.version >= parse_version(removed_in).value(); },
      diags);
  if (scenario.engine.entry != "serve") {
    // sglang's offline Engine (sgl.Engine) runs the same scheduler; whether its defaults
    // differ from the server's is not read.
    diags.error(scenario.engine.entry_loc,
                "entry '" + scenario.engine.entry +
                    "' is not modelled for SGLang: its server (entry serve) is");
  }
  p.env = read_environment(scenario.engine, diags);
  // The layout is computable before any arithmetic uses it (attention TP = TP / DP).
  if (!check_layout(scenario, p.flags, diags)) return std::nullopt;
  const GpuSpec* gpu = gpus.find(scenario.hardware.gpu);
  const bool model_named = scenario.model.given() || p.flags.raw.string("--model-path");
  if (gpu == nullptr || !model_named) return std::nullopt;  // reported by the scenario reader
  p.gpu = *gpu;
  if (p.gpu.compute_capability_major * 10 + p.gpu.compute_capability_minor < 75) {
    // sglang model_executor/model_runner.py load_model (0.4.6.post5 on), right after "Load
    // weight begin". On sm75 it serves float16 for bfloat16 ("Compute capability below sm80"),
    // the same bytes.
    diags.error(scenario.hardware.gpu_loc,
                "RuntimeError: SGLang only supports sm75 and above (" + p.gpu.name + " is sm" +
                    std::to_string(p.gpu.compute_capability_major) +
                    std::to_string(p.gpu.compute_capability_minor) + ")");
    return std::nullopt;
  }
  std::optional<ResolvedModel> model =
      resolve_scenario_model(scenario, p.flags.raw, "--model-path", models, diags);
  std::optional<Architecture> given_draft;
  if (p.flags.speculative_draft_model) {
    std::optional<ResolvedModel> draft = resolve_model_reference(
        *p.flags.speculative_draft_model, *p.flags.raw.location("--speculative-draft-model-path"),
        scenario.file, models, diags);
    if (draft && p.flags.speculative_algorithm == "STANDALONE" &&
        !draft->architecture.is_draft_head()) {
      diags.error(*p.flags.raw.location("--speculative-algorithm"),
                  "--speculative-algorithm STANDALONE is not modelled: SGLang runs " +
                      *p.flags.speculative_draft_model +
                      " as a whole second model, which gpumem does not lay out (it models "
                      "EAGLE and EAGLE-3 draft heads)");
      return std::nullopt;
    }
    if (draft) given_draft = std::move(draft->architecture);
  }
  if (!model) return std::nullopt;
  std::optional<std::string> source = weights_source(
      *model, scenario.model.given() ? scenario.model.loc : *p.flags.raw.location("--model-path"),
      diags);
  if (!source) return std::nullopt;
  p.weights_source = std::move(*source);
  p.model_assumed = model->assumed;
  p.model = std::move(model->architecture);
  if (!apply_config_overrides(p.flags.raw, "--json-model-override-args", p.model, diags))
    return std::nullopt;
  // The draft's config takes the same overrides (sglang v0.5.9 configs/model_config.py
  // ModelConfig.from_server_args passes json_model_override_args for either model).
  if (given_draft &&
      !apply_config_overrides(p.flags.raw, "--json-model-override-args", *given_draft, diags))
    return std::nullopt;
  // A draft that did not resolve is reported; the checks below still run.
  const bool draft_unresolved = p.flags.speculative_draft_model && !given_draft;
  if (!draft_unresolved && !resolve_draft(p, std::move(given_draft), diags)) return std::nullopt;

  p.tp = p.flags.tp_size;
  p.pp = p.flags.pp_size;
  p.replicas = p.flags.enable_dp_attention ? 1 : p.flags.dp_size;
  p.attention_tp = p.flags.enable_dp_attention ? p.tp / p.flags.dp_size : p.tp;
  p.nodes = scenario.hardware.nodes;
  p.gpus_per_node = scenario.hardware.gpus_per_node;
  p.preoccupied.assign(static_cast<size_t>(scenario.total_gpus()), bytes(0));
  for (const auto& [index, held] : scenario.hardware.preoccupied) {
    for (int node = 0; node < p.nodes; ++node) {
      p.preoccupied[static_cast<size_t>(node * p.gpus_per_node + index)] = held;
    }
  }

  const SourceLoc tp_loc = p.flags.raw.location("--tp-size").value_or(scenario.engine.name_loc);
  // sglang v0.5.9 distributed/utils.py ensure_divisibility, reached from QKVParallelLinear.
  if (p.model.num_attention_heads % p.attention_tp != 0) {
    diags.error(tp_loc, "--tp-size " + std::to_string(p.tp) + " does not divide the " +
                            std::to_string(p.model.num_attention_heads) + " attention heads of " +
                            p.model.name + "; SGLang stops with AssertionError: " +
                            std::to_string(p.model.num_attention_heads) + " is not divisible by " +
                            std::to_string(p.attention_tp));
    return std::nullopt;
  }
  // sglang v0.5.9 distributed/utils.py get_pp_indices gives every stage past the last layer
  // an empty range, and model_runner_kv_cache_mixin.py profile_max_num_token then divides by
  // the zero cell size of such a stage.
  if (p.pp > p.model.num_hidden_layers) {
    diags.error(p.flags.raw.location("--pp-size").value_or(scenario.engine.name_loc),
                "--pp-size " + std::to_string(p.pp) + " is more than the " +
                    std::to_string(p.model.num_hidden_layers) + " layers of " + p.model.name +
                    "; a pipeline stage would hold no layer");
    return std::nullopt;
  }

  if (p.flags.quantization && *p.flags.quantization == "fp8" &&
      p.model.quantization.method == QuantMethod::kNone) {
    const std::string why = apply_online_fp8(p.model, p.gpu, "SGLang");
    if (!why.empty()) {
      diags.error(*p.flags.raw.location("--quantization"), why);
      return std::nullopt;
    }
  }
  if (!check_unmodelled_flags(p.flags, p.model, diags)) return std::nullopt;
  if (p.model.vision.kind == VisionKind::kClip) {
    // sglang llava.py LlavaForConditionalGeneration resolves its vision tower through
    // SGLang's model registry, where clip.py registers CLIPModel only; LLaVA-NeXT has no SGLang
    // class and falls back to the Transformers backend (model_loader/utils.py).
    const bool next = !p.model.vision.grid_pinpoints.empty();
    diags.error(scenario.model.given() ? scenario.model.loc : *p.flags.raw.location("--model-path"),
                p.model.name + " (" + p.model.hf_architecture + "): " +
                    (next ? "SGLang has no LLaVA-NeXT model class (sglang issue #4062) and would "
                            "serve it through its Transformers backend, which is not modelled"
                          : "SGLang resolves LLaVA's CLIP tower through its model registry, "
                            "which holds no CLIPVisionModel (sglang issue #13999: llava-1.5 "
                            "fails to start)") +
                    "; vLLM is modelled");
    return std::nullopt;
  }
  if (p.model.family == ArchitectureFamily::kDeepseekV4) {
    // sglang deepseek_v4_memory_pool.py DeepSeekV4TokenToKVPool and the pool configurator's
    // DSV4PoolConfigurator size a window pool, compressed pools and compressor-state rings
    // from one budget per "full token"; that sizing is not modelled.
    diags.error(scenario.model.given() ? scenario.model.loc : *p.flags.raw.location("--model-path"),
                p.model.name + " (" + p.model.hf_architecture +
                    "): SGLang's DeepSeek-V4 pools (a sliding-window pool, compressed and indexer "
                    "pools and compressor-state rings sized from one budget) are not modelled");
    return std::nullopt;
  }
  if (!check_quantized_kernels(p, scenario, diags)) return std::nullopt;

  // The mfs heuristic reads nvidia-smi's memory.total in MiB.
  const double gpu_mem_mib = static_cast<double>(p.gpu.memory_total.value()) / (1 << 20);
  if (!check_release_features(p, scenario.engine, diags)) return std::nullopt;
  p.args =
      resolve_server_args(p.flags, p.version, gpu_mem_mib, p.model.attention == AttentionKind::kMla,
                          p.model.hf_architecture, p.model.vision);
  p.facts = resolve_model_facts(p.model, p.flags, p.args.speculative, p.gpu,
                                p.env.allow_longer_context, diags);
  if (p.model.family == ArchitectureFamily::kLlama4) {
    if (!check_llama4(p, scenario.engine, diags)) return std::nullopt;
    // sglang mllama4.py: no vision model or projector without --enable-multimodal.
    p.model.vision = VisionTower{};
  }
  if (const std::optional<Version> first = first_serving_release(p.model);
      first && p.version < *first) {
    diags.error(scenario.engine.version_loc, p.model.hf_architecture + " is not served by SGLang " +
                                                 p.version.to_string() + " (from " +
                                                 first->to_string() + ")");
    return std::nullopt;
  }
  if (p.model.family == ArchitectureFamily::kGemma4) {
    // sglang hf_transformers_utils.py get_config rewrites Gemma 4's text config so that its
    // SWA pool keys the full layers' head size and KV heads apart from the sliding ones', and
    // gemma4_mm.py builds its own TP-sharded vision encoder (gemma4_vision.py) on every launch;
    // neither is modelled.
    diags.error(scenario.model.given() ? scenario.model.loc : *p.flags.raw.location("--model-path"),
                p.model.name + " (" + p.model.hf_architecture +
                    "): SGLang's Gemma 4 is not modelled (its SWA pool of two head sizes and its "
                    "own vision encoder); vLLM is modelled");
    return std::nullopt;
  }
  // sglang models/olmo2.py registers Olmo2ForCausalLM only (OLMo 3 runs there through an
  // out-of-tree package that subclasses it); its attention builds no sliding window, so
  // OLMo 3's window layers would hold full KV by rules no release states.
  if (p.model.hf_architecture == "Olmo3ForCausalLM") {
    diags.error(scenario.model.given() ? scenario.model.loc : *p.flags.raw.location("--model-path"),
                p.model.name +
                    " (Olmo3ForCausalLM): SGLang has no model class for OLMo 3 (models/olmo2.py "
                    "serves Olmo2ForCausalLM, without sliding windows); vLLM is modelled");
    return std::nullopt;
  }
  if (p.model.linear.present() && !plan_mamba_cache(p, scenario.engine, diags)) {
    return std::nullopt;
  }
  if (p.facts.sparse_attention && !check_sparse_attention(p, scenario, diags)) {
    return std::nullopt;
  }
  for (const char* flag : {"--nsa-prefill-backend", "--nsa-decode-backend"}) {
    // server_args.py reads them for DSA models only; elsewhere they would be ignored.
    if (!p.facts.sparse_attention && p.flags.raw.location(flag)) {
      diags.error(*p.flags.raw.location(flag),
                  std::string(flag) + " chooses DeepSeek DSA kernels; " + p.model.name +
                      " has no sparse-attention indexer");
      return std::nullopt;
    }
  }
  if (!p.facts.sparse_attention && p.facts.attention_backend == "nsa") {
    // nsa_backend.py NativeSparseAttnBackend reads the indexer's top-k of DSA models only.
    diags.error(*p.flags.raw.location("--attention-backend"),
                "--attention-backend nsa serves DeepSeek DSA models (a config with index_topk); " +
                    p.model.name + " has no sparse-attention indexer");
    return std::nullopt;
  }
  if (p.model.family == ArchitectureFamily::kExaone4 && p.model.sliding_window > 0 &&
      p.facts.attention_backend != "fa3" && p.facts.attention_backend != "triton" &&
      p.facts.attention_backend != "trtllm_mha") {
    // sglang server_args.py _handle_model_specific_adjustments (Exaone4ForCausalLM with a
    // sliding_window_pattern): hybrid SWA memory off, and only these backends.
    diags.error(p.flags.raw.location("--attention-backend").value_or(scenario.engine.name_loc),
                "AssertionError: EXAONE 4.0 with sliding windows runs on the fa3, triton or "
                "trtllm_mha attention backend, not " +
                    p.facts.attention_backend);
    return std::nullopt;
  }
  p.served_dtype =
      torch_dtype_name(p.model.dtype == DType::kFloat32 ? DType::kFloat16 : p.model.dtype);
  if (p.flags.dtype == "half" || p.flags.dtype == "float16") p.served_dtype = "torch.float16";
  if (p.flags.dtype == "bfloat16") p.served_dtype = "torch.bfloat16";

  // Custom all-reduce of the TP group (sglang v0.5.9 parallel_state.py GroupCoordinator).
  CustomAllReduceConditions car;
  car.group_size = p.tp;
  car.spans_nodes = p.tp > p.gpus_per_node;
  const Interconnect link = scenario.hardware.interconnect.value_or(p.gpu.interconnect);
  car.full_nvlink = link == Interconnect::kNvlink;
  car.peer_to_peer = p.gpu.peer_to_peer;
  car.disabled_by_flag = p.flags.disable_custom_all_reduce;
  car.pcie_gate_patched = p.env.patch_custom_all_reduce_on_pcie;
  p.custom_all_reduce = decide_custom_all_reduce(car);

  // sglang v0.5.9 entrypoints/engine.py _set_envs_and_config: NCCL_CUMEM_ENABLE is set to
  // --enable-symm-mem (so cuMem is off) unless the environment already sets it, and NVLink
  // multicast is off.
  p.nccl = p.env.nccl;
  if (!p.nccl.cumem_enable) p.nccl.cumem_enable = p.flags.enable_symm_mem;
  p.nccl.nvls_enable = false;

  if (!check_cpu_offload(p, diags)) return std::nullopt;
  WeightRules rules;
  rules.device_sm_count = p.gpu.sm_count;
  // sglang v0.5.9 modelopt_quant.py ModelOptFp4LinearMethod.process_weights_after_loading
  // adds weight_scale_interleaved beside weight_scale; compressed_tensors_w4a4_nvfp4.py
  // replaces weight_scale with the swizzled copy.
  rules.nvfp4_layout = p.model.quantization.method == QuantMethod::kModelOptNvfp4
                           ? Nvfp4Layout::kSwizzledBesideRaw
                           : Nvfp4Layout::kSwizzledScales;
  for (int stage = 0; stage < p.pp; ++stage) {
    StagePlan s;
    ParallelLayout layout{
        p.tp, 0, p.pp, stage, p.flags.ep_size, p.flags.enable_dp_attention, p.flags.dp_size};
    s.layers = pp_layer_range(p.model.num_hidden_layers, stage, p.pp);
    Result<WeightList> w = rank_weights(p.model, layout, rules, in.cache);
    if (!w.ok()) {
      diags.error(tp_loc, "the model's weights cannot be laid out for this layout: " +
                              w.status().message());
      return std::nullopt;
    }
    s.weights = std::move(*w);
    if (p.flags.cpu_offload_gb > 0) {
      // utils/offloader.py create_offloader: int(cpu_offload_gb * 1024**3) bytes per rank (the
      // flag reader bounds an int to 2^31 - 1, so the product stays inside int64).
      OffloadedWeights o = offload_decoder_layers(s.weights, gib(p.flags.cpu_offload_gb));
      s.weights = std::move(o.weights);
      s.offloaded_to_cpu = o.offloaded;
      s.offloaded_layers = std::move(o.by_layer);
    }
    if (scenario.observed.weight_load_usage) {
      // sglang v0.5.9 model_runner.py load_model: "mem usage" is the free memory the target's
      // weights took on this rank; pinned, it is what they hold, whatever checkpoint the
      // catalog model stands in for.
      s.weights = pinned_weights(*scenario.observed.weight_load_usage);
    }
    s.kv = kv_geometry(p.model, p.facts, p.attention_tp, s.layers);
    s.kv.cell_counts_stored_latent =
        p.facts.sparse_attention && p.rules.dsa_cell_counts_stored_latent;
    if (p.draft) {
      ParallelLayout draft_layout = layout;
      draft_layout.pp_size = 1;
      draft_layout.pp_rank = 0;
      Result<WeightList> dw =
          draft_weights(*p.draft, p.model, p.facts.context_len, draft_layout, rules, in.cache);
      if (!dw.ok()) {
        diags.error(p.flags.raw.location("--speculative-draft-model-path")
                        .value_or(*p.flags.raw.location("--speculative-algorithm")),
                    "the draft model cannot be laid out: " + dw.status().message());
        return std::nullopt;
      }
      s.draft_weights = *dw;
      ModelFacts draft_facts = p.facts;
      draft_facts.use_mla = p.draft->attention == AttentionKind::kMla;
      draft_facts.hybrid_swa = false;
      draft_facts.sparse_attention = draft_facts.use_mla && p.draft->mla.sparse_indexer();
      s.draft_kv = kv_geometry(*p.draft, draft_facts, p.attention_tp,
                               LayerRange{0, p.draft->num_hidden_layers});
      s.draft_kv.cell_counts_stored_latent = s.kv.cell_counts_stored_latent;
    }
    p.stages.push_back(std::move(s));
  }

  p.graph.max_bs = p.args.cuda_graph_max_bs;
  p.graph.tokens_per_bs =
      p.args.speculative.algorithm.empty() ? 1 : p.args.speculative.num_draft_tokens;
  p.graph.attention_tp = p.attention_tp;
  p.graph.tp = p.tp;
  p.graph.ep = p.flags.ep_size;
  p.graph.moe_tp = p.tp / p.flags.ep_size;
  p.observed = scenario.observed;
  if (diags.count() != errors_before) return std::nullopt;
  return p;
}

}  // namespace gpumem::sglang
