// Protobuf wire format: each field is a varint key (field << 3 | wire type)
// followed by a varint (type 0), 4 bytes (type 5) or a varint length and
// that many bytes (type 2: strings, bytes, nested messages).
#include "loader/nb/onnx_writer.h"

#include <cstring>

namespace edgeocr {
namespace nb {
namespace {

void varint(std::string& o, uint64_t v) {
  while (v >= 0x80) {
    o += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  o += static_cast<char>(v);
}
std::size_t varint_size(uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
void key(std::string& o, int field, int wire) {
  varint(o, (static_cast<uint64_t>(field) << 3) | wire);
}
void int_field(std::string& o, int field, int64_t v) {
  key(o, field, 0);
  varint(o, static_cast<uint64_t>(v));
}
void bytes_field(std::string& o, int field, const std::string& v) {
  key(o, field, 2);
  varint(o, v.size());
  o += v;
}
void float_field(std::string& o, int field, float f) {
  key(o, field, 5);
  char b[4];
  std::memcpy(b, &f, 4);
  o.append(b, 4);
}

std::string attr_proto(const OnnxAttr& a) {
  std::string o;
  bytes_field(o, 1, a.name);
  switch (a.type) {
    case OnnxAttr::kFloat:
      float_field(o, 2, a.f);
      break;
    case OnnxAttr::kInt:
      int_field(o, 3, a.i);
      break;
    case OnnxAttr::kString:
      bytes_field(o, 4, a.s);
      break;
    case OnnxAttr::kFloats:
      for (float f : a.floats) float_field(o, 7, f);
      break;
    case OnnxAttr::kInts:
      for (int64_t v : a.ints) int_field(o, 8, v);
      break;
  }
  int_field(o, 20, a.type);
  return o;
}

std::string node_proto(const OnnxNode& n) {
  std::string o;
  for (const auto& i : n.inputs) bytes_field(o, 1, i);
  for (const auto& i : n.outputs) bytes_field(o, 2, i);
  bytes_field(o, 3, n.name);
  bytes_field(o, 4, n.op_type);
  for (const auto& a : n.attrs) bytes_field(o, 5, attr_proto(a));
  return o;
}

std::string value_info_proto(const OnnxValueInfo& v) {
  std::string tensor;  // TypeProto.Tensor
  int_field(tensor, 1, v.elem_type);
  if (v.has_shape) {
    std::string shape;
    for (const auto& d : v.dims) {
      std::string dim;
      if (d.param.empty())
        int_field(dim, 1, d.value);
      else
        bytes_field(dim, 2, d.param);
      bytes_field(shape, 1, dim);
    }
    bytes_field(tensor, 2, shape);
  }
  std::string type;
  bytes_field(type, 1, tensor);
  std::string o;
  bytes_field(o, 1, v.name);
  bytes_field(o, 2, type);
  return o;
}

// TensorProto without its raw_data payload: dims, data_type, name, raw_data key + length.
std::string tensor_head(const std::string& name, const Array& a) {
  std::string o;
  for (int64_t d : a.shape) int_field(o, 1, d);
  int_field(o, 2, a.dtype);
  bytes_field(o, 8, name);
  key(o, 9, 2);
  varint(o, a.nbytes);
  return o;
}

}  // namespace

std::string serialize_model(const OnnxModel& m) {
  std::string graph;  // GraphProto without its initializers
  for (const auto& n : m.nodes) bytes_field(graph, 1, node_proto(n));
  bytes_field(graph, 2, m.graph_name);
  for (const auto& v : m.inputs) bytes_field(graph, 11, value_info_proto(v));
  for (const auto& v : m.outputs) bytes_field(graph, 12, value_info_proto(v));
  std::vector<std::string> heads;
  heads.reserve(m.initializers.size());
  std::size_t graph_size = graph.size();
  for (const auto& it : m.initializers) {
    heads.push_back(tensor_head(it.first, *it.second));
    std::size_t body = heads.back().size() + it.second->nbytes;
    graph_size += 1 + varint_size(body) + body;
  }
  std::string head;
  int_field(head, 1, m.ir_version);
  bytes_field(head, 2, m.producer_name);
  bytes_field(head, 3, m.producer_version);
  std::string opset;
  bytes_field(opset, 1, "");
  int_field(opset, 2, m.opset);
  bytes_field(head, 8, opset);
  for (const auto& kv : m.metadata) {
    std::string e;
    bytes_field(e, 1, kv.first);
    bytes_field(e, 2, kv.second);
    bytes_field(head, 14, e);
  }
  std::string out;
  out.reserve(head.size() + 16 + graph_size);
  out += head;
  key(out, 7, 2);
  varint(out, graph_size);
  out += graph;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    const Array& a = *m.initializers[i].second;
    key(out, 5, 2);
    varint(out, heads[i].size() + a.nbytes);
    out += heads[i];
    if (a.nbytes) out.append(reinterpret_cast<const char*>(a.ptr), a.nbytes);
  }
  return out;
}

}  // namespace nb
}  // namespace edgeocr
