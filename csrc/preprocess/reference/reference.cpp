#include "preprocess/reference/reference.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>

#include "edgeocr/status.h"

namespace edgeocr {
namespace reference {

namespace {

void check_common(const ImageView& src, int out_w, int out_h, const NormalizeParams& norm,
                  const float* dst) {
  validate(src, "reference: src");
  if (out_w <= 0 || out_h <= 0)
    fail(StatusCode::kInvalidArgument, "reference: output size " + std::to_string(out_w) + "x" +
                                           std::to_string(out_h) + " is empty");
  if (dst == nullptr) fail(StatusCode::kInvalidArgument, "reference: dst is null");
  for (int c = 0; c < 3; ++c)
    if (!std::isfinite(norm.mean[c]) || !std::isfinite(norm.std[c]) || norm.std[c] == 0.f)
      fail(StatusCode::kInvalidArgument, "reference: bad NormalizeParams");
}

// The source channel holding output channel c (0..2, in output order).
int source_channel(PixelFormat f, bool to_rgb, int c) {
  const char* order = "BGR";
  if (to_rgb) order = "RGB";
  const char colour = order[c];
  switch (f) {
    case PixelFormat::kGray:
    case PixelFormat::kGrayAlpha:
      return 0;
    case PixelFormat::kRGB:
    case PixelFormat::kRGBA:
      return colour == 'R' ? 0 : (colour == 'G' ? 1 : 2);
    default:
      return colour == 'B' ? 0 : (colour == 'G' ? 1 : 2);
  }
}

// The stored value, composited onto the matte (alpha formats, matte >= 0), then levels stretched.
double pixel(const ImageView& img, int x, int y, int ch) {
  x = std::min(std::max(x, 0), img.width - 1);
  y = std::min(std::max(y, 0), img.height - 1);
  const std::uint8_t* px = img.row(y) + static_cast<std::ptrdiff_t>(x) * img.channels();
  double v = px[ch];
  if (has_alpha(img.format) && img.matte >= 0)
    v = img.matte + (v - img.matte) * px[img.channels() - 1] / 255.0;
  return (v - img.black) * 255.0 / (img.white - img.black);
}

// Bilinear sample at (x, y) with replicated border.
double bilinear(const ImageView& img, double x, double y, int ch) {
  // Beyond one pixel outside the image every tap is a border pixel; clamping keeps ints in range.
  x = std::min(std::max(x, -1.0), static_cast<double>(img.width));
  y = std::min(std::max(y, -1.0), static_cast<double>(img.height));
  const double fx0 = std::floor(x), fy0 = std::floor(y);
  const double ax = x - fx0, ay = y - fy0;
  const int x0 = static_cast<int>(fx0), y0 = static_cast<int>(fy0);
  return (1 - ay) * ((1 - ax) * pixel(img, x0, y0, ch) + ax * pixel(img, x0 + 1, y0, ch)) +
         ay * ((1 - ax) * pixel(img, x0, y0 + 1, ch) + ax * pixel(img, x0 + 1, y0 + 1, ch));
}

double clamp(double v, double lo, double hi) {
  return std::min(std::max(v, lo), hi);
}

float normalise(double v, const NormalizeParams& n, int c) {
  return static_cast<float>((v / 255.0 - n.mean[c]) / n.std[c]);
}

// Solves a x = b (n x n, row-major a) by Gaussian elimination with partial pivoting.
bool solve(double* a, double* b, int n) {
  for (int col = 0; col < n; ++col) {
    int piv = col;
    for (int r = col + 1; r < n; ++r)
      if (std::fabs(a[r * n + col]) > std::fabs(a[piv * n + col])) piv = r;
    if (std::fabs(a[piv * n + col]) < 1e-12) return false;
    if (piv != col) {
      for (int k = 0; k < n; ++k) std::swap(a[col * n + k], a[piv * n + k]);
      std::swap(b[col], b[piv]);
    }
    for (int r = col + 1; r < n; ++r) {
      const double f = a[r * n + col] / a[col * n + col];
      for (int k = col; k < n; ++k) a[r * n + k] -= f * a[col * n + k];
      b[r] -= f * b[col];
    }
  }
  for (int r = n - 1; r >= 0; --r) {
    double s = b[r];
    for (int k = r + 1; k < n; ++k) s -= a[r * n + k] * b[k];
    b[r] = s / a[r * n + r];
  }
  return true;
}

}  // namespace

void det_preprocess(const ImageView& src, int out_w, int out_h, const NormalizeParams& norm,
                    float* dst) {
  check_common(src, out_w, out_h, norm, dst);
  const std::size_t plane = static_cast<std::size_t>(out_w) * out_h;
  for (int y = 0; y < out_h; ++y) {
    const double sy = clamp((y + 0.5) * src.height / out_h - 0.5, 0, src.height - 1);
    for (int x = 0; x < out_w; ++x) {
      const double sx = clamp((x + 0.5) * src.width / out_w - 0.5, 0, src.width - 1);
      for (int c = 0; c < 3; ++c) {
        const double v = bilinear(src, sx, sy, source_channel(src.format, norm.to_rgb, c));
        dst[c * plane + static_cast<std::size_t>(y) * out_w + x] = normalise(v, norm, c);
      }
    }
  }
}

void crop_preprocess(const ImageView& src, const Quad& q, int out_w, int out_h, int dst_w,
                     const NormalizeParams& norm, float pad_value, float* dst) {
  check_common(src, out_w, out_h, norm, dst);
  if (dst_w < out_w) fail(StatusCode::kInvalidArgument, "reference: dst_w < out_w");
  auto dist = [&](int a, int b) {
    return std::hypot(static_cast<double>(q.p[a].x - q.p[b].x),
                      static_cast<double>(q.p[a].y - q.p[b].y));
  };
  const int cw = std::max(1, static_cast<int>(std::max(dist(0, 1), dist(3, 2))));
  const int ch = std::max(1, static_cast<int>(std::max(dist(0, 3), dist(1, 2))));

  // Unknowns h0..h7 (h8 = 1): X = (h0 u + h1 v + h2) / (h6 u + h7 v + 1), Y likewise with h3..h5.
  const double rect[4][2] = {{0, 0}, {double(cw), 0}, {double(cw), double(ch)}, {0, double(ch)}};
  double a[64] = {0}, b[8];
  for (int i = 0; i < 4; ++i) {
    const double u = rect[i][0], v = rect[i][1], X = q.p[i].x, Y = q.p[i].y;
    double* r0 = a + (2 * i) * 8;
    double* r1 = a + (2 * i + 1) * 8;
    r0[0] = u, r0[1] = v, r0[2] = 1, r0[6] = -u * X, r0[7] = -v * X;
    r1[3] = u, r1[4] = v, r1[5] = 1, r1[6] = -u * Y, r1[7] = -v * Y;
    b[2 * i] = X;
    b[2 * i + 1] = Y;
  }
  if (!solve(a, b, 8)) fail(StatusCode::kInvalidArgument, "reference: degenerate quad");
  const double* h = b;

  const std::size_t plane = static_cast<std::size_t>(dst_w) * out_h;
  for (int v = 0; v < out_h; ++v) {
    const double cy = clamp((v + 0.5) * ch / out_h - 0.5, 0, ch - 1);
    for (int u = 0; u < dst_w; ++u) {
      float* o = dst + static_cast<std::size_t>(v) * dst_w + u;
      if (u >= out_w) {
        for (int c = 0; c < 3; ++c) o[c * plane] = pad_value;
        continue;
      }
      const double cx = clamp((u + 0.5) * cw / out_w - 0.5, 0, cw - 1);
      const double w = h[6] * cx + h[7] * cy + 1;
      const double sx = (h[0] * cx + h[1] * cy + h[2]) / w;
      const double sy = (h[3] * cx + h[4] * cy + h[5]) / w;
      for (int c = 0; c < 3; ++c) {
        const double val = bilinear(src, sx, sy, source_channel(src.format, norm.to_rgb, c));
        o[c * plane] = normalise(val, norm, c);
      }
    }
  }
}

void table_preprocess(const ImageView& src, int x, int y, int w, int h, int side,
                      const NormalizeParams& norm, float pad_value, float* dst) {
  check_common(src, side, side, norm, dst);
  if (w <= 0 || h <= 0 || x < 0 || y < 0 || x + w > src.width || y + h > src.height)
    fail(StatusCode::kInvalidArgument, "reference: rectangle outside the image");
  const double ratio = static_cast<double>(side) / std::max(w, h);
  const int out_w = std::min(side, std::max(1, static_cast<int>(w * ratio)));
  const int out_h = std::min(side, std::max(1, static_cast<int>(h * ratio)));
  const std::size_t plane = static_cast<std::size_t>(side) * side;
  for (int v = 0; v < side; ++v) {
    for (int u = 0; u < side; ++u) {
      float* o = dst + static_cast<std::size_t>(v) * side + u;
      if (u >= out_w || v >= out_h) {
        for (int c = 0; c < 3; ++c) o[c * plane] = pad_value;
        continue;
      }
      const double sx = x + clamp((u + 0.5) * w / out_w - 0.5, 0, w - 1);
      const double sy = y + clamp((v + 0.5) * h / out_h - 0.5, 0, h - 1);
      for (int c = 0; c < 3; ++c)
        o[c * plane] =
            normalise(bilinear(src, sx, sy, source_channel(src.format, norm.to_rgb, c)), norm, c);
    }
  }
}

void luminance_min_map(const ImageView& src, int x, int y, int w, int h, int cell,
                       std::uint8_t* dst) {
  validate(src, "reference: src");
  if (w <= 0 || h <= 0 || cell <= 0 || x < 0 || y < 0 || x + w > src.width || y + h > src.height)
    fail(StatusCode::kInvalidArgument, "reference: bad rectangle or cell");
  const int mw = (w + cell - 1) / cell, mh = (h + cell - 1) / cell;
  for (int my = 0; my < mh; ++my) {
    for (int mx = 0; mx < mw; ++mx) {
      double lowest = 255;
      for (int yy = my * cell; yy < std::min(h, (my + 1) * cell); ++yy) {
        for (int xx = mx * cell; xx < std::min(w, (mx + 1) * cell); ++xx) {
          const double l = (77 * pixel(src, x + xx, y + yy, source_channel(src.format, true, 0)) +
                            150 * pixel(src, x + xx, y + yy, source_channel(src.format, true, 1)) +
                            29 * pixel(src, x + xx, y + yy, source_channel(src.format, true, 2))) /
                           256.0;
          lowest = std::min(lowest, clamp(l, 0, 255));
        }
      }
      dst[static_cast<std::size_t>(my) * mw + mx] =
          static_cast<std::uint8_t>(std::floor(lowest + 0.5));
    }
  }
}

}  // namespace reference
}  // namespace edgeocr
