// Ctx and the helpers the converters share.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "loader/nb/translate.h"

namespace edgeocr {
namespace nb {

void unsupported(const std::string& msg) {
  throw ConvertError(msg, false);
}
void corrupt(const std::string& msg) {
  throw ConvertError(msg, true);
}

// ---- attributes -----------------------------------------------------------------

namespace {
int64_t to_int(double v, const std::string& name) {
  if (!std::isfinite(v) || v >= 9.2e18 || v <= -9.2e18)
    corrupt("has a non-integral value for '" + name + "'");
  return static_cast<int64_t>(v);  // truncation, like Python's int()
}
}  // namespace

bool has_attr(const NbOp& op, const std::string& name) {
  return op.attr(name) != nullptr;
}

int64_t a_int(const NbOp& op, const std::string& name, int64_t def) {
  const Attr* a = op.attr(name);
  if (!a) return def;
  switch (a->kind) {
    case Attr::kInt:
    case Attr::kLong:
    case Attr::kBool:
    case Attr::kBlock:
      return a->i;
    case Attr::kFloat:
    case Attr::kDouble:
      return to_int(a->f, name);
    default:
      corrupt("has attribute '" + name + "' of the wrong type (expected a number)");
  }
}

double a_float(const NbOp& op, const std::string& name, double def) {
  const Attr* a = op.attr(name);
  if (!a) return def;
  switch (a->kind) {
    case Attr::kInt:
    case Attr::kLong:
    case Attr::kBool:
    case Attr::kBlock:
      return static_cast<double>(a->i);
    case Attr::kFloat:
    case Attr::kDouble:
      return a->f;
    case Attr::kString: {
      char* end = nullptr;
      double v = std::strtod(a->s.c_str(), &end);
      if (a->s.empty() || (end && *end))
        corrupt("has attribute '" + name + "' that is not a number");
      return v;
    }
    default:
      corrupt("has attribute '" + name + "' of the wrong type (expected a number)");
  }
}

bool a_bool(const NbOp& op, const std::string& name, bool def) {
  const Attr* a = op.attr(name);
  if (!a) return def;
  switch (a->kind) {
    case Attr::kInt:
    case Attr::kLong:
    case Attr::kBool:
    case Attr::kBlock:
      return a->i != 0;
    case Attr::kFloat:
    case Attr::kDouble:
      return a->f != 0.0;
    case Attr::kString:
      return !a->s.empty();
    case Attr::kInts:
    case Attr::kBools:
    case Attr::kLongs:
    case Attr::kBlocks:
      return !a->ints.empty();
    case Attr::kFloats:
    case Attr::kDoubles:
      return !a->floats.empty();
    case Attr::kStrings:
      return !a->strings.empty();
    default:
      return def;
  }
}

std::string a_str(const NbOp& op, const std::string& name, const std::string& def) {
  const Attr* a = op.attr(name);
  if (!a) return def;
  switch (a->kind) {
    case Attr::kString:
      return a->s;
    case Attr::kInt:
    case Attr::kLong:
    case Attr::kBlock:
      return std::to_string(a->i);
    case Attr::kBool:
      return a->i ? "True" : "False";
    default:
      return "<" + name + ">";
  }
}

Dims a_ints(const NbOp& op, const std::string& name, const Dims& def) {
  const Attr* a = op.attr(name);
  if (!a) return def;
  switch (a->kind) {
    case Attr::kInts:
    case Attr::kBools:
    case Attr::kLongs:
    case Attr::kBlocks:
      return a->ints;
    case Attr::kFloats:
    case Attr::kDoubles: {
      Dims out;
      out.reserve(a->floats.size());
      for (double f : a->floats) out.push_back(to_int(f, name));
      return out;
    }
    case Attr::kInt:
    case Attr::kLong:
    case Attr::kBool:
    case Attr::kBlock:
      return {a->i};
    case Attr::kFloat:
    case Attr::kDouble:
      return {to_int(a->f, name)};
    default:
      corrupt("has attribute '" + name + "' of the wrong type (expected integers)");
  }
}

std::vector<double> a_floats(const NbOp& op, const std::string& name) {
  const Attr* a = op.attr(name);
  if (!a) return {};
  switch (a->kind) {
    case Attr::kFloats:
    case Attr::kDoubles:
      return a->floats;
    case Attr::kInts:
    case Attr::kBools:
    case Attr::kLongs:
    case Attr::kBlocks:
      return std::vector<double>(a->ints.begin(), a->ints.end());
    case Attr::kFloat:
    case Attr::kDouble:
      return {a->f};
    case Attr::kInt:
    case Attr::kLong:
    case Attr::kBool:
      return {static_cast<double>(a->i)};
    default:
      corrupt("has attribute '" + name + "' of the wrong type (expected numbers)");
  }
}

// ---- arithmetic -----------------------------------------------------------------

int64_t sadd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) corrupt("has sizes that overflow");
  return r;
}
int64_t smul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) corrupt("has sizes that overflow");
  return r;
}
int64_t prod(const Dims& d) {
  int64_t p = 1;
  for (int64_t v : d) p = smul(p, v);
  return p;
}
bool all_known(const Dims& d, std::size_t from, std::size_t to) {
  to = std::min(to, d.size());
  for (std::size_t i = from; i < to; ++i)
    if (d[i] < 0) return false;
  return true;
}
std::string dims_str(const Dims& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size() && i < 16; ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  if (d.size() > 16) s += ", ... (" + std::to_string(d.size()) + " dims)";
  return s + "]";
}
int64_t norm_axis(int64_t axis, std::size_t rank, const char* what) {
  int64_t r = static_cast<int64_t>(rank);
  int64_t a = axis < 0 ? axis + r : axis;
  if (a < 0 || a >= r)
    corrupt(std::string("has ") + what + " " + std::to_string(axis) + " for a tensor of rank " +
            std::to_string(r));
  return a;
}
Shape bcast(const Shape& a, const Shape& b) {
  if (!a || !b) return std::nullopt;
  std::size_t n = std::max(a->size(), b->size());
  Dims x(n - a->size(), 1), y(n - b->size(), 1);
  x.insert(x.end(), a->begin(), a->end());
  y.insert(y.end(), b->begin(), b->end());
  Dims out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (x[i] == 1)
      out[i] = y[i];
    else if (y[i] == 1)
      out[i] = x[i];
    else if (x[i] == -1)
      out[i] = y[i];
    else
      out[i] = x[i];
  }
  return out;
}

OnnxAttr ai(const std::string& n, int64_t v) {
  OnnxAttr a;
  a.name = n;
  a.type = OnnxAttr::kInt;
  a.i = v;
  return a;
}
OnnxAttr af(const std::string& n, double v) {
  OnnxAttr a;
  a.name = n;
  a.type = OnnxAttr::kFloat;
  a.f = static_cast<float>(v);
  return a;
}
OnnxAttr as(const std::string& n, const std::string& v) {
  OnnxAttr a;
  a.name = n;
  a.type = OnnxAttr::kString;
  a.s = v;
  return a;
}
OnnxAttr ais(const std::string& n, const Dims& v) {
  OnnxAttr a;
  a.name = n;
  a.type = OnnxAttr::kInts;
  a.ints = v;
  return a;
}

// ---- Ctx ------------------------------------------------------------------------

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

// ---- arrays ---------------------------------------------------------------------

Array to_float(Ctx& ctx, const Array& a) {
  if (a.dtype == kFloat) return a;
  Array out = ctx.alloc(kFloat, a.shape);
  std::size_t n = static_cast<std::size_t>(a.numel());
  float* o = reinterpret_cast<float*>(out.mutable_data());
  for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<float>(a.at(i));
  return out;
}

std::string float_const_as(Ctx& ctx, const Array& a, const Dims& shape, const std::string& base) {
  Array f = to_float(ctx, a);
  for (int64_t d : shape)
    if (d < 0) corrupt("reshapes a constant to " + dims_str(shape));
  if (prod(shape) != f.numel())
    corrupt("has a constant of " + std::to_string(f.numel()) + " values where " + dims_str(shape) +
            " is needed");
  f.shape = shape;
  return ctx.materialize(ctx.new_const(std::move(f), base));
}

Array transpose_array(Ctx& ctx, const Array& a, const Dims& perm) {
  std::size_t r = a.shape.size();
  if (perm.size() != r)
    corrupt("transposes a rank-" + std::to_string(r) + " constant with perm " + dims_str(perm));
  std::vector<bool> seen(r, false);
  for (int64_t p : perm) {
    if (p < 0 || static_cast<std::size_t>(p) >= r || seen[p])
      corrupt("has an invalid perm " + dims_str(perm));
    seen[p] = true;
  }
  Dims oshape(r);
  for (std::size_t i = 0; i < r; ++i) oshape[i] = a.shape[perm[i]];
  Array out = ctx.alloc(a.dtype, oshape);
  std::size_t item = a.itemsize(), n = static_cast<std::size_t>(a.numel());
  if (n == 0) return out;
  Dims istride(r, 1);
  for (std::size_t i = r; i-- > 1;) istride[i - 1] = istride[i] * a.shape[i];
  Dims idx(r, 0);
  uint8_t* o = out.mutable_data();
  for (std::size_t k = 0; k < n; ++k) {
    int64_t src = 0;
    for (std::size_t i = 0; i < r; ++i) src += idx[i] * istride[perm[i]];
    std::memcpy(o + k * item, a.ptr + static_cast<std::size_t>(src) * item, item);
    for (std::size_t i = r; i-- > 0;) {
      if (++idx[i] < oshape[i]) break;
      idx[i] = 0;
    }
  }
  return out;
}

// ---- activations ----------------------------------------------------------------

std::string apply_act(Ctx& ctx, const std::string& x, const std::string& act, const NbOp& op,
                      const Shape& s, bool fused) {
  if (act.empty()) return x;
  if (act == "relu") return ctx.node1("Relu", {x}, s);
  if (act == "relu6") {
    double t = a_float(op, fused ? "fuse_brelu_threshold" : "threshold", 6.0);
    return ctx.node1("Clip", {x, ctx.fconst(0.0), ctx.fconst(t)}, s);
  }
  if (act == "leaky_relu")
    return ctx.node1("LeakyRelu", {x}, s, kFloat,
                     {af("alpha", a_float(op, fused ? "leaky_relu_alpha" : "alpha", 0.02))});
  if (act == "sigmoid") return ctx.node1("Sigmoid", {x}, s);
  if (act == "tanh") return ctx.node1("Tanh", {x}, s);
  if (act == "abs") return ctx.node1("Abs", {x}, s);
  if (act == "hard_sigmoid")
    return ctx.node1(
        "HardSigmoid", {x}, s, kFloat,
        {af("alpha", a_float(op, "slope", 0.2)), af("beta", a_float(op, "offset", 0.5))});
  if (act == "hard_swish") {
    double t, sc, o;
    if (fused) {
      t = a_float(op, "hard_swish_threshold", 6.0);
      sc = a_float(op, "hard_swish_scale", 6.0);
      o = a_float(op, "hard_swish_offset", 3.0);
    } else {
      t = a_float(op, "threshold", 6.0);
      sc = a_float(op, "scale", 6.0);
      o = a_float(op, "offset", 3.0);
    }
    // out = x * min(max(x + offset, 0), threshold) / scale
    std::string y = ctx.node1("Add", {x, ctx.fconst(o)}, s);
    y = ctx.node1("Clip", {y, ctx.fconst(0.0), ctx.fconst(t)}, s);
    y = ctx.node1("Mul", {x, y}, s);
    return ctx.node1("Div", {y, ctx.fconst(sc)}, s);
  }
  if (act == "swish") {
    double beta = a_float(op, fused ? "swish_scale" : "beta", 1.0);
    std::string z = beta == 1.0 ? x : ctx.node1("Mul", {x, ctx.fconst(beta)}, s);
    return ctx.node1("Mul", {x, ctx.node1("Sigmoid", {z}, s)}, s);
  }
  if (act == "silu") return ctx.node1("Mul", {x, ctx.node1("Sigmoid", {x}, s)}, s);
  if (act == "exp") return ctx.node1("Exp", {x}, s);
  if (act == "square") return ctx.node1("Mul", {x, x}, s);
  if (act == "sqrt") return ctx.node1("Sqrt", {x}, s);
  if (act == "rsqrt") return ctx.node1("Reciprocal", {ctx.node1("Sqrt", {x}, s)}, s);
  if (act == "log") return ctx.node1("Log", {x}, s);
  if (act == "floor") return ctx.node1("Floor", {x}, s);
  if (act == "erf") return ctx.node1("Erf", {x}, s);
  if (act == "softplus") {
    double beta = a_float(op, "beta", 1.0), thr = a_float(op, "threshold", 20.0);
    if (beta == 1.0 && thr >= 20.0) return ctx.node1("Softplus", {x}, s);
    unsupported("uses softplus with beta=" + std::to_string(beta) +
                ", threshold=" + std::to_string(thr));
  }
  if (act == "mish") {  // x * tanh(softplus(x))
    return ctx.node1("Mul", {x, ctx.node1("Tanh", {ctx.node1("Softplus", {x}, s)}, s)}, s);
  }
  if (act == "gelu") {
    std::string t;
    // Paddle Lite 2.10's x86 gelu kernel ignores `approximate` (measured: its
    // output is the erf form); its arm kernel (act_gelu) honours it.
    if (a_bool(op, "approximate", false) && op.target() != "x86") {
      // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
      std::string x3 = ctx.node1("Mul", {ctx.node1("Mul", {x, x}, s), x}, s);
      std::string cube = ctx.node1("Mul", {x3, ctx.fconst(0.044715)}, s);
      std::string inner = ctx.node1("Add", {x, cube}, s);
      inner = ctx.node1("Mul", {inner, ctx.fconst(std::sqrt(2.0 / M_PI))}, s);
      t = ctx.node1("Add", {ctx.node1("Tanh", {inner}, s), ctx.fconst(1.0)}, s);
    } else {
      std::string scaled = ctx.node1("Mul", {x, ctx.fconst(1.0 / std::sqrt(2.0))}, s);
      std::string e = ctx.node1("Erf", {scaled}, s);
      t = ctx.node1("Add", {e, ctx.fconst(1.0)}, s);
    }
    return ctx.node1("Mul", {ctx.node1("Mul", {x, t}, s), ctx.fconst(0.5)}, s);
  }
  if (act == "elu")
    return ctx.node1("Elu", {x}, s, kFloat, {af("alpha", a_float(op, "alpha", 1.0))});
  if (act == "prelu" && fused) {
    std::string alpha = op.input("Prelu_alpha");
    if (alpha.empty()) unsupported("fuses prelu but has no Prelu_alpha input");
    return prelu(ctx, x, alpha, a_str(op, "prelu_mode", "channel"), s);
  }
  unsupported("uses activation '" + act + "', which edgeocr does not translate");
}

std::string prelu(Ctx& ctx, const std::string& x, const std::string& alpha_var,
                  const std::string& mode, const Shape& s) {
  const Array* a = ctx.cval(alpha_var);
  if (!a) unsupported("has a non-constant prelu alpha");
  int64_t r = s ? static_cast<int64_t>(s->size()) : 4;
  Dims shape;
  if (mode == "all") {
    if (a->numel() != 1)
      corrupt("has a prelu alpha of " + std::to_string(a->numel()) + " values for mode 'all'");
  } else if (mode == "channel") {
    shape.push_back(a->numel());
    for (int64_t i = 0; i < r - 2; ++i) shape.push_back(1);
  } else if (mode == "element") {
    int64_t nd = static_cast<int64_t>(a->shape.size());
    if (nd >= r - 1 && r >= 2)
      shape.assign(a->shape.end() - (r - 1), a->shape.end());
    else
      shape = a->shape;
  } else {
    shape = a->shape;
  }
  return ctx.node1("PRelu", {x, float_const_as(ctx, *a, shape, "prelu_alpha")}, s);
}

ConvPads conv_pads(const NbOp& op, const Dims& in_hw, const Dims& ksize, const Dims& strides,
                   const Dims& dil) {
  std::string algo = a_str(op, "padding_algorithm", "EXPLICIT");
  if (algo.empty()) algo = "EXPLICIT";
  std::transform(algo.begin(), algo.end(), algo.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  Dims p = a_ints(op, "paddings", {0, 0});
  std::size_t nd = ksize.size();
  if (strides.size() < nd || dil.size() < nd || in_hw.size() < nd)
    corrupt("has " + std::to_string(strides.size()) + " strides and " + std::to_string(dil.size()) +
            " dilations for a " + std::to_string(nd) + "-D kernel");
  for (std::size_t i = 0; i < nd; ++i)
    if (strides[i] <= 0 || dil[i] <= 0)
      corrupt("has strides " + dims_str(strides) + " dilations " + dims_str(dil));
  ConvPads r;
  if (algo == "VALID") {
    r.pads.assign(2 * nd, 0);
    r.dilations = dil;
    return r;
  }
  if (algo == "SAME") {
    r.dilations.assign(nd, 1);
    if (!all_known(in_hw, 0, nd)) {
      r.explicit_pads = false;
      r.auto_pad = "SAME_UPPER";
      return r;
    }
    Dims b, e;
    for (std::size_t i = 0; i < nd; ++i) {
      int64_t out = (in_hw[i] + strides[i] - 1) / strides[i];
      int64_t total = std::max<int64_t>(sadd(smul(out - 1, strides[i]), ksize[i]) - in_hw[i], 0);
      b.push_back(total / 2);
      e.push_back(total - total / 2);
    }
    b.insert(b.end(), e.begin(), e.end());
    r.pads = b;
    return r;
  }
  r.dilations = dil;
  if (p.size() == nd) {
    r.pads = p;
    r.pads.insert(r.pads.end(), p.begin(), p.end());
  } else if (p.size() == 2 * nd) {
    for (std::size_t i = 0; i < nd; ++i) r.pads.push_back(p[2 * i]);
    for (std::size_t i = 0; i < nd; ++i) r.pads.push_back(p[2 * i + 1]);
  } else {
    unsupported("has paddings " + dims_str(p) + ", expected " + std::to_string(nd) + " or " +
                std::to_string(2 * nd) + " values");
  }
  return r;
}

std::string dequant(Ctx& ctx, const NbOp& op, const std::string& slot, std::size_t axis) {
  std::string var = op.input(slot);
  if (var.empty()) return std::string();
  std::string scale_key = var + "_quant_scale";
  std::string qtype = a_str(op, "quantization_type", "");
  bool quantized = op.attrs.count(scale_key) &&
                   (qtype == "post_weight_abs_max" || qtype == "post_weight_channel_wise_abs_max" ||
                    (qtype.empty() && op.attrs.count("quantize_weight_bits")));
  if (!quantized) {
    const Array* w = ctx.cval(var);
    if (w && w->dtype != kFloat)
      unsupported("has weight '" + var + "' of type " + onnx_type_name(w->dtype) +
                  " without a quantisation scale");
    return ctx.get(var);
  }
  auto dq = ctx.dequantized.find(var);
  if (dq != ctx.dequantized.end())
    return ctx.materialize(ctx.new_const(dq->second, var + "_dequant"));
  auto pit = ctx.prog.params.find(var);
  if (pit == ctx.prog.params.end())
    unsupported("has a quantisation scale for '" + var + "', which is not a parameter");
  const Array& raw = pit->second.array;
  int64_t bits = a_int(op, "quantize_weight_bits", 8);
  int expect = bits == 8 ? kInt8 : bits == 16 ? kInt16 : kUndefined;
  if (expect == kUndefined || raw.dtype != expect)
    unsupported("has quantize_weight_bits=" + std::to_string(bits) + " but weight '" + var +
                "' is stored as " + onnx_type_name(raw.dtype));
  std::vector<double> scales = a_floats(op, scale_key);
  for (double v : scales)
    if (!std::isfinite(static_cast<float>(v)))
      unsupported("has non-finite quantisation scales for weight '" + var +
                  "'; the file is corrupted");
  int64_t ch = raw.shape.size() > axis ? raw.shape[axis] : -1;
  if (static_cast<int64_t>(scales.size()) != ch)
    unsupported("has " + std::to_string(scales.size()) + " quantisation scales for weight '" + var +
                "' with " + std::to_string(ch) + " output channels");
  Array w = ctx.alloc(kFloat, raw.shape);
  int64_t inner = 1;
  for (std::size_t i = axis + 1; i < raw.shape.size(); ++i) inner *= raw.shape[i];
  std::size_t n = static_cast<std::size_t>(raw.numel());
  float* o = reinterpret_cast<float*>(w.mutable_data());
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t c = static_cast<std::size_t>((static_cast<int64_t>(i) / inner) % ch);
    o[i] = static_cast<float>(raw.at(i)) * static_cast<float>(scales[c]);
  }
  ctx.dequantized[var] = w;
  return ctx.materialize(ctx.new_const(std::move(w), var + "_dequant"));
}

IntsArg shape_input(Ctx& ctx, const NbOp& op, const std::string& tensor_slot,
                    const std::string& list_slot) {
  IntsArg r;
  const auto& lst = op.inputs_of(list_slot);
  if (!lst.empty()) {
    if (lst.size() > kMaxRank)
      corrupt("has " + std::to_string(lst.size()) + " entries in " + list_slot);
    std::vector<const Array*> cs;
    bool all = true;
    for (const auto& v : lst) {
      cs.push_back(ctx.cval(v));
      all = all && cs.back();
    }
    if (all) {
      r.kind = IntsArg::kList;
      for (const Array* c : cs) {
        if (c->numel() < 1) corrupt("has an empty " + list_slot + " entry");
        r.v.push_back(c->iat(0));
      }
      return r;
    }
    std::vector<std::string> parts;
    for (const auto& v : lst) {
      std::string g = ctx.get(v);
      std::string rs = ctx.node1("Reshape", {g, ctx.iconst({1})}, Dims{1}, ctx.dtype(g));
      parts.push_back(ctx.node1("Cast", {rs}, Dims{1}, kInt64, {ai("to", kInt64)}));
    }
    r.kind = IntsArg::kName;
    r.name = ctx.node1("Concat", parts, Dims{static_cast<int64_t>(parts.size())}, kInt64,
                       {ai("axis", 0)});
    return r;
  }
  std::string t = tensor_slot.empty() ? std::string() : op.input(tensor_slot);
  if (!t.empty()) {
    const Array* c = ctx.cval(t);
    if (c) {
      if (static_cast<std::size_t>(c->numel()) > kMaxRank)
        corrupt("has " + std::to_string(c->numel()) + " values in " + tensor_slot);
      r.kind = IntsArg::kList;
      for (int64_t i = 0; i < c->numel(); ++i) r.v.push_back(c->iat(static_cast<std::size_t>(i)));
      return r;
    }
    r.kind = IntsArg::kName;
    r.name = ctx.node1("Cast", {ctx.get(t)}, std::nullopt, kInt64, {ai("to", kInt64)});
  }
  return r;
}

}  // namespace nb
}  // namespace edgeocr
