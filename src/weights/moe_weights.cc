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

// 8-bit experts with one float32 scale per expert and projection (per-tensor FP8: vllm
// quantization/fp8.py Fp8MoEMethod without weight_block_size, compressed_tensors_moe.py
// CompressedTensorsW8A8Fp8MoEMethod's "tensor" strategy, modelopt.py ModelOptFp8MoEMethod; sglang
// v0.5.x fp8.py, compressed_tensors_moe.py and modelopt_quant.py alike) or one per output row
// ("channel": the FP8 method's channel strategy, and INT8's CompressedTensorsW8A8Int8MoEMethod
// and sglang w8a8_int8.py W8A8Int8MoEMethod); a static input scale per expert and projection.
Status add_w8_experts(TensorList& list, const BuildContext& ctx, const MoeModule& m,
                      PostLoadSteps& post_load) {
  const Quantization& q = ctx.arch.quantization;
  const bool per_tensor = q.method != QuantMethod::kCompressedTensorsW8a8 || q.per_tensor_scale;
  const bool float8 = q.method != QuantMethod::kCompressedTensorsW8a8 || q.float_weights;
  const bool statics = q.method == QuantMethod::kModelOptFp8 || q.activation_scales;
  if (statics && !per_tensor) {
    // compressed_tensors_moe.py CompressedTensorsW8A8Fp8MoEMethod.__init__ (both engines).
    return invalid_input(m.prefix +
                         ": For FP8 Fused MoE layer, static input quantization requires "
                         "per-tensor weight scales");
  }
  if (!float8 && (statics || per_tensor)) {
    // compressed_tensors_moe.py CompressedTensorsW8A8Int8MoEMethod.__init__ (both engines).
    return invalid_input(m.prefix +
                         ": For INT8 Fused MoE layers, only per-channel scales for weights and "
                         "per-token scales for activations are supported");
  }
  const std::int64_t e = m.num_local_experts;
  const std::int64_t h = ctx.arch.hidden_size;
  const std::int64_t i = m.intermediate_per_rank;
  const std::string& p = m.prefix;
  const DType weight_dtype = float8 ? DType::kFloat8E4M3 : DType::kInt8;
  const int w13 = list.add(p + ".w13_weight", {e, 2 * i, h}, weight_dtype);
  const int w2 = list.add(p + ".w2_weight", {e, h, i}, weight_dtype);
  const int s13 = list.add(
      p + ".w13_weight_scale",
      per_tensor ? std::vector<std::int64_t>{e, 2} : std::vector<std::int64_t>{e, 2 * i, 1},
      DType::kFloat32);
  const int s2 =
      list.add(p + ".w2_weight_scale",
               per_tensor ? std::vector<std::int64_t>{e} : std::vector<std::int64_t>{e, h, 1},
               DType::kFloat32);
  const int in13 = statics ? list.add(p + ".w13_input_scale", {e}, DType::kFloat32) : -1;
  const int in2 = statics ? list.add(p + ".w2_input_scale", {e}, DType::kFloat32) : -1;
  // ModelOpt's FP8 method has no Marlin path (modelopt.py ModelOptFp8Config: capability 8.9).
  const bool marlin = float8 && ctx.rules.fp8_marlin && q.method != QuantMethod::kModelOptFp8;
  const std::int64_t workspace = ctx.rules.device_sm_count * ctx.rules.marlin_blocks_per_sm;
  const DType dtype = ctx.dtype;
  // ... .process_weights_after_loading: per-tensor w1 and w3 are requantized in place to the
  // larger of their scales, which replaces the pair; each static input scale becomes its
  // maximum, a scalar. The per-expert dequantized temporaries are not modelled.
  post_load.emplace_back([=](TensorList& l) {
    int s13_loaded = s13;
    if (per_tensor) {
      s13_loaded = l.add(p + ".w13_weight_scale_max", {e}, DType::kFloat32);
      l.release(s13);
    }
    for (const auto& [index, name] :
         {std::pair{in13, ".w13_input_scale_max"}, std::pair{in2, ".w2_input_scale_max"}}) {
      if (index < 0) continue;
      if (!marlin) l.add(p + name, {}, DType::kFloat32);
      l.release(index);
    }
    if (!marlin) return;
    // vllm marlin_utils_fp8.py prepare_moe_fp8_layer_for_marlin, below FP8 tensor cores: each
    // projection repacked (same bytes, concatenated over the experts), the scales expanded to
    // one per output column in the model dtype, a workspace; the input scales dropped.
    l.add(p + ".workspace", {workspace}, DType::kInt32);
    for (int index : {w13, w2}) {
      l.add(l.at(index).name + "_marlin", l.at(index).shape, l.at(index).dtype);
      l.release(index);
    }
    l.add(p + ".w13_weight_scale_marlin", {e, 1, 2 * i}, dtype);
    l.release(s13_loaded);
    l.add(p + ".w2_weight_scale_marlin", {e, 1, h}, dtype);
    l.release(s2);
  });
  return Status::ok_status();
}

// Online FP8 experts (--quantization fp8 on a model-dtype checkpoint): each projection is
// loaded in the model dtype, then a float8 copy and one float32 scale per expert replace it.
// vllm quantization/online/fp8.py Fp8PerTensorOnlineMoEMethod (PR #31914) does it per layer as
// soon as the layer's weights are in; before it vLLM's fp8.py Fp8MoEMethod, and sglang's still,
// keep the loaded experts (and a [E, 2] w13 scale) until process_weights_after_loading, which
// allocates both float8 copies and a [E] w13 scale before the loaded ones are freed.
void add_fp8_online_experts(TensorList& list, const BuildContext& ctx, const MoeModule& m,
                            PostLoadSteps& post_load) {
  const std::int64_t e = m.num_local_experts;
  const std::int64_t h = ctx.arch.hidden_size;
  const std::int64_t i = m.intermediate_per_rank;
  const std::string& p = m.prefix;
  const int w13 = list.add(p + ".w13_weight", {e, 2 * i, h}, ctx.dtype);
  const int w2 = list.add(p + ".w2_weight", {e, h, i}, ctx.dtype);
  if (ctx.rules.online_fp8_per_module) {
    list.add(p + ".w13_weight_fp8", {e, 2 * i, h}, DType::kFloat8E4M3);
    list.add(p + ".w2_weight_fp8", {e, h, i}, DType::kFloat8E4M3);
    list.add(p + ".w13_weight_scale", {e}, DType::kFloat32);
    list.add(p + ".w2_weight_scale", {e}, DType::kFloat32);
    list.release(w13);
    list.release(w2);
    return;
  }
  const int s13 = list.add(p + ".w13_weight_scale", {e, 2}, DType::kFloat32);
  list.add(p + ".w2_weight_scale", {e}, DType::kFloat32);
  post_load.emplace_back([=](TensorList& l) {
    l.add(p + ".w13_weight_fp8", {e, 2 * i, h}, DType::kFloat8E4M3);
    l.add(p + ".w2_weight_fp8", {e, h, i}, DType::kFloat8E4M3);
    l.add(p + ".w13_weight_scale_merged", {e}, DType::kFloat32);
    l.release(s13);
    l.release(w13);
    l.release(w2);
  });
}

Status add_mxfp4(TensorList& list, const BuildContext& ctx, const MoeModule& m,
                 PostLoadSteps& post_load) {
  const std::int64_t e = m.num_local_experts;
  // sglang v0.5.9 layers/quantization/mxfp4.py Mxfp4MoEMethod.create_weights: E2M1 pairs in
  // uint8, one E8M0 (uint8) scale per 32 values, bfloat16 biases; padded per WeightRules.
  constexpr std::int64_t kBlock = 32;
  const std::int64_t h = round_up_to(ctx.arch.hidden_size, ctx.rules.mxfp4_hidden_multiple);
  const std::int64_t i =
      round_up_to(m.intermediate_per_rank, ctx.rules.mxfp4_intermediate_multiple);
  if (!m.bias) return invalid_input(m.prefix + ": MXFP4 experts without biases are not modelled");
  const int w13 = list.add(m.prefix + ".w13_weight", {e, 2 * i, h / 2}, DType::kUInt8);
  list.add(m.prefix + ".w13_weight_scale", {e, 2 * i, h / kBlock}, DType::kUInt8);
  const int b13 = list.add(m.prefix + ".w13_weight_bias", {e, 2 * i}, DType::kBFloat16);
  const int w2 = list.add(m.prefix + ".w2_weight", {e, h, i / 2}, DType::kUInt8);
  list.add(m.prefix + ".w2_weight_scale", {e, h, i / kBlock}, DType::kUInt8);
  const int b2 = list.add(m.prefix + ".w2_weight_bias", {e, h}, DType::kBFloat16);
  if (!ctx.rules.mxfp4_triton_layout) return Status::ok_status();
  // triton_kernels v3.5.0 tensor_details/layout: HopperMXValueLayout pads rows to 16 and the
  // packed K to 32 bytes; HopperMXScaleLayout pads rows to SWIZZLE_ALIGN_M (256 at 8 warps)
  // and scale groups to 2.
  const std::string p = m.prefix;
  post_load.emplace_back([=](TensorList& l) {
    l.add(p + ".w13_bias_fp32", {e, 2 * i}, DType::kFloat32);
    l.release(b13);
    l.add(p + ".w2_bias_fp32", {e, h}, DType::kFloat32);
    l.release(b2);
    // _swizzle_mxfp4 for w13, then w2; the loaded weights are deleted after both.
    l.add(p + ".w13_weight_triton", {e, round_up_to(2 * i, 16), round_up_to(h / 2, 32)},
          DType::kUInt8);
    l.add(p + ".w13_scale_triton", {e, round_up_to(2 * i, 256), round_up_to(h / kBlock, 2)},
          DType::kUInt8);
    l.add(p + ".w2_weight_triton", {e, round_up_to(h, 16), round_up_to(i / 2, 32)}, DType::kUInt8);
    l.add(p + ".w2_scale_triton", {e, round_up_to(h, 256), round_up_to(i / kBlock, 2)},
          DType::kUInt8);
    l.release(w13);
    l.release(w2);
  });
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
      return add_mxfp4(list, ctx, m, post_load);
    case QuantMethod::kModelOptNvfp4:
    case QuantMethod::kCompressedTensorsNvfp4:
      return add_nvfp4(list, ctx, m, post_load);
    case QuantMethod::kAwq:
    case QuantMethod::kGptq:
      return add_int4_marlin_moe(list, ctx, m, post_load);
    case QuantMethod::kFp8PerTensor:
      if (ctx.arch.quantization.online) {
        add_fp8_online_experts(list, ctx, m, post_load);
        return Status::ok_status();
      }
      return add_w8_experts(list, ctx, m, post_load);
    case QuantMethod::kModelOptFp8:
    case QuantMethod::kCompressedTensorsW8a8:
      return add_w8_experts(list, ctx, m, post_load);
    case QuantMethod::kModelOptFp8PerChannel:
    // vllm bitsandbytes.py BitsAndBytesMoEMethod fuses the experts' quant states and
    // dequantizes every expert of a layer at each forward; sglang's loader builds no fused
    // state for them.
    case QuantMethod::kBitsAndBytes4:
      break;
    // vllm fbgemm_fp8.py get_quant_method returns no method for a FusedMoE, whose __init__
    // asserts one (sglang alike): such a model does not start.
    case QuantMethod::kFbgemmFp8:
      return invalid_input(m.prefix +
                           ": fbgemm_fp8 has no method for fused experts; the engines stop at "
                           "this layer");
  }
  return invalid_input(m.prefix + ": " + std::string(quant_method_name(method)) +
                       " experts are not modelled");
}

}  // namespace gpumem
