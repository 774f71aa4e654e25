#include "weights/linear_weights.h"

#include <numeric>

namespace gpumem {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t round_up(std::int64_t a, std::int64_t m) { return ceil_div(a, m) * m; }

// sglang v0.5.9 layers/quantization/fp8.py Fp8LinearMethod.validate_block_quant_shapes
Status check_fp8_block_shapes(const Quantization& q, const LinearModule& m) {
  if (m.parallel == LinearParallel::kRow && m.group_size > 1 && m.input_size % q.block_k != 0) {
    return invalid_input(
        m.prefix + ": Weight input_size_per_partition = " + std::to_string(m.input_size) +
        " is not divisible by weight quantization block_k = " + std::to_string(q.block_k) + ".");
  }
  if ((m.parallel == LinearParallel::kColumn && m.group_size > 1) || m.output_sizes.size() > 1) {
    for (std::int64_t rows : m.output_sizes) {
      if (rows % q.block_n != 0) {
        return invalid_input(m.prefix + ": Weight output_partition_size = " + std::to_string(rows) +
                             " is not divisible by weight quantization block_n = " +
                             std::to_string(q.block_n) + ".");
      }
    }
  }
  return Status::ok_status();
}

// sglang v0.5.9 layers/quantization/marlin_utils.py verify_marlin_supports_shape (vLLM's
// marlin_utils.py alike): Marlin needs 64 output and 128 input columns per rank.
bool marlin_supports(const LinearModule& m, std::int64_t out, std::int64_t group) {
  return out % 64 == 0 && m.input_size % 128 == 0 && m.input_size % group == 0;
}

// vllm quantization/utils/machete_utils.py: MACHETE_SUPPORTED_GROUP_SIZES [-1, 128] and
// check_machete_supports_shape's 64 x 128 prepacked blocks (input x output per rank).
bool machete_supports(const LinearModule& m, std::int64_t out, std::int64_t group_size) {
  return (group_size == 0 || group_size == 128) && m.input_size % 64 == 0 && out % 128 == 0;
}

// A kernel's rewrite of a loaded tensor: a new tensor of the same shape and dtype under
// `name`, the loaded one freed (replace_parameter registers the new, the old is released).
void rewrite(TensorList& l, int loaded, const std::string& name) {
  l.add(name, l.at(loaded).shape, l.at(loaded).dtype);
  l.release(loaded);
}

// AWQ and GPTQ weights as the engines load them on CUDA: the awq_marlin and gptq_marlin
// methods (sglang v0.5.9 awq.py AWQMarlinLinearMethod, gptq.py GPTQMarlinLinearMethod; vLLM's
// awq_marlin.py and gptq_marlin.py with the kernel choose_mp_linear_kernel picks). The
// loaded tensors are the checkpoint's, split over TP like the model dtype weight they
// replace: AWQ qweight [in, out / pack] and qzeros [groups, out / pack]; GPTQ qweight
// [in / pack, out], g_idx [in] and qzeros [groups, out / pack]; scales [groups, out].
Status add_int4_marlin(TensorList& list, const BuildContext& ctx, const LinearModule& m,
                       std::int64_t out, PostLoadSteps& post_load) {
  const Quantization& q = ctx.arch.quantization;
  const std::string& p = m.prefix;
  const std::int64_t in = m.input_size;
  const std::int64_t pack = 32 / q.num_bits;
  const std::int64_t group = q.group_size > 0 ? q.group_size : in;
  const bool awq = q.method == QuantMethod::kAwq;
  if (out % pack != 0 || in % pack != 0 || in % group != 0) {
    return invalid_input(p +
                         ": The input size is not aligned with the quantized weight shape. "
                         "This can be caused by too large tensor parallel size.");
  }
  if (!awq && q.desc_act) {
    return invalid_input(p + ": GPTQ with desc_act (activation order) is not modelled");
  }
  const bool machete = !awq && ctx.rules.gptq_machete && machete_supports(m, out, q.group_size);
  const bool marlin = marlin_supports(m, out, group);
  // vllm kernels/mixed_precision/exllama.py ExllamaLinearKernel.can_implement: float16
  // activations (WeightRules), an output a multiple of the pack factor (the zero points pack
  // along it), the 4- and 8-bit symmetric types.
  const bool exllama = !awq && !machete && !marlin && ctx.rules.gptq_exllama_fallback &&
                       out % pack == 0 && (q.num_bits == 4 || q.num_bits == 8);
  if (!awq && !machete && !marlin && !exllama) {
    // vllm kernels/linear/__init__.py choose_mp_linear_kernel raises; SGLang's
    // GPTQMarlinLinearMethod ignores check_marlin_supports_shape and its kernel fails.
    return invalid_input(p + ": Weight output_size_per_partition = " + std::to_string(out) +
                         " and input_size_per_partition = " + std::to_string(in) +
                         " do not fit Marlin's 64 x 128 tiles and group size " +
                         std::to_string(group) + ". Consider reducing tensor_parallel_size.");
  }
  const std::int64_t groups = in / group;
  int qweight = 0;
  int qzeros = 0;
  int g_idx = -1;
  if (awq) {
    qweight = list.add(p + ".qweight", {in, out / pack}, DType::kInt32);
    qzeros = list.add(p + ".qzeros", {groups, out / pack}, DType::kInt32);
  } else {
    qweight = list.add(p + ".qweight", {in / pack, out}, DType::kInt32);
    g_idx = list.add(p + ".g_idx", {in}, DType::kInt32);
    qzeros = list.add(p + ".qzeros", {groups, out / pack}, DType::kInt32);
  }
  const int scales = list.add(p + ".scales", {groups, out}, ctx.dtype);
  if (machete) {
    // vllm mixed_precision/machete.py MacheteLinearKernel.process_weights_after_loading:
    // machete_prepack_B writes a new qweight of the same size (the old one is freed); the
    // scales stay where they are, g_idx and qzeros stay allocated, no workspace.
    post_load.emplace_back([=](TensorList& l) { rewrite(l, qweight, p + ".machete_qweight"); });
    return Status::ok_status();
  }
  if (exllama) {
    // ExllamaLinearKernel.process_weights_after_loading: a symmetric type gets a zero-point
    // tensor of its own (groups x out packed, replacing the checkpoint's), an empty g_idx
    // without activation order, and qweight and scales rewritten contiguous (same sizes, the
    // loaded ones freed).
    post_load.emplace_back([=](TensorList& l) {
      rewrite(l, qzeros, p + ".exllama_qzeros");
      l.release(g_idx);
      rewrite(l, qweight, p + ".exllama_qweight");
      rewrite(l, scales, p + ".exllama_scales");
    });
    return Status::ok_status();
  }
  // awq.py get_quant_method: a layer Marlin cannot take falls back to the AWQ kernels, which
  // keep the checkpoint's layout and need no post-load work.
  if (!marlin) return Status::ok_status();
  const std::int64_t workspace = ctx.rules.device_sm_count * ctx.rules.marlin_linear_blocks_per_sm;
  // ... process_weights_after_loading: a Marlin workspace (marlin_make_workspace); the
  // repacked weights and permuted scales (same sizes) replace the loaded ones
  // (replace_parameter registers the new tensor, the old is freed); AWQ's zero points are
  // permuted likewise, GPTQ's (symmetric, no act order) and its g_idx become empty tensors.
  // Temporaries inside the repacking kernels' Python wrappers are not replayed.
  post_load.emplace_back([=](TensorList& l) {
    l.add(p + ".workspace", {workspace}, DType::kInt32);
    if (!awq) {
      l.release(g_idx);
      l.release(qzeros);
    }
    rewrite(l, qweight, p + ".marlin_qweight");
    rewrite(l, scales, p + ".marlin_scales");
    if (awq) rewrite(l, qzeros, p + ".marlin_qzeros");
  });
  return Status::ok_status();
}

// NVFP4 weights (vllm quantization/modelopt.py ModelOptNvFp4LinearMethod.create_weights; the
// compressed-tensors scheme compressed_tensors_w4a4_nvfp4.py registers the same tensors under
// its own names): E2M1 pairs in uint8 [out, in / 2], an e4m3 scale per 16 input columns, and
// per fused part a float32 global weight scale and, for W4A4, a global input scale. What the
// engine keeps after loading follows WeightRules::nvfp4_layout.
Status add_nvfp4(TensorList& list, const BuildContext& ctx, const LinearModule& m, std::int64_t out,
                 PostLoadSteps& post_load) {
  const Quantization& q = ctx.arch.quantization;
  const bool modelopt = q.method == QuantMethod::kModelOptNvfp4;
  const std::string& p = m.prefix;
  const std::int64_t in = m.input_size;
  if (in % q.group_size != 0) {
    return invalid_input(p + ": Unsupported model when in features size (" + std::to_string(in) +
                         ") is not multiple of 16");
  }
  const auto parts = static_cast<std::int64_t>(m.output_sizes.size());
  const int weight =
      list.add(p + (modelopt ? ".weight" : ".weight_packed"), {out, in / 2}, DType::kUInt8);
  const int scale = list.add(p + ".weight_scale", {out, in / q.group_size}, DType::kFloat8E4M3);
  const int global = list.add(p + (modelopt ? ".weight_scale_2" : ".weight_global_scale"), {parts},
                              DType::kFloat32);
  const int input = q.activation_scales
                        ? list.add(p + (modelopt ? ".input_scale" : ".input_global_scale"), {parts},
                                   DType::kFloat32)
                        : -1;
  const Nvfp4Layout layout = ctx.rules.nvfp4_layout;
  const std::int64_t workspace = ctx.rules.device_sm_count * ctx.rules.marlin_linear_blocks_per_sm;
  post_load.emplace_back([=](TensorList& l) {
    if (layout == Nvfp4Layout::kMarlin) {
      // marlin_utils_fp4.py prepare_fp4_layer_for_marlin: rows padded to 64 and repacked
      // (gptq_marlin_repack), scales permuted to [in / 16, rows] e4m3 (S0E5M3), one global
      // scale, a workspace; the activation scales are freed (Marlin is weight-only).
      l.add(p + ".workspace", {workspace}, DType::kInt32);
      l.add(p + ".marlin_weight", {round_up(out, 64), in / 2}, DType::kUInt8);
      l.release(weight);
      l.add(p + ".marlin_weight_scale", {in / q.group_size, round_up(out, 64)}, DType::kFloat8E4M3);
      l.release(scale);
      l.add(p + ".weight_global_scale", {}, DType::kFloat32);
      l.release(global);
      if (input >= 0) l.release(input);
      return;
    }
    // vllm utils/nvfp4_utils.py swizzle_blockscale: a zero-padded [ceil128(rows),
    // ceil4(in / 16)] copy in the kernels' interleaved order; pad_nvfp4_weight_for_cutlass
    // pads the weight to multiples of 32.
    l.add(p + ".weight_scale_swizzled", {round_up(out, 128), round_up(in / q.group_size, 4)},
          DType::kFloat8E4M3);
    if (layout == Nvfp4Layout::kSwizzledScales) l.release(scale);
    if (out % 32 != 0 || in % 32 != 0) {
      l.add(p + ".weight_padded", {round_up(out, 32), round_up(in, 32) / 2}, DType::kUInt8);
      l.release(weight);
    }
    // ... and the scalars the GEMM takes: alpha = input x weight global scale, and the
    // inverse input scale (the per-part globals reduce to their maximum).
    l.add(p + ".alpha", {}, DType::kFloat32);
    l.add(p + ".input_scale_inv", {}, DType::kFloat32);
    if (layout == Nvfp4Layout::kSwizzledScales) {
      l.release(global);
      if (input >= 0) l.release(input);
    }
  });
  return Status::ok_status();
}

// compressed-tensors W8A8 (vllm schemes/compressed_tensors_w8a8_int8.py and _fp8.py
// create_weights): the int8 or e4m3 weight, a float32 scale per output row (channel) or per
// fused part (tensor), and per fused part a static input scale.
void add_w8a8(TensorList& list, const BuildContext& ctx, const LinearModule& m, std::int64_t out,
              PostLoadSteps& post_load) {
  const Quantization& q = ctx.arch.quantization;
  const std::string& p = m.prefix;
  const std::int64_t in = m.input_size;
  const auto parts = static_cast<std::int64_t>(m.output_sizes.size());
  const int weight =
      list.add(p + ".weight", {out, in}, q.float_weights ? DType::kFloat8E4M3 : DType::kInt8);
  const int scale = list.add(
      p + ".weight_scale",
      q.per_tensor_scale ? std::vector<std::int64_t>{parts} : std::vector<std::int64_t>{out, 1},
      DType::kFloat32);
  const int input =
      q.activation_scales ? list.add(p + ".input_scale", {parts}, DType::kFloat32) : -1;
  const bool marlin = q.float_weights && ctx.rules.fp8_marlin;
  const bool fused_tensor_scales = q.per_tensor_scale && parts > 1;
  const std::int64_t workspace = ctx.rules.device_sm_count * ctx.rules.marlin_linear_blocks_per_sm;
  const DType dtype = ctx.dtype;
  post_load.emplace_back([=](TensorList& l) {
    if (marlin) {
      // marlin_utils_fp8.py prepare_fp8_layer_for_marlin: the weight repacked (same bytes),
      // the scales as a [1, out] row in the model dtype, a workspace; no input scale.
      l.add(p + ".workspace", {workspace}, DType::kInt32);
      l.add(p + ".marlin_weight", {out, in}, DType::kFloat8E4M3);
      l.release(weight);
      l.add(p + ".marlin_weight_scale", {1, out}, dtype);
      l.release(scale);
      if (input >= 0) l.release(input);
      return;
    }
    if (fused_tensor_scales) {
      // ... .process_weights_after_loading: FP8 requantizes the parts to their largest
      // scale (one float32 scalar); INT8 expands them to one scale per row
      // (convert_to_channelwise).
      l.add(p + ".weight_scale",
            q.float_weights ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{out},
            DType::kFloat32);
      l.release(scale);
    }
    if (input >= 0) {
      // ... the static input scales reduce to their maximum.
      l.add(p + ".input_scale", {}, DType::kFloat32);
      l.release(input);
    }
  });
}

// Online FP8 (--quantization fp8 on a model-dtype checkpoint): the weight is loaded in the model
// dtype and replaced by a float8 copy and its float32 scale, right away (vllm
// quantization/online/fp8.py Fp8PerTensorOnlineLinearMethod, PR #31914) or once the whole
// model is loaded (vllm fp8.py Fp8LinearMethod before it: one scalar, scaled_fp8_quant; sglang
// fp8.py under CUTLASS FP8: per_token_group_quant_fp8 over whole rows, a float32 scale per
// output row as a [1, out] row).
void add_fp8_online(TensorList& list, const BuildContext& ctx, const LinearModule& m,
                    std::int64_t out, PostLoadSteps& post_load) {
  const std::string& p = m.prefix;
  const std::int64_t in = m.input_size;
  const bool channelwise = ctx.rules.fp8_per_tensor_channelwise;
  const int loaded = list.add(p + ".weight", {out, in}, ctx.dtype);
  const auto quantize = [=](TensorList& l) {
    l.add(p + ".weight_fp8", {out, in}, DType::kFloat8E4M3);
    l.add(p + ".weight_scale",
          channelwise ? std::vector<std::int64_t>{1, out} : std::vector<std::int64_t>{},
          DType::kFloat32);
    l.release(loaded);
  };
  if (ctx.rules.online_fp8_per_module) {
    quantize(list);
  } else {
    post_load.emplace_back(quantize);
  }
}

// sglang quantization/fp8.py Fp8LinearMethod (non-block) on a GPU with CUTLASS FP8
// (cutlass_fp8_supported): a float8 weight, per fused part a float32 weight scale and a static
// input scale; process_weights_after_loading does not requantize: convert_to_channelwise
// replaces the scales with one float32 per output row ([out, 1]), and the input scales reduce
// to their maximum.
void add_fp8_channelwise_scales(TensorList& list, const BuildContext& ctx, const LinearModule& m,
                                std::int64_t out, PostLoadSteps& post_load) {
  const Quantization& q = ctx.arch.quantization;
  const std::string& p = m.prefix;
  const auto parts = static_cast<std::int64_t>(m.output_sizes.size());
  list.add(p + ".weight", {out, m.input_size}, DType::kFloat8E4M3);
  const int scale = list.add(p + ".weight_scale", {parts}, DType::kFloat32);
  const int input =
      q.activation_scales ? list.add(p + ".input_scale", {parts}, DType::kFloat32) : -1;
  post_load.emplace_back([=](TensorList& l) {
    l.add(p + ".weight_scale", {out, 1}, DType::kFloat32);
    l.release(scale);
    if (input >= 0) {
      l.add(p + ".input_scale", {}, DType::kFloat32);
      l.release(input);
    }
  });
}

// bitsandbytes 4-bit (vllm quantization/bitsandbytes.py BitsAndBytesLinearMethod
// ._create_weights_4bit; sglang's copy alike): the fused parts' nf4/fp4 pairs in one uint8
// column, then the quant state the loader (bitsandbytes_loader.py _quantized_4bit_generator,
// QuantState.from_dict on the GPU) builds per checkpoint module: an absmax per 64 weights and a
// code of 16; double quant keeps the absmax in uint8 with a float32 absmax per 256 blocks, a
// code of 256 and an offset, until vLLM dequantizes them (WeightRules::bnb_dequantized_absmax).
// In flight (vllm bitsandbytes_loader.py _unquantized_generator) each module's rows arrive on
// the GPU in the model dtype and quantize_4bit packs them into a temporary before the copy into
// the weight.
Status add_bnb_4bit(TensorList& list, const BuildContext& ctx, const LinearModule& m,
                    std::int64_t out, PostLoadSteps& post_load) {
  const Quantization& q = ctx.arch.quantization;
  const std::string& p = m.prefix;
  const std::int64_t in = m.input_size;
  if ((out * in) % 2 != 0) {
    return invalid_input(
        "ValueError: The input size is not aligned with the quantized weight "
        "shape.");
  }
  list.add(p + ".weight", {out * in / 2, 1}, DType::kUInt8);
  std::vector<int> nested;
  std::vector<std::int64_t> blocks;
  for (std::int64_t rows : m.output_sizes) {
    const std::int64_t b = ceil_div(rows * in, q.group_size);
    blocks.push_back(b);
    const std::string s = p + ".quant_state." + std::to_string(blocks.size() - 1);
    const int loaded = q.online ? list.add(s + ".loaded", {rows, in}, ctx.dtype) : -1;
    const int packed = q.online ? list.add(s + ".packed", {rows * in / 2, 1}, DType::kUInt8) : -1;
    if (!q.double_quant) {
      list.add(s + ".absmax", {b}, DType::kFloat32);
      list.add(s + ".code", {16}, DType::kFloat32);
      continue;
    }
    nested.push_back(list.add(s + ".absmax", {b}, DType::kUInt8));
    list.add(s + ".code", {16}, DType::kFloat32);
    nested.push_back(list.add(s + ".state2.absmax", {ceil_div(b, 256)}, DType::kFloat32));
    nested.push_back(list.add(s + ".state2.code", {256}, DType::kFloat32));
    nested.push_back(list.add(s + ".offset", {}, DType::kFloat32));
    if (loaded >= 0) {
      list.release(loaded);
      list.release(packed);
    }
  }
  if (nested.empty() || !ctx.rules.bnb_dequantized_absmax) return Status::ok_status();
  post_load.emplace_back([=](TensorList& l) {
    for (size_t k = 0; k < blocks.size(); ++k) {
      l.add(p + ".quant_state." + std::to_string(k) + ".absmax", {blocks[k]}, DType::kFloat32);
      for (size_t t = 0; t < 4; ++t) l.release(nested[4 * k + t]);
    }
  });
  return Status::ok_status();
}

}  // namespace

Result<bool> is_converted(const Quantization& q, const std::string& prefix,
                          const std::vector<std::string>& checkpoint_names) {
  if (q.method == QuantMethod::kNone) return false;
  size_t excluded = 0;
  for (const std::string& name : checkpoint_names) {
    if (!q.converts(name)) ++excluded;
  }
  if (excluded == 0) return true;
  if (excluded == checkpoint_names.size()) return false;
  // sglang v0.5.9 layers/quantization/utils.py is_layer_skipped
  return invalid_input("Detected some but not all shards of " + prefix +
                       " are quantized. All shards of fused layers to have the same precision.");
}

Status add_linear(TensorList& list, const BuildContext& ctx, const LinearModule& m,
                  PostLoadSteps& post_load) {
  const Quantization& q = ctx.arch.quantization;
  const bool literal = q.method == QuantMethod::kFbgemmFp8 &&
                       ctx.rules.fbgemm_fused_names_literal && m.checkpoint_names.size() > 1;
  Result<bool> converted = literal ? Result<bool>(!q.not_converted.matches(m.prefix))
                                   : is_converted(q, m.prefix, m.checkpoint_names);
  if (!converted.ok()) return converted.status();
  // MXFP4 checkpoints quantize experts only; their linear layers stay in the model dtype.
  const QuantMethod method =
      *converted && q.method != QuantMethod::kMxfp4 ? q.method : QuantMethod::kNone;
  const std::int64_t out =
      std::accumulate(m.output_sizes.begin(), m.output_sizes.end(), std::int64_t{0});
  const std::int64_t in = m.input_size;
  const std::string& p = m.prefix;
  switch (method) {
    case QuantMethod::kNone:
    case QuantMethod::kMxfp4:
      // sglang v0.5.9 layers/quantization/unquant.py UnquantizedLinearMethod.create_weights
      list.add(p + ".weight", {out, in}, ctx.dtype);
      break;
    case QuantMethod::kFp8Block: {
      GPUMEM_RETURN_IF_ERROR(check_fp8_block_shapes(q, m));
      // sglang v0.5.9 layers/quantization/fp8.py Fp8LinearMethod.create_weights
      list.add(p + ".weight", {out, in}, DType::kFloat8E4M3);
      list.add(p + ".weight_scale_inv", {ceil_div(out, q.block_n), ceil_div(in, q.block_k)},
               DType::kFloat32);
      break;
    }
    case QuantMethod::kModelOptFp8: {
      // sglang v0.5.9 layers/quantization/modelopt_quant.py ModelOptFp8LinearMethod
      // .create_weights: one weight and one input scale per fused part.
      const auto parts = static_cast<std::int64_t>(m.output_sizes.size());
      list.add(p + ".weight", {out, in}, DType::kFloat8E4M3);
      const int weight_scale = list.add(p + ".weight_scale", {parts}, DType::kFloat32);
      const int input_scale = list.add(p + ".input_scale", {parts}, DType::kFloat32);
      // ... .process_weights_after_loading: requantize to the largest weight scale and keep
      // new scalar Parameters for both scales; the per-part ones are freed.
      post_load.emplace_back([p, weight_scale, input_scale](TensorList& l) {
        l.add(p + ".weight_scale", {}, DType::kFloat32);
        l.release(weight_scale);
        l.add(p + ".input_scale", {}, DType::kFloat32);
        l.release(input_scale);
      });
      break;
    }
    case QuantMethod::kModelOptFp8PerChannel:
      // vllm model_executor/layers/quantization/modelopt.py (FP8_PER_CHANNEL_PER_TOKEN):
      // one float32 scale per output row, activations quantized per token at run time.
      list.add(p + ".weight", {out, in}, DType::kFloat8E4M3);
      list.add(p + ".weight_scale", {out, 1}, DType::kFloat32);
      break;
    case QuantMethod::kCompressedTensorsWna16: {
      // sglang v0.5.9 compressed_tensors/schemes/compressed_tensors_wNa16.py create_weights
      const std::int64_t pack = 32 / q.num_bits;
      const std::int64_t group = q.group_size > 0 ? q.group_size : in;
      if (in % pack != 0 || in % group != 0) {
        return invalid_input(p + ": input size " + std::to_string(in) +
                             " is not divisible by the pack factor " + std::to_string(pack) +
                             " and group size " + std::to_string(group));
      }
      list.add(p + ".weight_packed", {out, in / pack}, DType::kInt32);
      list.add(p + ".weight_scale", {out, in / group}, ctx.dtype);
      list.add(p + ".weight_shape", {2}, DType::kInt64);
      break;
    }
    case QuantMethod::kAwq:
    case QuantMethod::kGptq:
      GPUMEM_RETURN_IF_ERROR(add_int4_marlin(list, ctx, m, out, post_load));
      break;
    case QuantMethod::kModelOptNvfp4:
    case QuantMethod::kCompressedTensorsNvfp4:
      GPUMEM_RETURN_IF_ERROR(add_nvfp4(list, ctx, m, out, post_load));
      break;
    case QuantMethod::kCompressedTensorsW8a8:
      add_w8a8(list, ctx, m, out, post_load);
      break;
    case QuantMethod::kBitsAndBytes4:
      GPUMEM_RETURN_IF_ERROR(add_bnb_4bit(list, ctx, m, out, post_load));
      break;
    case QuantMethod::kFbgemmFp8: {
      // vllm fbgemm_fp8.py FBGEMMFp8LinearMethod.create_weights (sglang fpgemm_fp8.py alike):
      // what channel-wise dynamic FP8 keeps (below FP8 tensor cores vLLM's Marlin repack),
      // then the activation bound as a float32 scalar, made on the GPU beside the module;
      // process_weights_after_loading only re-wraps (weight.t() is a view), and after a
      // Marlin repack deletes the bound.
      add_w8a8(list, ctx, m, out, post_load);
      const int bound = list.add(p + ".input_scale_ub", {}, DType::kFloat32);
      if (ctx.rules.fp8_marlin)
        post_load.emplace_back([bound](TensorList& l) { l.release(bound); });
      break;
    }
    case QuantMethod::kFp8PerTensor:
      // vllm quantization/fp8.py Fp8LinearMethod (non-block) keeps what compressed-tensors'
      // per-tensor FP8 scheme keeps: requantized to the largest part's scale, or Marlin below
      // FP8 tensor cores. SGLang's expands the scales to one per row instead.
      if (q.online) {
        add_fp8_online(list, ctx, m, out, post_load);
      } else if (ctx.rules.fp8_per_tensor_channelwise) {
        add_fp8_channelwise_scales(list, ctx, m, out, post_load);
      } else {
        add_w8a8(list, ctx, m, out, post_load);
      }
      break;
  }
  if (m.bias) list.add(p + ".bias", {out}, ctx.dtype);
  return Status::ok_status();
}

}  // namespace gpumem
