// Helpers shared by the fused kernels in this directory. Not a public header.
#pragma once

#include <cmath>
#include <string>

#include "edgeocr/image.h"
#include "edgeocr/status.h"
#include "preprocess/preprocess.h"

namespace edgeocr {
namespace detail {

// Normalisation folded into one multiply-add per value: v * scale[c] + bias[c], where c is the
// output channel and v the (interpolated) 0..255 pixel value. src_ch[c] is the source channel that
// output channel c reads.
struct ChannelPlan {
  int src_ch[3];
  float scale[3];
  float bias[3];
};

inline void check_norm(const NormalizeParams& n, const char* fn) {
  for (int c = 0; c < 3; ++c) {
    if (!std::isfinite(n.mean[c]) || !std::isfinite(n.std[c]) || n.std[c] == 0.f)
      fail(StatusCode::kInvalidArgument,
           std::string(fn) + ": NormalizeParams channel " + std::to_string(c) + " has mean " +
               std::to_string(n.mean[c]) + ", std " + std::to_string(n.std[c]) +
               "; expected finite values and std != 0");
  }
}

inline ChannelPlan make_plan(PixelFormat f, const NormalizeParams& n) {
  // Source channel index of blue, green, red in each format.
  int b = 0, g = 1, r = 2;
  if (f == PixelFormat::kRGB || f == PixelFormat::kRGBA) {
    b = 2;
    r = 0;
  } else if (f == PixelFormat::kGray) {
    b = g = r = 0;
  }
  ChannelPlan p;
  p.src_ch[0] = n.to_rgb ? r : b;
  p.src_ch[1] = g;
  p.src_ch[2] = n.to_rgb ? b : r;
  for (int c = 0; c < 3; ++c) {
    const double s = static_cast<double>(n.std[c]);
    p.scale[c] = static_cast<float>(1.0 / (255.0 * s));
    p.bias[c] = static_cast<float>(-static_cast<double>(n.mean[c]) / s);
  }
  return p;
}

inline void check_positive(int v, const char* fn, const char* name) {
  if (v <= 0)
    fail(StatusCode::kInvalidArgument,
         std::string(fn) + ": " + name + " is " + std::to_string(v) + "; expected > 0");
}

}  // namespace detail
}  // namespace edgeocr
