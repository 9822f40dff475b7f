// The in-memory form of a .nb file (reader.cpp) and the constant arrays the
// translator folds. Internal to csrc/loader/nb.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/sha256.h"

namespace edgeocr {
namespace nb {

// ONNX TensorProto.DataType values; the translator's one dtype vocabulary.
enum OnnxType : int {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
};
std::size_t onnx_itemsize(int onnx_type);
const char* onnx_type_name(int onnx_type);
// Paddle VarType_.Type id -> ONNX type (kUndefined when unknown).
int paddle_to_onnx_type(int64_t paddle_type);

// One attribute value, in the type the file declared.
struct Attr {
  enum Kind {
    kNone,
    kInt,
    kFloat,
    kString,
    kInts,
    kFloats,
    kStrings,
    kBool,
    kBools,
    kLong,
    kLongs,
    kDouble,
    kDoubles,
    kBlock,
    kBlocks
  };
  Kind kind = kNone;
  int64_t i = 0;
  double f = 0.0;
  std::string s;
  std::vector<int64_t> ints;   // kInts, kBools, kLongs, kBlocks
  std::vector<double> floats;  // kFloats, kDoubles
  std::vector<std::string> strings;
  bool is_list() const {
    return kind == kInts || kind == kFloats || kind == kStrings || kind == kBools ||
           kind == kLongs || kind == kDoubles || kind == kBlocks;
  }
};

struct NbVar {
  std::string name;
  bool has_dtype = false;
  int64_t dtype = 0;  // Paddle VarType_.Type
  std::vector<int64_t> shape;
  bool persistable = false;
};

using Slots = std::map<std::string, std::vector<std::string>>;

struct NbOp {
  std::string type;
  Slots inputs, outputs;
  std::map<std::string, Attr> attrs;
  std::size_t index = 0;

  const Attr* attr(const std::string& name) const;   // nullptr when absent or untyped
  std::string input(const std::string& slot) const;  // first argument or ""
  std::string output(const std::string& slot) const;
  const std::vector<std::string>& inputs_of(const std::string& slot) const;
  const std::vector<std::string>& outputs_of(const std::string& slot) const;
  std::string kernel_key() const;
  // op/alias/target/precision/layout with the enums as names; empty when malformed.
  std::vector<std::string> kernel() const;
  std::string target() const;
  std::string describe() const;  // op #i 'type' (kernel key K = pretty)
};

// A constant tensor: a view of the file's bytes or an owned buffer.
struct Array {
  int dtype = kFloat;  // OnnxType
  std::vector<int64_t> shape;
  std::shared_ptr<const std::vector<uint8_t>> owned;
  const uint8_t* ptr = nullptr;
  std::size_t nbytes = 0;

  int64_t numel() const;
  std::size_t itemsize() const { return onnx_itemsize(dtype); }
  double at(std::size_t i) const;    // element i converted to double
  int64_t iat(std::size_t i) const;  // element i converted to int64 (truncated, saturated)
  static Array make(int dtype, std::vector<int64_t> shape);  // zero-filled, owned
  uint8_t* mutable_data();                                   // only on an array made by make()
  void set(std::size_t i, double v);                         // converts to dtype
};

struct NbParam {
  int64_t paddle_dtype = 0;
  Array array;
};

struct NbProgram {
  std::string source;
  int meta_version = 0;
  std::string producer;
  bool has_framework_version = false;
  int64_t framework_version = 0;
  std::vector<NbOp> ops;
  std::map<std::string, NbVar> vars;
  std::map<std::string, NbParam> params;
  std::size_t param_bytes = 0;
  std::string sha256;  // hex, of the whole file

  std::vector<std::string> targets() const;  // distinct, host/any excluded, sorted
  std::string target() const;
};

// Parses a .nb file. Param arrays view `data`, which must outlive the program.
// Throws Error(kInvalidModel) for anything that is not a readable meta_version 1/2 file.
// `sha256`: the file's digest when the caller has it already (else computed).
NbProgram read_program(const uint8_t* data, std::size_t size, const std::string& what,
                       const std::string& sha256 = std::string());

// translate_to_onnx with the file's sha256 already known (cache.cpp).
std::string translate_with_digest(const void* data, std::size_t size, const std::string& name,
                                  bool target_check, const std::string& sha256);

}  // namespace nb
}  // namespace edgeocr
