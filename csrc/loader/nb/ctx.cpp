// Ctx: the translation state (SSA names, constants and their budget, shapes, nodes).
#include <algorithm>
#include <cstring>

#include "loader/nb/translate.h"

namespace edgeocr {
namespace nb {

Ctx::Ctx(const NbProgram& p) : prog(p) {
  // Constants the graph may hold: a multiple of what the file holds.
  const_limit_ = 8 * p.param_bytes + (64u << 20);
}

std::string Ctx::fresh(const std::string& full) {
  // a file may name its variables with long strings: keep ONNX names short
  // (unique all the same), so names cost no more than the nodes they label
  std::string base = full.size() > 96 ? full.substr(0, 96) : full;
  for (char& c : base)  // ONNX names: printable ASCII
    if (static_cast<unsigned char>(c) < 0x21 || static_cast<unsigned char>(c) > 0x7e) c = '_';
  std::string name = base;
  while (used_names_.count(name)) name = base + "__" + std::to_string(++n_);
  used_names_.insert(name);
  return name;
}

bool Ctx::has(const std::string& var) const {
  return !var.empty() && (cur.count(var) || prog.params.count(var));
}

std::string Ctx::param_name(const std::string& var) {
  auto it = cur.find(var);
  if (it != cur.end()) return it->second;
  const NbParam& p = prog.params.at(var);
  if (p.array.dtype == kInt8 || p.array.dtype == kInt16)
    unsupported("reads the quantised weight '" + var + "' (" + onnx_type_name(p.array.dtype) +
                ") but carries no '" + var +
                "_quant_scale' attribute; Paddle Lite dequantises weights only for "
                "conv2d, depthwise_conv2d, fc and mul");
  std::string name = fresh(var);
  consts[name] = p.array;
  shapes[name] = p.array.shape;
  dtypes[name] = p.array.dtype;
  cur[var] = name;
  return name;
}

std::string Ctx::get(const std::string& var) {
  if (var.empty()) unsupported("misses a required input");
  if (!cur.count(var)) {
    if (prog.params.count(var))
      param_name(var);
    else
      unsupported("reads variable '" + var +
                  "', which no earlier op writes and which is not a parameter of the file");
  }
  return materialize(cur[var]);
}

std::string Ctx::materialize(const std::string& name) {
  if (consts.count(name) && !inits.count(name)) {
    inits.insert(name);
    init_order.push_back(name);
  }
  return name;
}

const Array* Ctx::cval(const std::string& var) {
  if (var.empty()) return nullptr;
  if (!cur.count(var)) {
    if (prog.params.count(var))
      param_name(var);
    else
      return nullptr;
  }
  return cname(cur[var]);
}

const Array* Ctx::cname(const std::string& name) const {
  auto it = consts.find(name);
  return it == consts.end() ? nullptr : &it->second;
}

Shape Ctx::shape(const std::string& name) const {
  auto it = shapes.find(name);
  return it == shapes.end() ? std::nullopt : it->second;
}

std::size_t Ctx::rank(const std::string& name) const {
  Shape s = shape(name);
  if (!s) unsupported("needs the rank of '" + name + "', which is unknown");
  return s->size();
}

int Ctx::dtype(const std::string& name) const {
  auto it = dtypes.find(name);
  return it == dtypes.end() ? kFloat : it->second;
}

Array Ctx::alloc(int dt, const Dims& shape) {
  if (shape.size() > kMaxRank) corrupt("makes a constant of rank " + std::to_string(shape.size()));
  for (int64_t d : shape)
    if (d < 0) corrupt("makes a constant of shape " + dims_str(shape));
  int64_t n = prod(shape);
  uint64_t bytes = static_cast<uint64_t>(n) * onnx_itemsize(dt);
  if (n > (int64_t{1} << 40) || const_bytes_ + bytes > const_limit_)
    unsupported("makes the graph's constants exceed " + std::to_string(const_limit_ >> 20) +
                " MiB, far more than the file holds; the file is corrupted");
  return Array::make(dt, shape);
}

std::string Ctx::new_const(Array a, const std::string& base) {
  const_bytes_ += a.nbytes;
  if (const_bytes_ > const_limit_)
    unsupported("makes the graph's constants exceed " + std::to_string(const_limit_ >> 20) +
                " MiB, far more than the file holds; the file is corrupted");
  std::string name = fresh(base);
  shapes[name] = a.shape;
  dtypes[name] = a.dtype;
  consts[name] = std::move(a);
  return name;
}

std::string Ctx::iconst(const Dims& v, const std::string& base) {
  Array a = alloc(kInt64, {static_cast<int64_t>(v.size())});
  if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * 8);
  return materialize(new_const(std::move(a), base));
}

std::string Ctx::iconst_empty() {
  return iconst({});
}

std::string Ctx::fconst(double v, const std::string& base) {
  Array a = alloc(kFloat, {});
  a.set(0, v);
  return materialize(new_const(std::move(a), base));
}

std::string Ctx::fconst_arr(const std::vector<float>& v, const Dims& shape,
                            const std::string& base) {
  Array a = alloc(kFloat, shape);
  if (static_cast<std::size_t>(a.numel()) != v.size()) corrupt("has a constant of the wrong size");
  if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * 4);
  return materialize(new_const(std::move(a), base));
}

std::string Ctx::typed_scalar(double v, int dt) {
  Array a = alloc(dt, {});
  a.set(0, v);
  return materialize(new_const(std::move(a), "c"));
}

void Ctx::set_const_out(const std::string& var, Array a) {
  if (var.empty()) unsupported("has no output");
  bind(var, new_const(std::move(a), var));
}

std::vector<std::string> Ctx::node(const std::string& op_type, const std::vector<std::string>& ins,
                                   int n_out, const Shape& shp, int dt,
                                   std::vector<OnnxAttr> attrs) {
  for (const auto& i : ins)
    if (!i.empty()) materialize(i);
  std::string base;
  if (op && !op->outputs.empty() && !op->outputs.begin()->second.empty())
    base = op->outputs.begin()->second[0];
  std::string lower = op_type;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  OnnxNode n;
  n.op_type = op_type;
  n.inputs = ins;
  for (int i = 0; i < n_out; ++i)
    n.outputs.push_back(fresh((base.empty() ? op_type : base) + "_" + lower));
  n.name = fresh("n" + std::to_string(nodes.size()) + "_" + op_type);
  n.attrs = std::move(attrs);
  for (const auto& o : n.outputs) {
    shapes[o] = shp;
    dtypes[o] = dt;
  }
  nodes.push_back(std::move(n));
  return nodes.back().outputs;
}

void Ctx::out(const NbOp& o, const std::string& slot, const std::string& name) {
  std::string var = o.output(slot);
  if (var.empty()) unsupported("has no '" + slot + "' output");
  bind(var, name);
}

}  // namespace nb
}  // namespace edgeocr
