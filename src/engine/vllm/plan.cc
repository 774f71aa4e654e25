#include "engine/vllm/plan.h"

#include <algorithm>
#include <array>

#include "catalog/nextn_draft.h"
#include "catalog/qwen_mtp_draft.h"
#include "core/spelling.h"
#include "engine/config_overrides.h"
#include "engine/model_resolution.h"
#include "engine/online_quantization.h"
#include "engine/retired_flags.h"
#include "engine/vllm/added_flags.h"
#include "engine/vllm/deepseek_v4_kv.h"
#include "engine/vllm/older_flags.h"
#include "engine/vllm/plan_checks.h"
#include "weights/cpu_offload.h"
#include "weights/draft_weights.h"
#include "weights/pinned_weights.h"
#include "weights/rank_weights.h"

namespace gpumem::vllm {
namespace {

// The --quantization values that name a checkpoint's method as vLLM loads it (vllm
// layers/quantization/__init__.py QUANTIZATION_METHODS; awq_marlin.py and gptq_marlin.py
// override_quantization_method turn awq and gptq checkpoints into their Marlin methods).
bool names_checkpoint_method(std::string_view flag, const Quantization& q) {
  switch (q.method) {
    case QuantMethod::kFp8Block:
    case QuantMethod::kFp8PerTensor:
      return flag == "fp8";
    case QuantMethod::kModelOptFp8:
    case QuantMethod::kModelOptFp8PerChannel:
      return flag == "modelopt";
    case QuantMethod::kCompressedTensorsWna16:
      return flag == "compressed-tensors";
    case QuantMethod::kMxfp4:
      return flag == "mxfp4";
    case QuantMethod::kAwq:
      return flag == "awq_marlin" || flag == "marlin";
    // auto_round.py AutoRoundConfig.get_name "auto-round" (PR #31716 maps it to INC; the
    // club-3090 composes pass auto_round); its GPTQ-layout layers run as gptq_marlin.
    case QuantMethod::kGptq:
      return flag == "gptq_marlin" || flag == "marlin" ||
             (q.auto_round && (flag == "auto-round" || flag == "auto_round" || flag == "inc"));
    // modelopt.py ModelOptNvFp4Config.override_quantization_method turns a ModelOpt NVFP4
    // checkpoint's method into modelopt_fp4 whatever the flag, so --quantization modelopt
    // passes _verify_quantization too.
    case QuantMethod::kModelOptNvfp4:
      return flag == "modelopt_fp4" || flag == "modelopt";
    case QuantMethod::kCompressedTensorsNvfp4:
    case QuantMethod::kCompressedTensorsW8a8:
      return flag == "compressed-tensors";
    case QuantMethod::kBitsAndBytes4:
      return flag == "bitsandbytes";
    case QuantMethod::kFbgemmFp8:
      return flag == "fbgemm_fp8";
    case QuantMethod::kNone:
      return false;
  }
  return false;
}

// vLLM's NVFP4 kernels: weight-only checkpoints (no activation scales) and GPUs without FP4
// tensor cores take Marlin (compressed_tensors_w4a16_nvfp4.py, PR #18000; kernels/linear
// _POSSIBLE_NVFP4_KERNELS); Blackwell runs CUTLASS / FlashInfer on the swizzled scales.
Nvfp4Layout nvfp4_layout(const Plan& p) {
  if (!p.model.quantization.activation_scales || p.gpu.compute_capability_major < 10) {
    return Nvfp4Layout::kMarlin;
  }
  return p.rules.nvfp4_swizzled_scales_replace ? Nvfp4Layout::kSwizzledScales
                                               : Nvfp4Layout::kSwizzledBesideRaw;
}

// Whether vLLM's profile of the model's tower is modelled (encoder_profile.h): the Qwen ViTs,
// Gemma 3's SigLIP, LLaVA's CLIP and Gemma 4's tower.
bool profiles_vit(const VisionTower& v) {
  return v.kind == VisionKind::kQwen3Vit || v.kind == VisionKind::kQwen25Vit ||
         v.kind == VisionKind::kQwen2Vit || v.kind == VisionKind::kSiglip ||
         v.kind == VisionKind::kClip || v.kind == VisionKind::kGemma4Vit;
}

// Whether this launch leaves the tower unbuilt: vllm models/qwen3_vl.py, qwen3_5.py and
// gemma3_mm.py build it inside _mark_tower_model, which skips it when every modality the
// model takes has a limit of 0 (Gemma 3 takes images only), and qwen2_5_vl.py leaves `visual`
// None (load_weights then skips "visual."); profile_run then runs no encoder.
bool tower_skipped(const Plan& p) {
  if (p.model.vision.kind == VisionKind::kMoonVit) {
    // kimi_k25.py: the tower's one modality is vision_chunk (images and videos are chunks of
    // it), so only its limit, or --language-model-only, which zeroes every limit, skips it;
    // _mark_tower_model wraps the tower from 0.16.0 (UNCONFIRMED), 0.15 always builds it.
    return p.version >= Version{0, 16, 0, 0} &&
           (p.flags.language_model_only || p.flags.vision_chunk_limit == 0);
  }
  if (p.model.vision.kind == VisionKind::kGemma4Vit) {
    // gemma4_mm.py builds the tower inside _mark_tower_model for images and videos.
    return p.flags.multimodal_off ||
           (p.flags.image_limit.value_or(1) == 0 && p.flags.video_limit.value_or(1) == 0);
  }
  if (p.model.vision.kind == VisionKind::kSiglip) {
    return p.flags.images_off || p.flags.multimodal_off;
  }
  if (p.model.vision.kind == VisionKind::kClip) {
    // llava.py LlavaForConditionalGeneration.__init__: no tower or projector when the image
    // limit is 0 (PR #22299, Aug 2025, taken as 0.10.2 as for Mistral 3); llava_next.py builds
    // them inside _mark_tower_model in its 2026 copy (PR #32757, merged 2026-01-21, taken as
    // 0.16.0); before, whether LLaVA-NeXT skips them is not pinned (plan refuses).
    const Version from =
        p.model.vision.grid_pinpoints.empty() ? Version{0, 10, 2, 0} : Version{0, 16, 0, 0};
    return (p.flags.images_off || p.flags.multimodal_off) && p.version >= from;
  }
  if (p.model.vision.kind == VisionKind::kQwen25Vit ||
      p.model.vision.kind == VisionKind::kQwen2Vit) {
    // qwen2_5_vl.py and qwen2_vl.py leave `visual` None without images and videos (PR #22299,
    // Aug 2025, taken as 0.10.2 as for LLaVA).
    return p.flags.multimodal_off && p.version >= Version{0, 10, 2, 0};
  }
  return profiles_vit(p.model.vision) && p.flags.multimodal_off;
}

// vllm config/vllm.py VllmConfig.__post_init__ (2026): --enforce-eager and -O0 compile nothing
// (mode NONE), otherwise the mode is VLLM_COMPILE; custom_ops without "all" or "none" gets
// "none" under Inductor with a mode above NONE, "all" otherwise. model_executor/custom_op.py
// CustomOp.enabled: "+op" or the default on, and no "-op" (op "rms_norm", "quick_gelu").
bool custom_op_runs_native(const EngineFlags& f, std::string_view op) {
  const bool compiled = !f.enforce_eager && f.optimization_level.value_or(3) != 0 &&
                        f.compilation_mode.value_or(3) != 0;
  const auto has = [&](std::string_view name) {
    return std::find(f.custom_ops.begin(), f.custom_ops.end(), name) != f.custom_ops.end();
  };
  const bool default_on = has("all") || (!has("none") && !compiled);
  return !((has("+" + std::string(op)) || default_on) && !has("-" + std::string(op)));
}

// vLLM's own conventions where they differ from WeightRules' defaults (SGLang's).
// vllm config/speculative.py: method "mtp" drafts with the target checkpoint's own MTP layer
// (models/deepseek_mtp.py DeepSeekMTP, glm4_moe_mtp.py Glm4MoeMTP: enorm, hnorm, an unsharded
// eh_proj, the layer, shared_head), the module set of SGLang's NextN draft.
void plan_mtp_draft(Plan& p, const ScenarioEngine& engine, Diagnostics& diags) {
  const SpeculativeFlags& s = *p.flags.speculative;
  const SourceLoc where = *p.flags.raw.location("--speculative-config");
  // PR #25232 (September 2025) folded the per-model names into "mtp": taken as 0.11.0.
  if (s.method_as_written == "mtp" && p.version < Version{0, 11, 0, 0}) {
    diags.error(engine.version_loc, "--speculative-config method mtp is not a method of vLLM " +
                                        p.version.to_string() +
                                        " (from 0.11.0; before it, deepseek_mtp or glm4_moe_mtp)");
    return;
  }
  const std::string& arch = p.model.hf_architecture;
  const bool qwen = p.model.is_qwen_hybrid();
  if (arch != "DeepseekV3ForCausalLM" && arch != "Glm4MoeForCausalLM" && !qwen) {
    diags.error(where, "--speculative-config method " + s.method_as_written + " with " + arch +
                           " is not modelled (gpumem models vLLM's DeepSeek-V3, GLM-4.5, "
                           "Qwen3-Next and Qwen3.5/3.6 MTP drafts)");
    return;
  }
  // vllm PR #38832 (merged 2026-04-02, taken as first released in 0.19.0): a ModelOpt NVFP4
  // checkpoint stores the Qwen MTP block's fc in bfloat16 without excluding it, and vLLM builds
  // that fc unquantized; before it, loading the draft fails ("AssertionError" in
  // parameter.py). The MTP layer itself follows the checkpoint's exclude_modules.
  const bool qwen_modelopt_fc = qwen &&
                                p.model.quantization.method == QuantMethod::kModelOptNvfp4 &&
                                p.version >= Version{0, 19, 0, 0};
  if (p.model.quantization.is_nvfp4() && !qwen_modelopt_fc) {
    diags.error(where, "--speculative-config method " + s.method_as_written +
                           " with an NVFP4 checkpoint is not modelled: " +
                           (qwen ? "vLLM builds the MTP block's bfloat16 fc unquantized only for "
                                   "ModelOpt NVFP4 and from PR #38832 (taken as 0.19.0)"
                                 : "whether vLLM's MTP layer keeps the target's quantization is "
                                   "not pinned down"));
    return;
  }
  if (!qwen && p.model.num_nextn_predict_layers != 1) {
    diags.error(where, "--speculative-config method " + s.method_as_written + " with " +
                           std::to_string(p.model.num_nextn_predict_layers) +
                           " MTP layers (num_nextn_predict_layers) is not modelled; gpumem "
                           "models a checkpoint with one");
    return;
  }
  Result<Architecture> draft = qwen ? qwen_mtp_draft(p.model) : nextn_draft(p.model);
  if (!draft.ok()) {
    diags.error(where, "--speculative-config method " + s.method_as_written + ": " +
                           draft.status().message());
    return;
  }
  p.draft = std::move(*draft);
}

WeightRules weight_rules(const Plan& p) {
  WeightRules r;
  r.engine = "vLLM";
  r.device_sm_count = p.gpu.sm_count;
  r.gptq_machete = p.gpu.compute_capability_major == 9 && p.gpu.compute_capability_minor == 0;
  r.gptq_exllama_fallback = p.facts.served_dtype == DType::kFloat16;
  r.nvfp4_layout = nvfp4_layout(p);
  r.fp8_marlin = p.gpu.compute_capability_major * 10 + p.gpu.compute_capability_minor < 89;
  // vllm layers/quantization/mxfp4.py get_mxfp4_backend: Marlin below compute capability 9 and
  // where torch is older than 2.8 (v0.10.1 ships 2.7.1; 2.8 from v0.10.2), Triton on Hopper
  // after; Mxfp4MoEMethod.create_weights pads the experts for each: Marlin's intermediate
  // size per rank to 128 and hidden size to 256 ("n % 256 == 0 and k % 128 == 0"), Triton's
  // intermediate to 64. Blackwell's FlashInfer paths keep SGLang's figures here.
  const bool mxfp4_marlin =
      p.gpu.compute_capability_major < 9 ||
      (p.gpu.compute_capability_major == 9 && p.version < Version{0, 10, 2, 0});
  if (mxfp4_marlin) {
    r.mxfp4_intermediate_multiple = 128;
    r.mxfp4_hidden_multiple = 256;
  } else if (p.gpu.compute_capability_major == 9) {
    r.mxfp4_intermediate_multiple = 64;
    r.mxfp4_triton_layout = true;
  }
  r.fp8_per_tensor_channelwise = false;
  r.bnb_dequantized_absmax = true;
  r.online_fp8_per_module = p.rules.online_fp8_per_module;
  r.fbgemm_fused_names_literal = false;
  // vllm layers/rotary_embedding.py RotaryEmbedding.__init__: cos_sin_cache.to(dtype), the
  // model dtype.
  r.rope_cache_dtype = p.facts.served_dtype;
  // vllm layers/rotary_embedding/mrope.py MRotaryEmbedding.__init__: "We enlarge
  // max_position_embeddings to 4 times to get a larger the cos and sin cache" (video positions
  // run past the context).
  r.mrope_cache_factor = 4;
  r.transformers_rope = on_transformers_backend(p.model);
  // vllm models/deepseek_v2.py DeepseekV2MoE: the shared experts stay a separate MLP (the
  // fused form is ROCm AITER only).
  r.shared_experts_fusion = false;
  r.float32_glm_router = true;
  r.float32_ernie_router = true;
  // vllm v1/attention/backends/mla/common.py MLACommonImpl.process_weights_after_loading:
  // W_UK and W_UV are views of kv_b_proj's weight, a kept bfloat16 copy only when the
  // weight had to be dequantized.
  r.mla_absorbed_copies = p.model.quantization.method != QuantMethod::kNone;
  // vllm layers/mamba/linear_attn.py MiniMaxText01RMSNormTP.__init__ (MiniMax-M2's k_norm):
  // the weight is hidden_size / tp wide, never a whole head per rank.
  r.per_layer_k_norm_whole_heads = false;
  // vllm llama4.py Llama4Attention: RMSNorm(head_dim, has_weight=False).
  r.llama4_qk_norm_weight = false;
  // vllm glm4.py Glm4DecoderLayer: qkv_bias=getattr(config, "attention_bias", False).
  r.glm4_qkv_bias_always = false;
  r.gemma3_hf_text_model = false;
  // vllm nemotron_h.py NemotronHMoE.__init__: shared_experts, then the (Shared)FusedMoE.
  r.nemotron_shared_experts_first = true;
  // vllm distributed/utils.py get_pp_indices.
  r.pp_partition = PpPartition::kExtraBeforeLastStage;
  r.draft_embedding_freed_after_kv = false;
  // vllm PR #34385 (merged 2026-02-11) shares the target's lm_head with an MTP layer's
  // shared_head.head; taken as first released in 0.17.0, since whether 0.16.0 carries it is
  // not pinned down.
  r.nextn_head_shared = p.version >= Version{0, 17, 0, 0};
  if (p.model.vision.kind == VisionKind::kQwen3Vit) {
    r.deepstack_buffer_rows = p.args.max_num_batched_tokens;
  }
  return r;
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
    diags.error(scenario.engine.version_loc, "vLLM version '" + scenario.engine.version +
                                                 "' is not modelled; gpumem models " +
                                                 modelled_range());
    return std::nullopt;
  }
  p.version = *version;
  p.rules = rules_for(p.version);
  p.flags = read_engine_flags(scenario.engine, p.rules, diags);
  check_retired_flags(
      p.flags.raw, older_release_flags(), "vLLM", p.version.to_string(),
      [&](std::string_view removed_in) { return p.version >= parse_version(removed_in).value(); },
      diags);
  check_added_flags(
      p.flags.raw, newer_release_flags(), "vLLM", p.version.to_string(),
      [&](std::string_view added_in) { return p.version < parse_version(added_in).value(); },
      diags);
  // vllm usage/usage_lib.py UsageContext: `vllm serve` is OPENAI_API_SERVER, the Python LLM
  // class LLM_CLASS (entrypoints/llm.py), whose batch defaults differ.
  static const std::array<std::string, 2> kEntries = {"serve", "offline"};
  if (std::find(kEntries.begin(), kEntries.end(), scenario.engine.entry) == kEntries.end()) {
    diags.error(scenario.engine.entry_loc,
                "unknown entry '" + scenario.engine.entry +
                    "'; expected serve (vllm serve) or offline (the Python LLM class)" +
                    did_you_mean(scenario.engine.entry, kEntries));
  }
  p.flags.offline = scenario.engine.entry == "offline";
  p.env = read_environment(scenario.engine, diags);
  p.tp = p.flags.tp_size;
  p.pp = p.flags.pp_size;
  p.dp = p.flags.dp_size;
  const int have = scenario.total_gpus();
  if (have > 0 && p.world_size() != have) {
    diags.error(scenario.hardware.count_loc,
                "the hardware has " + std::to_string(have) + " GPUs but --tensor-parallel-size " +
                    std::to_string(p.tp) + " × --pipeline-parallel-size " + std::to_string(p.pp) +
                    (p.dp > 1 ? " × --data-parallel-size " + std::to_string(p.dp) : "") + " uses " +
                    std::to_string(p.world_size()));
  }
  const GpuSpec* gpu = gpus.find(scenario.hardware.gpu);
  const bool model_named = scenario.model.given() || p.flags.raw.string("--model");
  if (gpu == nullptr || !model_named) return std::nullopt;  // reported by the scenario reader
  p.gpu = *gpu;
  if (p.gpu.compute_capability_major < 8) {
    // vllm engine/arg_utils.py _is_v1_supported_oracle (0.10.1) sends compute capability below
    // 8.0 to the V0 engine; from 0.10.2 (PR #23614) V1 runs there on FlexAttention, later
    // FlashInfer (sm75) or Triton by release (platforms/cuda.py), and casts bfloat16 to float16.
    diags.error(scenario.hardware.gpu_loc,
                p.gpu.name + " has compute capability " +
                    std::to_string(p.gpu.compute_capability_major) + "." +
                    std::to_string(p.gpu.compute_capability_minor) +
                    ": vLLM's engine below 8.0 (V0 in 0.10.1, then FlexAttention, FlashInfer or "
                    "Triton attention by release, float16 for bfloat16) is not modelled");
    return std::nullopt;
  }
  std::optional<ResolvedModel> model =
      resolve_scenario_model(scenario, p.flags.raw, "--model", models, diags);
  if (p.flags.speculative && p.flags.speculative->model) {
    std::optional<ResolvedModel> draft = resolve_model_reference(
        *p.flags.speculative->model, *p.flags.raw.location("--speculative-config"), scenario.file,
        models, diags);
    if (draft) p.draft = std::move(draft->architecture);
  }
  if (!model) return std::nullopt;
  std::optional<std::string> source = weights_source(
      *model, scenario.model.given() ? scenario.model.loc : *p.flags.raw.location("--model"),
      diags);
  if (!source) return std::nullopt;
  p.weights_source = std::move(*source);
  p.model_assumed = model->assumed;
  p.model = std::move(model->architecture);
  if (!apply_config_overrides(p.flags.raw, "--hf-overrides", p.model, diags)) return std::nullopt;
  // vllm (before PR #28006) engine/arg_utils.py: --rope-scaling replaced config.json's
  // rope_scaling, as --hf-overrides '{"rope_scaling": ...}' does.
  if (!apply_config_key_flag(p.flags.raw, "--rope-scaling", "rope_scaling", p.model, diags)) {
    return std::nullopt;
  }
  p.nodes = scenario.hardware.nodes;
  p.gpus_per_node = scenario.hardware.gpus_per_node;
  p.preoccupied.assign(static_cast<size_t>(scenario.total_gpus()), bytes(0));
  for (const auto& [index, held] : scenario.hardware.preoccupied) {
    for (int node = 0; node < p.nodes; ++node) {
      p.preoccupied[static_cast<size_t>(node * p.gpus_per_node + index)] = held;
    }
  }

  const SourceLoc tp_loc =
      p.flags.raw.location("--tensor-parallel-size").value_or(scenario.engine.name_loc);
  if (p.model.vision.kind == VisionKind::kMoonVit && p.version < Version{0, 15, 0, 0}) {
    // vllm PR #33131 (models/kimi_k25.py, merged 2026-01-27): taken as first released in
    // 0.15.0, whose documentation is the first to list it (UNCONFIRMED).
    diags.error(scenario.engine.version_loc, p.model.hf_architecture + " is not served by vLLM " +
                                                 p.version.to_string() + " (from 0.15.0)");
    return std::nullopt;
  }
  if (p.model.hf_architecture.starts_with("Qwen3VL") && p.version < Version{0, 11, 0, 0}) {
    // vllm PR #24727 added models/qwen3_vl.py and qwen3_vl_moe.py (v0.11.0 release notes).
    diags.error(scenario.engine.version_loc, p.model.hf_architecture + " is not served by vLLM " +
                                                 p.version.to_string() + " (from 0.11.0)");
    return std::nullopt;
  }
  if (tower_skipped(p)) p.model.vision = VisionTower{};
  const bool images_off = p.flags.images_off || p.flags.multimodal_off;
  if (p.model.vision.kind == VisionKind::kPixtral && images_off &&
      p.version >= Version{0, 10, 2, 0}) {
    // vllm models/mistral3.py Mistral3ForConditionalGeneration.__init__ (PR #22299, Aug 2025):
    // the vision tower and projector exist only when the image limit is above 0.
    p.model.vision = VisionTower{};
  }
  const SourceLoc model_loc =
      scenario.model.given() ? scenario.model.loc : *p.flags.raw.location("--model");
  if (const std::string why = model_impl_refusal(p); !why.empty()) {
    diags.error(*p.flags.raw.location("--model-impl"), why);
    return std::nullopt;
  }
  if (p.model.family == ArchitectureFamily::kGrok) {
    // vllm registry.py maps Grok-1's Grok1ModelForCausalLM (PR #13795, 2025-02); grok1.py's
    // Grok 2 form (residual MoE under Grok1ForCausalLM) came in a release not pinned down.
    diags.error(model_loc, p.model.name + " (" + p.model.hf_architecture +
                               "): the vLLM release that serves Grok 2's layout (grok1.py's "
                               "residual MoE) is not pinned; SGLang is modelled");
    return std::nullopt;
  }
  if (p.model.family == ArchitectureFamily::kDeepseekV4) {
    if (const std::string why = deepseek_v4_refusal(p); !why.empty()) {
      diags.error(model_loc, p.model.name + " (" + p.model.hf_architecture + "): " + why);
      return std::nullopt;
    }
    if (!p.flags.kv_cache_dtype.starts_with("fp8")) {
      // deepseek_v4_attention.py DeepseekV4MLAAttention.__init__ asserts an fp8 cache.
      diags.error(p.flags.raw.location("--kv-cache-dtype").value_or(model_loc),
                  "AssertionError: DeepseekV4 only supports fp8 kv-cache format for now, got " +
                      p.flags.kv_cache_dtype +
                      " (vLLM stops while building the model; pass "
                      "--kv-cache-dtype fp8)");
      return std::nullopt;
    }
  }
  if (p.dp > 1) refuse_unmodelled_data_parallelism(p, diags);
  if (profiles_vit(p.model.vision)) {
    // vllm v1/worker/gpu_model_runner.py profile_run: the ViT runs on dummy images before the
    // language model's dummy forward (encoder_profile.h), sized below once the batch limits
    // are resolved.
    if (const std::string why = vit_profile_refusal(p); !why.empty()) {
      diags.error(model_loc, p.model.name + " (" + p.model.hf_architecture + "): " + why);
      return std::nullopt;
    }
  } else if (p.model.vision.present()) {
    // vllm v1/worker/gpu_model_runner.py profile_run: a multimodal model's encoder runs on
    // dummy images and its outputs stay cached through the memory profile.
    diags.error(model_loc,
                p.model.name + " (" + p.model.hf_architecture +
                    ") is multimodal: vLLM profiles its vision encoder on dummy images, which "
                    "gpumem does not model; " +
                    (p.model.vision.kind == VisionKind::kPixtral
                         ? "from vLLM 0.10.2, --limit-mm-per-prompt with 0 images serves its "
                           "language model alone, which is modelled"
                     : p.model.vision.kind == VisionKind::kMoonVit
                         ? "from vLLM 0.16.0, --language-model-only or --limit-mm-per-prompt "
                           "'{\"vision_chunk\": 0}' serves its language model alone, which is "
                           "modelled (0 images and 0 videos do not: its tower takes "
                           "vision_chunk items)"
                         : "SGLang is modelled"));
    return std::nullopt;
  }
  if (p.model.mla.sparse_indexer()) {
    if (const std::string why = sparse_attention_refusal(p); !why.empty()) {
      diags.error(model_loc, p.model.name + " (" + p.model.hf_architecture + "): " + why);
      return std::nullopt;
    }
  }
  if (p.model.chunked_attention && p.version >= Version{0, 12, 0, 0}) {
    // vllm config/vllm.py VllmConfig.__post_init__: chunked local attention keeps the hybrid
    // KV-cache manager off unless VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE, whose
    // default PR #21761 (0.10.1) set to 0 and PR #29627 to 1 in a release not pinned down.
    diags.error(scenario.engine.version_loc,
                p.model.hf_architecture + "'s chunked-attention layers with vLLM " +
                    p.version.to_string() +
                    " are not modelled: whether the hybrid KV-cache manager keeps only their "
                    "chunks (PR #29627) is not pinned to a release; 0.10.1 to 0.11.x are "
                    "modelled");
    return std::nullopt;
  }
  if (p.model.family == ArchitectureFamily::kGemma4 && p.version < Version{0, 19, 0, 0}) {
    // vllm models/gemma4.py and gemma4_mm.py first shipped in v0.19.0.
    diags.error(scenario.engine.version_loc, p.model.hf_architecture + " is not served by vLLM " +
                                                 p.version.to_string() + " (from 0.19.0)");
    return std::nullopt;
  }
  if (p.model.hf_architecture == "Olmo3ForCausalLM" && p.version < Version{0, 11, 0, 0}) {
    // vllm PR "Add Olmo3" (transformers_utils/configs/olmo3.py, September 2025): taken as
    // first released in 0.11.0, since whether 0.10.2 carries it is not pinned down.
    diags.error(scenario.engine.version_loc, "Olmo3ForCausalLM is not served by vLLM " +
                                                 p.version.to_string() + " (from 0.11.0)");
    return std::nullopt;
  }
  if (p.model.linear.present()) {
    // vllm v0.10.2 added models/qwen3_next.py; PR #25863 (merged 2025-10-23, taken as v0.11.1)
    // NemotronH's MoE layers.
    // Kimi Linear came with PR #27654 (KDA, merged 2025-10-30), taken as v0.11.1.
    const bool nemotron_moe =
        p.model.family == ArchitectureFamily::kNemotronH && p.model.moe.num_experts > 0;
    const bool kimi = p.model.family == ArchitectureFamily::kKimiLinear;
    const Version first = nemotron_moe || kimi ? Version{0, 11, 1, 0} : Version{0, 10, 2, 0};
    if (kimi && p.version == Version{0, 12, 0, 0}) {
      // vllm-project/recipes moonshotai/Kimi-Linear.md: "avoid 0.12.0" (its MLAModules lack
      // indexer_rotary_emb, so KimiMLAAttention does not build).
      diags.error(scenario.engine.version_loc,
                  "KimiLinearForCausalLM does not start on vLLM " + p.version.to_string() +
                      ": its MLA layers fail to build (MLAModules has no indexer_rotary_emb; the "
                      "vLLM recipe says to avoid 0.12.0)");
      return std::nullopt;
    }
    const bool jamba = p.model.family == ArchitectureFamily::kJamba;
    const bool v0_state = jamba || p.model.attention_free();
    if (p.version < first && v0_state) {
      // vllm PR #21249 (July 2025) moved Jamba's Mamba-1 state into V1's KV-cache manager, and
      // the V1 user guide of that summer lists Mamba and Mamba-2; before, V0's
      // MambaCacheManager kept it, which gpumem does not model.
      diags.error(scenario.engine.version_loc,
                  p.model.hf_architecture + " with vLLM " + p.version.to_string() +
                      " is not modelled (from " + first.to_string() +
                      ": V1's hybrid KV-cache manager; V0's MambaCacheManager before it is not)");
      return std::nullopt;
    }
    if (p.version < first) {
      diags.error(scenario.engine.version_loc, p.model.hf_architecture + " is not served by vLLM " +
                                                   p.version.to_string() + " (from " +
                                                   first.to_string() + ")");
      return std::nullopt;
    }
    if (v0_state && p.flags.enable_prefix_caching_given) {
      // vllm config.py MambaModelConfig: prefix caching puts a Mamba model in mamba_cache_mode
      // "all", whose blocks are get_mamba_chunk_size() tokens (2,048 for Mamba-1); older V1
      // jamba.py asserts prefix caching off.
      diags.error(*p.flags.raw.location("--enable-prefix-caching"),
                  "--enable-prefix-caching with " + p.model.hf_architecture +
                      " is not modelled (vLLM's 'all' state-cache mode and its blocks of "
                      "mamba chunks)");
      return std::nullopt;
    }
    if (p.flags.speculative && !p.model.is_qwen_hybrid()) {
      // mamba_utils.py: speculative tokens widen every conv window and add state pages per
      // request (num_speculative_blocks); modelled for the Gated DeltaNet of Qwen's hybrids
      // (model_facts.cc), whose shape functions pass the count, not for the other mixers.
      diags.error(*p.flags.raw.location("--speculative-config"),
                  "--speculative-config with " + p.model.hf_architecture +
                      "'s linear-attention layers is not modelled (the state pages of the "
                      "speculative tokens)");
      return std::nullopt;
    }
  }
  if (p.model.quantization.method == QuantMethod::kBitsAndBytes4 && !p.model.quantization.online &&
      p.tp > 1) {
    // vllm model_loader/bitsandbytes_loader.py _verify_model_compatibility (v0.6.2 to the
    // vllm-bnb-plugin that replaced it in 0.28).
    diags.error(tp_loc,
                "ValueError: Prequant BitsAndBytes models with tensor parallelism is not "
                "supported. Please try with pipeline parallelism.");
    return std::nullopt;
  }
  // vllm config/model.py ModelConfig.verify_with_parallel_config.
  if (p.model.num_attention_heads % p.tp != 0) {
    diags.error(tp_loc, "ValueError: Total number of attention heads (" +
                            std::to_string(p.model.num_attention_heads) +
                            ") must be divisible by tensor parallel size (" + std::to_string(p.tp) +
                            ").");
    return std::nullopt;
  }
  if (p.model.linear.present()) {
    // vllm config.py HybridAttentionMambaModelConfig, after verify_with_parallel_config:
    // mamba_utils.py gated_delta_net_state_shape's divide(num_v_heads, tp) and
    // divide(conv_dim, tp) assert exact division.
    const LinearAttentionConfig& g = p.model.linear;
    const bool groups_split =
        g.num_key_heads % p.tp == 0 || (g.kind == LinearKind::kMamba2 && g.num_key_heads == 1);
    if (g.num_value_heads % p.tp != 0 || !groups_split) {
      diags.error(tp_loc, "AssertionError: " + std::to_string(g.num_value_heads) +
                              " is not divisible by " + std::to_string(p.tp) + " (the " +
                              std::to_string(g.num_value_heads) +
                              " value heads of the linear attention)");
      return std::nullopt;
    }
  }
  // vllm v0.11.0 config/model.py: a pooling runner keeps no KV cache and captures its own
  // graphs; a draft runner serves a speculative proposer alone.
  if (const std::optional<std::string> runner = p.flags.raw.string("--runner");
      runner && (*runner == "pooling" || *runner == "draft")) {
    diags.error(*p.flags.raw.location("--runner"),
                "--runner " + *runner + " is not modelled: gpumem models vLLM's generative runner");
  }
  if (p.flags.quantization && p.model.quantization.method == QuantMethod::kNone) {
    const std::string& method = *p.flags.quantization;
    const std::string why = method == "fp8" ? apply_online_fp8(p.model, p.gpu, "vLLM")
                            : method == "bitsandbytes"
                                ? apply_online_bitsandbytes(p.model)
                                : "--quantization " + method + " quantizes " + p.model.name +
                                      " online, which gpumem does not "
                                      "model; name a quantized checkpoint "
                                      "instead";
    if (!why.empty()) diags.error(*p.flags.raw.location("--quantization"), why);
  } else if (p.flags.quantization &&
             *p.flags.quantization == quant_method_name(p.model.quantization.method) &&
             named_method_skips_marlin(p.model.quantization.method)) {
    // vllm awq_marlin.py / gptq_marlin.py override_quantization_method: only an unset flag or
    // the Marlin name lets the checkpoint run as awq_marlin / gptq_marlin.
    diags.error(*p.flags.raw.location("--quantization"),
                "--quantization " + *p.flags.quantization + " selects vLLM's " +
                    *p.flags.quantization + " kernels instead of " + *p.flags.quantization +
                    "_marlin, which gpumem does not model; leave it unset or name " +
                    *p.flags.quantization + "_marlin");
  } else if (p.flags.quantization &&
             !names_checkpoint_method(*p.flags.quantization, p.model.quantization)) {
    // vllm config/model.py ModelConfig._verify_quantization: the flag must name the
    // checkpoint's method (or the Marlin method it is overridden to); a plain awq or gptq
    // forces the older kernels, which gpumem does not model.
    diags.error(*p.flags.raw.location("--quantization"),
                "--quantization " + *p.flags.quantization + " does not name the checkpoint's " +
                    std::string(quant_method_name(p.model.quantization.method)) +
                    " quantization as gpumem models it (vLLM: \"Quantization method specified in "
                    "the model config does not match the quantization method specified in the "
                    "`quantization` argument\")");
  }
  if (p.flags.speculative && p.flags.speculative->method == "mtp") {
    plan_mtp_draft(p, scenario.engine, diags);
  }
  if (p.draft) {
    if (p.flags.speculative->method == "eagle3" && !p.draft->is_draft_head()) {
      diags.error(*p.flags.raw.location("--speculative-config"),
                  "the eagle3 draft '" + p.draft->name + "' is not an EAGLE-3 head (" +
                      p.draft->hf_architecture + ")");
    }
    if (p.pp > 1) {
      diags.error(*p.flags.raw.location("--speculative-config"),
                  "speculative drafting with --pipeline-parallel-size above 1 is not modelled");
    }
  }

  p.facts = resolve_model_facts(p.model, p.flags, p.gpu, p.rules, p.tp,
                                p.env.allow_long_max_model_len, diags);
  refuse_other_attention_backend(p, diags);
  const DeviceClass device{p.gpu.cuda_total.value_or(p.gpu.memory_total), p.gpu.nvidia_smi_name};
  p.args = resolve_engine_args(p.flags, p.rules, device, p.facts.max_model_len);
  if (p.args.max_num_batched_tokens < p.args.max_num_seqs) {
    // vllm config/scheduler.py SchedulerConfig._verify_args.
    diags.error(p.flags.raw.location("--max-num-batched-tokens")
                    .value_or(p.flags.raw.location("--max-num-seqs").value_or(tp_loc)),
                "ValueError: max_num_batched_tokens (" +
                    std::to_string(p.args.max_num_batched_tokens) +
                    ") must be greater than or equal to max_num_seqs (" +
                    std::to_string(p.args.max_num_seqs) + ").");
  }
  if (profiles_vit(p.model.vision)) {
    const bool chunked_prefill = !p.flags.raw.location("--enable-chunked-prefill") ||
                                 p.flags.raw.boolean("--enable-chunked-prefill");
    const EncoderLimits limits{
        p.args.max_num_batched_tokens, p.args.max_num_seqs, p.args.max_model_len,
        p.flags.image_limit,           chunked_prefill,     p.flags.video_limit};
    p.native_rms_norm = custom_op_runs_native(p.flags, "rms_norm");
    p.native_quick_gelu = custom_op_runs_native(p.flags, "quick_gelu");
    switch (p.model.vision.kind) {
      case VisionKind::kSiglip:
        p.encoder = plan_gemma3_profile(p.model.vision, limits);
        break;
      case VisionKind::kClip:
        p.encoder = plan_llava_profile(p.model.vision, limits);
        break;
      case VisionKind::kGemma4Vit:
        p.encoder = plan_gemma4_profile(p.model.vision, limits);
        break;
      default:
        p.encoder = plan_qwen_vl_profile(p.model.vision, limits);
    }
    if (const std::string why = encoder_outputs_refusal(p); !why.empty()) {
      diags.error(model_loc, p.model.name + " (" + p.model.hf_architecture + "): " + why);
      return std::nullopt;
    }
  }
  if (p.rules.v2_runner_default == V2RunnerDefault::kNever &&
      p.env.use_v2_model_runner.value_or(false)) {
    diags.error(p.env.use_v2_model_runner_loc,
                "VLLM_USE_V2_MODEL_RUNNER=1 before vLLM 0.22.0 runs the experimental Model Runner "
                "V2, which gpumem models from 0.22.0");
  }
  p.runner = choose_model_runner(p.rules, p.model, p.flags, p.env.use_v2_model_runner);
  if (!p.runner.error.empty()) diags.error(p.env.use_v2_model_runner_loc, p.runner.error);
  // vllm v1/worker/gpu_worker.py determine_available_memory (v0.17.0 on): profile_cudagraph_memory
  // runs whenever CUDA graphs will be captured; the environment variable only decides whether
  // its result is subtracted ("Respect the opt-in flag": cudagraph_memory_estimate_applied).
  // Model Runner V2's returns 0 before v0.29.0, and the worker skips what depends on it ("if
  // cudagraph_memory_estimate > 0").
  p.estimate_cudagraphs = p.rules.cudagraph_estimate_exists && !p.args.capture_sizes.empty() &&
                          !p.flags.kv_cache_memory_bytes &&
                          (!p.runner.v2 || p.rules.v2_estimates_cudagraphs);
  p.charge_cudagraph_estimate = p.estimate_cudagraphs && p.env.estimate_cudagraphs.value_or(
                                                             p.rules.cudagraph_estimate_default_on);
  if (const std::string why = newer_release_refusal(p); !why.empty()) {
    diags.error(scenario.engine.version_loc, why);
    return std::nullopt;
  }

  if (scenario.observed.cuda_graph_estimate && !p.estimate_cudagraphs) {
    diags.error(scenario.observed.loc,
                "'cuda_graph_estimate' is pinned but this launch makes no CUDA-graph estimate "
                "(vLLM 0.17.0 or newer, with CUDA graphs and without --kv-cache-memory; Model "
                "Runner V2 from 0.29.0)");
  }
  if (scenario.observed.kv_cache_memory && p.flags.kv_cache_memory_bytes) {
    diags.error(scenario.observed.loc,
                "'kv_cache_memory' is pinned and --kv-cache-memory is given: give one of them");
  }

  // vllm env_override.py before PR #24141: NCCL_CUMEM_ENABLE=0 unless set. NVLink SHARP is
  // left at NCCL's default by vLLM; gpumem's NCCL model runs it off (nccl_topology.cc).
  p.nccl = p.env.nccl;
  if (p.rules.forces_nccl_cumem_off && !p.nccl.cumem_enable) p.nccl.cumem_enable = false;
  p.nccl.nvls_enable = false;

  TpGroupFacts g;
  g.group_size = p.tp;
  g.spans_nodes = p.tp > p.gpus_per_node;
  g.fully_connected =
      scenario.hardware.interconnect.value_or(p.gpu.interconnect) == Interconnect::kNvlink;
  g.peer_to_peer = p.gpu.peer_to_peer;
  g.compute_capability = p.gpu.compute_capability_major * 10 + p.gpu.compute_capability_minor;
  g.disabled_by_flag = p.flags.disable_custom_all_reduce;
  g.symm_mem_requested = p.env.allreduce_use_symm_mem.value_or(p.rules.symm_mem_default_on);
  p.all_reduce = plan_all_reduce(g);

  // vllm layers/fused_moe/config.py FusedMoEParallelConfig.make: a MoE layer spans the TP
  // ranks of every data-parallel rank (flatten_tp_across_dp); with expert parallelism each of
  // them holds whole experts, without it each expert is sliced over all of them.
  const bool moe = p.model.moe.num_experts > 0;
  const int moe_group = p.tp * p.dp;
  p.ep = p.flags.enable_expert_parallel && moe ? moe_group : 1;
  p.shape = {p.tp, moe_group / p.ep, moe ? p.dp : 1};

  if (p.flags.cpu_offload_gb > 0) {
    if (const std::string why = cpu_offload_refusal(p); !why.empty()) {
      diags.error(*p.flags.raw.location("--cpu-offload-gb"), why);
      return std::nullopt;
    }
  }
  const WeightRules rules = weight_rules(p);
  for (int stage = 0; stage < p.pp; ++stage) {
    StagePlan s;
    const ParallelLayout layout{p.tp, 0, p.pp, stage, p.ep, false, 1, p.dp};
    s.layers = pp_layer_range(p.model.num_hidden_layers, stage, p.pp, rules.pp_partition);
    Result<WeightList> w = rank_weights(p.model, layout, rules, in.cache);
    if (!w.ok()) {
      diags.error(tp_loc, "the model's weights cannot be laid out for this layout: " +
                              w.status().message());
      return std::nullopt;
    }
    s.weights = std::move(*w);
    if (p.flags.cpu_offload_gb > 0) {
      // vllm model_executor/offloader/base.py create_offloader: int(cpu_offload_gb * 1024**3)
      // bytes per GPU (models/utils.py set_cpu_offload_max_bytes before it).
      // More than 2^62 bytes offloads every layer as surely and keeps the product in range.
      const Bytes budget = bytes(static_cast<std::int64_t>(
          std::min(p.flags.cpu_offload_gb * 1073741824.0, 4.611686018427388e18)));
      OffloadedWeights o = offload_decoder_layers(s.weights, budget);
      s.weights = std::move(o.weights);
      s.offloaded_to_cpu = o.offloaded;
    }
    // DeepSeek-V4's caches are laid out by deepseek_v4_kv.h, not per layer spec.
    if (p.model.family != ArchitectureFamily::kDeepseekV4) {
      s.kv_layers = kv_layer_specs(p.model, p.facts, p.tp, s.layers);
    }
    if (p.draft) {
      // vllm v1/spec_decode/eagle.py EagleProposer.load_model: the draft is built after the
      // target with the same TP layout (tensors as gpumem's EAGLE-3 head or MTP layer,
      // draft_weights.h; UNCONFIRMED that vLLM's llama_eagle3.py allocates exactly these), and
      // its attention layers join the KV-cache spec (an MTP layer's MLA like the target's).
      Result<WeightList> dw =
          draft_weights(*p.draft, p.model, p.facts.max_model_len, layout, rules, in.cache);
      if (!dw.ok()) {
        diags.error(*p.flags.raw.location("--speculative-config"),
                    "the draft model cannot be laid out: " + dw.status().message());
        return std::nullopt;
      }
      s.draft_weights = *dw;
      ModelFacts draft_facts = p.facts;
      draft_facts.use_mla = p.draft->is_nextn_draft() && p.facts.use_mla;
      for (const KvLayerSpec& d :
           kv_layer_specs(*p.draft, draft_facts, p.tp, LayerRange{0, p.draft->num_hidden_layers})) {
        s.kv_layers.push_back(d);
      }
    }
    if (p.flags.raw.boolean("--disable-hybrid-kv-cache-manager")) {
      if (const std::string why = hybrid_kv_manager_refusal(p, s.kv_layers); !why.empty()) {
        diags.error(*p.flags.raw.location("--disable-hybrid-kv-cache-manager"), why);
        return std::nullopt;
      }
    }
    Result<KvCacheLayout> kv = p.model.family == ArchitectureFamily::kDeepseekV4
                                   ? deepseek_v4_kv_layout(p.model, s.layers)
                                   : group_kv_layers(s.kv_layers, p.rules.uniform_type_kv_groups);
    if (!kv.ok()) {
      diags.error(scenario.model.loc, kv.status().message());
      return std::nullopt;
    }
    s.kv = std::move(*kv);
    if (scenario.observed.model_loading) {
      // vllm v0.10.2 v1/worker/gpu_model_runner.py load_model: model_memory_usage is the
      // torch memory load_model leaves allocated, the drafter's included; pinned, it is what
      // this rank's weights hold, whatever checkpoint the catalog model stands in for.
      s.weights = pinned_weights(*scenario.observed.model_loading);
      s.draft_weights = nullptr;
    }
    p.stages.push_back(std::move(s));
  }
  p.observed = scenario.observed;
  if (diags.count() != errors_before) return std::nullopt;
  return p;
}

}  // namespace gpumem::vllm
