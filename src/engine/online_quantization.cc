#include "engine/online_quantization.h"

namespace gpumem {

std::string apply_online_fp8(Architecture& model, const GpuSpec& gpu, std::string_view engine) {
  const std::string what = "--quantization fp8 on " + model.name + " (online FP8) ";
  if (gpu.compute_capability_major * 10 + gpu.compute_capability_minor < 89) {
    // vllm fp8_linear.process_weights_after_loading repacks for Marlin; sglang takes Marlin
    // (PR #8990) from a release not pinned down.
    return what + "is not modelled on " + gpu.name +
           ", which has no FP8 tensor cores (compute capability below 8.9): " +
           std::string(engine) + " runs the result on Marlin";
  }
  Quantization& q = model.quantization;
  q.method = QuantMethod::kFp8PerTensor;
  q.float_weights = true;
  q.per_tensor_scale = true;
  q.activation_scales = false;  // dynamic: scales computed per batch
  q.online = true;
  return "";
}

std::string apply_online_bitsandbytes(Architecture& model) {
  if (model.moe.num_experts > 0) {
    // vllm bitsandbytes.py BitsAndBytesMoEMethod dequantizes every expert of a layer at each
    // forward.
    return "--quantization bitsandbytes on " + model.name +
           " (in-flight nf4) is not modelled for its experts";
  }
  Quantization& q = model.quantization;
  q.method = QuantMethod::kBitsAndBytes4;
  q.num_bits = 4;
  q.group_size = 64;
  q.double_quant = true;  // quantize_4bit(compress_statistics=True)
  q.online = true;
  return "";
}

}  // namespace gpumem
