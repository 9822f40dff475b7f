// Activations, plain or fused into another op, and prelu.
#include <cmath>

#include "loader/nb/translate.h"

namespace edgeocr {
namespace nb {

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

}  // namespace nb
}  // namespace edgeocr
