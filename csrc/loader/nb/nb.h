// Paddle Lite naive-buffer (.nb) models: detection and translation into an
// ONNX ModelProto that ONNX Runtime runs with Paddle Lite's answers.
//
// A .nb file is what Paddle Lite's `opt` (>= 2.7) writes: a 26-byte header, a
// FlatBuffers ProgramDesc and the weights. edgeocr reads it itself (no Paddle
// Lite, no protobuf library): csrc/loader/nb/reader.cpp parses the file with
// every offset and length checked, the converters in ops_*.cpp map each op to
// ONNX nodes (registry.cpp holds the table), and onnx_writer.cpp serializes
// the graph. Every allocation is bounded by what the file justifies.
#pragma once

#include <cstddef>
#include <string>

namespace edgeocr {
namespace nb {

// Bumped when a change to the reader or the translator changes the produced
// graph; part of the cache key.
constexpr const char* kTranslatorVersion = "c3";

// True when `data` starts like a Paddle Lite .nb file of a version edgeocr
// reads (meta_version 1 or 2 and a program size that fits). Cheap; reads
// only the 26-byte header. Thread-safe.
bool looks_like_nb(const void* data, std::size_t size) noexcept;

// Translates a whole .nb file into serialized ONNX (opset 17) bytes with
// metadata edgeocr.source = "paddle_lite_nb", edgeocr.nb_target,
// edgeocr.role (det / cls / rec / unknown, guessed from the output shape),
// edgeocr.nb_meta_version, edgeocr.nb_producer, edgeocr.nb_sha256.
// `name` (usually the path) is used in error messages.
//
// Throws edgeocr::Error: kInvalidModel for a file that cannot be read
// (truncated, corrupted, not a .nb file), kUnsupported for a readable file
// that uses an op, attribute form, kernel target or precision edgeocr does
// not translate. The message names the file, the op (index and type) and its
// kernel key. With target_check (the default) kernels for targets other than
// host/x86/arm and precisions other than float are refused. Thread-safe; does
// not keep `data`.
std::string translate_to_onnx(const void* data, std::size_t size, const std::string& name,
                              bool target_check = true);

// The same, through the on-disk cache (common/disk_cache.h): the entry is keyed by the sha256
// of `data` and kTranslatorVersion, in `cache_dir` if non-empty (checked as a cache folder),
// else the cache folder "nb" ($EDGEOCR_CACHE_DIR/nb, default ~/.cache/edgeocr/nb). An entry is
// used only once verified (its record and content hash, its metadata naming the .nb content); a
// cache that cannot be read or written, or use_disk_cache false, is not an error (the model is
// translated every time); a damaged entry is translated again and replaced. Writes are atomic.
std::string cached_translate_to_onnx(const void* data, std::size_t size, const std::string& name,
                                     const std::string& cache_dir = std::string(),
                                     bool use_disk_cache = true);

// The folder cached_translate_to_onnx uses when given none ("" when disk caches are off).
std::string default_cache_dir();

// The Paddle Lite op types the translator knows, sorted.
std::string supported_ops_csv();

}  // namespace nb
}  // namespace edgeocr
