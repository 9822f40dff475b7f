#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
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

// Per output column of the current row: where its four bilinear taps are and their weights.
struct CropScratch {
  std::vector<double> cx;             // crop x coordinate of each output column
  std::vector<std::ptrdiff_t> ofs;    // byte offset of the top-left tap
  std::vector<int> dx;                // 0 or CN: byte step to the right tap (0 on the border)
  std::vector<std::ptrdiff_t> dy;     // 0 or stride: byte step to the bottom tap
  std::vector<float> fx, fy;
};

thread_local CropScratch t_crop_scratch;

template <typename T>
T* grow(std::vector<T>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

template <int CN>
void crop_impl(const ImageView& src, const double m[9], int crop_w, int crop_h, int out_w,
               int out_h, int dst_w, const detail::ChannelPlan& plan, float pad_value,
               float* dst) {
  CropScratch& s = t_crop_scratch;
  const std::size_t n = static_cast<std::size_t>(out_w);
  double* cxs = grow(s.cx, n);
  std::ptrdiff_t* ofs = grow(s.ofs, n);
  int* dxs = grow(s.dx, n);
  std::ptrdiff_t* dys = grow(s.dy, n);
  float* fxs = grow(s.fx, n);
  float* fys = grow(s.fy, n);

  const double scale_x = static_cast<double>(crop_w) / out_w;
  for (int u = 0; u < out_w; ++u)
    cxs[u] = std::min(std::max((u + 0.5) * scale_x - 0.5, 0.0), crop_w - 1.0);

  // Output plane k for each source channel; gray feeds all three from channel 0.
  constexpr int kPlanes = CN < 3 ? CN : 3;
  const std::size_t plane = static_cast<std::size_t>(out_h) * dst_w;
  const double scale_y = static_cast<double>(crop_h) / out_h;
  const std::ptrdiff_t stride = src.stride;
  const double wmax = src.width, hmax = src.height;
  for (int v = 0; v < out_h; ++v) {
    const double cy = std::min(std::max((v + 0.5) * scale_y - 0.5, 0.0), crop_h - 1.0);
    // Along an output row the homography's numerators and denominator are affine in cx.
    const double nx = m[1] * cy + m[2], ny = m[4] * cy + m[5], nw = m[7] * cy + m[8];

    // Pass 1: source taps. Coordinates beyond [-1, size] give the same taps as -1 / size, so
    // they are clamped there first (max(-1, NaN) is -1, for a point sent to infinity); then
    // truncating s + 1 >= 0 is floor, and the border replicates by clamping the tap indices.
    for (int u = 0; u < out_w; ++u) {
      const double cx = cxs[u];
      const double iw = 1.0 / (m[6] * cx + nw);
      const double sx = std::min(wmax, std::max(-1.0, (m[0] * cx + nx) * iw));
      const double sy = std::min(hmax, std::max(-1.0, (m[3] * cx + ny) * iw));
      const int x = static_cast<int>(sx + 1.0) - 1;
      const int y = static_cast<int>(sy + 1.0) - 1;
      fxs[u] = static_cast<float>(sx - x);
      fys[u] = static_cast<float>(sy - y);
      const int x0 = std::min(std::max(x, 0), src.width - 1);
      const int x1 = std::min(x + 1, src.width - 1);
      const int y0 = std::min(std::max(y, 0), src.height - 1);
      const int y1 = std::min(y + 1, src.height - 1);
      ofs[u] = y0 * stride + x0 * CN;
      dxs[u] = (x1 - x0) * CN;
      dys[u] = (y1 - y0) * stride;
    }

    // Pass 2: gather and blend into the output planes; pass 3 normalises them in place.
    float* const o0 = dst + static_cast<std::size_t>(v) * dst_w;
    float* const o1 = o0 + plane;
    float* const o2 = o1 + plane;
    float* out[3] = {o0, o1, o2};
    const int* sc = plan.src_ch;
    // The output plane fed by each source channel (a permutation for colour sources).
    float* const q0 = out[sc[0] == 0 ? 0 : (sc[1] == 0 ? 1 : 2)];
    float* const q1 = out[sc[0] == 1 ? 0 : (sc[1] == 1 ? 1 : 2)];
    float* const q2 = out[sc[0] == 2 ? 0 : (sc[1] == 2 ? 1 : 2)];
    for (int u = 0; u < out_w; ++u) {
      const std::uint8_t* p = src.data + ofs[u];
      const int dx = dxs[u];
      const std::ptrdiff_t dy = dys[u];
      const float fx = fxs[u], fy = fys[u];
      float val[kPlanes];
      for (int c = 0; c < kPlanes; ++c) {
        const float t = p[c] + (static_cast<float>(p[dx + c]) - p[c]) * fx;
        const float b = p[dy + c] + (static_cast<float>(p[dy + dx + c]) - p[dy + c]) * fx;
        val[c] = t + (b - t) * fy;
      }
      if (kPlanes == 1) {
        o0[u] = val[0] * plan.scale[0] + plan.bias[0];
        o1[u] = val[0] * plan.scale[1] + plan.bias[1];
        o2[u] = val[0] * plan.scale[2] + plan.bias[2];
      } else {
        q0[u] = val[0];
        q1[u] = val[kPlanes > 1 ? 1 : 0];
        q2[u] = val[kPlanes > 2 ? 2 : 0];
      }
    }
    if (kPlanes != 1) {
      for (int c = 0; c < 3; ++c) {
        float* o = out[c];
        const float sc_c = plan.scale[c], bi_c = plan.bias[c];
        for (int u = 0; u < out_w; ++u) o[u] = o[u] * sc_c + bi_c;
      }
    }
    if (dst_w > out_w) {
      std::fill(o0 + out_w, o0 + dst_w, pad_value);
      std::fill(o1 + out_w, o1 + dst_w, pad_value);
      std::fill(o2 + out_w, o2 + dst_w, pad_value);
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
  const detail::ChannelPlan plan = detail::make_plan(src.format, norm);
  switch (src.channels()) {
    case 1: crop_impl<1>(src, m, crop_w, crop_h, out_w, out_h, dst_w, plan, pad_value, dst); break;
    case 3: crop_impl<3>(src, m, crop_w, crop_h, out_w, out_h, dst_w, plan, pad_value, dst); break;
    case 4: crop_impl<4>(src, m, crop_w, crop_h, out_w, out_h, dst_w, plan, pad_value, dst); break;
    default:
      fail(StatusCode::kInvalidArgument,
           "crop_preprocess: unsupported pixel format " +
               std::to_string(static_cast<int>(src.format)));
  }
}

}  // namespace edgeocr
