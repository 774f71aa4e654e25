#include "engine/vllm/plan_checks.h"

#include <algorithm>
#include <iterator>

#include "core/lower_case.h"

namespace gpumem::vllm {

// Why vLLM's profile of the tower (encoder_profile.h) cannot be modelled for this launch;
// empty when it can.
std::string vit_profile_refusal(const Plan& p) {
  const VisionKind kind = p.model.vision.kind;
  const bool qwen2_vit = kind == VisionKind::kQwen25Vit || kind == VisionKind::kQwen2Vit;
  // Qwen2-VL and Qwen2.5-VL profile as gpumem models them from 0.12.0: MultiModalBudget's
  // items (PR #22228, 0.10.1), the largest image (the square form before PR #29692 and the
  // factor-pair form after it give the same grid for the checkpoints' processors: their
  // max_pixels is a square of 28-pixel units), the video frames of PR #25557 (0.11.0) and the
  // ViT's cos/sin tables (PR #28798, 0.12.0); encoder_outputs_refusal covers their kept outputs.
  if (kind == VisionKind::kGemma4Vit && p.version >= Version{0, 22, 0, 0}) {
    return "vLLM " + p.version.to_string() +
           " encodes Gemma 4's dummy video frames in batches (from 0.22.0), which gpumem does not "
           "model; --limit-mm-per-prompt with 0 images and 0 videos serves its language model "
           "alone, which is modelled";
  }
  const Version first = qwen2_vit ? Version{0, 12, 0, 0} : Version{0, 16, 0, 0};
  if (p.version < first) {
    // vllm qwen2_vl.py get_image_size_with_most_features (the factor-pair form),
    // qwen3_vl.py's two-frame dummy video (a video of 12.5 tokens a vision token before it,
    // 0.11.x) and multimodal/encoder_budget.py MultiModalBudget are read in their v0.16-on
    // form; before, the dummy video was sized from the sequence length and may have been the
    // modality profiled. Qwen2/2.5-VL leave their tower unbuilt without images and videos
    // from PR #22299 (Aug 2025, taken as 0.10.2 as for LLaVA and Mistral 3).
    return "vLLM " + p.version.to_string() +
           "'s profile of its vision encoder is not modelled (from " + first.to_string() + "); " +
           (kind == VisionKind::kClip
                ? std::string("from ") +
                      (p.model.vision.grid_pinpoints.empty() ? "0.10.2" : "0.16.0") +
                      ", --limit-mm-per-prompt with 0 images serves its language model alone, "
                      "which is modelled"
                : std::string(qwen2_vit ? "from 0.10.2, " : "") +
                      "--limit-mm-per-prompt with 0 images and 0 videos serves its language "
                      "model alone, which is modelled");
  }
  if (p.flags.raw.location("--mm-processor-kwargs")) {
    return "--mm-processor-kwargs sets the multimodal processor's image size, which sizes the "
           "encoder profile's dummy image; gpumem models the checkpoint's default processor";
  }
  if (p.flags.image_limit == 0 && p.model.vision.kind == VisionKind::kQwen3Vit) {
    return "with --limit-mm-per-prompt's image limit 0, vLLM profiles the vision encoder on "
           "dummy videos, which gpumem does not model; limit videos to 0 as well to serve the "
           "language model alone";
  }
  return "";
}

std::string encoder_outputs_refusal(const Plan& p) {
  if (!p.encoder || p.version >= Version{0, 16, 0, 0} ||
      p.encoder->budget <= p.encoder->tokens_per_item) {
    return "";
  }
  // vllm v1/worker/gpu_model_runner.py profile_run: 0.11.0 pads each dummy encoder output it
  // keeps to the encoder budget's rows (PR #25810), the 2026 code to the item's own tokens;
  // they differ only when the budget holds more than one item's tokens.
  return "vLLM " + p.version.to_string() + " keeps each dummy encoder output padded either to " +
         "the encoder budget (" + std::to_string(p.encoder->budget) + " tokens, as 0.11.0 " +
         "does) or to the item's " + std::to_string(p.encoder->tokens_per_item) +
         " tokens (as 0.16.0 does), and which is not pinned; they agree when " +
         "--max-num-batched-tokens is at most " + std::to_string(p.encoder->tokens_per_item);
}

// Why a DeepSeek Sparse Attention model (DeepSeek-V3.2, GLM-5) cannot be modelled for this
// launch; empty when it can.
std::string sparse_attention_refusal(const Plan& p) {
  if (!p.rules.dsa_supported) {
    return "DeepSeek Sparse Attention needs vLLM 0.11.0 or later (DeepseekV32ForCausalLM, PR "
           "#25896)";
  }
  if (p.model.hf_architecture != "DeepseekV32ForCausalLM" && p.version < Version{0, 17, 0, 0}) {
    // GLM-5's architecture arrived in February 2026; the first release is not pinned down.
    return "vLLM " + p.version.to_string() + " with " + p.model.hf_architecture +
           " is not modelled (from 0.17.0; the release that added it is not pinned down)";
  }
  const int major = p.gpu.compute_capability_major;
  if (major != 9 && major != 10) {
    // platforms/cuda.py: the sparse MLA backends (FlashMLA sparse) and the DeepGEMM indexer
    // kernels are built for Hopper (sm90) and datacenter Blackwell (sm100) only.
    return "vLLM's sparse MLA backend and indexer kernels run on Hopper and datacenter "
           "Blackwell only (compute capability 9.0 or 10.x); " +
           p.gpu.name + " is " + std::to_string(major) + "." +
           std::to_string(p.gpu.compute_capability_minor);
  }
  if (p.flags.kv_cache_dtype == "fp8_e5m2") {
    // config/cache.py: a DSA model's fp8 cache is fp8_ds_mla, an e4m3 layout.
    return "--kv-cache-dtype fp8_e5m2 is not a layout of the sparse MLA cache (fp8_ds_mla is "
           "e4m3); fp8 or fp8_e4m3 is modelled";
  }
  if (p.flags.speculative) {
    return "--speculative-config with DeepSeek Sparse Attention is not modelled (the MTP layer "
           "adds a latent and an indexer cache to the one KV-cache group)";
  }
  return "";
}

// Why DeepSeek-V4 cannot be modelled for this launch; empty when it can.
std::string deepseek_v4_refusal(const Plan& p) {
  if (p.version < Version{0, 20, 0, 0}) {
    // vllm PR #40860 ("DeepSeek V4 Rebased", merged 2026-04-27) is in v0.20.0's notes.
    return "DeepseekV4ForCausalLM is not served by vLLM " + p.version.to_string() +
           " (from 0.20.0)";
  }
  if (p.gpu.compute_capability_major != 9) {
    // fused_moe/oracle/mxfp4.py: Hopper runs the MXFP4 experts on Marlin; datacenter
    // Blackwell takes DeepGEMM FP4 or TRTLLM kernels with their own layouts, and no MXFP4 MoE
    // backend serves older or consumer GPUs.
    return "vLLM's DeepSeek-V4 is modelled on Hopper (compute capability 9.x, MXFP4 experts on "
           "Marlin); " +
           p.gpu.name + " is " + std::to_string(p.gpu.compute_capability_major) + "." +
           std::to_string(p.gpu.compute_capability_minor);
  }
  if (p.flags.speculative) {
    return "--speculative-config with DeepSeek-V4 is not modelled (the MTP layer's window cache "
           "joins the KV-cache groups)";
  }
  if (p.dp > 1) return "--data-parallel-size above 1 with DeepSeek-V4 is not modelled";
  return "";
}

std::string newer_release_refusal(const Plan& p) {
  if (p.model.family == ArchitectureFamily::kDeepseekV4 && p.version >= Version{0, 23, 0, 0}) {
    // deepseek_v4_kv.h: PR #44454 (v0.23.0) counts only the occupied slots of a block.
    return "vLLM " + p.version.to_string() +
           " lays DeepSeek-V4's caches out by their occupied slots only (PR #44454, 0.23.0), "
           "which gpumem does not model; it models DeepSeek-V4 in vLLM 0.20.0 to 0.22.x";
  }
  if (p.model.family == ArchitectureFamily::kGemma4 && p.version >= Version{0, 26, 0, 0}) {
    // vllm issue #49878: the same launch gets about 40 % more KV cache in 0.26 than in 0.25.1,
    // for a cause not pinned down.
    return "vLLM " + p.version.to_string() +
           " sizes Gemma 4's KV cache about 40 % larger than 0.25.1 does (vllm issue #49878), for "
           "a cause gpumem has not pinned down; it models Gemma 4 in vLLM up to 0.25.x";
  }
  if (p.model.is_qwen_hybrid() && !p.runner.v2 && p.charge_cudagraph_estimate &&
      p.version >= Version{0, 26, 0, 0}) {
    // vllm issue #50780: from 0.26.0 the V1 runner's first FULL sample runs a forward whose
    // Gated DeltaNet transient (about 128 KiB a batched token) the estimate charges as graphs.
    return "vLLM " + p.version.to_string() +
           "'s V1 CUDA-graph estimate of a Gated DeltaNet model charges a transient of its first "
           "FULL sample that grows with --max-num-batched-tokens (vllm issue #50780, from "
           "0.26.0), which gpumem does not model; VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0 "
           "or -O0 launches are modelled";
  }
  return "";
}

void refuse_other_attention_backend(const Plan& p, Diagnostics& diags) {
  const auto check = [&](std::string_view what, const std::string& value, const SourceLoc& at) {
    // vllm v0.21 config/attention.py AttentionConfig.validate_backend_before: "auto" in any
    // case is no choice (None), any other name is looked up upper-cased.
    if (equals_ignoring_case(value, "auto") ||
        equals_ignoring_case(value, p.facts.attention_backend)) {
      return;
    }
    // An empty value (a set but empty variable) is looked up as '' and matches no backend.
    const std::string shown = value.empty() ? "''" : value;
    diags.error(at, std::string(what) + " " + shown +
                        " is not modelled: gpumem models the backend vLLM chooses itself for " +
                        p.model.hf_architecture + " on this GPU, " + p.facts.attention_backend +
                        "; another has its own workspaces and KV-cache block constraints");
  };
  if (const std::optional<std::string> flag = p.flags.raw.string("--attention-backend")) {
    check("--attention-backend", *flag, *p.flags.raw.location("--attention-backend"));
  }
  if (p.env.attention_backend) {
    check("VLLM_ATTENTION_BACKEND", *p.env.attention_backend, p.env.attention_backend_loc);
  }
}

std::string model_impl_refusal(const Plan& p) {
  const std::string impl = p.flags.raw.string("--model-impl").value_or("auto");
  if (impl == "auto" || impl == "vllm") return "";
  // vllm config/model.py ModelImpl; model_executor/model_loader/utils.py resolve_transformers_arch
  // takes the backend where the registry has no class, as for SmolLM3, which gpumem models so.
  if (impl == "transformers" && on_transformers_backend(p.model)) return "";
  return "--model-impl " + impl + " with " + p.model.hf_architecture + " is not modelled: the " +
         (impl == "transformers" ? "Transformers" : "TerraTorch") +
         " backend has other layers, fusions and activation peaks than vLLM's own model";
}

std::string hybrid_kv_manager_refusal(const Plan& p, const std::vector<KvLayerSpec>& layers) {
  // vllm v1/core/kv_cache_utils.py unify_hybrid_kv_cache_specs: without the hybrid manager,
  // sliding-window and chunked layers are given full-attention specs (KV for every token of
  // the request) and other mixes are an error; layers of one spec form one group either way.
  const bool one_kind = p.model.family != ArchitectureFamily::kDeepseekV4 &&
                        std::all_of(layers.begin(), layers.end(),
                                    [&](const KvLayerSpec& s) { return s == layers.front(); });
  if (one_kind) return "";
  return "--disable-hybrid-kv-cache-manager with " + p.model.hf_architecture +
         " is not modelled: its layers keep KV caches of different kinds (sliding-window, "
         "recurrent state or other shapes), which vLLM then gives full-length KV or refuses";
}

std::string cpu_offload_refusal(const Plan& p) {
  // The families whose vLLM model file builds its decoder layers with make_layers, which is
  // where the offloader wraps them (model_executor/models/utils.py; offloader/base.py
  // wrap_modules "is only called from make_layers"): read in each file.
  static constexpr ArchitectureFamily kMakeLayers[] = {
      ArchitectureFamily::kLlama,      ArchitectureFamily::kLlama4,
      ArchitectureFamily::kQwen2,      ArchitectureFamily::kQwen3,
      ArchitectureFamily::kQwen2Moe,   ArchitectureFamily::kQwen3Moe,
      ArchitectureFamily::kQwen3Next,  ArchitectureFamily::kQwen35,
      ArchitectureFamily::kMixtral,    ArchitectureFamily::kDeepseekV2,
      ArchitectureFamily::kDeepseekV3, ArchitectureFamily::kGemma2,
      ArchitectureFamily::kGemma3,     ArchitectureFamily::kGemma4,
      ArchitectureFamily::kPhi3,       ArchitectureFamily::kPhiMoe,
      ArchitectureFamily::kGranite,    ArchitectureFamily::kGraniteHybrid,
      ArchitectureFamily::kGptOss,     ArchitectureFamily::kGlm4,
      ArchitectureFamily::kGlm4Moe,    ArchitectureFamily::kNemotronH,
      ArchitectureFamily::kJamba,      ArchitectureFamily::kOlmo2,
      ArchitectureFamily::kErnie45,    ArchitectureFamily::kDeciLM,
  };
  // The Transformers backend's layers are the transformers model's own, not built by
  // make_layers.
  if (std::find(std::begin(kMakeLayers), std::end(kMakeLayers), p.model.family) ==
          std::end(kMakeLayers) ||
      on_transformers_backend(p.model)) {
    return "--cpu-offload-gb with " + p.model.hf_architecture +
           " is not modelled: whether vLLM's model file builds its layers through make_layers, "
           "where the offloader acts, has not been read";
  }
  if (p.model.quantization.method != QuantMethod::kNone) {
    // vllm PR #32991 (2026-01): methods whose post-load processing replaces a parameter put it
    // back on the GPU; what stays offloaded depends on the method and the release.
    return "--cpu-offload-gb with a quantized model is not modelled: a quantization method's "
           "post-load processing may replace offloaded parameters with new GPU tensors (vllm "
           "PR #32991), so what stays in CPU memory depends on the method and the release";
  }
  if (p.draft) {
    return "--cpu-offload-gb with speculative decoding is not modelled";
  }
  return "";
}

// Data parallelism as gpumem models it: vLLM 0.11 and later (vllm v0.21 v1/engine/core.py
// run_engine_core: a dense model's DP ranks are independent engines; a MoE model's are
// DPEngineCoreProcs whose MoE layers span every rank), without the layouts below.
void refuse_unmodelled_data_parallelism(const Plan& p, Diagnostics& diags) {
  const SourceLoc loc = *p.flags.raw.location("--data-parallel-size");
  if (p.version < Version{0, 11, 0, 0}) {
    diags.error(loc, "--data-parallel-size above 1 with vLLM " + p.version.to_string() +
                         " is not modelled (from 0.11.0)");
    return;
  }
  if (p.model.moe.num_experts > 0 && p.flags.enable_expert_parallel && p.tp > 1) {
    // vllm v0.21 config/parallel.py use_sequence_parallel_moe (expert parallelism, TP and DP
    // above 1): the MoE layers run sequence-parallel and the shared experts are whole on
    // every TP rank.
    diags.error(loc,
                "--data-parallel-size above 1 with --enable-expert-parallel and "
                "--tensor-parallel-size above 1 is not modelled: vLLM then runs the MoE "
                "layers sequence-parallel, with whole shared experts on every TP rank");
  }
}

}  // namespace gpumem::vllm
