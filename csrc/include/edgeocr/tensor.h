// Tensor types shared by the runtime and the pipeline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "edgeocr/memory_pool.h"

namespace edgeocr {

// Values follow ONNX's TensorProto.DataType numbering.
enum class DType : int {
  kUndefined = 0,
  kFloat32 = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kFloat64 = 11,
  kUInt32 = 12,
  kUInt64 = 13,
};

// 0 for types without a fixed element size (string, undefined).
std::size_t dtype_size(DType t);
const char* dtype_name(DType t);

// Product of the dimensions; throws Error(kInvalidArgument) on a negative
// dimension or an overflow.
std::int64_t element_count(const std::vector<std::int64_t>& shape);
std::string shape_str(const std::vector<std::int64_t>& shape);

// Declared input or output of a model. Dynamic dimensions are -1, with their
// symbolic name (if any) in dim_names.
struct TensorInfo {
  std::string name;
  DType dtype = DType::kUndefined;
  std::vector<std::int64_t> shape;
  std::vector<std::string> dim_names;
};

// A non-owning view of caller memory (C-contiguous).
struct TensorView {
  const void* data = nullptr;
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> shape;
};

// A C-contiguous tensor whose memory is a pool block.
struct Tensor {
  DType dtype = DType::kUndefined;
  std::vector<std::int64_t> shape;
  PoolBlock block;

  void* data() const { return block.data(); }
  template <typename T>
  T* ptr() const {
    return static_cast<T*>(block.data());
  }
  // Throws (kInvalidArgument / kOutOfMemory) when the shape is negative or overflows.
  std::size_t bytes() const;
};

}  // namespace edgeocr
