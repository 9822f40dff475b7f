// The binding's one exception translator: every C++ error becomes an edgeocr.errors class, chosen
// by status code (and, for the bundle reader, by the kind of failure) in edgeocr/errors.py.
#include <cstring>
#include <new>

#include "bindings.h"
#include "edgeocr/status.h"
#include "loader/bundle_error.h"

namespace py = pybind11;

namespace {

// Raises edgeocr.errors.from_status(code, message[, bundle_kind]) as the Python error in flight.
// Messages are valid UTF-8 (edgeocr::Error escapes what is not); a stray byte is still decoded
// with U+FFFD rather than lost to a UnicodeDecodeError here.
void raise_status(edgeocr::StatusCode code, const char* message, const char* bundle_kind) {
  py::str text = py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(message, static_cast<py::ssize_t>(std::strlen(message)), "replace"));
  if (!text) throw py::error_already_set();
  py::object from_status = py::module_::import("edgeocr.errors").attr("from_status");
  py::object exc = bundle_kind ? from_status(static_cast<int>(code), text, bundle_kind)
                               : from_status(static_cast<int>(code), text);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
}

}  // namespace

void register_error_translator() {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const edgeocr::loader::BundleError& e) {
      static const char* const kinds[] = {"format", "manifest", "version", "checksum"};
      raise_status(e.code(), e.what(), kinds[static_cast<int>(e.kind())]);
    } catch (const edgeocr::Error& e) {
      raise_status(e.code(), e.what(), nullptr);
    } catch (const std::bad_alloc&) {
      // An allocation the core could not make (pybind11 would give a bare MemoryError):
      // edgeocr.ResourceError, which is also a MemoryError.
      raise_status(edgeocr::StatusCode::kOutOfMemory,
                   "out of memory: an allocation in the edgeocr core failed", nullptr);
    }
  });
}
