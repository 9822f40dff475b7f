#include "edgeocr/tensor.h"

#include "common/checked.h"
#include "edgeocr/status.h"

namespace edgeocr {

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::kFloat32:
    case DType::kInt32:
    case DType::kUInt32:
      return 4;
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kBool:
      return 1;
    case DType::kUInt16:
    case DType::kInt16:
    case DType::kFloat16:
      return 2;
    case DType::kInt64:
    case DType::kFloat64:
    case DType::kUInt64:
      return 8;
    default:
      return 0;
  }
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "float32";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt8:
      return "int8";
    case DType::kUInt16:
      return "uint16";
    case DType::kInt16:
      return "int16";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kString:
      return "string";
    case DType::kBool:
      return "bool";
    case DType::kFloat16:
      return "float16";
    case DType::kFloat64:
      return "float64";
    case DType::kUInt32:
      return "uint32";
    case DType::kUInt64:
      return "uint64";
    default:
      return "undefined";
  }
}

std::int64_t element_count(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d < 0)
      fail(StatusCode::kInvalidArgument, "shape " + shape_str(shape) + " has a negative dimension");
    if (__builtin_mul_overflow(n, d, &n))
      fail(StatusCode::kInvalidArgument, "shape " + shape_str(shape) + ": element count overflows");
  }
  return n;
}

std::size_t Tensor::bytes() const {
  return checked_mul(static_cast<std::size_t>(element_count(shape)), dtype_size(dtype),
                     "tensor bytes");
}

std::string shape_str(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace edgeocr
