#include "engine/sglang/plan_checks.h"

#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engine/sglang/server_defaults.h"

namespace gpumem::sglang {
namespace {

// The checkpoint quantization methods a --quantization value names (SGLang's method names).
bool names_checkpoint_method(std::string_view flag, const Quantization& q) {
  switch (q.method) {
    case QuantMethod::kFp8Block:
    case QuantMethod::kFp8PerTensor:
      return flag == "fp8";
    case QuantMethod::kModelOptFp8:
    case QuantMethod::kModelOptFp8PerChannel:
      return flag == "modelopt" || flag == "modelopt_fp8";
    case QuantMethod::kCompressedTensorsWna16:
      return flag == "compressed-tensors";
    case QuantMethod::kMxfp4:
      return flag == "mxfp4";
    // sglang v0.5.9 awq.py AWQMarlinConfig.override_quantization_method (gptq.py alike):
    // awq_marlin (or marlin) keeps the Marlin kernels gpumem models; a plain "awq" or "gptq"
    // forces the older kernels, which gpumem does not model.
    case QuantMethod::kAwq:
      return flag == "awq_marlin" || flag == "marlin";
    // sglang auto_round.py AutoRoundConfig.get_name: "auto-round".
    case QuantMethod::kGptq:
      return flag == "gptq_marlin" || flag == "marlin" || (q.auto_round && flag == "auto-round");
    case QuantMethod::kModelOptNvfp4:
      return flag == "modelopt_fp4";
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

// SGLang's bitsandbytes (quantization/bitsandbytes.py and model_loader/loader.py
// BitsAndBytesModelLoader, PR #15325): pre-quantized 4-bit checkpoints of one rank, for models
// that declare bitsandbytes_stacked_params_mapping.
bool check_bitsandbytes(const Plan& p, const Scenario& scenario, Diagnostics& diags) {
  bool ok = true;
  if (p.version < Version{0, 5, 7}) {
    // PR #12268 dropped the bitsandbytes method SGLang imported from vLLM; PR #15325 (merged
    // 2025-12-17, taken as 0.5.7) brought its own back. The import-era loader is not modelled.
    diags.error(scenario.engine.version_loc,
                "bitsandbytes checkpoints with SGLang " + p.version.to_string() +
                    " are not modelled (from 0.5.7: PR #15325's bitsandbytes method)");
    ok = false;
  }
  if (p.tp > 1) {
    // loader.py BitsAndBytesModelLoader._load_weights.
    diags.error(p.flags.raw.location("--tp-size").value_or(scenario.engine.name_loc),
                "ValueError: Prequant BitsAndBytes models with TP is not supported.Please try "
                "with PP.");
    ok = false;
  }
  // llama.py (Mistral's and Phi-3's classes derive from it), qwen2.py and gemma3_causal.py
  // declare bitsandbytes_stacked_params_mapping; other models are not known to.
  const ArchitectureFamily f = p.model.family;
  if (f != ArchitectureFamily::kLlama && f != ArchitectureFamily::kQwen2 &&
      f != ArchitectureFamily::kGemma3 && f != ArchitectureFamily::kPhi3) {
    diags.error(scenario.engine.name_loc,
                "bitsandbytes checkpoints of " + p.model.hf_architecture +
                    " in SGLang are not modelled (its model class is not known to declare "
                    "bitsandbytes_stacked_params_mapping)");
    ok = false;
  }
  return ok;
}

}  // namespace

// The quantized checkpoints whose kernels gpumem models in SGLang: NVFP4 on Blackwell, W4A4,
// experts only in ModelOpt's form; compressed-tensors FP8 W8A8 with FP8 tensor cores.
bool check_quantized_kernels(const Plan& p, const Scenario& scenario, Diagnostics& diags) {
  const Quantization& q = p.model.quantization;
  const int capability = p.gpu.compute_capability_major * 10 + p.gpu.compute_capability_minor;
  if (q.method == QuantMethod::kBitsAndBytes4) return check_bitsandbytes(p, scenario, diags);
  if (q.method == QuantMethod::kCompressedTensorsW8a8 && q.float_weights && capability < 89) {
    // vLLM runs these on Marlin (W8A16) there; SGLang's fallback is not read.
    diags.error(scenario.hardware.gpu_loc,
                p.gpu.name +
                    " has no FP8 tensor cores (compute capability below 8.9): "
                    "SGLang's fallback for compressed-tensors FP8 weights is not "
                    "modelled");
    return false;
  }
  if (q.method == QuantMethod::kFbgemmFp8 && capability < 89) {
    diags.error(scenario.hardware.gpu_loc,
                p.gpu.name +
                    " has no FP8 tensor cores (compute capability below 8.9): SGLang's fallback "
                    "for fbgemm_fp8 weights is not modelled");
    return false;
  }
  if (q.method == QuantMethod::kFp8PerTensor && capability < 89) {
    // sglang fp8_utils.py can_auto_enable_marlin_fp8 (PR #8990, August 2025): Marlin on sm80
    // to sm88; before it, only under SGLANG_FORCE_FP8_MARLIN. The release is not pinned.
    diags.error(scenario.hardware.gpu_loc,
                p.gpu.name +
                    " has no FP8 tensor cores (compute capability below 8.9): SGLang's Marlin "
                    "fallback for per-tensor FP8 weights (PR #8990) is not modelled");
    return false;
  }
  if (!q.is_nvfp4()) return true;
  const SourceLoc model_loc =
      scenario.model.given()
          ? scenario.model.loc
          : p.flags.raw.location("--model-path").value_or(scenario.engine.name_loc);
  bool ok = true;
  if (p.gpu.compute_capability_major < 10) {
    // sglang v0.5.9 modelopt_quant.py ModelOptFp4Config.get_min_capability: 100 (and the
    // compressed-tensors W4A4 scheme alike); PR #19652 (merged 2026-03) added a Marlin
    // fallback from 7.5 whose memory is not modelled.
    diags.error(scenario.hardware.gpu_loc,
                p.gpu.name +
                    " is not a Blackwell GPU: SGLang serves NVFP4 weights natively "
                    "from compute capability 10.0, and its Marlin fallback for older "
                    "GPUs (PR #19652) is not modelled");
    ok = false;
  }
  if (q.method == QuantMethod::kCompressedTensorsNvfp4 && !q.activation_scales) {
    diags.error(model_loc,
                "compressed-tensors NVFP4 without activation scales (W4A16) in SGLang is not "
                "modelled");
    ok = false;
  }
  if (q.method == QuantMethod::kCompressedTensorsNvfp4 && p.model.moe.num_experts > 0) {
    diags.error(model_loc,
                "compressed-tensors NVFP4 experts in SGLang are not modelled (ModelOpt NVFP4 "
                "experts are)");
    ok = false;
  }
  return ok;
}

// Flags whose memory effect gpumem does not model are refused by name rather than ignored:
// an answer that leaves them out would be silently wrong.
bool check_unmodelled_flags(const ServerFlags& f, const Architecture& model, Diagnostics& diags) {
  bool ok = true;
  if (f.quantization) {
    // sglang v0.5.9 configs/model_config.py _verify_quantization: a --quantization that names
    // the checkpoint's own method changes nothing; another one quantizes online or converts.
    if (model.quantization.method == QuantMethod::kNone) {
      diags.error(*f.raw.location("--quantization"),
                  "--quantization " + *f.quantization + " quantizes " + model.name +
                      " online, which gpumem does not model; name a quantized checkpoint instead");
      ok = false;
    } else if (*f.quantization == quant_method_name(model.quantization.method) &&
               named_method_skips_marlin(model.quantization.method)) {
      // awq.py / gptq.py override_quantization_method: only an unset flag or the Marlin name
      // lets the checkpoint run as awq_marlin / gptq_marlin.
      diags.error(*f.raw.location("--quantization"),
                  "--quantization " + *f.quantization + " selects SGLang's " + *f.quantization +
                      " kernels instead of " + *f.quantization +
                      "_marlin, which gpumem does not model; leave it unset or name " +
                      *f.quantization + "_marlin");
      ok = false;
    } else if (!names_checkpoint_method(*f.quantization, model.quantization)) {
      diags.error(*f.raw.location("--quantization"),
                  "--quantization " + *f.quantization + " differs from the checkpoint's " +
                      std::string(quant_method_name(model.quantization.method)) +
                      " quantization; gpumem models a checkpoint's own method only");
      ok = false;
    }
  }
  if (f.raw.string("--piecewise-cuda-graph-compiler") == "inductor") {
    diags.error(*f.raw.location("--piecewise-cuda-graph-compiler"),
                "--piecewise-cuda-graph-compiler inductor compiles the piecewise CUDA graphs with "
                "torch.compile's inductor, whose buffers gpumem does not model");
    ok = false;
  }
  if (f.enable_flashinfer_allreduce_fusion) {
    diags.error(*f.raw.location("--enable-flashinfer-allreduce-fusion"),
                "--enable-flashinfer-allreduce-fusion allocates FlashInfer's fused all-reduce "
                "workspace, which gpumem does not model");
    ok = false;
  }
  return ok;
}

// What an older release did that no source gpumem read states is refused by name, with the
// release that gpumem models it from.
bool check_release_features(const Plan& p, const ScenarioEngine& engine, Diagnostics& diags) {
  bool ok = true;
  const std::string release = "SGLang " + p.version.to_string();
  // Before PR #6881 (mid 2025) model_runner.py multiplied every multimodal model's fraction by
  // 0.9, given or not; which release took the v0.5.9 rule is not pinned down.
  if (p.model.vision.present() && serves_multimodal(p.flags, p.model.hf_architecture) &&
      p.version < Version{0, 5, 0}) {
    diags.error(p.flags.raw.location("--enable-multimodal").value_or(engine.version_loc),
                "serving " + p.model.hf_architecture + " multimodal with " + release +
                    " is not modelled (from 0.5.0: the vision tower's mem-fraction rule)");
    ok = false;
  }
  // sglang v0.4.6.post4 (PR #6223): the pipeline stages take the MIN of their token counts;
  // the pipeline of earlier releases is not modelled.
  if (p.pp > 1 && p.version < Version{0, 4, 6, 4}) {
    diags.error(*p.flags.raw.location("--pp-size"),
                "--pp-size with " + release + " is not modelled (from 0.4.6.post4)");
    ok = false;
  }
  // sglang ernie4.py Ernie4Model builds every decoder layer (make_layers without the pipeline
  // range), so each stage would hold all of them: not modelled.
  if (p.pp > 1 && p.model.family == ArchitectureFamily::kErnie45) {
    diags.error(*p.flags.raw.location("--pp-size"),
                "--pp-size above 1 is not modelled for " + p.model.hf_architecture +
                    ": SGLang's ernie4.py builds every layer on every pipeline stage");
    ok = false;
  }
  // sglang nemotron_nas.py as PR #9067 added it builds every layer on one stage (make_layers
  // without the pipeline range, no PPMissingLayer); a later commit splits them, in a release
  // not pinned down.
  if (p.pp > 1 && p.model.family == ArchitectureFamily::kDeciLM) {
    diags.error(*p.flags.raw.location("--pp-size"),
                "--pp-size above 1 is not modelled for " + p.model.hf_architecture +
                    ": which SGLang release first split nemotron_nas.py's layers over pipeline "
                    "stages is not pinned down");
    ok = false;
  }
  // v0.4.6.x set DP attention's and EAGLE's defaults (chunk size, padding, the draft's
  // settings) by rules no stored source of that release shows; from v0.4.7 they are v0.5.9's.
  for (const char* flag : {"--enable-dp-attention", "--speculative-algorithm"}) {
    const bool given = std::string_view(flag) == "--enable-dp-attention"
                           ? p.flags.enable_dp_attention
                           : p.flags.speculative_algorithm.has_value();
    if (given && p.version < Version{0, 4, 7}) {
      diags.error(*p.flags.raw.location(flag),
                  std::string(flag) + " with " + release + " is not modelled (from 0.4.7)");
      ok = false;
    }
  }
  return ok;
}

// DeepSeek DSA (V3.2, GLM-5): what SGLang refuses and what gpumem does not model.
bool check_sparse_attention(const Plan& p, const Scenario& scenario, Diagnostics& diags) {
  const ScenarioEngine& engine = scenario.engine;
  bool ok = true;
  // The indexer keys joined the KV budget with PR #11309 (merged 2025-10-07), taken as v0.5.4.
  // Snapshots of server_args.py before the v0.5.8/9-era one (271536807) also force DP
  // attention for DSA ('DP attention is enabled for DeepSeek NSA.', dp_size = tp_size); the
  // release that stopped is not pinned down, so before 0.5.7 only that layout is modelled.
  const bool forced_layout = p.flags.enable_dp_attention && p.flags.dp_size == p.tp;
  if (p.version < Version{0, 5, 4}) {
    diags.error(engine.version_loc, p.model.hf_architecture + " with SGLang " +
                                        p.version.to_string() +
                                        " is not modelled (from 0.5.4: the indexer keys joined "
                                        "the KV budget in PR #11309)");
    ok = false;
  } else if (p.version < Version{0, 5, 7} && !forced_layout) {
    diags.error(engine.version_loc,
                p.model.hf_architecture + " with SGLang " + p.version.to_string() +
                    " without --enable-dp-attention and --dp-size " + std::to_string(p.tp) +
                    " is not modelled (releases before 0.5.7 may force DP attention for DeepSeek "
                    "DSA models)");
    ok = false;
  }
  // sglang PR #18521 (merged 2026-02-10) added GlmMoeDsaForCausalLM to is_deepseek_nsa; taken
  // as v0.5.9 (tagged 2026-02-23).
  if (p.model.hf_architecture == "GlmMoeDsaForCausalLM" && p.version < Version{0, 5, 9}) {
    diags.error(engine.version_loc, "GlmMoeDsaForCausalLM is not served by SGLang " +
                                        p.version.to_string() + " (from 0.5.9)");
    ok = false;
  }
  // From v0.5.14 the draft's KV joins the target's budget, by formulas of DSA's own
  // (pool_configurator.py) that gpumem has not read.
  if (!p.args.speculative.algorithm.empty() && p.rules.draft_counted_in_kv_sizing) {
    diags.error(*p.flags.raw.location("--speculative-algorithm"),
                "--speculative-algorithm with DeepSeek DSA and SGLang " + p.version.to_string() +
                    " is not modelled (from 0.5.14 the draft's KV budget has a DSA formula "
                    "of its own)");
    ok = false;
  }
  const std::string& kv = p.flags.kv_cache_dtype;
  if (kv != "auto" && kv != "bf16" && kv != "bfloat16" && kv != "fp8_e4m3") {
    // server_args.py _set_default_nsa_kv_cache_dtype
    diags.error(*p.flags.raw.location("--kv-cache-dtype"),
                "AssertionError: DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 "
                "kv_cache_dtype, got " +
                    kv);
    ok = false;
  }
  if (p.facts.attention_backend != "nsa") {
    diags.error(*p.flags.raw.location("--attention-backend"),
                "--attention-backend " + p.facts.attention_backend + " with " +
                    p.model.hf_architecture +
                    " is not modelled: gpumem models DeepSeek DSA under SGLang's nsa backend");
    ok = false;
  }
  if (p.gpu.compute_capability_major < 9) {
    // nsa_backend.py: the sparse FlashMLA and DeepGEMM indexer kernels are Hopper and
    // Blackwell kernels; SGLang's fallbacks on older GPUs are not read.
    diags.error(scenario.hardware.gpu_loc,
                p.gpu.name + " (compute capability " +
                    std::to_string(p.gpu.compute_capability_major) + "." +
                    std::to_string(p.gpu.compute_capability_minor) +
                    ") with DeepSeek DSA is not modelled: the nsa backend's sparse kernels "
                    "are modelled on compute capability 9.0 and up");
    ok = false;
  }
  if (!p.args.speculative.algorithm.empty() && p.args.speculative.eagle_topk > 1) {
    // server_args.py _handle_speculative_decoding: topk above 1 with pages above 1 needs the
    // flashinfer or fa3 backend, and DSA runs nsa with 64-token pages.
    diags.error(p.flags.raw.location("--speculative-eagle-topk")
                    .value_or(*p.flags.raw.location("--speculative-algorithm")),
                "SGLang refuses --speculative-eagle-topk " +
                    std::to_string(p.args.speculative.eagle_topk) +
                    " with DeepSeek DSA: a top-k above 1 with 64-token pages needs the "
                    "flashinfer or fa3 attention backend; pass --speculative-eagle-topk 1");
    ok = false;
  }
  return ok;
}

bool check_llama4(const Plan& p, const ScenarioEngine& engine, Diagnostics& diags) {
  bool ok = true;
  const std::optional<SourceLoc> backend_loc = p.flags.raw.location("--attention-backend");
  // sglang server_args.py _handle_model_specific_adjustments ("Llama4" in model_arch): the
  // platform default (PR #13421, from 0.5.6; earlier releases asserted on the unset backend).
  if (!backend_loc && p.version < Version{0, 5, 6}) {
    diags.error(engine.version_loc,
                "SGLang " + p.version.to_string() +
                    " stops with AssertionError: fa3, aiter, triton, or trtllm_mha is required "
                    "for Llama4 model (the backend is chosen for Llama 4 from 0.5.6, PR "
                    "#13421); give --attention-backend");
    ok = false;
  }
  constexpr std::array<std::string_view, 5> kAccepted = {"fa3", "aiter", "triton", "trtllm_mha",
                                                         "intel_xpu"};
  const std::string& backend = p.facts.attention_backend;
  if (std::find(kAccepted.begin(), kAccepted.end(), backend) == kAccepted.end()) {
    diags.error(backend_loc.value_or(engine.name_loc),
                "SGLang stops with AssertionError: fa3, aiter, triton, trtllm_mha or intel_xpu "
                "is required for Llama4 model but got " +
                    backend);
    ok = false;
  }
  // sglang mllama4.py Llama4ForConditionalGeneration.__init__: the vision model and projector
  // exist only with --enable-multimodal (configs/model_config.py mm_disabled_models).
  if (p.flags.enable_multimodal && p.model.hf_architecture == "Llama4ForConditionalGeneration") {
    diags.error(*p.flags.raw.location("--enable-multimodal"),
                "Llama 4's vision tower (--enable-multimodal) is not modelled; without the flag "
                "SGLang serves the text model alone, which is");
    ok = false;
  }
  return ok;
}

bool check_cpu_offload(const Plan& p, Diagnostics& diags) {
  if (p.flags.cpu_offload_gb <= 0) return true;
  const SourceLoc loc = *p.flags.raw.location("--cpu-offload-gb");
  // The model files that build their decoder layers with make_layers, whose layers the
  // offloader wraps (utils/common.py make_layers, get_offloader().wrap_modules); a plain
  // nn.ModuleList keeps every layer on the GPU. llama.py (LlamaModel, with Phi3ForCausalLM
  // as its subclass) in every release read (bf7a0e23, H1 2025); qwen2.py, qwen3.py,
  // qwen2_moe.py, qwen3_moe.py, gemma3_causal.py and phimoe.py in 2025-2026 sources, taken
  // from 0.5.0 (UNCONFIRMED: early-2025 qwen2.py, 0005b7e1, used
  // make_layers_with_previous_layer instead). deepseek_v2.py built an nn.ModuleList in H1 2025
  // (00114aef) and make_layers later, at a release not pinned down, so it is left out.
  static constexpr ArchitectureFamily kEveryRelease[] = {ArchitectureFamily::kLlama,
                                                         ArchitectureFamily::kPhi3};
  static constexpr ArchitectureFamily kFrom050[] = {
      ArchitectureFamily::kQwen2,    ArchitectureFamily::kQwen3,  ArchitectureFamily::kQwen2Moe,
      ArchitectureFamily::kQwen3Moe, ArchitectureFamily::kGemma3, ArchitectureFamily::kPhiMoe};
  const auto listed = [&](std::span<const ArchitectureFamily> families) {
    return std::find(families.begin(), families.end(), p.model.family) != families.end();
  };
  const bool read = listed(kEveryRelease) || (listed(kFrom050) && p.version >= Version{0, 5, 0});
  if (!read) {
    diags.error(loc, "--cpu-offload-gb with " + p.model.hf_architecture + " on SGLang " +
                         p.version.to_string() +
                         " is not modelled: whether its model file builds the layers through "
                         "make_layers, where the offloader acts, has not been read");
    return false;
  }
  if (p.model.quantization.method != QuantMethod::kNone) {
    // model_loader/loader.py device_loading_context moves offloaded parameters to the GPU
    // for process_weights_after_loading and back; what a method's processing leaves where
    // is not modelled.
    diags.error(loc,
                "--cpu-offload-gb with a quantized model is not modelled: the loader brings the "
                "offloaded parameters back to the GPU for the method's post-load processing, "
                "which may replace them");
    return false;
  }
  if (p.draft) {
    // Each ModelRunner creates its offloader (model_runner.py), so the draft's would have a
    // budget of its own; not read.
    diags.error(loc, "--cpu-offload-gb with speculative decoding is not modelled");
    return false;
  }
  if (p.args.piecewise_cuda_graph) {
    // Releases where piecewise graphs are on by default turn them off for it
    // (server_defaults.cc); before, --enable-piecewise-cuda-graph with it was not read.
    diags.error(loc, "--cpu-offload-gb with --enable-piecewise-cuda-graph on SGLang " +
                         p.version.to_string() +
                         " is not modelled: the piecewise graphs' copies of the offloaded "
                         "layers have not been read");
    return false;
  }
  return true;
}

}  // namespace gpumem::sglang
