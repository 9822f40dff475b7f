// Binding of the post-processing kernels: DB boxes, CTC greedy decoding, reading order.
// Defines `void bind_postprocess(pybind11::module_& m)` (declared in bindings.h); module.cpp calls
// it with the submodule edgeocr._core.kernels. Checks and converts with the GIL held, releases it
// around the work. edgeocr::Error is translated by the module-wide translator.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "edgeocr/status.h"
#include "postprocess/ctc.h"
#include "postprocess/db.h"
#include "postprocess/order.h"

namespace py = pybind11;

namespace {

// A C-contiguous float32 array of `ndim` dimensions after dropping leading axes of length 1
// (so a (1, 1, H, W) det output is accepted as (H, W)). Copies only a non-contiguous array.
py::array_t<float> float_array(const py::array& a, int ndim, const char* what) {
  if (!a.dtype().is(py::dtype::of<float>()))
    throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument,
                         std::string(what) + ": expected dtype float32, got " +
                             py::str(a.dtype()).cast<std::string>());
  if (a.ndim() < ndim)
    throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument,
                         std::string(what) + ": expected " + std::to_string(ndim) +
                             " dimensions, got " + std::to_string(a.ndim()));
  for (py::ssize_t i = 0; i + ndim < a.ndim(); ++i)
    if (a.shape(i) != 1)
      throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument,
                           std::string(what) + ": expected " + std::to_string(ndim) +
                               " dimensions (leading axes of length 1 allowed), got axis " +
                               std::to_string(i) + " of length " + std::to_string(a.shape(i)));
  // Sizes are checked before any copy: a broadcast view can claim gigabytes.
  for (py::ssize_t i = 0; i < a.ndim(); ++i)
    if (a.shape(i) > INT32_MAX)
      throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument,
                           std::string(what) + ": axis " + std::to_string(i) + " of length " +
                               std::to_string(a.shape(i)) + " is too large");
  if (static_cast<double>(a.size()) * sizeof(float) > 4.0 * (1ull << 30))
    throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument,
                         std::string(what) + ": more than 4 GiB of data");
  auto c = py::array_t<float, py::array::c_style>::ensure(a);
  if (!c) {
    if (PyErr_Occurred()) throw py::error_already_set();
    throw std::bad_alloc();
  }
  return c;
}

int checked_int(py::ssize_t v, const char* what) {
  if (v > INT32_MAX)
    throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument, std::string(what) + ": too large");
  return static_cast<int>(v);
}

edgeocr::DbScoreMode score_mode_of(const std::string& s) {
  if (s == "fast") return edgeocr::DbScoreMode::kFast;
  if (s == "slow") return edgeocr::DbScoreMode::kSlow;
  throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument,
                       "score_mode: expected 'fast' or 'slow', got '" + s + "'");
}

}  // namespace

void bind_postprocess(py::module_& m) {
  const edgeocr::DbParams d;
  m.def(
      "db_postprocess",
      [](const py::array& prob, int src_w, int src_h, float thresh, float box_thresh,
         float unclip_ratio, int max_candidates, bool use_dilation, const std::string& score_mode,
         float min_size) {
        const py::array_t<float> map = float_array(prob, 2, "prob");
        const py::ssize_t nd = map.ndim();
        const int map_h = checked_int(map.shape(nd - 2), "prob height");
        const int map_w = checked_int(map.shape(nd - 1), "prob width");
        edgeocr::DbParams p;
        p.thresh = thresh;
        p.box_thresh = box_thresh;
        p.unclip_ratio = unclip_ratio;
        p.max_candidates = max_candidates;
        p.use_dilation = use_dilation;
        p.score_mode = score_mode_of(score_mode);
        p.min_size = min_size;
        std::vector<edgeocr::DetBox> boxes;
        {
          py::gil_scoped_release nogil;
          boxes = edgeocr::db_postprocess(map.data(), map_w, map_h, src_w, src_h, p);
        }
        const auto n = static_cast<py::ssize_t>(boxes.size());
        py::array_t<float> quads({n, py::ssize_t{4}, py::ssize_t{2}});
        py::array_t<float> scores(n);
        float* q = quads.mutable_data();
        float* s = scores.mutable_data();
        for (py::ssize_t i = 0; i < n; ++i) {
          for (int k = 0; k < 4; ++k) {
            q[i * 8 + k * 2] = boxes[i].quad.p[k].x;
            q[i * 8 + k * 2 + 1] = boxes[i].quad.p[k].y;
          }
          s[i] = boxes[i].score;
        }
        return py::make_tuple(quads, scores);
      },
      py::arg("prob"), py::arg("src_w"), py::arg("src_h"), py::arg("thresh") = d.thresh,
      py::arg("box_thresh") = d.box_thresh, py::arg("unclip_ratio") = d.unclip_ratio,
      py::arg("max_candidates") = d.max_candidates, py::arg("use_dilation") = d.use_dilation,
      py::arg("score_mode") = "fast", py::arg("min_size") = d.min_size,
      "DB post-processing of a float32 probability map (H, W) (or (1, 1, H, W)).\n"
      "Returns (boxes float32 (N, 4, 2) in source pixels, each clockwise from the top-left; "
      "scores float32 (N,)).");

  // A dictionary converted once: passing a Python list converts its strings on every call
  // (6,625 of them for the Chinese models, which costs more than the decoding itself).
  struct Charset {
    std::vector<std::string> chars;
  };
  py::class_<Charset>(m, "Charset",
                      "The rec model's classes (charset[0] the blank), converted once for "
                      "ctc_greedy_decode.")
      .def(py::init([](std::vector<std::string> chars) { return Charset{std::move(chars)}; }),
           py::arg("chars"))
      .def("__len__", [](const Charset& c) { return c.chars.size(); });

  auto decode = [](const py::array& probs, const std::vector<std::string>& charset,
                   float space_gap) {
    if (!(space_gap >= 0.f && space_gap <= 1.f))
      throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument,
                           "space_gap: expected a number in [0, 1]");
    const py::array_t<float> a = float_array(probs, 2, "probs");
    const py::ssize_t nd = a.ndim();
    const int T = checked_int(a.shape(nd - 2), "probs steps");
    const int C = checked_int(a.shape(nd - 1), "probs classes");
    edgeocr::CtcResult r;
    {
      py::gil_scoped_release nogil;
      r = edgeocr::ctc_greedy_decode(
          a.data(), T, C, charset,
          edgeocr::CtcSpaces{edgeocr::ctc_space_class(charset), space_gap});
    }
    return py::make_tuple(py::str(r.text), r.score);
  };
  const char* doc =
      "Greedy CTC decoding of float32 probabilities (T, C); charset[0] is the blank (a list of "
      "strings, or a Charset built once).\n"
      "Returns (text, score), score being the mean max-probability of the emitted characters.\n"
      "space_gap > 0: a space is also written between two characters when the charset's \" \" "
      "class reaches space_gap on a blank frame between them (the pipeline's rec_space_gap).";
  m.def(
      "ctc_greedy_decode",
      [decode](const py::array& probs, const Charset& charset, float space_gap) {
        return decode(probs, charset.chars, space_gap);
      },
      py::arg("probs"), py::arg("charset"), py::arg("space_gap") = 0.f, doc);
  m.def("ctc_greedy_decode", decode, py::arg("probs"), py::arg("charset"),
        py::arg("space_gap") = 0.f, doc);

  m.def(
      "reading_order",
      [](const py::array& boxes) {
        if (boxes.size() > (1 << 26))
          throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument, "boxes: too many");
        auto a = py::array_t < float, py::array::c_style | py::array::forcecast > ::ensure(boxes);
        if (!a) {
          if (PyErr_Occurred()) throw py::error_already_set();
          throw std::bad_alloc();
        }
        if (!(a.ndim() == 3 && a.shape(1) == 4 && a.shape(2) == 2) &&
            !(a.ndim() == 1 && a.shape(0) == 0))
          throw edgeocr::Error(edgeocr::StatusCode::kInvalidArgument,
                               "boxes: expected shape (N, 4, 2)");
        const py::ssize_t n = a.ndim() == 3 ? a.shape(0) : 0;
        std::vector<edgeocr::Quad> quads(static_cast<size_t>(n));
        const float* src = a.data();
        for (py::ssize_t i = 0; i < n; ++i)
          for (int k = 0; k < 4; ++k) quads[i].p[k] = {src[i * 8 + k * 2], src[i * 8 + k * 2 + 1]};
        std::vector<int> order;
        {
          py::gil_scoped_release nogil;
          order = edgeocr::reading_order(quads);
        }
        return order;
      },
      py::arg("boxes"),
      "Reading order of text boxes (N, 4, 2), each clockwise from the top-left: a permutation "
      "(list of indices), lines top to bottom, left to right within a line.");
}
