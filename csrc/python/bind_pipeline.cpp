#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <optional>

#include "bindings.h"
#include "codec/decode.h"
#include "edgeocr/pipeline.h"
#include "edgeocr/settings.h"
#include "edgeocr/status.h"

namespace py = pybind11;
using namespace edgeocr;

namespace edgeocr {
namespace python {

// A decode_image outcome for Python: nothing (decoded), the reason (a str) for bytes left to other
// decoders, or InvalidInputError naming `what` for a damaged file or one over the caps.
std::optional<py::object> declined_image(codec::DecodeResult r, const std::string& what,
                                         const std::string& why) {
  switch (r) {
    case codec::DecodeResult::kDecoded:
      return std::nullopt;
    case codec::DecodeResult::kNotHandled:
    case codec::DecodeResult::kUnsupported:
      return py::str(why);
    case codec::DecodeResult::kTooLarge:
      fail(StatusCode::kInvalidArgument,
           what + ": " + why + " (max_image_pixels= or EDGEOCR_MAX_IMAGE_PIXELS raise it)");
    default:
      fail(StatusCode::kInvalidArgument, what + ": not a readable image: " + why);
  }
}

}  // namespace python
}  // namespace edgeocr

namespace {

// A Python value as the settings table takes it. Types are kept (a str stays
// a str) so that the table, not a cast, decides what is accepted.
SettingValue setting_value_of(const SettingInfo& s, const py::handle& v, int depth = 0) {
  PyObject* o = v.ptr();
  if (PyBool_Check(o)) return SettingValue::of_bool(o == Py_True);
  if (PyUnicode_Check(o)) return SettingValue::of_string(v.cast<std::string>());
  if (PyFloat_Check(o)) return SettingValue::of_float(PyFloat_AS_DOUBLE(o));
  if (PyIndex_Check(o)) {  // int and numpy integers
    py::int_ i = py::reinterpret_steal<py::int_>(PyNumber_Index(o));
    if (!i) throw py::error_already_set();
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow != 0) {  // out of any range; shown as the number it is
      const double d = PyLong_AsDouble(i.ptr());
      if (d == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return SettingValue::of_float(overflow > 0 ? HUGE_VAL : -HUGE_VAL);
      }
      return SettingValue::of_float(d);
    }
    return SettingValue::of_int(x);
  }
  const bool numpy_float =
      py::hasattr(v, "dtype") && py::hasattr(v, "is_integer") && PyNumber_Check(o);
  if (numpy_float) {
    const double x = PyFloat_AsDouble(o);
    if (x == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    return SettingValue::of_float(x);
  }
  if (depth == 0 &&
      (PyList_Check(o) || PyTuple_Check(o) || py::hasattr(v, "__array__") || PyRange_Check(o))) {
    const py::ssize_t n = py::len(v);
    // More values than the setting can take are not converted: the length check refuses them.
    const py::ssize_t keep = std::min<py::ssize_t>(n, std::max(s.max_len, 3) + 1);
    std::vector<SettingValue> items;
    py::iterator it = py::iter(v);
    for (py::ssize_t k = 0; k < keep && it != py::iterator::sentinel(); ++k, ++it)
      items.push_back(setting_value_of(s, *it, depth + 1));
    return SettingValue::of_list(std::move(items));
  }
  fail(StatusCode::kInvalidArgument, "pipeline setting " + s.name + " must be " + s.allowed() +
                                         ", got " + std::string(py::repr(v)).substr(0, 80) + " (" +
                                         Py_TYPE(o)->tp_name + ")");
}

py::object to_python(const SettingInfo& s, const SettingValue& v) {
  switch (v.kind) {
    case SettingValue::Kind::kBool:
      return py::bool_(v.b);
    case SettingValue::Kind::kInt:
      return py::int_(v.i);
    // As the float the field holds, printed short (0.3, not 0.30000001192092896).
    case SettingValue::Kind::kFloat:
      return py::float_(py::str(float_text(static_cast<float>(v.f))));
    case SettingValue::Kind::kString:
      return py::str(v.s);
    case SettingValue::Kind::kList: {
      py::list out;
      for (const auto& x : v.list) out.append(to_python(s, x));
      return std::move(out);
    }
  }
  return py::none();
}

PipelineConfig config_from_dict(const py::dict& d) {
  PipelineConfig c;
  for (auto item : d) {
    const std::string k = py::str(item.first);
    const SettingInfo& s = setting_info(k);
    s.set(c, check_setting(s, setting_value_of(s, item.second)));
  }
  return c;
}

py::dict config_to_dict(const PipelineConfig& c) {
  py::dict d;
  for (const SettingInfo& s : settings_table()) d[py::str(s.name)] = to_python(s, s.get(c));
  return d;
}

py::dict setting_dict(const SettingInfo& s) {
  const PipelineConfig defaults;
  py::dict d;
  d["name"] = s.name;
  d["type"] = setting_type_name(s.type);
  d["doc"] = s.doc;
  d["default"] = to_python(s, s.get(defaults));
  d["default_text"] = format_setting(s, s.get(defaults));
  d["allowed"] = s.allowed();
  if (s.type == SettingType::kEnum) {
    d["choices"] = s.choices;
  } else if (s.type != SettingType::kBool) {
    d["min"] = s.min;
    d["max"] = s.max;
    d["min_exclusive"] = s.min_exclusive;
    d["max_exclusive"] = s.max_exclusive;
  }
  if (s.type == SettingType::kFloat3 || s.type == SettingType::kIntList) {
    d["min_len"] = s.min_len;
    d["max_len"] = s.max_len;
  }
  return d;
}

}  // namespace

namespace edgeocr {
namespace python {

// A box as 8 floats (x0, y0, ..., x3, y3): edgeocr/results.py makes the (4, 2) array when the box
// is first read, so a caller that prints text never imports numpy.
py::tuple box_array(const Quad& q) {
  return py::make_tuple(q.p[0].x, q.p[0].y, q.p[1].x, q.p[1].y, q.p[2].x, q.p[2].y, q.p[3].x,
                        q.p[3].y);
}

py::str utf8(const std::string& s) {
  return py::bytes(s).attr("decode")("utf-8", "replace");
}

// (text, score, det_score, box, flipped, words, turns): words as (text, score, box) tuples.
py::tuple line_tuple(const OcrLine& l) {
  py::tuple words(l.words.size());
  for (std::size_t i = 0; i < l.words.size(); ++i)
    words[i] = py::make_tuple(utf8(l.words[i].text), l.words[i].score, box_array(l.words[i].box));
  return py::make_tuple(utf8(l.text), l.score, l.det_score, box_array(l.box), l.flipped, words,
                        l.turns);
}

py::dict result_dict(const OcrResult& r) {
  py::list lines;
  for (const auto& l : r.lines) lines.append(line_tuple(l));
  const auto& t = r.timings;
  py::dict timings(py::arg("det") = t.det, py::arg("cls") = t.cls, py::arg("rec") = t.rec,
                   py::arg("total") = t.total, py::arg("det_model") = t.det_model,
                   py::arg("cls_model") = t.cls_model, py::arg("rec_model") = t.rec_model,
                   py::arg("recheck") = t.recheck, py::arg("recheck_model") = t.recheck_model);
  const auto& w = r.work;
  py::dict work(py::arg("det_pixels") = w.det_pixels, py::arg("cls_lines") = w.cls_lines,
                py::arg("rec_lines") = w.rec_lines, py::arg("rec_columns") = w.rec_columns,
                py::arg("recheck_lines") = w.recheck_lines,
                py::arg("recheck_columns") = w.recheck_columns);
  return py::dict(py::arg("lines") = lines, py::arg("timings") = timings, py::arg("work") = work,
                  py::arg("det_size") = py::make_tuple(r.det_width, r.det_height));
}

}  // namespace python
}  // namespace edgeocr

using namespace edgeocr::python;

namespace {

py::dict plan_dict(const CallPlan& p) {
  py::list tiles;
  for (const auto& t : p.tiles) tiles.append(py::make_tuple(t.x, t.y, t.w, t.h));
  return py::dict(
      py::arg("det_size") = py::make_tuple(p.det_w, p.det_h), py::arg("det_scaled") = p.det_scaled,
      py::arg("det_tiles") = tiles, py::arg("cls_batch") = p.cls_batch,
      py::arg("rec_max_pixels") = p.rec_max_pixels, py::arg("rec_max_width") = p.rec_max_width,
      py::arg("image_bytes") = p.image_bytes, py::arg("reserve_bytes") = p.reserve_bytes);
}

MemoryProfile profile_from_dict(const py::dict& d) {
  MemoryProfile p;
  for (auto item : d) {
    const std::string k = py::str(item.first);
    if (k == "det_bytes_per_pixel")
      p.det_bytes_per_pixel = item.second.cast<double>();
    else if (k == "cls_bytes_per_pixel")
      p.cls_bytes_per_pixel = item.second.cast<double>();
    else if (k == "rec_bytes_per_pixel")
      p.rec_bytes_per_pixel = item.second.cast<double>();
    else if (k == "call_overhead_bytes")
      p.call_overhead_bytes = item.second.cast<std::size_t>();
    else
      throw Error(StatusCode::kInvalidArgument, "unknown memory profile key '" + k + "'");
  }
  return p;
}

}  // namespace

void bind_pipeline(py::module_& m) {
  py::class_<Pipeline::BudgetedCall, std::shared_ptr<Pipeline::BudgetedCall>>(m, "BudgetedCall")
      .def_property_readonly("plan",
                             [](const Pipeline::BudgetedCall& c) { return plan_dict(c.plan); })
      .def_property_readonly("reserved_bytes",
                             [](const Pipeline::BudgetedCall& c) { return c.reservation.bytes(); })
      .def("release", [](Pipeline::BudgetedCall& c) { c.reservation.release(); })
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](Pipeline::BudgetedCall& c, py::args) {
        c.reservation.release();
        return false;
      });
  // The core's PNG and JPEG decoder (csrc/codec/decode.h): an HxW, HxWx3 (BGR) or HxWx4 (BGRA)
  // uint8 array, always. Bytes it leaves to other decoders (not PNG or JPEG, or a feature it does
  // not read: edgeocr/image_io.py then decodes them as before) raise UnsupportedError with the
  // reason; a damaged file, or one over the caps, InvalidInputError; both name `what`.
  // max_bytes None: the default for max_pixels (codec::default_max_bytes, also the C API's).
  m.def(
      "decode_image",
      [](const py::object& data, const std::string& what, std::uint64_t max_pixels,
         std::optional<std::uint64_t> max_bytes) -> py::array_t<std::uint8_t> {
        py::buffer_info buf = python::contiguous_buffer(data, "image bytes");
        auto img = std::make_unique<codec::DecodedImage>();
        std::string why;
        codec::DecodeResult decoded;
        {
          py::gil_scoped_release nogil;
          decoded = codec::decode_image(
              static_cast<const std::uint8_t*>(buf.ptr),
              static_cast<std::size_t>(buf.size * buf.itemsize), max_pixels,
              max_bytes ? *max_bytes : codec::default_max_bytes(max_pixels), img.get(), &why);
        }
        if (declined_image(decoded, what, why))
          fail(StatusCode::kUnsupported, what + ": left to other decoders: " + why);
        std::vector<py::ssize_t> shape = {img->height, img->width};
        if (img->channels > 1) shape.push_back(img->channels);
        // The array owns the decoded pixels (no copy): a capsule frees them with it.
        auto* owner = img.release();
        py::capsule free_it(owner, [](void* p) { delete static_cast<codec::DecodedImage*>(p); });
        return py::array_t<std::uint8_t>(shape, owner->pixels.data(), free_it);
      },
      py::arg("data"), py::arg("what"), py::arg("max_pixels"),
      py::arg("max_bytes").none(true) = py::none());
  m.def("default_max_decode_bytes", &codec::default_max_bytes, py::arg("max_pixels"));
  m.def("codec_versions", &codec::library_versions);
  m.def("default_config", [] { return config_to_dict(PipelineConfig{}); });
  // The settings table (csrc/pipeline/settings_table.cpp): one dict per setting, in order.
  m.def("settings", [] {
    py::list out;
    for (const SettingInfo& s : settings_table()) out.append(setting_dict(s));
    return out;
  });
  // One setting checked (InvalidInputError naming it and its range); returns the
  // value as the field holds it.
  m.def(
      "check_setting",
      [](const std::string& name, const py::handle& value) {
        const SettingInfo& s = setting_info(name);
        return to_python(s, check_setting(s, setting_value_of(s, value)));
      },
      py::arg("name"), py::arg("value"));
  m.def(
      "parse_setting",
      [](const std::string& name, const std::string& text) {
        const SettingInfo& s = setting_info(name);
        return to_python(s, parse_setting(s, text));
      },
      py::arg("name"), py::arg("text"));
  // A whole config (a dict of settings over the defaults) checked as every
  // Pipeline checks it; max_memory_mb as the Predictor's (0: none).
  m.def(
      "validate_config",
      [](const py::dict& config, double max_memory_mb) {
        if (!(max_memory_mb >= 0 && max_memory_mb <= 1e12))
          fail(StatusCode::kInvalidArgument, "max_memory_mb must be a positive number");
        const PipelineConfig c = config_from_dict(config);
        validate_config(c, static_cast<std::uint64_t>(max_memory_mb * 1048576.0));
      },
      py::arg("config"), py::arg("max_memory_mb") = 0.0);
  // The budget planner on a config (a dict of settings over the defaults) without models: what a
  // budgeted call on a width x height image would run (pipeline/budget.h).
  m.def(
      "plan_call",
      [](const py::dict& config, const py::dict& profile, double max_memory_mb, int width,
         int height, bool has_det, bool has_cls, bool has_rec, std::size_t image_bytes) {
        if (!(max_memory_mb > 0 && max_memory_mb <= 1e12))
          fail(StatusCode::kInvalidArgument, "max_memory_mb must be a positive number");
        if (width <= 0 || height <= 0)
          fail(StatusCode::kInvalidArgument, "image size must be positive");
        const PipelineConfig c = config_from_dict(config);
        return plan_dict(plan_call(c, profile_from_dict(profile), has_det, has_cls, has_rec, width,
                                   height, image_bytes,
                                   static_cast<std::size_t>(max_memory_mb * 1048576.0)));
      },
      py::arg("config"), py::arg("profile"), py::arg("max_memory_mb"), py::arg("width"),
      py::arg("height"), py::arg("has_det") = true, py::arg("has_cls") = true,
      py::arg("has_rec") = true, py::arg("image_bytes") = 0);
  py::class_<Pipeline, std::shared_ptr<Pipeline>>(m, "Pipeline")
      .def(py::init([](std::shared_ptr<Model> det, std::shared_ptr<Model> cls,
                       std::shared_ptr<Model> rec, std::vector<std::string> charset,
                       const py::dict& config, std::shared_ptr<MemoryPool> pool) {
             PipelineConfig c = config_from_dict(config);
             return std::make_shared<Pipeline>(std::move(det), std::move(cls), std::move(rec),
                                               std::move(charset), std::move(c), std::move(pool));
           }),
           py::arg("det").none(true), py::arg("cls").none(true), py::arg("rec").none(true),
           py::arg("charset"), py::arg("config"), py::arg("pool").none(true))
      .def_property_readonly("config", [](const Pipeline& p) { return config_to_dict(p.config()); })
      .def_property_readonly("pool", &Pipeline::pool)
      .def(
          "set_memory_budget",
          [](Pipeline& p, std::size_t total_bytes, const py::dict& profile) {
            p.set_memory_budget(MemoryBudget::create(total_bytes), profile_from_dict(profile));
          },
          py::arg("total_bytes"), py::arg("profile") = py::dict())
      // Whether the recheck model's session exists (a deferred one loads when first needed).
      .def_property_readonly("recheck_loaded", &Pipeline::recheck_loaded)
      .def_property_readonly("memory_budget",
                             [](const Pipeline& p) -> py::object {
                               const auto& b = p.memory_budget();
                               if (!b) return py::none();
                               return py::dict(py::arg("total_bytes") = b->total(),
                                               py::arg("in_use_bytes") = b->in_use(),
                                               py::arg("peak_in_use_bytes") = b->peak_in_use(),
                                               py::arg("waits") = b->waits());
                             })
      .def(
          "plan",
          [](const Pipeline& p, int width, int height, std::size_t image_bytes) {
            return plan_dict(p.plan(width, height, image_bytes));
          },
          py::arg("width"), py::arg("height"), py::arg("image_bytes") = 0)
      .def(
          "admit",
          [](const Pipeline& p, int width, int height, std::size_t image_bytes) {
            std::shared_ptr<Pipeline::BudgetedCall> call;
            {
              py::gil_scoped_release nogil;  // waits while other calls hold the budget
              call = std::make_shared<Pipeline::BudgetedCall>(p.admit(width, height, image_bytes));
            }
            return call;
          },
          py::arg("width"), py::arg("height"), py::arg("image_bytes") = 0)
      .def(
          "run",
          [](const Pipeline& p, const py::array& img, const Pipeline::BudgetedCall* call) {
            ImageView view = python::image_view_of(img);
            OcrResult r;
            {
              py::gil_scoped_release nogil;
              r = call ? p.run(view, *call) : p.run(view);
            }
            return result_dict(r);
          },
          py::arg("image"), py::arg("call").none(true) = nullptr)
      .def(
          "run_encoded",
          // The core's decoder (csrc/codec/decode.h) and the pipeline, both without the GIL and
          // without numpy. Returns run()'s dict plus "image_size", or the reason (a str) the
          // decoder leaves the bytes to others (decode_image's rules): the caller then decodes
          // them in Python. Damaged or over the caps: InvalidInputError naming `what`.
          [](const Pipeline& p, const py::object& data, const std::string& what,
             std::uint64_t max_pixels, const Pipeline::BudgetedCall* call) -> py::object {
            py::buffer_info buf = python::contiguous_buffer(data, "image bytes");
            const auto* bytes = static_cast<const std::uint8_t*>(buf.ptr);
            const auto size = static_cast<std::size_t>(buf.size * buf.itemsize);
            codec::DecodedImage img;
            std::string why;
            codec::DecodeResult decoded;
            OcrResult r;
            {
              py::gil_scoped_release nogil;
              decoded = codec::decode_image(bytes, size, max_pixels,
                                            codec::default_max_bytes(max_pixels), &img, &why);
              if (decoded == codec::DecodeResult::kDecoded) {
                const ImageView view = img.view();
                r = call ? p.run(view, *call) : p.run(view);
              }
            }
            if (auto declined = declined_image(decoded, what, why)) return *declined;
            py::dict d = result_dict(r);
            d["image_size"] = py::make_tuple(img.width, img.height);
            return d;
          },
          py::arg("data"), py::arg("what"), py::arg("max_pixels"),
          py::arg("call").none(true) = nullptr)
      .def(
          "recognize",
          [](const Pipeline& p, const py::array& img, const Pipeline::BudgetedCall* call) {
            ImageView view = python::image_view_of(img);
            OcrLine l;
            {
              py::gil_scoped_release nogil;
              l = call ? p.recognize(view, *call) : p.recognize(view);
            }
            return line_tuple(l);
          },
          py::arg("image"), py::arg("call").none(true) = nullptr);
}
