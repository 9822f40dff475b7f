// Elementwise binary ops (Paddle's axis broadcasting), their fused-activation
// forms, scale, clip, sum and dropout.
#include <cmath>

#include "loader/nb/registry.h"

namespace edgeocr {
namespace nb {
namespace {

// Paddle elementwise broadcasting: Y's dims line up with X's starting at
// `axis` (-1: right-aligned, as numpy). Returns inputs for numpy-style ops.
std::pair<std::string, std::string> align_y(Ctx& ctx, const std::string& x, const std::string& y,
                                            int64_t axis) {
  Shape xs = ctx.shape(x), ys = ctx.shape(y);
  if (axis == -1 || !xs || !ys || xs->size() == ys->size()) return {x, y};
  bool swap = xs->size() < ys->size();
  const std::string& big = swap ? y : x;
  const std::string& small = swap ? x : y;
  const Dims& bs = swap ? *ys : *xs;
  const Dims& ss = swap ? *xs : *ys;
  int64_t br = static_cast<int64_t>(bs.size());
  if (axis < 0) axis += br;
  if (axis < 0 || axis > br)
    corrupt("has axis " + std::to_string(axis) + " for a rank-" + std::to_string(br) + " operand");
  // Paddle trims trailing 1-dims of the smaller operand before aligning
  Dims sd = ss;
  while (!sd.empty() && axis + static_cast<int64_t>(sd.size()) > br && sd.back() == 1)
    sd.pop_back();
  int64_t tail = br - axis - static_cast<int64_t>(sd.size());
  if (tail < 0)
    unsupported("broadcasts shape " + dims_str(ss) + " into " + dims_str(bs) + " at axis " +
                std::to_string(axis));
  if (tail == 0 && sd.size() == ss.size()) return {x, y};
  Dims ns = sd;
  for (int64_t i = 0; i < tail; ++i) ns.push_back(1);
  std::string small2;
  if (const Array* c = ctx.cname(small)) {
    Array a = *c;
    if (prod(ns) != a.numel())
      corrupt("reshapes a constant of " + std::to_string(a.numel()) + " values to " + dims_str(ns));
    a.shape = ns;
    small2 = ctx.materialize(ctx.new_const(std::move(a), small + "_b"));
  } else {
    Dims tgt;
    for (int64_t d : ns) tgt.push_back(d >= 0 ? d : 0);
    small2 = ctx.node1("Reshape", {small, ctx.iconst(tgt)}, ns, ctx.dtype(small));
  }
  return swap ? std::make_pair(small2, big) : std::make_pair(big, small2);
}

const char* onnx_binary(const std::string& base) {
  if (base == "elementwise_add") return "Add";
  if (base == "elementwise_sub") return "Sub";
  if (base == "elementwise_mul") return "Mul";
  if (base == "elementwise_div") return "Div";
  if (base == "elementwise_max") return "Max";
  if (base == "elementwise_min") return "Min";
  if (base == "elementwise_pow") return "Pow";
  if (base == "elementwise_mod") return "Mod";
  return nullptr;
}

void eltwise(Ctx& ctx, const NbOp& op) {
  std::string base = op.type;
  bool fused = base.rfind("fusion_", 0) == 0;
  if (fused) base = base.substr(7, base.size() - 7 - 11);  // fusion_X_activation -> X
  const char* onnx_op = onnx_binary(base);
  if (!onnx_op) unsupported("is an elementwise op edgeocr does not translate");
  std::string x = ctx.get(op.input("X")), y = ctx.get(op.input("Y"));
  auto ab = align_y(ctx, x, y, a_int(op, "axis", -1));
  Shape shape = bcast(ctx.shape(ab.first), ctx.shape(ab.second));
  int dt = ctx.dtype(x);
  std::vector<OnnxAttr> attrs;
  if (std::string(onnx_op) == "Mod") {
    bool integer = dt == kInt8 || dt == kUint8 || dt == kInt16 || dt == kInt32 || dt == kInt64;
    attrs.push_back(ai("fmod", integer ? 0 : 1));
  }
  std::string out = ctx.node1(onnx_op, {ab.first, ab.second}, shape, dt, attrs);
  std::string act = a_str(op, "act_type", "");
  if (fused && !act.empty()) out = apply_act(ctx, out, act, op, shape, false);
  ctx.out(op, "Out", out);
}

void scale(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  Shape s = ctx.shape(x);
  double sc = a_float(op, "scale", 1.0), bias = a_float(op, "bias", 0.0);
  bool after = a_bool(op, "bias_after_scale", true);
  std::string st = op.input("ScaleTensor");
  int dt = ctx.dtype(x);
  if (!st.empty()) {
    if (const Array* c = ctx.cval(st)) {
      if (c->numel() < 1) corrupt("has an empty ScaleTensor");
      sc = c->at(0);
      st.clear();
    }
  }
  std::string y = x;
  if (!after && bias != 0.0) y = ctx.node1("Add", {y, ctx.typed_scalar(bias, dt)}, s, dt);
  if (!st.empty()) {
    std::string sn = ctx.get(st);
    y = ctx.node1("Mul", {y, ctx.node1("Reshape", {sn, ctx.iconst_empty()}, Dims{}, dt)}, s, dt);
  } else if (sc != 1.0) {
    y = ctx.node1("Mul", {y, ctx.typed_scalar(sc, dt)}, s, dt);
  }
  if (after && bias != 0.0) y = ctx.node1("Add", {y, ctx.typed_scalar(bias, dt)}, s, dt);
  if (y == x) y = ctx.node1("Identity", {x}, s, dt);
  std::string act = a_str(op, "activation_type", "");
  if (act.empty() && a_bool(op, "fuse_relu", false)) act = "relu";
  if (!act.empty()) y = apply_act(ctx, y, act, op, s, false);
  ctx.out(op, "Out", y);
}

void clip(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  Shape s = ctx.shape(x);
  std::vector<std::string> ins = {x};
  for (auto sa : {std::make_pair("Min", "min"), std::make_pair("Max", "max")}) {
    std::string v = op.input(sa.first);
    if (!v.empty()) {
      if (const Array* c = ctx.cval(v)) {
        if (c->numel() < 1) corrupt(std::string("has an empty ") + sa.first);
        ins.push_back(ctx.fconst(c->at(0)));
      } else {
        ins.push_back(ctx.node1("Reshape", {ctx.get(v), ctx.iconst_empty()}, Dims{}));
      }
    } else {
      ins.push_back(ctx.fconst(a_float(op, sa.second, 0.0)));
    }
  }
  ctx.out(op, "Out", ctx.node1("Clip", ins, s));
}

void sum(Ctx& ctx, const NbOp& op) {
  std::vector<std::string> xs;
  for (const auto& v : op.inputs_of("X")) xs.push_back(ctx.get(v));
  if (xs.empty()) unsupported("has no inputs");
  Shape shape = ctx.shape(xs[0]);
  for (std::size_t i = 1; i < xs.size(); ++i) shape = bcast(shape, ctx.shape(xs[i]));
  ctx.out(op, "Out", ctx.node1("Sum", xs, shape));
}

void dropout(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  std::string impl = a_str(op, "dropout_implementation", "downgrade_in_infer");
  double p = a_float(op, "dropout_prob", 0.5);
  std::string y = (impl == "upscale_in_train" || p == 0.0)
                      ? ctx.node1("Identity", {x}, ctx.shape(x))
                      : ctx.node1("Mul", {x, ctx.fconst(1.0 - p)}, ctx.shape(x));
  ctx.out(op, "Out", y);
}

}  // namespace

void register_elementwise_ops(Registry& r) {
  for (const char* t : {"add", "sub", "mul", "div", "max", "min", "pow", "mod"})
    r[std::string("elementwise_") + t] = eltwise;
  for (const char* t : {"add", "sub", "mul", "div", "max", "min"})
    r[std::string("fusion_elementwise_") + t + "_activation"] = eltwise;
  r["scale"] = scale;
  r["clip"] = clip;
  r["sum"] = sum;
  r["dropout"] = dropout;
}

}  // namespace nb
}  // namespace edgeocr
