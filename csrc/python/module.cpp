// edgeocr._core: converts arguments, releases the GIL, maps errors. Nothing else.
#include <pybind11/stl.h>

#include "bindings.h"
#include "edgeocr/cpu_features.h"
#include "edgeocr/runtime.h"
#include "edgeocr/status.h"
#include "runtime/malloc_tuning.h"

namespace py = pybind11;

namespace edgeocr {
namespace python {

ImageView image_view_of(const py::array& arr, const char* what) {
  const std::string w(what);
  if (arr.dtype().kind() != 'u' || arr.itemsize() != 1)
    throw Error(StatusCode::kInvalidArgument,
                w + ": expected uint8 pixels, got dtype " + std::string(py::str(arr.dtype())));
  if (arr.ndim() != 2 && arr.ndim() != 3)
    throw Error(StatusCode::kInvalidArgument, w + ": expected an HxW or HxWxC array, got " +
                                                  std::to_string(arr.ndim()) + " dimensions");
  const int c = arr.ndim() == 3 ? static_cast<int>(arr.shape(2)) : 1;
  ImageView v;
  switch (c) {
    case 1:
      v.format = PixelFormat::kGray;
      break;
    case 2:
      v.format = PixelFormat::kGrayAlpha;
      break;
    case 3:
      v.format = PixelFormat::kBGR;
      break;
    case 4:
      v.format = PixelFormat::kBGRA;
      break;
    default:
      throw Error(StatusCode::kInvalidArgument,
                  w + ": expected 1, 2, 3 or 4 channels, got " + std::to_string(c));
  }
  // Pixels within a row must be packed; rows may be strided (positive stride).
  if ((arr.ndim() == 3 && arr.strides(2) != 1) || arr.strides(1) != c || arr.strides(0) <= 0)
    throw Error(StatusCode::kInvalidArgument,
                w + ": pixel layout not supported (strides); pass np.ascontiguousarray(image)");
  v.data = static_cast<const std::uint8_t*>(arr.data());
  v.height = static_cast<int>(arr.shape(0));
  v.width = static_cast<int>(arr.shape(1));
  v.stride = arr.strides(0);
  validate(v, what);
  return v;
}

py::buffer_info contiguous_buffer(const py::handle& obj, const char* what) {
  if (!PyObject_CheckBuffer(obj.ptr()))
    throw Error(StatusCode::kInvalidArgument,
                std::string(what) + ": expected bytes or a buffer, got " +
                    std::string(py::str(py::type::of(obj).attr("__name__"))));
  py::buffer_info info = py::reinterpret_borrow<py::buffer>(obj).request();
  // C order: the last dimension's stride is the item size, each one before it spans the rest.
  py::ssize_t span = info.itemsize;
  bool contiguous = true;
  for (py::ssize_t d = info.ndim - 1; d >= 0; --d) {
    if (info.shape[d] != 1 && info.strides[d] != span) contiguous = false;
    span *= info.shape[d];
  }
  if (!contiguous && info.size != 0)
    throw Error(StatusCode::kInvalidArgument,
                std::string(what) +
                    ": the buffer is not contiguous (a strided or reversed view); pass bytes(...)");
  return info;
}

}  // namespace python
}  // namespace edgeocr

PYBIND11_MODULE(_core, m) {
  m.doc() = "edgeocr C++ core (private; use the edgeocr package)";
  m.attr("__version__") = EDGEOCR_VERSION;

  // The status table (edgeocr/status.h): edgeocr.errors picks its exception classes by these.
  py::enum_<edgeocr::StatusCode> status(m, "StatusCode",
                                        "status codes of the core (edgeocr/status.h)");
#define EDGEOCR_STATUS_VALUE(e, v, name) status.value(#name, edgeocr::StatusCode::e);
  EDGEOCR_STATUS_TABLE(EDGEOCR_STATUS_VALUE)
#undef EDGEOCR_STATUS_VALUE

  // Every C++ error becomes an edgeocr.errors class, in one place (errors.cpp).
  register_error_translator();

  m.def("set_ort_library_path", &edgeocr::set_ort_library_path, py::arg("path"));
  m.def("malloc_arena_cap", &edgeocr::limit_malloc_arenas,
        "glibc malloc arena cap applied by edgeocr (-1: malloc left alone); see "
        "runtime/malloc_tuning.h");
  m.def("runtime_info", [] {
    edgeocr::RuntimeInfo info;
    {
      py::gil_scoped_release nogil;  // loads the library the first time: other threads go on
      info = edgeocr::runtime_info();
    }
    return py::dict(py::arg("library_path") = info.library_path, py::arg("version") = info.version);
  });
  m.def("ort_selftest", [] {
    edgeocr::SelfTestReport r;
    {
      py::gil_scoped_release nogil;
      r = edgeocr::ort_selftest();
    }
    return py::dict(py::arg("ok") = r.ok, py::arg("checks") = r.checks,
                    py::arg("failures") = r.failures);
  });

  m.def("cpu_features", [] {
    const auto& f = edgeocr::cpu_features();
    return py::dict(py::arg("arch") = f.arch, py::arg("avx2") = f.avx2,
                    py::arg("avx512f") = f.avx512f, py::arg("avx512bw") = f.avx512bw,
                    py::arg("avx512_vnni") = f.avx512_vnni, py::arg("avx_vnni") = f.avx_vnni,
                    py::arg("amx_int8") = f.amx_int8, py::arg("asimddp") = f.asimddp,
                    py::arg("i8mm") = f.i8mm, py::arg("bf16") = f.bf16,
                    py::arg("int8_dot") = f.int8_dot());
  });

  bind_model(m);
  bind_nb(m);
  auto kernels =
      m.def_submodule("kernels", "pixel and post-processing kernels (for tests and benchmarks)");
  bind_preprocess(kernels);
  bind_postprocess(kernels);
  bind_pipeline(m);
  bind_document(m);  // before the loader, whose LoadedPipeline.document returns its parser
  bind_loader(m);
}
