// The converter table: Paddle Lite op type -> function that appends the op's
// ONNX nodes to the context. Each ops_*.cpp file registers one op family.
#pragma once

#include <map>
#include <string>

#include "loader/nb/translate.h"

namespace edgeocr {
namespace nb {

using Converter = void (*)(Ctx&, const NbOp&);
using Registry = std::map<std::string, Converter>;

// Built once (thread-safe static), by calling each family's register function.
const Registry& registry();

void register_io_ops(Registry& r);  // ops_io.cpp: feed, fetch, fill_constant, assign, shape, cast
void register_activation_ops(Registry& r);   // ops_activation.cpp
void register_conv_ops(Registry& r);         // ops_conv.cpp: conv, conv transpose, pool, batch norm
void register_elementwise_ops(Registry& r);  // ops_elementwise.cpp: elementwise_*, scale, clip, sum
void register_tensor_ops(Registry& r);       // ops_tensor.cpp: reshape, transpose, slice, concat...
void register_math_ops(Registry& r);         // ops_math.cpp: matmul, fc, softmax, norms, reductions
void register_resize_ops(Registry& r);       // ops_resize.cpp: interpolation, padding
void register_rnn_ops(Registry& r);          // ops_rnn.cpp

}  // namespace nb
}  // namespace edgeocr
