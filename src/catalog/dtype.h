// Element types of tensors as PyTorch names them.
//
// A model's parameters, scales and buffers each have one of these types; the bytes a tensor
// takes are its element count times `element_size`. The names are torch's (`bfloat16`,
// `float8_e4m3fn`), which is also how Hugging Face's `torch_dtype` writes the model dtype.
#ifndef GPUMEM_CATALOG_DTYPE_H_
#define GPUMEM_CATALOG_DTYPE_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/units.h"

namespace gpumem {

enum class DType : unsigned char {
  kFloat32,
  kBFloat16,
  kFloat16,
  kFloat8E4M3,  // torch.float8_e4m3fn: FP8 weights of block-wise and ModelOpt checkpoints
  kUInt8,       // MXFP4 packed pairs and E8M0 block scales
  kInt8,        // W8A8 integer weights
  kInt32,       // packed INT4 (8 values per element), Marlin workspaces
  kInt64,       // compressed-tensors weight_shape, EAGLE-3 hot-token ids
  kFloat8E8M0,  // torch.float8_e8m0fnu: DeepSeek-V4's stored block scales (powers of two)
};

// Bytes per element.
Bytes element_size(DType t);
// "bfloat16", "float8_e4m3fn", ...
std::string_view dtype_name(DType t);
// "torch.bfloat16", ...: how the engines print a dtype in their logs.
std::string torch_dtype_name(DType t);

// A model dtype as `torch_dtype` writes it. Only floating types a checkpoint can declare are
// accepted ("bfloat16", "float16", "float32"); nullopt for anything else.
std::optional<DType> parse_model_dtype(std::string_view text);
// The names parse_model_dtype accepts, for error messages.
std::span<const std::string> model_dtype_names();

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_DTYPE_H_
