// Binding of the fused preprocessing kernels (submodule edgeocr._core.kernels): checks and converts
// with the GIL held, then releases it around the kernel.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "edgeocr/image.h"
#include "edgeocr/status.h"
#include "preprocess/preprocess.h"

namespace py = pybind11;

namespace {

using edgeocr::ImageView;
using edgeocr::PixelFormat;

using Triple = std::array<float, 3>;

// An image view of a uint8 array (H, W), (H, W, 1), (H, W, 3) = BGR or (H, W, 4) = BGRA, read
// through the array's own row stride. Arrays whose pixels are not packed within a row (a sliced
// channel axis, negative strides) are copied to C order first; `keep` holds whichever array the
// view points into.
ImageView view_of(const py::array& img, py::array* keep) {
  if (!img.dtype().is(py::dtype::of<std::uint8_t>()))
    throw edgeocr::Error(
        edgeocr::StatusCode::kInvalidArgument,
        "image: expected dtype uint8, got " + py::str(img.dtype()).cast<std::string>());
  if (img.ndim() != 2 && img.ndim() != 3)
    throw edgeocr::Error(
        edgeocr::StatusCode::kInvalidArgument,
        "image: expected shape (H, W) or (H, W, C), got ndim " + std::to_string(img.ndim()));
  const py::ssize_t h = img.shape(0), w = img.shape(1);
  const py::ssize_t c = img.ndim() == 3 ? img.shape(2) : 1;
  if (c < 1 || c > 4)
    throw edgeocr::Error(
        edgeocr::StatusCode::kInvalidArgument,
        "image: expected 1 (gray), 2 (gray + alpha), 3 (BGR) or 4 (BGRA) channels, got " +
            std::to_string(c));
  if (h <= 0 || w <= 0)
    throw edgeocr::Error(
        edgeocr::StatusCode::kInvalidArgument,
        "image: size " + std::to_string(w) + "x" + std::to_string(h) + " is empty");
  if (h > INT32_MAX || w > INT32_MAX)
    throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument, "image: too large");

  // Strides of axes of length 1 are meaningless (numpy may set them to anything) and ignored.
  auto packed = [&](const py::array& a) {
    return (c == 1 || a.strides(2) == 1) && (w == 1 || a.strides(1) == c) &&
           (h == 1 || a.strides(0) >= w * c);
  };
  *keep = packed(img) ? img : py::array::ensure(img, py::array::c_style);
  if (!keep->ptr()) throw py::error_already_set();
  if (!packed(*keep))
    throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument, "image: cannot make a packed copy");

  ImageView v;
  v.data = static_cast<const std::uint8_t*>(keep->data());
  v.width = static_cast<int>(w);
  v.height = static_cast<int>(h);
  v.stride = h == 1 ? w * c : keep->strides(0);
  const PixelFormat formats[] = {PixelFormat::kGray, PixelFormat::kGrayAlpha, PixelFormat::kBGR,
                                 PixelFormat::kBGRA};
  v.format = formats[c - 1];
  return v;
}

edgeocr::NormalizeParams norm_of(const Triple& mean, const Triple& std, bool to_rgb) {
  edgeocr::NormalizeParams n;
  for (int i = 0; i < 3; ++i) {
    if (std[i] == 0.f)
      throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument,
                           "std: channel " + std::to_string(i) + " is 0");
    n.mean[i] = mean[i];
    n.std[i] = std[i];
  }
  n.to_rgb = to_rgb;
  return n;
}

void check_size(int v, const char* name) {
  if (v <= 0)
    throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument,
                         std::string(name) + ": expected > 0, got " + std::to_string(v));
}

}  // namespace

void bind_preprocess(py::module_& m) {
  const Triple half = {0.5f, 0.5f, 0.5f};

  m.def(
      "det_target_size",
      [](int w, int h, const std::string& limit_type, int limit_side_len, int max_side_len,
         float max_upscale) {
        edgeocr::DetResizeParams p;
        if (limit_type == "max")
          p.limit_type = edgeocr::DetLimitType::kMax;
        else if (limit_type == "min")
          p.limit_type = edgeocr::DetLimitType::kMin;
        else
          throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument,
                               "limit_type: expected 'max' or 'min', got '" + limit_type + "'");
        check_size(w, "w");
        check_size(h, "h");
        check_size(limit_side_len, "limit_side_len");
        check_size(max_side_len, "max_side_len");
        p.limit_side_len = limit_side_len;
        p.max_side_len = max_side_len;
        p.max_upscale = max_upscale;
        int ow = 0, oh = 0;
        edgeocr::det_target_size(w, h, p, &ow, &oh);
        return std::make_pair(ow, oh);
      },
      py::arg("w"), py::arg("h"), py::arg("limit_type") = "max", py::arg("limit_side_len") = 960,
      py::arg("max_side_len") = 4000, py::arg("max_upscale") = 1000.f,
      "PaddleOCR DetResizeForTest (type 0) target size (w, h), each a multiple of 32, the image "
      "enlarged at most max_upscale times.");

  m.def(
      "luminance_range",
      [](const py::array& img, double low_share, double high_share) {
        if (!(low_share >= 0.0 && high_share >= 0.0 && low_share + high_share < 1.0))
          throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument,
                               "low_share, high_share: expected >= 0 with a sum below 1");
        py::array keep;
        const ImageView view = view_of(img, &keep);
        int lo = 0, hi = 255;
        {
          py::gil_scoped_release release;
          edgeocr::luminance_range(view, low_share, high_share, &lo, &hi);
        }
        return std::make_pair(lo, hi);
      },
      py::arg("img"), py::arg("low_share") = 0.005, py::arg("high_share") = 0.005,
      "The luminance levels (lo, hi) below which low_share and above which high_share of the "
      "pixels lie, measured on a grid of at most 65536 pixels (the pipeline's levels stretch).");

  m.def(
      "edge_sharpness",
      [](const py::array& img, int lo, int hi, int d) {
        if (lo < 0 || hi > 255 || lo > hi)
          throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument,
                               "lo, hi: expected 0 <= lo <= hi <= 255");
        if (d < 1 || d > 1 << 16)
          throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument, "d: expected 1..65536");
        py::array keep;
        const ImageView view = view_of(img, &keep);
        py::gil_scoped_release release;
        return edgeocr::edge_sharpness(view, lo, hi, d);
      },
      py::arg("img"), py::arg("lo"), py::arg("hi"), py::arg("d") = 1,
      "The page's edge sharpness (the pipeline's det_sharpen_below measure): the median "
      "luminance step to the neighbours d pixels away over the grid samples in the middle half "
      "of [lo, hi] with a step of at least (hi - lo) / 16, divided by hi - lo; 1 when there is "
      "nothing to judge.");

  m.def(
      "det_preprocess",
      [](const py::array& img, int out_w, int out_h, const Triple& mean, const Triple& std,
         bool to_rgb) {
        py::array keep;
        const ImageView view = view_of(img, &keep);
        check_size(out_w, "out_w");
        check_size(out_h, "out_h");
        const edgeocr::NormalizeParams norm = norm_of(mean, std, to_rgb);
        py::array_t<float> out({py::ssize_t{3}, py::ssize_t{out_h}, py::ssize_t{out_w}});
        float* dst = out.mutable_data();
        {
          py::gil_scoped_release nogil;
          edgeocr::det_preprocess(view, out_w, out_h, norm, dst);
        }
        return out;
      },
      py::arg("img"), py::arg("out_w"), py::arg("out_h"), py::arg("mean") = half,
      py::arg("std") = half, py::arg("to_rgb") = false,
      "Bilinear resize (OpenCV INTER_LINEAR geometry) + normalise + HWC->CHW of a uint8 BGR, "
      "BGRA or gray image. Returns float32 (3, out_h, out_w), channels BGR unless to_rgb.");

  m.def(
      "crop_preprocess",
      [](const py::array& img,
         const py::array_t<float, py::array::c_style | py::array::forcecast>& quad, int out_w,
         int out_h, int dst_w, const Triple& mean, const Triple& std, float pad_value,
         bool to_rgb) {
        py::array keep;
        const ImageView view = view_of(img, &keep);
        if (quad.ndim() != 2 || quad.shape(0) != 4 || quad.shape(1) != 2)
          throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument,
                               "quad: expected shape (4, 2)");
        check_size(out_w, "out_w");
        check_size(out_h, "out_h");
        if (dst_w < out_w)
          throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument,
                               "dst_w: expected >= out_w = " + std::to_string(out_w) + ", got " +
                                   std::to_string(dst_w));
        const edgeocr::NormalizeParams norm = norm_of(mean, std, to_rgb);
        edgeocr::Quad q;
        const float* qp = quad.data();
        for (int i = 0; i < 4; ++i) q.p[i] = {qp[2 * i], qp[2 * i + 1]};
        py::array_t<float> out({py::ssize_t{3}, py::ssize_t{out_h}, py::ssize_t{dst_w}});
        float* dst = out.mutable_data();
        {
          py::gil_scoped_release nogil;
          edgeocr::crop_preprocess(view, q, out_w, out_h, dst_w, norm, pad_value, dst);
        }
        return out;
      },
      py::arg("img"), py::arg("quad"), py::arg("out_w"), py::arg("out_h"), py::arg("dst_w"),
      py::arg("mean") = half, py::arg("std") = half, py::arg("pad_value") = 0.0f,
      py::arg("to_rgb") = false,
      "Perspective crop of quad (4, 2: tl, tr, br, bl) + resize to out_w x out_h + normalise, "
      "written into float32 (3, out_h, dst_w) with columns [out_w, dst_w) set to pad_value.");
}
