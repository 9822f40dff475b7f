// feed / fetch, and ops that make or copy values: fill_constant, assign, shape, cast.
#include <cstring>

#include "loader/nb/registry.h"

namespace edgeocr {
namespace nb {
namespace {

void feed(Ctx& ctx, const NbOp& op) {
  std::string var = op.output("Out");
  if (var.empty()) unsupported("has no 'Out' output");
  auto it = ctx.prog.vars.find(var);
  Shape shape;
  int dt = kFloat;
  if (it != ctx.prog.vars.end()) {
    if (!it->second.shape.empty()) {
      if (it->second.shape.size() > kMaxRank)
        corrupt("declares an input of rank " + std::to_string(it->second.shape.size()));
      shape = it->second.shape;
      for (int64_t& d : *shape)
        if (d < -1) d = -1;
    }
    if (it->second.has_dtype) {
      int t = paddle_to_onnx_type(it->second.dtype);
      if (t != kUndefined) dt = t;
    }
  }
  std::string name = ctx.fresh(var);
  ctx.shapes[name] = shape;
  ctx.dtypes[name] = dt;
  ctx.inputs.push_back({a_int(op, "col", 0), name, shape, dt});
  ctx.bind(var, name);
}

void fetch(Ctx& ctx, const NbOp& op) {
  if (ctx.outputs.size() > 4096) corrupt("is one fetch too many");
  ctx.outputs.emplace_back(a_int(op, "col", 0), ctx.get(op.input("X")));
}

void fill_constant(Ctx& ctx, const NbOp& op) {
  for (const char* slot : {"ShapeTensor", "ShapeTensorList", "ValueTensor"})
    for (const auto& v : op.inputs_of(slot))
      if (!ctx.cval(v)) unsupported(std::string("takes its ") + slot + " from a computed tensor");
  int dt = paddle_to_onnx_type(a_int(op, "dtype", 5));
  if (dt == kUndefined)
    unsupported("has unsupported dtype " + std::to_string(a_int(op, "dtype", 5)));
  double value = 0.0;
  bool have = false;
  const Attr* sv = op.attr("str_value");
  if (sv && sv->kind == Attr::kString && !sv->s.empty()) {
    char* end = nullptr;
    double v = std::strtod(sv->s.c_str(), &end);
    if (end && !*end) {
      value = v;
      have = true;
    }
  }
  if (!have) value = a_float(op, "value", 0.0);
  Dims shape = a_ints(op, "shape", {});
  IntsArg st = shape_input(ctx, op, "ShapeTensor", "ShapeTensorList");
  if (st.kind == IntsArg::kList) shape = st.v;
  if (!op.inputs_of("ValueTensor").empty()) {
    const Array* c = ctx.cval(op.inputs_of("ValueTensor")[0]);
    if (!c || c->numel() < 1) corrupt("has an empty ValueTensor");
    value = c->at(0);
  }
  if (shape.size() > kMaxRank) unsupported("has shape " + dims_str(shape));
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && n > (int64_t{1} << 22) / d)) unsupported("has shape " + dims_str(shape));
    n *= d;
  }
  if (n > (int64_t{1} << 22)) unsupported("has shape " + dims_str(shape));
  Array a = ctx.alloc(dt, shape);
  for (int64_t i = 0; i < n; ++i) a.set(static_cast<std::size_t>(i), value);
  ctx.set_const_out(op.output("Out"), std::move(a));
}

void assign(Ctx& ctx, const NbOp& op) {
  std::string xv = op.input("X");
  if (const Array* c = ctx.cval(xv)) {
    ctx.set_const_out(op.output("Out"), *c);
    return;
  }
  std::string x = ctx.get(xv);
  ctx.out(op, "Out", ctx.node1("Identity", {x}, ctx.shape(x), ctx.dtype(x)));
}

void shape_op(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("Input"));
  Shape s = ctx.shape(x);
  if (s && all_known(*s)) {
    Array a = ctx.alloc(kInt32, {static_cast<int64_t>(s->size())});
    for (std::size_t i = 0; i < s->size(); ++i) a.set(i, static_cast<double>((*s)[i]));
    ctx.set_const_out(op.output("Out"), std::move(a));
    return;
  }
  Shape ys = s ? Shape(Dims{static_cast<int64_t>(s->size())}) : std::nullopt;
  std::string y = ctx.node1("Shape", {x}, ys, kInt64);
  ctx.out(op, "Out", ctx.node1("Cast", {y}, ys, kInt32, {ai("to", kInt32)}));
}

void cast(Ctx& ctx, const NbOp& op) {
  std::string xv = op.input("X");
  int64_t od = a_int(op, "out_dtype", 5);
  int to = od == 1 ? kUndefined : paddle_to_onnx_type(od);  // int16 casts are not translated
  if (to == kUndefined) unsupported("casts to dtype " + std::to_string(od));
  if (const Array* c = ctx.cval(xv)) {
    Array a = ctx.alloc(to, c->shape);
    std::size_t n = static_cast<std::size_t>(c->numel());
    bool ints = c->dtype == kInt64 || c->dtype == kInt32 || c->dtype == kInt16 ||
                c->dtype == kInt8 || c->dtype == kUint8 || c->dtype == kBool;
    for (std::size_t i = 0; i < n; ++i) {
      if (to == kInt64 && ints) {
        int64_t v = c->iat(i);
        std::memcpy(a.mutable_data() + 8 * i, &v, 8);
      } else {
        a.set(i, c->at(i));
      }
    }
    ctx.set_const_out(op.output("Out"), std::move(a));
    return;
  }
  std::string x = ctx.get(xv);
  ctx.out(op, "Out", ctx.node1("Cast", {x}, ctx.shape(x), to, {ai("to", to)}));
}

}  // namespace

void register_io_ops(Registry& r) {
  r["feed"] = feed;
  r["fetch"] = fetch;
  r["fill_constant"] = fill_constant;
  r["assign"] = assign;
  r["shape"] = shape_op;
  r["cast"] = cast;
}

}  // namespace nb
}  // namespace edgeocr
