// edgeocr._core.load_pipeline and edgeocr._core.Bundle over the C++ loader (csrc/loader).
#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "bindings.h"
#include "common/disk_cache.h"
#include "common/sha256.h"
#include "edgeocr/loader.h"
#include "edgeocr/status.h"
#include "loader/bundle.h"
#include "loader/dictionary.h"
#include "loader/graph_cache.h"
#include "loader/paddle_config.h"
#include "loader/settings.h"

namespace py = pybind11;
using namespace edgeocr;

namespace {

// A source from Python: None, a path (str / os.PathLike) or a buffer (bytes, memoryview, mmap).
struct PySource {
  ModelSource src;
  std::optional<py::buffer_info> info;  // keeps the buffer exported while it is used
};

void set_source(PySource& out, const py::object& obj, const char* what, const std::string& name) {
  if (obj.is_none()) return;
  py::object os = py::module_::import("os");
  if (py::isinstance<py::str>(obj) || py::hasattr(obj, "__fspath__")) {
    out.src.path = py::str(os.attr("fspath")(obj));
    if (out.src.path.empty())
      throw Error(StatusCode::kInvalidArgument, std::string(what) + ": the path is empty");
    return;
  }
  if (!PyObject_CheckBuffer(obj.ptr()))
    throw Error(StatusCode::kInvalidArgument,
                std::string(what) + ": expected a path or bytes, got " +
                    std::string(py::str(py::type::of(obj).attr("__name__"))));
  out.info = edgeocr::python::contiguous_buffer(obj, what);
  out.src.data = out.info->ptr;
  out.src.size = static_cast<std::size_t>(out.info->size * out.info->itemsize);
  out.src.name = name;
  if (out.src.size == 0)
    throw Error(StatusCode::kInvalidModel, std::string(what) + ": the bytes are empty");
}

// A member's bytes as a Python buffer that keeps the bundle (and its mapping) alive.
struct MemberView {
  std::shared_ptr<const loader::Bundle> bundle;
  const std::uint8_t* data;
  std::size_t size;
};

struct PyBundle {
  py::object keep;  // the caller's buffer for Bundle.from_buffer
  std::optional<py::buffer_info> info;
  std::shared_ptr<const loader::Bundle> bundle;
};

ModelSource py_source_plain(const py::object& obj, const char* what,
                            std::vector<std::unique_ptr<PySource>>& keep) {
  keep.push_back(std::make_unique<PySource>());
  set_source(*keep.back(), obj, what, std::string("<") + what + " bytes>");
  return keep.back()->src;
}

}  // namespace

namespace {
// A list or tuple of characters as UTF-8 strings; `what` names the argument in errors.
std::vector<std::string> characters(const py::handle& list, const char* what) {
  std::vector<std::string> out;
  std::size_t i = 0;
  for (const auto& k : list) {
    if (!py::isinstance<py::str>(k))
      throw Error(StatusCode::kInvalidArgument,
                  std::string(what) + ": a list of characters must hold strings, got " +
                      std::string(py::str(py::type::of(k).attr("__name__"))));
    Py_ssize_t n = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(k.ptr(), &n);
    if (utf8 == nullptr) {  // a lone surrogate has no UTF-8 form
      PyErr_Clear();
      throw Error(StatusCode::kInvalidArgument,
                  std::string(what) + "[" + std::to_string(i) +
                      "] is not valid Unicode text: " + std::string(py::repr(k)));
    }
    out.emplace_back(utf8, static_cast<std::size_t>(n));
    ++i;
  }
  return out;
}
}  // namespace

void bind_loader(py::module_& m) {
  py::class_<LoadedPipeline>(m, "LoadedPipeline")
      .def_readonly("pipeline", &LoadedPipeline::pipeline)
      .def_readonly("pool", &LoadedPipeline::pool)
      .def_readonly("model_set", &LoadedPipeline::model_set)
      .def_readonly("from_bundle", &LoadedPipeline::from_bundle)
      .def_property_readonly("memory_profile",
                             [](const LoadedPipeline& l) {
                               const MemoryProfile& p = l.memory_profile;
                               return py::dict(
                                   py::arg("det_bytes_per_pixel") = p.det_bytes_per_pixel,
                                   py::arg("cls_bytes_per_pixel") = p.cls_bytes_per_pixel,
                                   py::arg("rec_bytes_per_pixel") = p.rec_bytes_per_pixel,
                                   py::arg("call_overhead_bytes") = p.call_overhead_bytes);
                             })
      .def_readonly("manifest_json", &LoadedPipeline::manifest_json)
      // The document parser (layout + table models over this pipeline), None without a layout
      // model.
      .def_readonly("document", &LoadedPipeline::document)
      .def_readonly("budget_bytes", &LoadedPipeline::budget_bytes)
      .def_property_readonly("charset",
                             [](const LoadedPipeline& l) { return l.pipeline->charset(); })
      .def_property_readonly("recheck_charset",
                             [](const LoadedPipeline& l) {
                               // A deferred recheck model is loaded for it: without the GIL.
                               std::vector<std::string> chars;
                               {
                                 py::gil_scoped_release nogil;
                                 chars = l.pipeline->recheck_charset();
                               }
                               return chars;
                             })
      .def_property_readonly("roles",
                             [](const LoadedPipeline& l) {
                               py::list r;
                               if (l.has_det) r.append("det");
                               if (l.has_cls) r.append("cls");
                               if (l.has_rec) r.append("rec");
                               if (l.has_recheck) r.append("recheck");
                               if (l.has_layout) r.append("layout");
                               if (l.has_table) r.append("table");
                               return r;
                             })
      .def_property_readonly("names", [](const LoadedPipeline& l) {
        py::dict d;
        const char* roles[6] = {"det", "cls", "rec", "recheck", "layout", "table"};
        for (int i = 0; i < 6; ++i)
          d[roles[i]] =
              l.names[i].empty() ? py::object(py::none()) : py::object(py::str(l.names[i]));
        return d;
      });

  m.def(
      "load_pipeline",
      [](const py::object& bundle, const py::object& model, const py::object& det,
         const py::object& cls, const py::object& rec, const py::object& keys,
         const SessionOptions& options, std::shared_ptr<MemoryPool> pool,
         std::size_t max_memory_bytes, const std::string& settings_json, bool verify_checksums,
         bool keep_optimization, const std::string& name, bool bundle_budget,
         const py::object& recheck, const py::object& recheck_keys, bool defer_recheck,
         bool disk_cache, const py::object& layout, const py::object& table) {
        LoadOptions o;
        PySource b, mo, d, c, r, rc, lo, ta;
        set_source(lo, layout, "layout", "<layout model bytes>");
        set_source(ta, table, "table", "<table model bytes>");
        o.layout = lo.src;
        o.table = ta.src;
        set_source(rc, recheck, "recheck", "<recheck model bytes>");
        o.recheck = rc.src;
        if (py::isinstance<py::list>(recheck_keys) || py::isinstance<py::tuple>(recheck_keys)) {
          o.recheck_keys_list = characters(recheck_keys, "recheck_keys");
          o.has_recheck_keys_list = true;
        } else if (!recheck_keys.is_none()) {
          if (!py::isinstance<py::str>(recheck_keys) && !py::hasattr(recheck_keys, "__fspath__"))
            throw Error(StatusCode::kInvalidArgument,
                        "recheck_keys must be a keys file path or a list of characters, got " +
                            std::string(py::str(py::type::of(recheck_keys).attr("__name__"))));
          o.recheck_keys_path = py::str(py::module_::import("os").attr("fspath")(recheck_keys));
          if (o.recheck_keys_path.empty())
            throw Error(StatusCode::kInvalidArgument, "recheck_keys: the path is empty");
        }
        set_source(b, bundle, "bundle", name);
        set_source(mo, model, "model", name);
        set_source(d, det, "det", "<det model bytes>");
        set_source(c, cls, "cls", "<cls model bytes>");
        set_source(r, rec, "rec", "<rec model bytes>");
        o.bundle = b.src;
        o.model = mo.src;
        o.det = d.src;
        o.cls = c.src;
        o.rec = r.src;
        if (!keys.is_none()) {
          if (py::isinstance<py::list>(keys) || py::isinstance<py::tuple>(keys)) {
            o.keys_list = characters(keys, "keys");
            o.has_keys_list = true;
          } else if (py::isinstance<py::str>(keys) || py::hasattr(keys, "__fspath__")) {
            o.keys_path = py::str(py::module_::import("os").attr("fspath")(keys));
            if (o.keys_path.empty())
              throw Error(StatusCode::kInvalidArgument, "keys: the path is empty");
          } else {
            throw Error(StatusCode::kInvalidArgument,
                        "keys must be a keys file path or a list of characters, got " +
                            std::string(py::str(py::type::of(keys).attr("__name__"))));
          }
        }
        o.session = options;
        o.pool = std::move(pool);
        o.max_memory_bytes = max_memory_bytes;
        o.settings_json = settings_json;
        o.verify_checksums = verify_checksums;
        o.keep_optimization = keep_optimization;
        o.bundle_budget = bundle_budget;
        o.defer_recheck = defer_recheck;
        o.disk_cache = disk_cache;
        py::gil_scoped_release nogil;
        return load_pipeline(o);
      },
      py::arg("bundle") = py::none(), py::arg("model") = py::none(), py::arg("det") = py::none(),
      py::arg("cls") = py::none(), py::arg("rec") = py::none(), py::arg("keys") = py::none(),
      py::arg("options") = SessionOptions(), py::arg("pool") = nullptr,
      py::arg("max_memory_bytes") = 0, py::arg("settings_json") = "",
      py::arg("verify_checksums") = true, py::arg("keep_optimization") = false,
      py::arg("name") = "<bundle bytes>", py::arg("bundle_budget") = false,
      py::arg("recheck") = py::none(), py::arg("recheck_keys") = py::none(),
      py::arg("defer_recheck") = true, py::arg("disk_cache") = true, py::arg("layout") = py::none(),
      py::arg("table") = py::none(),
      "Build a pipeline from a bundle, one model of any kind, or det/cls/rec models (paths or "
      "buffers), with an optional recheck recogniser (a known set's file loaded when first "
      "needed unless defer_recheck is False) and document models (layout, table). "
      "disk_cache=False: no on-disk cache is read or written by this load.");

  m.def(
      "load_document_parser",
      [](std::shared_ptr<Pipeline> pipeline, const py::object& layout, const py::object& table,
         const SessionOptions& options, std::shared_ptr<MemoryPool> pool, bool disk_cache) {
        PySource lo, ta;
        set_source(lo, layout, "layout", "<layout model bytes>");
        set_source(ta, table, "table", "<table model bytes>");
        py::gil_scoped_release nogil;
        return load_document_parser(std::move(pipeline), lo.src, ta.src, options, std::move(pool),
                                    disk_cache);
      },
      py::arg("pipeline"), py::arg("layout"), py::arg("table") = py::none(),
      py::arg("options") = SessionOptions(), py::arg("pool") = nullptr,
      py::arg("disk_cache") = true,
      "A document parser over `pipeline` with this layout (and table) model; paths load on its "
      "first run.");

  auto lm =
      m.def_submodule("loader", "model-loading rules (roles, dictionaries, model sets, sha256)");
  lm.def("sha256_hex", [](py::buffer data) {
    py::buffer_info info = edgeocr::python::contiguous_buffer(data, "sha256_hex data");
    const std::size_t n = static_cast<std::size_t>(info.size * info.itemsize);
    py::gil_scoped_release nogil;
    return edgeocr::sha256_hex(info.ptr, n);
  });
  lm.def(
      "parse_keys",
      [](const py::bytes& text, const std::string& source) {
        return loader::parse_keys(std::string(text), source);
      },
      py::arg("text"), py::arg("source") = "keys");
  lm.def("read_keys_file", &loader::read_keys_file, py::arg("path"));
  lm.def("graph_cache_dir", &loader::graph_cache_dir,
         "The folder of ONNX Runtime's optimised graphs, created and checked ('' when "
         "EDGEOCR_GRAPH_CACHE=0, disk caches are off or the folder is refused).");
  lm.def("cache_root", &disk_cache::root,
         "The root of edgeocr's disk caches: $EDGEOCR_CACHE_DIR, else ~/.cache/edgeocr ('' when "
         "EDGEOCR_CACHE_DIR=off, or without HOME and EDGEOCR_CACHE_DIR). Not checked or created.");
  lm.def("cache_folder", &disk_cache::folder, py::arg("name"),
         "The cache folder `name` under cache_root(), created (0700) and checked: a folder owned "
         "by this user and not writable by group or others; '' when disk caches are off or the "
         "folder is refused (named once in a warning on stderr).");
  lm.def("split_lines_like_python",
         [](const py::bytes& s) { return loader::split_lines_like_python(std::string(s)); });
  lm.def("role_of",
         [](const Model& model) { return std::string(loader::role_name(loader::role_of(model))); });
  lm.def(
      "charset_for",
      [](const Model& rec, std::optional<std::vector<std::string>> chars,
         const std::string& source) {
        return loader::charset_for(rec, chars ? &*chars : nullptr, source);
      },
      py::arg("rec"), py::arg("chars") = py::none(), py::arg("source") = "the keys given");
  lm.def(
      "model_set_settings",
      [](const py::object& det, const py::object& cls, const py::object& rec,
         const py::object& recheck) {
        std::vector<std::unique_ptr<PySource>> keep;
        const ModelSource d = py_source_plain(det, "det", keep),
                          c = py_source_plain(cls, "cls", keep),
                          r = py_source_plain(rec, "rec", keep),
                          rc = py_source_plain(recheck, "recheck", keep);
        std::string name, settings;
        {
          py::gil_scoped_release nogil;
          settings = model_set_settings(d, c, r, &name, rc);
        }
        return py::make_tuple(name, settings);
      },
      py::arg("det") = py::none(), py::arg("cls") = py::none(), py::arg("rec") = py::none(),
      py::arg("recheck") = py::none(),
      "(model set name or '', its settings as JSON) for these models (paths or buffers).");
  lm.def(
      "paddle_model_config",
      [](const std::string& yml_json, const std::string& role, const std::string& where) {
        nlohmann::json j;
        try {
          j = nlohmann::json::parse(yml_json);
        } catch (const nlohmann::json::exception& e) {
          throw Error(StatusCode::kInvalidArgument, where + " is not JSON: " + e.what());
        }
        loader::PaddleModelConfig c = loader::paddle_model_config(j, role, where);
        return py::make_tuple(c.settings.dump(), c.characters, c.notes);
      },
      py::arg("yml_json"), py::arg("role"), py::arg("where") = "inference.yml",
      "(settings as JSON, characters, notes) from a Paddle model's inference.yml (as JSON).");
  lm.def("default_settings_json", [] { return loader::settings_to_json(PipelineConfig{}).dump(); });
  lm.def(
      "check_settings_json",
      [](const std::string& text, const std::string& where) {
        PipelineConfig c;
        nlohmann::json j;
        try {
          j = nlohmann::json::parse(text);
        } catch (const nlohmann::json::exception& e) {
          throw Error(StatusCode::kInvalidArgument, where + " are not JSON: " + e.what());
        }
        loader::apply_settings(c, j, where, StatusCode::kInvalidArgument,
                               StatusCode::kInvalidArgument);
        return loader::settings_to_json(c).dump();
      },
      py::arg("settings_json"), py::arg("where") = "settings",
      "edgeocr's defaults with these settings applied (checked), as JSON.");

  py::class_<MemberView>(lm, "MemberView", py::buffer_protocol())
      .def_buffer([](MemberView& v) {
        return py::buffer_info(const_cast<std::uint8_t*>(v.data), 1,
                               py::format_descriptor<std::uint8_t>::format(), 1,
                               {static_cast<py::ssize_t>(v.size)}, {1}, /*readonly=*/true);
      })
      .def("__len__", [](const MemberView& v) { return v.size; });

  py::class_<PyBundle>(lm, "Bundle")
      .def_static(
          "open",
          [](const py::object& path, bool verify) {
            auto b = std::make_unique<PyBundle>();
            const std::string p = py::str(py::module_::import("os").attr("fspath")(path));
            {
              py::gil_scoped_release nogil;
              b->bundle = loader::Bundle::open(p, verify);
            }
            return b;
          },
          py::arg("path"), py::arg("verify_checksums") = true)
      .def_static(
          "from_buffer",
          [](const py::object& data, const std::string& name, bool verify) {
            auto b = std::make_unique<PyBundle>();
            b->keep = data;
            b->info = edgeocr::python::contiguous_buffer(data, name.c_str());
            const void* ptr = b->info->ptr;
            const std::size_t n = static_cast<std::size_t>(b->info->size * b->info->itemsize);
            {
              py::gil_scoped_release nogil;
              b->bundle = loader::Bundle::view(ptr, n, name, verify);
            }
            return b;
          },
          py::arg("data"), py::arg("name") = "<bytes>", py::arg("verify_checksums") = true)
      .def_property_readonly("name", [](const PyBundle& b) { return b.bundle->name(); })
      .def_property_readonly("file_size", [](const PyBundle& b) { return b.bundle->file_size(); })
      .def_property_readonly("manifest_json",
                             [](const PyBundle& b) {
                               return b.bundle->manifest().dump(
                                   -1, ' ', false, nlohmann::json::error_handler_t::replace);
                             })
      .def_property_readonly("charset", [](const PyBundle& b) { return b.bundle->charset(); })
      .def_property_readonly("recheck_charset",
                             [](const PyBundle& b) { return b.bundle->recheck_charset(); })
      .def_property_readonly(
          "config_json",
          [](const PyBundle& b) { return loader::settings_to_json(b.bundle->config()).dump(); })
      .def_property_readonly("roles",
                             [](const PyBundle& b) {
                               std::vector<std::string> r;
                               for (const auto& m : b.bundle->models()) r.push_back(m.role);
                               return r;
                             })
      .def("member", [](const PyBundle& b, const std::string& role) {
        const loader::BundleModel* m = b.bundle->model(role);
        if (!m)
          throw Error(StatusCode::kInvalidArgument,
                      b.bundle->name() + " has no " + role + " model");
        if (b.info)  // over caller memory: the view must also keep that memory alive
          return py::object(py::memoryview(b.keep).attr("cast")("B")[py::slice(
              m->data - static_cast<const std::uint8_t*>(b.info->ptr),
              m->data - static_cast<const std::uint8_t*>(b.info->ptr) + m->size, 1)]);
        return py::object(py::memoryview(py::cast(MemberView{b.bundle, m->data, m->size})));
      });
}
