#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "preprocess/preprocess.h"
#include "preprocess/preprocess_internal.h"

namespace edgeocr {

namespace {

void check_quad(const Quad& q, const char* fn) {
  for (int i = 0; i < 4; ++i) {
    if (!std::isfinite(q.p[i].x) || !std::isfinite(q.p[i].y))
      fail(StatusCode::kInvalidArgument,
           std::string(fn) + ": quad corner " + std::to_string(i) + " is not finite");
  }
}

// Row-major 3x3 homography taking the rectangle (0,0),(w,0),(w,h),(0,h) to q.p[0..3], in the
// closed form for the unit square (Heckbert, "Fundamentals of Texture Mapping", 1989) composed
// with the scaling of the rectangle onto the unit square.
void rect_to_quad(const Quad& q, int w, int h, double m[9]) {
  const double x0 = q.p[0].x, y0 = q.p[0].y, x1 = q.p[1].x, y1 = q.p[1].y;
  const double x2 = q.p[2].x, y2 = q.p[2].y, x3 = q.p[3].x, y3 = q.p[3].y;
  const double sx = x0 - x1 + x2 - x3;
  const double sy = y0 - y1 + y2 - y3;
  double g = 0.0, k = 0.0;
  if (sx != 0.0 || sy != 0.0) {
    const double dx1 = x1 - x2, dx2 = x3 - x2, dy1 = y1 - y2, dy2 = y3 - y2;
    const double den = dx1 * dy2 - dx2 * dy1;
    if (den == 0.0)
      fail(StatusCode::kInvalidArgument,
           "crop_preprocess: quad is degenerate (its corners are collinear); no homography");
    g = (sx * dy2 - dx2 * sy) / den;
    k = (dx1 * sy - sx * dy1) / den;
  }
  // Unit square (u, v) -> quad, then u = cx / w, v = cy / h.
  m[0] = (x1 - x0 + g * x1) / w;
  m[1] = (x3 - x0 + k * x3) / h;
  m[2] = x0;
  m[3] = (y1 - y0 + g * y1) / w;
  m[4] = (y3 - y0 + k * y3) / h;
  m[5] = y0;
  m[6] = g / w;
  m[7] = k / h;
  m[8] = 1.0;
}

// Where one output column's (or row's) two bilinear taps are and the weight of the second.
struct Taps {
  std::vector<std::ptrdiff_t> ofs;  // byte offset of the first tap
  std::vector<std::ptrdiff_t> d;    // 0 or the byte step to the second tap (0 on the border)
  std::vector<float> f;             // weight of the second tap
};

// Per-thread scratch, grown to the largest crop seen and reused.
struct CropScratch {
  std::vector<double> cx;  // crop x coordinate of each output column
  Taps col;                // separable path: per output column
  std::vector<float> row;  // separable path: the two source rows blended vertically
  std::vector<std::ptrdiff_t> ofs, dx, dy;  // general path: per output pixel of the row
  std::vector<int> xi, yi;
  std::vector<float> fx, fy;
};

thread_local CropScratch t_crop_scratch;

template <typename T>
T* grow(std::vector<T>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

// The tap index and weight for source coordinate s along an axis of `size` pixels. Coordinates
// beyond [-1, size] give the same taps as -1 / size, so they are clamped there first (max(-1, NaN)
// is -1, for a point sent to infinity); then truncating s + 1 >= 0 is floor, and the border
// replicates by clamping the tap indices.
struct Tap {
  int i0, i1;
  float f;
};
inline Tap tap(double s, int size) {
  s = std::min(static_cast<double>(size), std::max(-1.0, s));
  const int i = static_cast<int>(s + 1.0) - 1;
  return {std::min(std::max(i, 0), size - 1), std::min(i + 1, size - 1), static_cast<float>(s - i)};
}

// q[c]: the output plane fed by source channel src(c), with its normalisation (colour: a
// permutation of the planes; gray: plane c, all fed by channel 0).
template <int CN>
struct Planes {
  static constexpr int kPlanes = CN >= 3 ? 3 : 1;  // colour channels read (alpha is the last one)
  static constexpr int src(int c) { return CN >= 3 ? c : 0; }
  float* q[3];
  float scale[3], bias[3];
  Planes(float* const out[3], const detail::ChannelPlan& plan) {
    for (int c = 0; c < 3; ++c) {
      const int k = CN < 3 ? c : (plan.src_ch[0] == c ? 0 : (plan.src_ch[1] == c ? 1 : 2));
      q[c] = out[k];
      scale[c] = plan.scale[k];
      bias[c] = plan.bias[k];
    }
  }
};

// The rectangle maps onto the quad without rotation (the common case: DB boxes of horizontal
// text are axis-aligned rectangles), so source x depends on the output column only and source y
// on the output row only: per row, blend the two source rows vertically into a float row over
// the columns the taps touch (contiguous, vectorised), then blend horizontally per output pixel
// with the normalisation folded in.
template <int CN, bool kMatte>
void crop_separable(const ImageView& src, const double m[9], const double* cxs, int crop_h,
                    int out_w, int out_h, int dst_w, const detail::ChannelPlan& plan, float* dst) {
  const float matte = static_cast<float>(src.matte);
  CropScratch& s = t_crop_scratch;
  const std::size_t n = static_cast<std::size_t>(out_w);
  std::ptrdiff_t* ofs = grow(s.col.ofs, n);
  std::ptrdiff_t* dxs = grow(s.col.d, n);
  float* fxs = grow(s.col.f, n);
  int lo = src.width, hi = 0;
  for (int u = 0; u < out_w; ++u) {
    const Tap t = tap(m[0] * cxs[u] + m[2], src.width);
    lo = std::min(lo, t.i0);
    hi = std::max(hi, t.i1);
    ofs[u] = static_cast<std::ptrdiff_t>(t.i0) * CN;
    dxs[u] = static_cast<std::ptrdiff_t>(t.i1 - t.i0) * CN;
    fxs[u] = t.f;
  }
  for (int u = 0; u < out_w; ++u) ofs[u] -= static_cast<std::ptrdiff_t>(lo) * CN;
  const int span = (hi - lo + 1) * CN;
  float* row = grow(s.row, static_cast<std::size_t>(span));

  const std::size_t plane = static_cast<std::size_t>(out_h) * dst_w;
  const double scale_y = static_cast<double>(crop_h) / out_h;
  for (int v = 0; v < out_h; ++v) {
    const double cy = std::min(std::max((v + 0.5) * scale_y - 0.5, 0.0), crop_h - 1.0);
    const Tap ty = tap(m[4] * cy + m[5], src.height);
    const std::uint8_t* r0 = src.data + ty.i0 * src.stride + static_cast<std::ptrdiff_t>(lo) * CN;
    const std::uint8_t* r1 = src.data + ty.i1 * src.stride + static_cast<std::ptrdiff_t>(lo) * CN;
    const float fy = ty.f;
    if constexpr (kMatte) {
      // Composite each tap onto the matte first (the alpha lane itself is left unused).
      for (int i = 0; i < span; i += CN) {
        const float a0 = r0[i + CN - 1], a1 = r1[i + CN - 1];
        for (int c = 0; c < CN - 1; ++c) {
          const float t = detail::composite(r0[i + c], a0, matte);
          row[i + c] = t + (detail::composite(r1[i + c], a1, matte) - t) * fy;
        }
      }
    } else {
      for (int i = 0; i < span; ++i) {
        const float a = r0[i];
        row[i] = a + (static_cast<float>(r1[i]) - a) * fy;
      }
    }
    float* const o0 = dst + static_cast<std::size_t>(v) * dst_w;
    float* const out[3] = {o0, o0 + plane, o0 + 2 * plane};
    const Planes<CN> pl(out, plan);
    for (int c = 0; c < 3; ++c) {
      float* q = pl.q[c];
      const float* rc = row + Planes<CN>::src(c);
      const float sc = pl.scale[c], bi = pl.bias[c];
      for (int u = 0; u < out_w; ++u) {
        const float l = rc[ofs[u]];
        q[u] = (l + (rc[ofs[u] + dxs[u]] - l) * fxs[u]) * sc + bi;
      }
    }
  }
}

// Four floats in one SIMD register (SSE2 / NEON through GCC's and Clang's vector extensions).
typedef float v4f __attribute__((vector_size(16)));
typedef std::int32_t v4i __attribute__((vector_size(16)));
typedef std::uint8_t v4u8 __attribute__((vector_size(4)));
inline v4f load4(const std::uint8_t* p) {
  v4u8 b;
  std::memcpy(&b, p, 4);
  // Through int32 lanes: widening unpacks and one cvtdq2ps (a direct u8 -> float
  // conversion compiles to four scalar conversions with SSE2).
  return __builtin_convertvector(__builtin_convertvector(b, v4i), v4f);
}

// Any homography (an affine one skips the division): per pixel, source taps, then the
// four-tap blend with the normalisation folded in.
// Composites a pixel's four lanes (B, G, R, A) onto the matte.
inline v4f composite4(v4f t, float matte) {
  return matte + (t - matte) * (t[3] * (1.f / 255.f));
}

template <int CN, bool kAffine, bool kMatte>
void crop_general(const ImageView& src, const double m[9], const double* cxs, int crop_h, int out_w,
                  int out_h, int dst_w, const detail::ChannelPlan& plan, float* dst) {
  const float matte = static_cast<float>(src.matte);
  // One tap's colour channel c, composited when kMatte.
  auto value = [matte](const std::uint8_t* px, int c) {
    if constexpr (kMatte) return detail::composite(px[c], px[CN - 1], matte);
    return static_cast<float>(px[c]);
  };
  CropScratch& s = t_crop_scratch;
  const std::size_t n = static_cast<std::size_t>(out_w);
  std::ptrdiff_t* ofs = grow(s.ofs, n);
  std::ptrdiff_t* dxs = grow(s.dx, n);
  std::ptrdiff_t* dys = grow(s.dy, n);
  float* fxs = grow(s.fx, n);
  float* fys = grow(s.fy, n);
  constexpr int P = Planes<CN>::kPlanes;
  const std::size_t plane = static_cast<std::size_t>(out_h) * dst_w;
  const double scale_y = static_cast<double>(crop_h) / out_h;
  const std::ptrdiff_t stride = src.stride;
  for (int v = 0; v < out_h; ++v) {
    const double cy = std::min(std::max((v + 0.5) * scale_y - 0.5, 0.0), crop_h - 1.0);
    // Along an output row the homography's numerators and denominator are affine in cx.
    const double nx = m[1] * cy + m[2], ny = m[4] * cy + m[5], nw = m[7] * cy + m[8];
    float* const o0 = dst + static_cast<std::size_t>(v) * dst_w;
    float* const out[3] = {o0, o0 + plane, o0 + 2 * plane};
    const Planes<CN> pl(out, plan);
    const v4f vscale = {pl.scale[0], pl.scale[1], pl.scale[2], 0.f};
    const v4f vbias = {pl.bias[0], pl.bias[1], pl.bias[2], 0.f};

    // Source x and y are monotonic along the row (a ratio of affine functions whose denominator
    // keeps its sign), so if both ends of the row sample inside the image with a tap to spare,
    // every pixel does: one fused loop, no clamping, the right and lower taps one step away.
    // The margin covers rounding; NaN fails the comparisons and takes the clamped path.
    const double wa = m[6] * cxs[0] + nw, wb = m[6] * cxs[out_w - 1] + nw;
    if (kAffine || (wa > 0.0) == (wb > 0.0)) {
      const double ia = kAffine ? 1.0 : 1.0 / wa, ib = kAffine ? 1.0 : 1.0 / wb;
      const double xa = (m[0] * cxs[0] + nx) * ia, xb = (m[0] * cxs[out_w - 1] + nx) * ib;
      const double ya = (m[3] * cxs[0] + ny) * ia, yb = (m[3] * cxs[out_w - 1] + ny) * ib;
      constexpr double kMargin = 1e-3;
      const double xmax = src.width - (CN == 3 ? 2 : 1) - kMargin, ymax = src.height - 1 - kMargin;
      if (std::min(xa, xb) >= kMargin && std::max(xa, xb) < xmax && std::min(ya, yb) >= kMargin &&
          std::max(ya, yb) < ymax) {
        // Coordinates first (simple loops the compiler vectorises), then the gathers.
        int* xs = grow(s.xi, n);
        int* ys = grow(s.yi, n);
        for (int u = 0; u < out_w; ++u) {
          const double cx = cxs[u];
          const double iw = kAffine ? 1.0 : 1.0 / (m[6] * cx + nw);
          const double sx = (m[0] * cx + nx) * iw, sy = (m[3] * cx + ny) * iw;
          const int x = static_cast<int>(sx), y = static_cast<int>(sy);
          xs[u] = x;
          ys[u] = y;
          fxs[u] = static_cast<float>(sx - x);
          fys[u] = static_cast<float>(sy - y);
        }
        for (int u = 0; u < out_w; ++u) {
          const float fx = fxs[u], fy = fys[u];
          const std::uint8_t* p =
              src.data + ys[u] * stride + static_cast<std::ptrdiff_t>(xs[u]) * CN;
          if constexpr (CN >= 3) {
            // The four taps' channels as 4-lane vectors (lane 3 is ignored); the fast path's
            // margin keeps the fourth byte read for CN == 3 inside the image.
            v4f t = load4(p), r = load4(p + CN);
            v4f b = load4(p + stride), br = load4(p + stride + CN);
            if constexpr (kMatte) {
              t = composite4(t, matte);
              r = composite4(r, matte);
              b = composite4(b, matte);
              br = composite4(br, matte);
            }
            const v4f top = t + (r - t) * fx;
            const v4f val = top + (b + (br - b) * fx - top) * fy;
            const v4f o = val * vscale + vbias;
            pl.q[0][u] = o[0];
            pl.q[1][u] = o[1];
            pl.q[2][u] = o[2];
          } else {
            const float tl = value(p, 0), bl = value(p + stride, 0);
            const float t = tl + (value(p + CN, 0) - tl) * fx;
            const float b = bl + (value(p + stride + CN, 0) - bl) * fx;
            const float val = t + (b - t) * fy;
            for (int c = 0; c < 3; ++c) pl.q[c][u] = val * pl.scale[c] + pl.bias[c];
          }
        }
        continue;
      }
    }

    // Near the border: clamped taps per pixel, then the blend.
    for (int u = 0; u < out_w; ++u) {
      const double cx = cxs[u];
      const double iw = kAffine ? 1.0 : 1.0 / (m[6] * cx + nw);
      const Tap tx = tap((m[0] * cx + nx) * iw, src.width);
      const Tap ty = tap((m[3] * cx + ny) * iw, src.height);
      ofs[u] = ty.i0 * stride + static_cast<std::ptrdiff_t>(tx.i0) * CN;
      dxs[u] = static_cast<std::ptrdiff_t>(tx.i1 - tx.i0) * CN;
      dys[u] = (ty.i1 - ty.i0) * stride;
      fxs[u] = tx.f;
      fys[u] = ty.f;
    }
    for (int u = 0; u < out_w; ++u) {
      const std::uint8_t* p = src.data + ofs[u];
      const std::ptrdiff_t dx = dxs[u], dy = dys[u];
      const float fx = fxs[u], fy = fys[u];
      float val[P];
      for (int c = 0; c < P; ++c) {
        const float tl = value(p, c), bl = value(p + dy, c);
        const float t = tl + (value(p + dx, c) - tl) * fx;
        const float b = bl + (value(p + dy + dx, c) - bl) * fx;
        val[c] = t + (b - t) * fy;
      }
      for (int c = 0; c < 3; ++c) pl.q[c][u] = val[Planes<CN>::src(c)] * pl.scale[c] + pl.bias[c];
    }
  }
}

template <int CN, bool kMatte = false>
void crop_impl(const ImageView& src, const double m[9], int crop_w, int crop_h, int out_w,
               int out_h, int dst_w, const detail::ChannelPlan& plan, float pad_value, float* dst) {
  double* cxs = grow(t_crop_scratch.cx, static_cast<std::size_t>(out_w));
  const double scale_x = static_cast<double>(crop_w) / out_w;
  for (int u = 0; u < out_w; ++u)
    cxs[u] = std::min(std::max((u + 0.5) * scale_x - 0.5, 0.0), crop_w - 1.0);
  const bool affine = m[6] == 0.0 && m[7] == 0.0;
  if (affine && m[1] == 0.0 && m[3] == 0.0)
    crop_separable<CN, kMatte>(src, m, cxs, crop_h, out_w, out_h, dst_w, plan, dst);
  else if (affine)
    crop_general<CN, true, kMatte>(src, m, cxs, crop_h, out_w, out_h, dst_w, plan, dst);
  else
    crop_general<CN, false, kMatte>(src, m, cxs, crop_h, out_w, out_h, dst_w, plan, dst);
  if (dst_w > out_w) {
    for (std::size_t r = 0; r < 3 * static_cast<std::size_t>(out_h); ++r) {
      float* o = dst + r * dst_w;
      std::fill(o + out_w, o + dst_w, pad_value);
    }
  }
}

}  // namespace

void crop_size(const Quad& q, int* w, int* h) {
  if (w == nullptr || h == nullptr)
    fail(StatusCode::kInvalidArgument, "crop_size: w/h pointer is null");
  check_quad(q, "crop_size");
  // PaddleOCR computes these with np.linalg.norm on float32 corner differences.
  auto dist = [&](int a, int b) {
    const float dx = q.p[a].x - q.p[b].x;
    const float dy = q.p[a].y - q.p[b].y;
    return std::sqrt(static_cast<double>(dx) * dx + static_cast<double>(dy) * dy);
  };
  const double dw = std::max(dist(0, 1), dist(3, 2));
  const double dh = std::max(dist(0, 3), dist(1, 2));
  constexpr double kMaxSide = 1 << 30;
  if (dw >= kMaxSide || dh >= kMaxSide)
    fail(StatusCode::kInvalidArgument, "crop_size: quad side of " +
                                           std::to_string(std::max(dw, dh)) +
                                           " pixels is too long; expected < 2^30");
  *w = std::max(1, static_cast<int>(dw));
  *h = std::max(1, static_cast<int>(dh));
}

Point2f quad_point(const Quad& q, double u, double v) {
  check_quad(q, "quad_point");
  double m[9];
  rect_to_quad(q, 1, 1, m);
  const double z = m[6] * u + m[7] * v + m[8];
  return {static_cast<float>((m[0] * u + m[1] * v + m[2]) / z),
          static_cast<float>((m[3] * u + m[4] * v + m[5]) / z)};
}

void crop_preprocess(const ImageView& src, const Quad& q, int out_w, int out_h, int dst_w,
                     const NormalizeParams& norm, float pad_value, float* dst) {
  validate(src, "crop_preprocess: src");
  detail::check_positive(out_w, "crop_preprocess", "out_w");
  detail::check_positive(out_h, "crop_preprocess", "out_h");
  if (dst_w < out_w)
    fail(StatusCode::kInvalidArgument, "crop_preprocess: dst_w " + std::to_string(dst_w) +
                                           " is smaller than out_w " + std::to_string(out_w));
  if (dst == nullptr) fail(StatusCode::kInvalidArgument, "crop_preprocess: dst is null");
  detail::check_norm(norm, "crop_preprocess");
  int crop_w = 0, crop_h = 0;
  crop_size(q, &crop_w, &crop_h);
  double m[9];
  rect_to_quad(q, crop_w, crop_h, m);
  const detail::ChannelPlan plan = detail::make_plan(src, norm);
  const bool matte = has_alpha(src.format) && src.matte >= 0;
  switch (src.channels()) {
    case 1:
      crop_impl<1>(src, m, crop_w, crop_h, out_w, out_h, dst_w, plan, pad_value, dst);
      break;
    case 2:
      if (matte)
        crop_impl<2, true>(src, m, crop_w, crop_h, out_w, out_h, dst_w, plan, pad_value, dst);
      else
        crop_impl<2>(src, m, crop_w, crop_h, out_w, out_h, dst_w, plan, pad_value, dst);
      break;
    case 3:
      crop_impl<3>(src, m, crop_w, crop_h, out_w, out_h, dst_w, plan, pad_value, dst);
      break;
    case 4:
      if (matte)
        crop_impl<4, true>(src, m, crop_w, crop_h, out_w, out_h, dst_w, plan, pad_value, dst);
      else
        crop_impl<4>(src, m, crop_w, crop_h, out_w, out_h, dst_w, plan, pad_value, dst);
      break;
    default:
      fail(StatusCode::kInvalidArgument, "crop_preprocess: unsupported pixel format " +
                                             std::to_string(static_cast<int>(src.format)));
  }
}

}  // namespace edgeocr
