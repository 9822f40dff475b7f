// Paddle Lite .nb translation (csrc/loader/nb): bytes in, ONNX bytes out.
#include "bindings.h"
#include "loader/nb/nb.h"

namespace py = pybind11;

void bind_nb(py::module_& m) {
  m.def(
      "nb_to_onnx",
      [](py::buffer data, const std::string& name, bool target_check) {
        py::buffer_info info = edgeocr::python::contiguous_buffer(data, name.c_str());
        const void* ptr = info.ptr;
        std::size_t size = static_cast<std::size_t>(info.size * info.itemsize);
        std::string out;
        {
          py::gil_scoped_release nogil;
          out = edgeocr::nb::translate_to_onnx(ptr, size, name, target_check);
        }
        return py::bytes(out);
      },
      py::arg("data"), py::arg("name") = "<bytes>", py::arg("target_check") = true,
      "Translate the bytes of a Paddle Lite .nb file into serialized ONNX bytes.");
  m.def(
      "nb_cached_to_onnx",
      [](py::buffer data, const std::string& name, const std::string& cache_dir) {
        py::buffer_info info = edgeocr::python::contiguous_buffer(data, name.c_str());
        const void* ptr = info.ptr;
        std::size_t size = static_cast<std::size_t>(info.size * info.itemsize);
        std::string out;
        {
          py::gil_scoped_release nogil;
          out = edgeocr::nb::cached_translate_to_onnx(ptr, size, name, cache_dir);
        }
        return py::bytes(out);
      },
      py::arg("data"), py::arg("name") = "<bytes>", py::arg("cache_dir") = "",
      "nb_to_onnx through the on-disk cache (content hash + translator version).");
  m.def(
      "nb_looks_like",
      [](py::buffer data) {
        py::buffer_info info = edgeocr::python::contiguous_buffer(data, "model data");
        return edgeocr::nb::looks_like_nb(info.ptr,
                                          static_cast<std::size_t>(info.size * info.itemsize));
      },
      py::arg("data"));
  m.def("nb_default_cache_dir", &edgeocr::nb::default_cache_dir);
  m.def("nb_supported_ops", [] { return edgeocr::nb::supported_ops_csv(); });
  m.attr("NB_TRANSLATOR_VERSION") = edgeocr::nb::kTranslatorVersion;
}
