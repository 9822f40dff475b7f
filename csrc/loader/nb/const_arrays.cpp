// Constants computed at translation time: dtype conversion, reshaping, transposition and
// dequantised weights.
#include <cmath>
#include <cstring>

#include "loader/nb/translate.h"

namespace edgeocr {
namespace nb {

Array to_float(Ctx& ctx, const Array& a) {
  if (a.dtype == kFloat) return a;
  Array out = ctx.alloc(kFloat, a.shape);
  std::size_t n = static_cast<std::size_t>(a.numel());
  float* o = reinterpret_cast<float*>(out.mutable_data());
  for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<float>(a.at(i));
  return out;
}

std::string float_const_as(Ctx& ctx, const Array& a, const Dims& shape, const std::string& base) {
  Array f = to_float(ctx, a);
  for (int64_t d : shape)
    if (d < 0) corrupt("reshapes a constant to " + dims_str(shape));
  if (prod(shape) != f.numel())
    corrupt("has a constant of " + std::to_string(f.numel()) + " values where " + dims_str(shape) +
            " is needed");
  f.shape = shape;
  return ctx.materialize(ctx.new_const(std::move(f), base));
}

Array transpose_array(Ctx& ctx, const Array& a, const Dims& perm) {
  std::size_t r = a.shape.size();
  if (perm.size() != r)
    corrupt("transposes a rank-" + std::to_string(r) + " constant with perm " + dims_str(perm));
  std::vector<bool> seen(r, false);
  for (int64_t p : perm) {
    if (p < 0 || static_cast<std::size_t>(p) >= r || seen[p])
      corrupt("has an invalid perm " + dims_str(perm));
    seen[p] = true;
  }
  Dims oshape(r);
  for (std::size_t i = 0; i < r; ++i) oshape[i] = a.shape[perm[i]];
  Array out = ctx.alloc(a.dtype, oshape);
  std::size_t item = a.itemsize(), n = static_cast<std::size_t>(a.numel());
  if (n == 0) return out;
  Dims istride(r, 1);
  for (std::size_t i = r; i-- > 1;) istride[i - 1] = istride[i] * a.shape[i];
  Dims idx(r, 0);
  uint8_t* o = out.mutable_data();
  for (std::size_t k = 0; k < n; ++k) {
    int64_t src = 0;
    for (std::size_t i = 0; i < r; ++i) src += idx[i] * istride[perm[i]];
    std::memcpy(o + k * item, a.ptr + static_cast<std::size_t>(src) * item, item);
    for (std::size_t i = r; i-- > 0;) {
      if (++idx[i] < oshape[i]) break;
      idx[i] = 0;
    }
  }
  return out;
}

std::string dequant(Ctx& ctx, const NbOp& op, const std::string& slot, std::size_t axis) {
  std::string var = op.input(slot);
  if (var.empty()) return std::string();
  std::string scale_key = var + "_quant_scale";
  std::string qtype = a_str(op, "quantization_type", "");
  bool quantized = op.attrs.count(scale_key) &&
                   (qtype == "post_weight_abs_max" || qtype == "post_weight_channel_wise_abs_max" ||
                    (qtype.empty() && op.attrs.count("quantize_weight_bits")));
  if (!quantized) {
    const Array* w = ctx.cval(var);
    if (w && w->dtype != kFloat)
      unsupported("has weight '" + var + "' of type " + onnx_type_name(w->dtype) +
                  " without a quantisation scale");
    return ctx.get(var);
  }
  auto dq = ctx.dequantized.find(var);
  if (dq != ctx.dequantized.end())
    return ctx.materialize(ctx.new_const(dq->second, var + "_dequant"));
  auto pit = ctx.prog.params.find(var);
  if (pit == ctx.prog.params.end())
    unsupported("has a quantisation scale for '" + var + "', which is not a parameter");
  const Array& raw = pit->second.array;
  int64_t bits = a_int(op, "quantize_weight_bits", 8);
  int expect = bits == 8 ? kInt8 : bits == 16 ? kInt16 : kUndefined;
  if (expect == kUndefined || raw.dtype != expect)
    unsupported("has quantize_weight_bits=" + std::to_string(bits) + " but weight '" + var +
                "' is stored as " + onnx_type_name(raw.dtype));
  std::vector<double> scales = a_floats(op, scale_key);
  for (double v : scales)
    if (!std::isfinite(static_cast<float>(v)))
      unsupported("has non-finite quantisation scales for weight '" + var +
                  "'; the file is corrupted");
  int64_t ch = raw.shape.size() > axis ? raw.shape[axis] : -1;
  if (static_cast<int64_t>(scales.size()) != ch)
    unsupported("has " + std::to_string(scales.size()) + " quantisation scales for weight '" + var +
                "' with " + std::to_string(ch) + " output channels");
  Array w = ctx.alloc(kFloat, raw.shape);
  int64_t inner = 1;
  for (std::size_t i = axis + 1; i < raw.shape.size(); ++i) inner *= raw.shape[i];
  std::size_t n = static_cast<std::size_t>(raw.numel());
  float* o = reinterpret_cast<float*>(w.mutable_data());
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t c = static_cast<std::size_t>((static_cast<int64_t>(i) / inner) % ch);
    o[i] = static_cast<float>(raw.at(i)) * static_cast<float>(scales[c]);
  }
  ctx.dequantized[var] = w;
  return ctx.materialize(ctx.new_const(std::move(w), var + "_dequant"));
}

}  // namespace nb
}  // namespace edgeocr
