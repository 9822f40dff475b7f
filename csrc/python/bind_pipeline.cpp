#include <pybind11/stl.h>

#include "bindings.h"
#include "edgeocr/pipeline.h"
#include "edgeocr/status.h"

namespace py = pybind11;
using namespace edgeocr;

namespace {

void set3(float dst[3], const py::handle& v, const char* key) {
  auto seq = v.cast<std::vector<float>>();
  if (seq.size() != 3) throw Error(StatusCode::kInvalidArgument, std::string(key) + " needs 3 values");
  for (int i = 0; i < 3; ++i) dst[i] = seq[i];
}

py::list list3(const float v[3]) { return py::cast(std::vector<float>(v, v + 3)); }

PipelineConfig config_from_dict(const py::dict& d) {
  PipelineConfig c;
  for (auto item : d) {
    const std::string k = py::str(item.first);
    const py::handle v = item.second;
    if (k == "det_limit_type") {
      std::string s = v.cast<std::string>();
      if (s != "min" && s != "max") throw Error(StatusCode::kInvalidArgument, "det_limit_type must be 'min' or 'max'");
      c.det_resize.limit_type = s == "min" ? DetLimitType::kMin : DetLimitType::kMax;
    } else if (k == "det_limit_side_len") c.det_resize.limit_side_len = v.cast<int>();
    else if (k == "det_max_side_len") c.det_resize.max_side_len = v.cast<int>();
    else if (k == "det_mean") set3(c.det_norm.mean, v, "det_mean");
    else if (k == "det_std") set3(c.det_norm.std, v, "det_std");
    else if (k == "det_thresh") c.db.thresh = v.cast<float>();
    else if (k == "det_box_thresh") c.db.box_thresh = v.cast<float>();
    else if (k == "det_unclip_ratio") c.db.unclip_ratio = v.cast<float>();
    else if (k == "det_max_candidates") c.db.max_candidates = v.cast<int>();
    else if (k == "det_use_dilation") c.db.use_dilation = v.cast<bool>();
    else if (k == "det_score_mode") {
      std::string s = v.cast<std::string>();
      if (s != "fast" && s != "slow") throw Error(StatusCode::kInvalidArgument, "det_score_mode must be 'fast' or 'slow'");
      c.db.score_mode = s == "fast" ? DbScoreMode::kFast : DbScoreMode::kSlow;
    } else if (k == "det_min_size") c.db.min_size = v.cast<float>();
    else if (k == "use_cls") c.use_cls = v.cast<bool>();
    else if (k == "cls_height") c.cls_height = v.cast<int>();
    else if (k == "cls_width") c.cls_width = v.cast<int>();
    else if (k == "cls_batch") c.cls_batch = v.cast<int>();
    else if (k == "cls_thresh") c.cls_thresh = v.cast<float>();
    else if (k == "cls_verify") c.cls_verify = v.cast<bool>();
    else if (k == "cls_mean") set3(c.cls_norm.mean, v, "cls_mean");
    else if (k == "cls_std") set3(c.cls_norm.std, v, "cls_std");
    else if (k == "rec_height") c.rec_height = v.cast<int>();
    else if (k == "rec_batch") c.rec_batch = v.cast<int>();
    else if (k == "rec_width_buckets") c.rec_width_buckets = v.cast<std::vector<int>>();
    else if (k == "rec_mean") set3(c.rec_norm.mean, v, "rec_mean");
    else if (k == "rec_std") set3(c.rec_norm.std, v, "rec_std");
    else if (k == "rotate_ratio") c.rotate_ratio = v.cast<float>();
    else if (k == "drop_score") c.drop_score = v.cast<float>();
    else throw Error(StatusCode::kInvalidArgument, "unknown pipeline setting '" + k + "'");
  }
  return c;
}

py::dict config_to_dict(const PipelineConfig& c) {
  py::dict d;
  d["det_limit_type"] = c.det_resize.limit_type == DetLimitType::kMin ? "min" : "max";
  d["det_limit_side_len"] = c.det_resize.limit_side_len;
  d["det_max_side_len"] = c.det_resize.max_side_len;
  d["det_mean"] = list3(c.det_norm.mean);
  d["det_std"] = list3(c.det_norm.std);
  d["det_thresh"] = c.db.thresh;
  d["det_box_thresh"] = c.db.box_thresh;
  d["det_unclip_ratio"] = c.db.unclip_ratio;
  d["det_max_candidates"] = c.db.max_candidates;
  d["det_use_dilation"] = c.db.use_dilation;
  d["det_score_mode"] = c.db.score_mode == DbScoreMode::kFast ? "fast" : "slow";
  d["det_min_size"] = c.db.min_size;
  d["use_cls"] = c.use_cls;
  d["cls_height"] = c.cls_height;
  d["cls_width"] = c.cls_width;
  d["cls_batch"] = c.cls_batch;
  d["cls_thresh"] = c.cls_thresh;
  d["cls_verify"] = c.cls_verify;
  d["cls_mean"] = list3(c.cls_norm.mean);
  d["cls_std"] = list3(c.cls_norm.std);
  d["rec_height"] = c.rec_height;
  d["rec_batch"] = c.rec_batch;
  d["rec_width_buckets"] = c.rec_width_buckets;
  d["rec_mean"] = list3(c.rec_norm.mean);
  d["rec_std"] = list3(c.rec_norm.std);
  d["rotate_ratio"] = c.rotate_ratio;
  d["drop_score"] = c.drop_score;
  return d;
}

py::array box_array(const Quad& q) {
  py::array_t<float> a({4, 2});
  auto m = a.mutable_unchecked<2>();
  for (int i = 0; i < 4; ++i) {
    m(i, 0) = q.p[i].x;
    m(i, 1) = q.p[i].y;
  }
  return a;
}

py::tuple line_tuple(const OcrLine& l) {
  return py::make_tuple(py::bytes(l.text).attr("decode")("utf-8", "replace"), l.score, l.det_score,
                        box_array(l.box), l.flipped);
}

py::dict result_dict(const OcrResult& r) {
  py::list lines;
  for (const auto& l : r.lines) lines.append(line_tuple(l));
  const auto& t = r.timings;
  py::dict timings(py::arg("det") = t.det, py::arg("cls") = t.cls, py::arg("rec") = t.rec,
                   py::arg("total") = t.total, py::arg("det_model") = t.det_model,
                   py::arg("cls_model") = t.cls_model, py::arg("rec_model") = t.rec_model);
  return py::dict(py::arg("lines") = lines, py::arg("timings") = timings,
                  py::arg("det_size") = py::make_tuple(r.det_width, r.det_height));
}

}  // namespace

void bind_pipeline(py::module_& m) {
  m.def("default_config", [] { return config_to_dict(PipelineConfig{}); });
  py::class_<Pipeline, std::shared_ptr<Pipeline>>(m, "Pipeline")
      .def(py::init([](std::shared_ptr<Model> det, std::shared_ptr<Model> cls, std::shared_ptr<Model> rec,
                       std::vector<std::string> charset, const py::dict& config,
                       std::shared_ptr<MemoryPool> pool) {
             PipelineConfig c = config_from_dict(config);
             return std::make_shared<Pipeline>(std::move(det), std::move(cls), std::move(rec),
                                               std::move(charset), std::move(c), std::move(pool));
           }),
           py::arg("det").none(true), py::arg("cls").none(true), py::arg("rec").none(true),
           py::arg("charset"), py::arg("config"), py::arg("pool").none(true))
      .def_property_readonly("config", [](const Pipeline& p) { return config_to_dict(p.config()); })
      .def_property_readonly("pool", &Pipeline::pool)
      .def("run",
           [](const Pipeline& p, const py::array& img) {
             ImageView view = python::image_view_of(img);
             OcrResult r;
             {
               py::gil_scoped_release nogil;
               r = p.run(view);
             }
             return result_dict(r);
           })
      .def("recognize", [](const Pipeline& p, const py::array& img) {
        ImageView view = python::image_view_of(img);
        OcrLine l;
        {
          py::gil_scoped_release nogil;
          l = p.recognize(view);
        }
        return line_tuple(l);
      });
}
