// Shared declarations of the pybind11 module edgeocr._core (binding only).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "codec/decode.h"
#include "edgeocr/image.h"
#include "edgeocr/pipeline.h"

namespace edgeocr {
namespace python {

// Builds a view of a uint8 HxW / HxWxC array (C-contiguous or strided rows,
// contiguous pixels). Call with the GIL held; keep `arr` alive while the view is used.
ImageView image_view_of(const pybind11::array& arr, const char* what = "image");

// The buffer of `obj` (bytes, bytearray, memoryview, mmap, numpy array) as bytes: refused
// (InvalidArgument naming `what`) unless C-contiguous, since the core reads
// info.size * info.itemsize bytes from info.ptr (a reversed or strided view would be read past
// its end). Call with the GIL held; the returned info keeps the buffer exported.
pybind11::buffer_info contiguous_buffer(const pybind11::handle& obj, const char* what);

// Results as the Python layer reads them (bind_pipeline.cpp): a quad as 8 floats, UTF-8 text as
// str (broken bytes replaced), a line as (text, score, det_score, box, flipped, words), an OCR
// result as {"lines", "timings", "det_size"}.
pybind11::tuple box_array(const Quad& q);
pybind11::str utf8(const std::string& s);
pybind11::tuple line_tuple(const OcrLine& l);
pybind11::dict result_dict(const OcrResult& r);
// A codec::decode_image outcome (csrc/codec/decode.h, its DecodeResult as an int-backed enum) for
// Python: nothing (decoded), the reason (a str) for bytes left to other decoders, or
// InvalidInputError naming `what` for a damaged file or one over the caps.
std::optional<pybind11::object> declined_image(codec::DecodeResult r, const std::string& what,
                                               const std::string& why);

}  // namespace python
}  // namespace edgeocr

// Maps edgeocr::Error (and its BundleError), std::bad_alloc to edgeocr.errors classes: the
// binding's one exception translator (errors.cpp).
void register_error_translator();

void bind_preprocess(pybind11::module_& m);
void bind_postprocess(pybind11::module_& m);
void bind_model(pybind11::module_& m);
void bind_pipeline(pybind11::module_& m);
void bind_nb(pybind11::module_& m);
void bind_loader(pybind11::module_& m);
void bind_document(pybind11::module_& m);
