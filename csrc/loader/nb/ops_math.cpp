// matmul, mul / fc, softmax, layer_norm, arg_max, reductions, pow.
#include <algorithm>
#include <cstring>

#include "loader/nb/registry.h"

namespace edgeocr {
namespace nb {
namespace {

std::string swap_last2(Ctx& ctx, const std::string& name) {
  Shape s = ctx.shape(name);
  if (!s) unsupported("transposes a matmul operand of unknown rank");
  if (s->size() < 2) return name;
  Dims perm(s->size());
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  if (const Array* c = ctx.cname(name))
    return ctx.materialize(ctx.new_const(transpose_array(ctx, *c, perm), name + "_t"));
  Dims d;
  for (int64_t p : perm) d.push_back((*s)[p]);
  return ctx.node1("Transpose", {name}, d, kFloat, {ais("perm", perm)});
}

std::string matmul_core(Ctx& ctx, std::string x, std::string y, bool tx, bool ty, double alpha) {
  if (tx) x = swap_last2(ctx, x);
  if (ty) y = swap_last2(ctx, y);
  Shape xs = ctx.shape(x), ys = ctx.shape(y), shape;
  if (xs && ys && xs->size() >= 2 && ys->size() >= 2) {
    Shape b = bcast(Dims(xs->begin(), xs->end() - 2), Dims(ys->begin(), ys->end() - 2));
    Dims d = *b;
    d.push_back((*xs)[xs->size() - 2]);
    d.push_back(ys->back());
    shape = d;
  }
  std::string out = ctx.node1("MatMul", {x, y}, shape);
  if (alpha != 1.0) out = ctx.node1("Mul", {out, ctx.fconst(alpha)}, shape);
  return out;
}

void matmul(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X")), y = ctx.get(op.input("Y"));
  ctx.out(op, "Out",
          matmul_core(ctx, x, y, a_bool(op, "transpose_X", false), a_bool(op, "transpose_Y", false),
                      a_float(op, "alpha", 1.0)));
}

void matmul_v2(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X")), y = ctx.get(op.input("Y"));
  ctx.out(op, "Out",
          matmul_core(ctx, x, y, a_bool(op, "trans_x", false), a_bool(op, "trans_y", false), 1.0));
}

std::string fc_like(Ctx& ctx, const NbOp& op, const std::string& xslot, const std::string& wslot,
                    int64_t xcols, int64_t ycols, const std::string& bias_slot) {
  std::string x = ctx.get(op.input(xslot));
  std::string w = dequant(ctx, op, wslot, 1);
  const Array* wc = ctx.cname(w);
  Shape xs = ctx.shape(x);
  if (!xs) unsupported("multiplies a tensor of unknown rank");
  // attributes from the file: bounded by the ranks before anything is sized from them
  if (xcols < 1 || xcols > static_cast<int64_t>(xs->size()))
    unsupported("has x_num_col_dims=" + std::to_string(xcols) + " for an input of rank " +
                std::to_string(xs->size()));
  int64_t k;
  Dims n_shape;
  std::string w2;
  if (wc) {
    int64_t nd = static_cast<int64_t>(wc->shape.size());
    if (ycols < 1 || ycols >= std::max<int64_t>(2, nd))
      unsupported("has y_num_col_dims=" + std::to_string(ycols) + " for a weight of rank " +
                  std::to_string(nd));
    Array a = *wc;
    if (a_bool(op, "padding_weights", false)) {
      if (nd != 2 || a.shape[0] < 4 || a.shape[1] < 4)
        unsupported("pads a weight that is not a matrix");
      Array p = ctx.alloc(a.dtype, {a.shape[0] - 4, a.shape[1] - 4});
      std::size_t item = a.itemsize(), rows = static_cast<std::size_t>(p.shape[0]),
                  cols = static_cast<std::size_t>(p.shape[1]);
      for (std::size_t r = 0; r < rows; ++r)
        std::memcpy(p.mutable_data() + r * cols * item,
                    a.ptr + r * static_cast<std::size_t>(a.shape[1]) * item, cols * item);
      a = p;
    }
    k = prod(Dims(a.shape.begin(), a.shape.begin() + ycols));
    n_shape.assign(a.shape.begin() + ycols, a.shape.end());
    if (k == 0) corrupt("has an empty weight");
    a.shape = {k, a.numel() / k};
    w2 = ctx.materialize(ctx.new_const(std::move(a), w + "_2d"));
  } else {
    Shape ws = ctx.shape(w);
    if (!ws || ws->size() != 2 || ycols != 1)
      unsupported("multiplies by a computed weight of unsupported shape");
    k = (*ws)[0];
    n_shape.assign(ws->begin() + 1, ws->end());
    w2 = w;
  }
  Dims lead(xs->begin(), xs->begin() + xcols);
  std::string x2 = x;
  if (!(static_cast<int64_t>(xs->size()) == xcols + 1 && (xs->back() == k || xs->back() == -1))) {
    Dims tgt(static_cast<std::size_t>(xcols), 0);
    tgt.push_back(k);
    Dims s = lead;
    s.push_back(k);
    x2 = ctx.node1("Reshape", {x, ctx.iconst(tgt)}, s);
  }
  int64_t n = n_shape.empty() ? 1 : prod(n_shape);
  Dims ys = lead;
  ys.push_back(n);
  std::string y = ctx.node1("MatMul", {x2, w2}, ys);
  if (!bias_slot.empty() && !op.input(bias_slot).empty()) {
    std::string bv = op.input(bias_slot);
    const Array* bc = ctx.cval(bv);
    std::string b = bc ? float_const_as(ctx, *bc, {bc->numel()}, "bias") : ctx.get(bv);
    y = ctx.node1("Add", {y, b}, ys);
  }
  if (n_shape.size() > 1) {
    Dims tgt(static_cast<std::size_t>(xcols), 0);
    tgt.insert(tgt.end(), n_shape.begin(), n_shape.end());
    Dims s = lead;
    s.insert(s.end(), n_shape.begin(), n_shape.end());
    y = ctx.node1("Reshape", {y, ctx.iconst(tgt)}, s);
  }
  return y;
}

void mul(Ctx& ctx, const NbOp& op) {
  ctx.out(op, "Out",
          fc_like(ctx, op, "X", "Y", a_int(op, "x_num_col_dims", 1), a_int(op, "y_num_col_dims", 1),
                  ""));
}

void fc(Ctx& ctx, const NbOp& op) {
  std::string y = fc_like(ctx, op, "Input", "W", a_int(op, "in_num_col_dims", 1), 1, "Bias");
  std::string act = a_str(op, "activation_type", "");
  if (!act.empty()) y = apply_act(ctx, y, act, op, ctx.shape(y), false);
  ctx.out(op, "Out", y);
}

void softmax(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  ctx.out(op, "Out",
          ctx.node1("Softmax", {x}, ctx.shape(x), kFloat, {ai("axis", a_int(op, "axis", -1))}));
}

void layer_norm(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  Shape s = ctx.shape(x);
  if (!s) unsupported("normalises a tensor of unknown rank");
  int64_t axis = norm_axis(a_int(op, "begin_norm_axis", 1), s->size(), "begin_norm_axis");
  Dims norm(s->begin() + axis, s->end());
  if (!all_known(norm))
    unsupported("normalises over dims " + dims_str(norm) + " that are not known statically");
  double eps = a_float(op, "epsilon", 1e-5);
  std::vector<std::string> ins = {x};
  for (auto sf : {std::make_pair("Scale", 1.0), std::make_pair("Bias", 0.0)}) {
    std::string v = op.input(sf.first);
    std::string base = sf.first[0] == 'S' ? "scale" : "bias";
    if (v.empty()) {
      Array a = ctx.alloc(kFloat, norm);  // bounded by the constant budget before allocating
      float f = static_cast<float>(sf.second);
      float* p = reinterpret_cast<float*>(a.mutable_data());
      std::fill(p, p + a.numel(), f);
      ins.push_back(ctx.materialize(ctx.new_const(std::move(a), base)));
    } else {
      const Array* c = ctx.cval(v);
      if (!c) unsupported(std::string("has a computed ") + sf.first);
      ins.push_back(float_const_as(ctx, *c, norm, base));
    }
  }
  ctx.out(op, "Y",
          ctx.node1("LayerNormalization", ins, s, kFloat, {ai("axis", axis), af("epsilon", eps)}));
}

void arg_max(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  Shape s = ctx.shape(x);
  int64_t axis = a_int(op, "axis", -1);
  bool keep = a_bool(op, "keepdims", false);
  if (a_bool(op, "flatten", false)) {
    x = ctx.node1("Reshape", {x, ctx.iconst({-1})}, Dims{-1});
    s = Dims{-1};
    axis = 0;
  }
  if (!s) unsupported("reduces a tensor of unknown rank");
  axis = norm_axis(axis, s->size(), "axis");
  Dims shape;
  for (std::size_t i = 0; i < s->size(); ++i) {
    if (static_cast<int64_t>(i) == axis) {
      if (keep) shape.push_back(1);
    } else {
      shape.push_back((*s)[i]);
    }
  }
  std::string y = ctx.node1(op.type == "arg_max" ? "ArgMax" : "ArgMin", {x}, shape, kInt64,
                            {ai("axis", axis), ai("keepdims", keep ? 1 : 0)});
  if (a_int(op, "dtype", 3) == 2) y = ctx.node1("Cast", {y}, shape, kInt32, {ai("to", kInt32)});
  ctx.out(op, "Out", y);
}

// reduce_mean / sum / max / min / prod: attributes dim, keep_dim, reduce_all.
void reduce(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  Shape s = ctx.shape(x);
  if (!s) unsupported("reduces a tensor of unknown rank");
  std::size_t r = s->size();
  Dims dims = a_ints(op, "dim", {});
  bool keep = a_bool(op, "keep_dim", false);
  bool all = a_bool(op, "reduce_all", false) || dims.empty();
  std::vector<bool> red(r, all);
  if (!all)
    for (int64_t d : dims) red[norm_axis(d, r, "dim")] = true;
  Dims axes, shape;
  for (std::size_t i = 0; i < r; ++i) {
    if (red[i]) {
      axes.push_back(static_cast<int64_t>(i));
      if (keep) shape.push_back(1);
    } else {
      shape.push_back((*s)[i]);
    }
  }
  std::string kind = op.type.substr(7);  // reduce_X
  std::string onnx = kind == "mean"  ? "ReduceMean"
                     : kind == "sum" ? "ReduceSum"
                     : kind == "max" ? "ReduceMax"
                     : kind == "min" ? "ReduceMin"
                                     : "ReduceProd";
  int dt = ctx.dtype(x);
  std::string y;
  if (axes.empty()) {
    y = ctx.node1("Identity", {x}, s, dt);
  } else if (onnx == "ReduceSum") {  // opset 13+: axes is an input
    y = ctx.node1(onnx, {x, ctx.iconst(axes)}, shape, dt, {ai("keepdims", keep ? 1 : 0)});
  } else {
    y = ctx.node1(onnx, {x}, shape, dt, {ais("axes", axes), ai("keepdims", keep ? 1 : 0)});
  }
  if (shape.empty())  // Paddle Lite keeps a 1-element 1-D tensor
    y = ctx.node1("Reshape", {y, ctx.iconst({1})}, Dims{1}, dt);
  ctx.out(op, "Out", y);
}

void pow_op(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  std::string f = op.input("FactorTensor");
  std::string e;
  if (!f.empty()) {
    const Array* c = ctx.cval(f);
    if (!c || c->numel() < 1) unsupported("takes its factor from a computed tensor");
    e = ctx.fconst(c->at(0));
  } else {
    e = ctx.fconst(a_float(op, "factor", 1.0));
  }
  ctx.out(op, "Out", ctx.node1("Pow", {x, e}, ctx.shape(x)));
}

}  // namespace

void register_math_ops(Registry& r) {
  r["matmul"] = matmul;
  r["matmul_v2"] = matmul_v2;
  r["mul"] = mul;
  r["fc"] = fc;
  r["softmax"] = softmax;
  r["layer_norm"] = layer_norm;
  r["arg_max"] = arg_max;
  r["arg_min"] = arg_max;
  for (const char* t : {"reduce_mean", "reduce_sum", "reduce_max", "reduce_min", "reduce_prod"})
    r[t] = reduce;
  r["pow"] = pow_op;
}

}  // namespace nb
}  // namespace edgeocr
