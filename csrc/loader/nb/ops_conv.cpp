// Convolutions, transposed convolutions, pooling and batch norm (NCHW).
#include <algorithm>

#include "loader/nb/registry.h"

namespace edgeocr {
namespace nb {
namespace {

int64_t conv_out(int64_t d, int64_t k, int64_t s, int64_t pb, int64_t pe, int64_t dil) {
  if (d < 0) return -1;
  return (sadd(sadd(d, pb), pe) - sadd(smul(dil, k - 1), 1)) / s + 1;
}

bool nchw(const std::string& f) {
  std::string u = f;
  std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return std::toupper(c); });
  return u == "NCHW" || u == "ANYLAYOUT";
}

std::string bias_input(Ctx& ctx, const NbOp& op) {
  std::string b = op.input("Bias");
  if (b.empty()) return b;
  if (const Array* bc = ctx.cval(b)) return float_const_as(ctx, *bc, {bc->numel()}, "bias");
  return ctx.get(b);
}

std::string fused_act(Ctx& ctx, const NbOp& op, const std::string& y, const Shape& s) {
  if (a_bool(op, "with_act", false) || a_bool(op, "fuse_relu", false)) {
    std::string act = a_str(op, "act_type", a_bool(op, "fuse_relu", false) ? "relu" : "");
    return apply_act(ctx, y, act, op, s, true);
  }
  return y;
}

void conv2d(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("Input"));
  if (!nchw(a_str(op, "data_format", "NCHW")))
    unsupported("uses data_format " + a_str(op, "data_format", ""));
  std::string w = dequant(ctx, op, "Filter", 0);
  Shape ws = ctx.shape(w);
  if (!ws || ws->size() < 3 || ws->size() > 5)
    unsupported("has a filter of unknown or unsupported rank");
  Dims k(ws->begin() + 2, ws->end());
  std::size_t nd = k.size();
  Dims strides = a_ints(op, "strides", {1, 1}), dil = a_ints(op, "dilations", {1, 1});
  Shape xs = ctx.shape(x);
  Dims in_hw = xs && xs->size() == nd + 2 ? Dims(xs->begin() + 2, xs->end()) : Dims(nd, -1);
  ConvPads p = conv_pads(op, in_hw, k, strides, dil);
  int64_t groups = a_int(op, "groups", 1);
  std::vector<std::string> ins = {x, w};
  std::string b = bias_input(ctx, op);
  if (!b.empty()) ins.push_back(b);
  std::vector<OnnxAttr> attrs = {
      ais("kernel_shape", k), ais("strides", Dims(strides.begin(), strides.begin() + nd)),
      ais("dilations", Dims(p.dilations.begin(), p.dilations.begin() + nd)), ai("group", groups)};
  int64_t n = xs && !xs->empty() ? (*xs)[0] : -1;
  Dims oshape = {n, (*ws)[0]};
  if (!p.explicit_pads) {
    attrs.push_back(as("auto_pad", p.auto_pad));
    for (std::size_t i = 0; i < nd; ++i) oshape.push_back(-1);
  } else {
    attrs.push_back(ais("pads", p.pads));
    for (std::size_t i = 0; i < nd; ++i)
      oshape.push_back(
          conv_out(in_hw[i], k[i], strides[i], p.pads[i], p.pads[i + nd], p.dilations[i]));
  }
  std::string y = ctx.node1("Conv", ins, oshape, kFloat, attrs);
  ctx.out(op, "Output", fused_act(ctx, op, y, oshape));
}

void conv2d_transpose(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("Input"));
  std::string w = dequant(ctx, op, "Filter", 0);
  Shape ws = ctx.shape(w);
  if (!ws || ws->size() < 3 || ws->size() > 5)
    unsupported("has a filter of unknown or unsupported rank");
  Dims k(ws->begin() + 2, ws->end());
  std::size_t nd = k.size();
  Dims strides = a_ints(op, "strides", {1, 1}), dil = a_ints(op, "dilations", {1, 1});
  int64_t groups = a_int(op, "groups", 1);
  Shape xs = ctx.shape(x);
  Dims in_hw = xs && xs->size() == nd + 2 ? Dims(xs->begin() + 2, xs->end()) : Dims(nd, -1);
  std::string algo = a_str(op, "padding_algorithm", "EXPLICIT");
  std::transform(algo.begin(), algo.end(), algo.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  if (algo == "SAME") unsupported("uses padding_algorithm SAME for a transposed convolution");
  ConvPads p = conv_pads(op, in_hw, k, strides, dil);
  Dims out_pad = a_ints(op, "output_padding", {}), out_size = a_ints(op, "output_size", {});
  if (out_pad.empty()) out_pad.assign(nd, 0);
  if (out_pad.size() != nd || (!out_size.empty() && out_size.size() != nd))
    corrupt("has output_padding " + dims_str(out_pad) + " / output_size " + dims_str(out_size));
  Dims osp;
  for (std::size_t i = 0; i < nd; ++i) {
    int64_t d = in_hw[i];
    osp.push_back(d < 0 ? -1
                        : sadd(sadd(sadd(smul(d - 1, strides[i]) - p.pads[i] - p.pads[i + nd],
                                         smul(p.dilations[i], k[i] - 1)),
                                    1),
                               out_pad[i]));
  }
  if (!out_size.empty()) {
    if (!all_known(osp)) unsupported("sets output_size on an input of unknown spatial size");
    for (std::size_t i = 0; i < nd; ++i) out_pad[i] = out_pad[i] + out_size[i] - osp[i];
    osp = out_size;
  }
  std::vector<std::string> ins = {x, w};
  std::string b = bias_input(ctx, op);
  if (!b.empty()) ins.push_back(b);
  Dims shape = {xs && !xs->empty() ? (*xs)[0] : -1, smul((*ws)[1], groups)};
  shape.insert(shape.end(), osp.begin(), osp.end());
  std::vector<OnnxAttr> attrs = {
      ais("kernel_shape", k), ais("strides", Dims(strides.begin(), strides.begin() + nd)),
      ais("dilations", Dims(p.dilations.begin(), p.dilations.begin() + nd)), ai("group", groups),
      ais("pads", p.pads)};
  if (std::any_of(out_pad.begin(), out_pad.end(), [](int64_t v) { return v != 0; }))
    attrs.push_back(ais("output_padding", out_pad));
  std::string y = ctx.node1("ConvTranspose", ins, shape, kFloat, attrs);
  ctx.out(op, "Output", fused_act(ctx, op, y, shape));
}

void batch_norm(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  std::vector<std::string> ins = {x};
  for (const char* slot : {"Scale", "Bias", "Mean", "Variance"}) {
    const Array* c = ctx.cval(op.input(slot));
    if (!c) unsupported(std::string("has a computed ") + slot);
    std::string base = slot;
    std::transform(base.begin(), base.end(), base.begin(),
                   [](unsigned char ch) { return std::tolower(ch); });
    ins.push_back(float_const_as(ctx, *c, {c->numel()}, base));
  }
  ctx.out(op, "Y",
          ctx.node1("BatchNormalization", ins, ctx.shape(x), kFloat,
                    {af("epsilon", a_float(op, "epsilon", 1e-5))}));
}

int64_t pool_out(int64_t d, int64_t k, int64_t s, int64_t pb, int64_t pe, bool ceil) {
  if (d < 0) return -1;
  int64_t span = sadd(sadd(d, pb), pe) - k;
  return ceil ? (span + s - 1) / s + 1 : span / s + 1;
}

void pool2d(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  Shape s = ctx.shape(x);
  std::string ptype = a_str(op, "pooling_type", "max");
  if (ptype != "max" && ptype != "avg") unsupported("uses pooling_type '" + ptype + "'");
  if (!nchw(a_str(op, "data_format", "NCHW")))
    unsupported("uses data_format " + a_str(op, "data_format", ""));
  Dims ksize = a_ints(op, "ksize", {1, 1});
  bool glob = a_bool(op, "global_pooling", false), adaptive = a_bool(op, "adaptive", false);
  bool s4 = s && s->size() == 4;
  Dims nc = s4 ? Dims{(*s)[0], (*s)[1]} : Dims{-1, -1};
  if (glob || (adaptive && ksize == Dims{1, 1})) {
    Dims shape = nc;
    shape.push_back(1);
    shape.push_back(1);
    ctx.out(op, "Out",
            ctx.node1(ptype == "avg" ? "GlobalAveragePool" : "GlobalMaxPool", {x}, shape));
    return;
  }
  if (ksize.size() != 2) corrupt("has ksize " + dims_str(ksize));
  Dims in_hw = s4 ? Dims{(*s)[2], (*s)[3]} : Dims{-1, -1};
  if (adaptive) {
    for (int i = 0; i < 2; ++i)
      if (in_hw[i] < 0 || ksize[i] <= 0 || in_hw[i] % ksize[i])
        unsupported("uses adaptive pooling to " + dims_str(ksize) + " on input " + dims_str(in_hw) +
                    ", which is not a whole multiple");
    Dims kern = {in_hw[0] / ksize[0], in_hw[1] / ksize[1]};
    std::vector<OnnxAttr> attrs = {ais("kernel_shape", kern), ais("strides", kern),
                                   ais("pads", {0, 0, 0, 0})};
    if (ptype == "avg") attrs.push_back(ai("count_include_pad", 0));
    Dims shape = nc;
    shape.insert(shape.end(), ksize.begin(), ksize.end());
    ctx.out(op, "Out",
            ctx.node1(ptype == "avg" ? "AveragePool" : "MaxPool", {x}, shape, kFloat, attrs));
    return;
  }
  for (int64_t v : ksize)
    if (v <= 0) corrupt("has ksize " + dims_str(ksize));
  Dims strides = a_ints(op, "strides", {1, 1});
  ConvPads p = conv_pads(op, in_hw, ksize, strides, {1, 1});
  bool ceil = a_bool(op, "ceil_mode", false);
  std::vector<OnnxAttr> attrs = {ais("kernel_shape", ksize),
                                 ais("strides", Dims(strides.begin(), strides.begin() + 2))};
  Dims shape = nc;
  if (!p.explicit_pads) {
    attrs.push_back(as("auto_pad", p.auto_pad));
    shape.push_back(-1);
    shape.push_back(-1);
  } else {
    attrs.push_back(ais("pads", p.pads));
    for (int i = 0; i < 2; ++i)
      shape.push_back(pool_out(in_hw[i], ksize[i], strides[i], p.pads[i], p.pads[i + 2], ceil));
  }
  if (ceil) attrs.push_back(ai("ceil_mode", 1));
  if (ptype == "avg") {
    attrs.push_back(ai("count_include_pad", a_bool(op, "exclusive", true) ? 0 : 1));
    ctx.out(op, "Out", ctx.node1("AveragePool", {x}, shape, kFloat, attrs));
  } else {
    ctx.out(op, "Out", ctx.node1("MaxPool", {x}, shape, kFloat, attrs));
  }
}

}  // namespace

void register_conv_ops(Registry& r) {
  r["conv2d"] = conv2d;
  r["depthwise_conv2d"] = conv2d;
  r["conv2d_transpose"] = conv2d_transpose;
  r["depthwise_conv2d_transpose"] = conv2d_transpose;
  r["batch_norm"] = batch_norm;
  r["pool2d"] = pool2d;
}

}  // namespace nb
}  // namespace edgeocr
