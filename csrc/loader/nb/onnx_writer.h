// A minimal ONNX ModelProto serializer (protobuf wire format, written by hand:
// edgeocr links no protobuf library). Only the fields the translator emits.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "loader/nb/program.h"

namespace edgeocr {
namespace nb {

struct OnnxAttr {
  enum Type {
    kFloat = 1,
    kInt = 2,
    kString = 3,
    kFloats = 6,
    kInts = 7
  };  // AttributeProto.AttributeType
  std::string name;
  Type type = kInt;
  int64_t i = 0;
  float f = 0.f;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<float> floats;
};

struct OnnxNode {
  std::string op_type, name;
  std::vector<std::string> inputs, outputs;
  std::vector<OnnxAttr> attrs;
};

struct OnnxDim {
  int64_t value = -1;  // used when param is empty
  std::string param;
};

struct OnnxValueInfo {
  std::string name;
  int elem_type = kFloat;
  bool has_shape = false;
  std::vector<OnnxDim> dims;
};

struct OnnxModel {
  int64_t ir_version = 8;
  int64_t opset = 17;
  std::string producer_name, producer_version, graph_name;
  std::vector<OnnxNode> nodes;
  std::vector<OnnxValueInfo> inputs, outputs;
  std::vector<std::pair<std::string, const Array*>> initializers;  // arrays outlive serialize()
  std::vector<std::pair<std::string, std::string>> metadata;
};

std::string serialize_model(const OnnxModel& m);

}  // namespace nb
}  // namespace edgeocr
