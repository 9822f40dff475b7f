// Stand-alone activations (the fused forms go through apply_act too).
#include "loader/nb/registry.h"

namespace edgeocr {
namespace nb {
namespace {

void unary(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  ctx.out(op, "Out", apply_act(ctx, x, op.type, op, ctx.shape(x), false));
}

void prelu_op(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  ctx.out(op, "Out", prelu(ctx, x, op.input("Alpha"), a_str(op, "mode", "channel"), ctx.shape(x)));
}

}  // namespace

void register_activation_ops(Registry& r) {
  for (const char* t :
       {"relu",  "relu6", "sigmoid", "tanh",     "leaky_relu", "hard_sigmoid", "hard_swish",
        "swish", "silu",  "exp",     "abs",      "sqrt",       "rsqrt",        "square",
        "log",   "gelu",  "elu",     "softplus", "mish",       "floor",        "erf"})
    r[t] = unary;
  r["prelu"] = prelu_op;
}

}  // namespace nb
}  // namespace edgeocr
