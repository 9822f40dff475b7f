// Helpers shared by the fused kernels in this directory. Not a public header.
#pragma once

#include <cmath>
#include <cstddef>
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

// The view's levels (black, white) are folded in too: v -> (v - black) * 255 / (white - black).
inline ChannelPlan make_plan(const ImageView& src, const NormalizeParams& n) {
  const PixelFormat f = src.format;
  // Source channel index of blue, green, red in each format.
  int b = 0, g = 1, r = 2;
  if (f == PixelFormat::kRGB || f == PixelFormat::kRGBA) {
    b = 2;
    r = 0;
  } else if (f == PixelFormat::kGray || f == PixelFormat::kGrayAlpha) {
    b = g = r = 0;
  }
  ChannelPlan p;
  p.src_ch[0] = n.to_rgb ? r : b;
  p.src_ch[1] = g;
  p.src_ch[2] = n.to_rgb ? b : r;
  const double gain = 255.0 / (src.white - src.black);
  for (int c = 0; c < 3; ++c) {
    const double s = static_cast<double>(n.std[c]);
    const double scale = gain / (255.0 * s);
    p.scale[c] = static_cast<float>(scale);
    p.bias[c] = static_cast<float>(-static_cast<double>(n.mean[c]) / s - src.black * scale);
  }
  return p;
}

// Alpha compositing of one stored value onto the matte: m + (v - m) * a / 255.
inline float composite(float v, float a, float m) {
  return m + (v - m) * (a * (1.f / 255.f));
}

inline void check_positive(int v, const char* fn, const char* name) {
  if (v <= 0)
    fail(StatusCode::kInvalidArgument,
         std::string(fn) + ": " + name + " is " + std::to_string(v) + "; expected > 0");
}

// det_preprocess_window's sampling (bilinear, pixel-centre aligned, on the frame_w x frame_h
// resize of the whole of src) of the window at (x0, y0) of win_w x win_h, normalised by `plan`,
// written to plane c's row y at dst + c * plane + y * pitch. Arguments already checked by the
// caller (`fn` names it in errors).
void resize_into(const ImageView& src, int frame_w, int frame_h, int x0, int y0, int win_w,
                 int win_h, const ChannelPlan& plan, float* dst, std::size_t pitch,
                 std::size_t plane, const char* fn);

}  // namespace detail
}  // namespace edgeocr
