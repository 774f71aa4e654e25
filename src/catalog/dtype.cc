#include "catalog/dtype.h"

#include <array>

namespace gpumem {

Bytes element_size(DType t) {
  switch (t) {
    case DType::kFloat32:
    case DType::kInt32:
      return bytes(4);
    case DType::kBFloat16:
    case DType::kFloat16:
      return bytes(2);
    case DType::kFloat8E4M3:
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kFloat8E8M0:
      return bytes(1);
    case DType::kInt64:
      return bytes(8);
  }
  return bytes(0);
}

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "float32";
    case DType::kBFloat16:
      return "bfloat16";
    case DType::kFloat16:
      return "float16";
    case DType::kFloat8E4M3:
      return "float8_e4m3fn";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt8:
      return "int8";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kFloat8E8M0:
      return "float8_e8m0fnu";
  }
  return "?";
}

namespace {
const std::array<std::string, 3> kModelDtypeNames = {"bfloat16", "float16", "float32"};
}  // namespace

std::optional<DType> parse_model_dtype(std::string_view text) {
  if (text == "bfloat16") return DType::kBFloat16;
  if (text == "float16") return DType::kFloat16;
  if (text == "float32") return DType::kFloat32;
  return std::nullopt;
}

std::span<const std::string> model_dtype_names() { return kModelDtypeNames; }

std::string torch_dtype_name(DType t) { return "torch." + std::string(dtype_name(t)); }

}  // namespace gpumem
