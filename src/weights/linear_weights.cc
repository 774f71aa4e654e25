#include "weights/linear_weights.h"

#include <numeric>

namespace gpumem {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

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

}  // namespace

Result<bool> is_converted(const Quantization& q, const std::string& prefix,
                          const std::vector<std::string>& checkpoint_names) {
  if (q.method == QuantMethod::kNone) return false;
  size_t excluded = 0;
  for (const std::string& name : checkpoint_names) {
    if (q.not_converted.matches(name)) ++excluded;
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
  Result<bool> converted = is_converted(q, m.prefix, m.checkpoint_names);
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
  }
  if (m.bias) list.add(p + ".bias", {out}, ctx.dtype);
  return Status::ok_status();
}

}  // namespace gpumem
