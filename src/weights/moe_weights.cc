#include "weights/moe_weights.h"

#include "weights/linear_weights.h"

namespace gpumem {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t round_up_to(std::int64_t a, std::int64_t m) { return ceil_div(a, m) * m; }

Status add_unquantized(TensorList& list, const BuildContext& ctx, const MoeModule& m) {
  if (m.bias) {
    return invalid_input(m.prefix + ": unquantized experts with biases are not modelled");
  }
  const std::int64_t e = m.num_local_experts;
  const std::int64_t h = ctx.arch.hidden_size;
  const std::int64_t i = m.intermediate_per_rank;
  // sglang v0.5.9 layers/quantization/unquant.py UnquantizedFusedMoEMethod.create_weights
  // (w13_up_dim: 2 x intermediate when gated, else intermediate; vLLM's alike)
  list.add(m.prefix + ".w13_weight", {e, m.gated ? 2 * i : i, h}, ctx.dtype);
  list.add(m.prefix + ".w2_weight", {e, h, i}, ctx.dtype);
  return Status::ok_status();
}

Status add_fp8_block(TensorList& list, const BuildContext& ctx, const MoeModule& m) {
  const Quantization& q = ctx.arch.quantization;
  const std::int64_t e = m.num_local_experts;
  const std::int64_t h = ctx.arch.hidden_size;
  const std::int64_t i = m.intermediate_per_rank;
  // sglang v0.5.9 layers/quantization/fp8.py Fp8MoEMethod.create_weights (block checks)
  if (i % q.block_n != 0) {
    return invalid_input(
        m.prefix + ": The output_size of gate's and up's weight = " + std::to_string(i) +
        " is not divisible by weight quantization block_n = " + std::to_string(q.block_n) + ".");
  }
  if (m.moe_tp_size > 1 && i % q.block_k != 0) {
    return invalid_input(
        m.prefix + ": The input_size of down's weight = " + std::to_string(i) +
        " is not divisible by weight quantization block_k = " + std::to_string(q.block_k) + ".");
  }
  list.add(m.prefix + ".w13_weight", {e, 2 * i, h}, DType::kFloat8E4M3);
  list.add(m.prefix + ".w2_weight", {e, h, i}, DType::kFloat8E4M3);
  list.add(m.prefix + ".w13_weight_scale_inv",
           {e, 2 * ceil_div(i, q.block_n), ceil_div(h, q.block_k)}, DType::kFloat32);
  list.add(m.prefix + ".w2_weight_scale_inv", {e, ceil_div(h, q.block_n), ceil_div(i, q.block_k)},
           DType::kFloat32);
  return Status::ok_status();
}

Status add_wna16(TensorList& list, const BuildContext& ctx, const MoeModule& m,
                 PostLoadSteps& post_load) {
  const Quantization& q = ctx.arch.quantization;
  const std::int64_t e = m.num_local_experts;
  const std::int64_t h = ctx.arch.hidden_size;
  const std::int64_t i = m.intermediate_per_rank;
  const std::int64_t pack = 32 / q.num_bits;
  const bool grouped = q.group_size > 0;
  if (h % pack != 0 || i % pack != 0 ||
      (grouped && (h % q.group_size != 0 || i % q.group_size != 0))) {
    return invalid_input(m.prefix + ": hidden size " + std::to_string(h) +
                         " and intermediate size per rank " + std::to_string(i) +
                         " must be multiples of the pack factor " + std::to_string(pack) +
                         " and the group size " + std::to_string(q.group_size));
  }
  // sglang v0.5.9 compressed_tensors/schemes/compressed_tensors_wNa16_moe.py
  // CompressedTensorsWNA16MoE.create_weights: packed weights are stored transposed
  // (K / pack, N); one scale per group of K; weight_shape is created in the default dtype.
  const std::string& p = m.prefix;
  const int w13 = list.add(p + ".w13_weight_packed", {e, h / pack, 2 * i}, DType::kInt32);
  const int w2 = list.add(p + ".w2_weight_packed", {e, i / pack, h}, DType::kInt32);
  const int s13 =
      list.add(p + ".w13_weight_scale", {e, grouped ? h / q.group_size : 1, 2 * i}, ctx.dtype);
  const int s2 =
      list.add(p + ".w2_weight_scale", {e, grouped ? i / q.group_size : 1, h}, ctx.dtype);
  list.add(p + ".w2_weight_shape", {e, 2}, ctx.dtype);
  list.add(p + ".w13_weight_shape", {e, 2}, ctx.dtype);
  const int g13 = list.add(p + ".w13_weight_g_idx", {e, h}, DType::kInt32);
  const int g2 = list.add(p + ".w2_weight_g_idx", {e, i}, DType::kInt32);
  const int o13 = list.add(p + ".w13_g_idx_sort_indices", {e, h}, DType::kInt32);
  const int o2 = list.add(p + ".w2_g_idx_sort_indices", {e, i}, DType::kInt32);
  const std::int64_t workspace = ctx.rules.device_sm_count * ctx.rules.marlin_blocks_per_sm;
  // ... .process_weights_after_loading, without activation ordering: the four g_idx tensors
  // become empty (freed); gptq_marlin_moe_repack and marlin_moe_permute_scales build
  // Marlin-layout copies (same sizes) that are copied back in place and freed when the
  // method returns; a Marlin workspace stays.
  post_load.emplace_back([=](TensorList& l) {
    for (int idx : {g13, g2, o13, o2}) l.release(idx);
    const int r13 = l.add(p + ".marlin_w13_qweight", l.at(w13).shape, DType::kInt32);
    const int r2 = l.add(p + ".marlin_w2_qweight", l.at(w2).shape, DType::kInt32);
    const int rs13 = l.add(p + ".marlin_w13_scales", l.at(s13).shape, l.at(s13).dtype);
    const int rs2 = l.add(p + ".marlin_w2_scales", l.at(s2).shape, l.at(s2).dtype);
    l.add(p + ".workspace", {workspace}, DType::kInt32);
    for (int idx : {r13, r2, rs13, rs2}) l.release(idx);
  });
  return Status::ok_status();
}

// AWQ and GPTQ experts on Marlin (vllm awq_marlin.py AWQMarlinMoEMethod, gptq_marlin.py
// GPTQMarlinMoEMethod; sglang v0.5.9 awq.py AWQMoEMethod and gptq.py GPTQMarlinMoEMethod, the
// same tensors): the checkpoint's packed weights, scales and zero points per expert, AWQ's
// packed along N ([E, K, N / pack]), GPTQ's along K ([E, K / pack, N]) with its g_idx.
Status add_int4_marlin_moe(TensorList& list, const BuildContext& ctx, const MoeModule& m,
                           PostLoadSteps& post_load) {
  const Quantization& q = ctx.arch.quantization;
  const bool awq = q.method == QuantMethod::kAwq;
  const std::int64_t e = m.num_local_experts;
  const std::int64_t h = ctx.arch.hidden_size;
  const std::int64_t i = m.intermediate_per_rank;
  const std::int64_t pack = 32 / q.num_bits;
  const std::int64_t group = q.group_size > 0 ? q.group_size : 0;
  if (h % pack != 0 || i % pack != 0 || (group > 0 && (h % group != 0 || i % group != 0))) {
    return invalid_input(m.prefix + ": hidden size " + std::to_string(h) +
                         " and intermediate size per rank " + std::to_string(i) +
                         " must be multiples of the pack factor " + std::to_string(pack) +
                         " and the group size " + std::to_string(q.group_size));
  }
  if (!awq && q.desc_act) {
    return invalid_input(m.prefix +
                         ": GPTQ experts with desc_act (activation order) are not "
                         "modelled");
  }
  const std::int64_t groups13 = group > 0 ? h / group : 1;
  const std::int64_t groups2 = group > 0 ? i / group : 1;
  const std::string& p = m.prefix;
  const int w13 = awq ? list.add(p + ".w13_qweight", {e, h, 2 * i / pack}, DType::kInt32)
                      : list.add(p + ".w13_qweight", {e, h / pack, 2 * i}, DType::kInt32);
  const int w2 = awq ? list.add(p + ".w2_qweight", {e, i, h / pack}, DType::kInt32)
                     : list.add(p + ".w2_qweight", {e, i / pack, h}, DType::kInt32);
  const int s13 = list.add(p + ".w13_scales", {e, groups13, 2 * i}, ctx.dtype);
  const int s2 = list.add(p + ".w2_scales", {e, groups2, h}, ctx.dtype);
  const int z13 = list.add(p + ".w13_qzeros", {e, groups13, 2 * i / pack}, DType::kInt32);
  const int z2 = list.add(p + ".w2_qzeros", {e, groups2, h / pack}, DType::kInt32);
  std::vector<int> g_idx;
  if (!awq) {
    g_idx = {list.add(p + ".w13_g_idx", {e, h}, DType::kInt32),
             list.add(p + ".w2_g_idx", {e, i}, DType::kInt32),
             list.add(p + ".w13_g_idx_sort_indices", {e, h}, DType::kInt32),
             list.add(p + ".w2_g_idx_sort_indices", {e, i}, DType::kInt32)};
  }
  const std::int64_t workspace = ctx.rules.device_sm_count * ctx.rules.marlin_blocks_per_sm;
  list.add(p + ".workspace", {workspace}, DType::kInt32);
  // ... .process_weights_after_loading: without activation order GPTQ's g_idx and sort
  // indices become empty tensors; the Marlin-repacked weights and permuted scales (same
  // sizes) replace the loaded ones one by one, and AWQ's zero points are converted likewise
  // (replace_parameter: the new tensor registered, the old one freed). GPTQ keeps its zero
  // points as loaded.
  post_load.emplace_back([=](TensorList& l) {
    for (int idx : g_idx) l.release(idx);
    std::vector<int> replaced = {w13, w2, s13, s2};
    if (awq) replaced.insert(replaced.end(), {z13, z2});
    for (int idx : replaced) {
      l.add(l.at(idx).name + "_marlin", l.at(idx).shape, l.at(idx).dtype);
      l.release(idx);
    }
  });
  return Status::ok_status();
}

// ModelOpt FP8 experts with per-tensor scales (sglang v0.5.9 modelopt_quant.py
// ModelOptFp8MoEMethod; vLLM's modelopt.py alike): e4m3 weights, two float32 weight scales per
// expert for w13 (w1, w3) and one for w2, one float32 input scale per expert for each.
Status add_modelopt_fp8(TensorList& list, const BuildContext& ctx, const MoeModule& m,
                        PostLoadSteps& post_load) {
  const std::int64_t e = m.num_local_experts;
  const std::int64_t h = ctx.arch.hidden_size;
  const std::int64_t i = m.intermediate_per_rank;
  const std::string& p = m.prefix;
  list.add(p + ".w13_weight", {e, 2 * i, h}, DType::kFloat8E4M3);
  list.add(p + ".w2_weight", {e, h, i}, DType::kFloat8E4M3);
  const int s13 = list.add(p + ".w13_weight_scale", {e, 2}, DType::kFloat32);
  list.add(p + ".w2_weight_scale", {e}, DType::kFloat32);
  const int in13 = list.add(p + ".w13_input_scale", {e}, DType::kFloat32);
  const int in2 = list.add(p + ".w2_input_scale", {e}, DType::kFloat32);
  // ... .process_weights_after_loading: w1 and w3 requantized in place to the larger of their
  // scales, which replaces the pair; each input scale becomes its maximum, a scalar.
  post_load.emplace_back([=](TensorList& l) {
    l.add(p + ".w13_weight_scale_max", {e}, DType::kFloat32);
    l.release(s13);
    l.add(p + ".w13_input_scale_max", {}, DType::kFloat32);
    l.release(in13);
    l.add(p + ".w2_input_scale_max", {}, DType::kFloat32);
    l.release(in2);
  });
  return Status::ok_status();
}

Status add_mxfp4(TensorList& list, const BuildContext& ctx, const MoeModule& m) {
  const std::int64_t e = m.num_local_experts;
  // sglang v0.5.9 layers/quantization/mxfp4.py Mxfp4MoEMethod.create_weights: E2M1 pairs in
  // uint8, one E8M0 (uint8) scale per 32 values, bfloat16 biases; padded per WeightRules.
  constexpr std::int64_t kBlock = 32;
  const std::int64_t h = round_up_to(ctx.arch.hidden_size, ctx.rules.mxfp4_hidden_multiple);
  const std::int64_t i =
      round_up_to(m.intermediate_per_rank, ctx.rules.mxfp4_intermediate_multiple);
  if (!m.bias) return invalid_input(m.prefix + ": MXFP4 experts without biases are not modelled");
  list.add(m.prefix + ".w13_weight", {e, 2 * i, h / 2}, DType::kUInt8);
  list.add(m.prefix + ".w13_weight_scale", {e, 2 * i, h / kBlock}, DType::kUInt8);
  list.add(m.prefix + ".w13_weight_bias", {e, 2 * i}, DType::kBFloat16);
  list.add(m.prefix + ".w2_weight", {e, h, i / 2}, DType::kUInt8);
  list.add(m.prefix + ".w2_weight_scale", {e, h, i / kBlock}, DType::kUInt8);
  list.add(m.prefix + ".w2_weight_bias", {e, h}, DType::kBFloat16);
  return Status::ok_status();
}

// NVFP4 experts (vllm quantization/modelopt.py ModelOptNvFp4FusedMoE.create_weights; the
// compressed-tensors compressed_tensors_moe_w4a4_nvfp4.py method registers the same under its
// own names): E2M1 pairs in uint8, an e4m3 scale per 16 input columns, float32 global weight
// scales per expert and projection, and for W4A4 the input scales alike.
Status add_nvfp4(TensorList& list, const BuildContext& ctx, const MoeModule& m,
                 PostLoadSteps& post_load) {
  const Quantization& q = ctx.arch.quantization;
  const bool modelopt = q.method == QuantMethod::kModelOptNvfp4;
  const std::int64_t e = m.num_local_experts;
  const std::int64_t h = ctx.arch.hidden_size;
  const std::int64_t i = m.intermediate_per_rank;
  const std::int64_t g = q.group_size;
  if (m.bias) return invalid_input(m.prefix + ": NVFP4 experts with biases are not modelled");
  if (h % g != 0 || i % g != 0) {
    return invalid_input(m.prefix + ": hidden size " + std::to_string(h) +
                         " and intermediate size per rank " + std::to_string(i) +
                         " must be multiples of the NVFP4 group size 16");
  }
  const std::string p = m.prefix;
  const std::string packed = modelopt ? "_weight" : "_weight_packed";
  const std::string global = modelopt ? "_weight_scale_2" : "_weight_global_scale";
  const std::string input = modelopt ? "_input_scale" : "_input_global_scale";
  const int w13 = list.add(p + ".w13" + packed, {e, 2 * i, h / 2}, DType::kUInt8);
  list.add(p + ".w2" + packed, {e, h, i / 2}, DType::kUInt8);
  const int s13 = list.add(p + ".w13_weight_scale", {e, 2 * i, h / g}, DType::kFloat8E4M3);
  const int s2 = list.add(p + ".w2_weight_scale", {e, h, i / g}, DType::kFloat8E4M3);
  const int g13 = list.add(p + ".w13" + global, {e, 2}, DType::kFloat32);
  list.add(p + ".w2" + global, {e}, DType::kFloat32);
  const int i13 = q.activation_scales ? list.add(p + ".w13" + input, {e, 2}, DType::kFloat32) : -1;
  const int i2 = q.activation_scales ? list.add(p + ".w2" + input, {e}, DType::kFloat32) : -1;
  const Nvfp4Layout layout = ctx.rules.nvfp4_layout;
  const std::int64_t workspace = ctx.rules.device_sm_count * ctx.rules.marlin_blocks_per_sm;
  post_load.emplace_back([=](TensorList& l) {
    if (layout == Nvfp4Layout::kMarlin) {
      // marlin_utils_fp4.py prepare_nvfp4_moe_layer_for_marlin: w13's rows padded to 64 and
      // every expert repacked (same bytes), the scales permuted in place, a workspace; the
      // activation scales are dropped.
      l.add(p + ".workspace", {workspace}, DType::kInt32);
      if ((2 * i) % 64 != 0) {
        l.add(p + ".marlin_w13_weight", {e, round_up_to(2 * i, 64), h / 2}, DType::kUInt8);
        l.release(w13);
        l.add(p + ".marlin_w13_weight_scale", {e, round_up_to(2 * i, 64), h / g},
              DType::kFloat8E4M3);
        l.release(s13);
      }
      if (i13 >= 0) l.release(i13);
      if (i2 >= 0) l.release(i2);
      return;
    }
    // flashinfer_fp4_moe.py prepare_nvfp4_moe_layer_for_fi_or_cutlass: the block scales
    // swizzled to [experts, ceil128(rows), ceil4(columns / 16)]; w13's global scale reduced
    // to one per expert.
    l.add(p + ".w13_blockscale_swizzled", {e, round_up_to(2 * i, 128), round_up_to(h / g, 4)},
          DType::kFloat8E4M3);
    l.add(p + ".w2_blockscale_swizzled", {e, round_up_to(h, 128), round_up_to(i / g, 4)},
          DType::kFloat8E4M3);
    if (layout == Nvfp4Layout::kSwizzledScales) {
      l.release(s13);
      l.release(s2);
      l.add(p + ".w13_alpha", {e}, DType::kFloat32);
      l.release(g13);
    }
  });
  return Status::ok_status();
}

}  // namespace

Status add_fused_moe(TensorList& list, const BuildContext& ctx, const MoeModule& m,
                     PostLoadSteps& post_load) {
  const Quantization& q = ctx.arch.quantization;
  Result<bool> converted = is_converted(q, m.prefix, {m.prefix});
  if (!converted.ok()) return converted.status();
  const QuantMethod method = *converted ? q.method : QuantMethod::kNone;
  if (!m.gated && method != QuantMethod::kNone) {
    return invalid_input(m.prefix + ": " + std::string(quant_method_name(method)) +
                         " experts without a gate projection (relu2) are not modelled");
  }
  switch (method) {
    case QuantMethod::kNone:
      return add_unquantized(list, ctx, m);
    case QuantMethod::kFp8Block:
      return add_fp8_block(list, ctx, m);
    case QuantMethod::kCompressedTensorsWna16:
      return add_wna16(list, ctx, m, post_load);
    case QuantMethod::kMxfp4:
      return add_mxfp4(list, ctx, m);
    case QuantMethod::kModelOptNvfp4:
    case QuantMethod::kCompressedTensorsNvfp4:
      return add_nvfp4(list, ctx, m, post_load);
    case QuantMethod::kAwq:
    case QuantMethod::kGptq:
      return add_int4_marlin_moe(list, ctx, m, post_load);
    case QuantMethod::kModelOptFp8:
      return add_modelopt_fp8(list, ctx, m, post_load);
    case QuantMethod::kCompressedTensorsW8a8:
    case QuantMethod::kFp8PerTensor:
    case QuantMethod::kModelOptFp8PerChannel:
    // vllm bitsandbytes.py BitsAndBytesMoEMethod fuses the experts' quant states and
    // dequantizes every expert of a layer at each forward; sglang's loader builds no fused
    // state for them.
    case QuantMethod::kBitsAndBytes4:
      break;
  }
  return invalid_input(m.prefix + ": " + std::string(quant_method_name(method)) +
                       " experts are not modelled");
}

}  // namespace gpumem
