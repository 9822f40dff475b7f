// Interpolation (nearest / bilinear, v1 and v2) and padding (pad, pad2d, pad3d).
#include <algorithm>
#include <cmath>

#include "loader/nb/registry.h"

namespace edgeocr {
namespace nb {
namespace {

void interp(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  Shape s = ctx.shape(x);
  bool v2 = op.type.size() > 3 && op.type.compare(op.type.size() - 3, 3, "_v2") == 0;
  std::string method =
      a_str(op, "interp_method", op.type.rfind("nearest", 0) == 0 ? "nearest" : "bilinear");
  std::string layout = a_str(op, "data_layout", "NCHW");
  std::transform(layout.begin(), layout.end(), layout.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  if (layout != "NCHW" && layout != "ANYLAYOUT") unsupported("uses data_layout " + layout);
  bool align_corners = a_bool(op, "align_corners", !v2);
  int64_t align_mode = a_int(op, "align_mode", 1);
  bool s4 = s && s->size() == 4;
  Dims nc = s4 ? Dims{(*s)[0], (*s)[1]} : Dims{-1, -1};
  Dims in_hw = s4 ? Dims{(*s)[2], (*s)[3]} : Dims{-1, -1};
  // output size, by Paddle's priority: SizeTensor > OutSize > Scale > scale attr > out_h/w
  IntsArg size = shape_input(ctx, op, "OutSize", "SizeTensor");
  std::vector<double> scales;
  bool have_scales = false;
  if (size.kind == IntsArg::kNone) {
    std::string sv = op.input("Scale");
    if (!sv.empty()) {
      const Array* c = ctx.cval(sv);
      if (!c) unsupported("takes its scale from a computed tensor");
      for (int64_t i = 0; i < c->numel() && i < 2; ++i)
        scales.push_back(c->at(static_cast<std::size_t>(i)));
    } else {
      for (double v : a_floats(op, "scale"))
        if (v > 0 && scales.size() < 2) scales.push_back(v);
    }
    if (!scales.empty()) {
      if (scales.size() == 1) scales.push_back(scales[0]);
      have_scales = true;
    } else {
      int64_t oh = a_int(op, "out_h", -1), ow = a_int(op, "out_w", -1);
      if (oh <= 0 || ow <= 0) unsupported("has neither an output size nor a scale");
      size.kind = IntsArg::kList;
      size.v = {oh, ow};
    }
  }
  if (size.kind == IntsArg::kList && size.v.size() != 2)
    corrupt("has an output size of " + dims_str(size.v));
  std::vector<OnnxAttr> attrs;
  if (method == "nearest") {
    attrs = {as("mode", "nearest"),
             as("coordinate_transformation_mode", align_corners ? "align_corners" : "asymmetric"),
             as("nearest_mode", align_corners ? "round_prefer_ceil" : "floor")};
  } else if (method == "bilinear") {
    std::string ctm = align_corners     ? "align_corners"
                      : align_mode == 0 ? "half_pixel"
                                        : "asymmetric";
    attrs = {as("mode", "linear"), as("coordinate_transformation_mode", ctm)};
  } else {
    unsupported("uses interp_method '" + method + "'");
  }
  Dims out_hw = {-1, -1};
  if (have_scales) {
    // out = int(in * scale). Paddle's v2 kernels then map output index i to
    // i / scale, but Paddle Lite 2.10 (verified against its x86 build, v1 and
    // v2, nearest and bilinear) maps it to i * in / out, as for a given size:
    // so hand ONNX Resize the size, never the scales.
    for (int i = 0; i < 2; ++i) {
      if (!std::isfinite(scales[i]) || scales[i] > 1e6)
        corrupt("has scale " + std::to_string(scales[i]));
      if (in_hw[i] >= 0) {
        double v = static_cast<double>(in_hw[i]) * scales[i];
        if (v > 1e12) corrupt("has an output size that overflows");
        out_hw[i] = static_cast<int64_t>(v);
      }
    }
    if (all_known(in_hw)) {
      size.kind = IntsArg::kList;
      size.v = out_hw;
      have_scales = false;
    }
  }
  Dims oshape = nc;
  std::string y;
  auto nc_of = [&]() {
    std::string shp =
        ctx.node1("Shape", {x}, Dims{static_cast<int64_t>(s ? s->size() : 4)}, kInt64);
    return ctx.node1("Slice", {shp, ctx.iconst({0}), ctx.iconst({2})}, Dims{2}, kInt64);
  };
  if (have_scales) {
    // unknown H/W: sizes = floor(in * scale), computed at run time
    std::string shp = ctx.node1("Shape", {x}, Dims{4}, kInt64);
    std::string hw = ctx.node1("Slice", {shp, ctx.iconst({2}), ctx.iconst({4})}, Dims{2}, kInt64);
    std::string hwf = ctx.node1("Cast", {hw}, Dims{2}, kFloat, {ai("to", kFloat)});
    hwf = ctx.node1(
        "Mul",
        {hwf, ctx.fconst_arr({static_cast<float>(scales[0]), static_cast<float>(scales[1])}, {2},
                             "scales")},
        Dims{2});
    hwf = ctx.node1("Floor", {hwf}, Dims{2});
    hw = ctx.node1("Cast", {hwf}, Dims{2}, kInt64, {ai("to", kInt64)});
    std::string ncn = ctx.node1("Slice", {shp, ctx.iconst({0}), ctx.iconst({2})}, Dims{2}, kInt64);
    std::string full = ctx.node1("Concat", {ncn, hw}, Dims{4}, kInt64, {ai("axis", 0)});
    oshape.insert(oshape.end(), out_hw.begin(), out_hw.end());
    y = ctx.node1("Resize", {x, "", "", full}, oshape, kFloat, attrs);
  } else if (size.kind == IntsArg::kList) {
    oshape.insert(oshape.end(), size.v.begin(), size.v.end());
    std::string full;
    if (nc[0] >= 0 && nc[1] >= 0) {
      full = ctx.iconst({nc[0], nc[1], size.v[0], size.v[1]});
    } else {  // sizes must cover N and C: build them from the input's shape
      full = ctx.node1("Concat", {nc_of(), ctx.iconst(size.v)}, Dims{4}, kInt64, {ai("axis", 0)});
    }
    y = ctx.node1("Resize", {x, "", "", full}, oshape, kFloat, attrs);
  } else {
    std::string full = ctx.node1("Concat", {nc_of(), size.name}, Dims{4}, kInt64, {ai("axis", 0)});
    oshape.push_back(-1);
    oshape.push_back(-1);
    y = ctx.node1("Resize", {x, "", "", full}, oshape, kFloat, attrs);
  }
  ctx.out(op, "Out", y);
}

void pad(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  Shape s = ctx.shape(x);
  Dims p = a_ints(op, "paddings", {});
  if (p.size() > 2 * kMaxRank) corrupt("has " + std::to_string(p.size()) + " paddings");
  std::size_t r = p.size() / 2;
  Dims pads;
  for (std::size_t i = 0; i < r; ++i) pads.push_back(p[2 * i]);
  for (std::size_t i = 0; i < r; ++i) pads.push_back(p[2 * i + 1]);
  Shape shape;
  if (s && s->size() == r) {
    Dims d;
    for (std::size_t i = 0; i < r; ++i)
      d.push_back((*s)[i] >= 0 ? sadd(sadd((*s)[i], p[2 * i]), p[2 * i + 1]) : -1);
    shape = d;
  }
  ctx.out(op, "Out",
          ctx.node1("Pad", {x, ctx.iconst(pads), ctx.fconst(a_float(op, "pad_value", 0.0))}, shape,
                    kFloat, {as("mode", "constant")}));
}

void pad_nd(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  Shape s = ctx.shape(x);
  if (!s) unsupported("pads a tensor of unknown rank");
  Dims p;
  std::string pv = op.input("Paddings");
  if (!pv.empty()) {
    const Array* c = ctx.cval(pv);
    if (!c) unsupported("takes its paddings from a computed tensor");
    if (c->numel() > static_cast<int64_t>(2 * kMaxRank)) corrupt("has too many paddings");
    for (int64_t i = 0; i < c->numel(); ++i) p.push_back(c->iat(static_cast<std::size_t>(i)));
  } else {
    p = a_ints(op, "paddings", {});
  }
  bool is2d = op.type == "pad2d";
  std::string fmt = a_str(op, "data_format", is2d ? "NCHW" : "NCDHW");
  std::transform(fmt.begin(), fmt.end(), fmt.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  if (fmt.rfind("NC", 0) != 0) unsupported("uses data_format " + fmt);
  std::string mode = a_str(op, "mode", "constant");
  std::size_t r = s->size();
  std::vector<std::pair<int64_t, int64_t>> spatial;
  if (is2d) {  // [top, bottom, left, right]
    if (p.size() < 4) corrupt("has paddings " + dims_str(p));
    spatial = {{p[0], p[1]}, {p[2], p[3]}};
  } else {  // pad3d: [left, right, top, bottom, front, back] (W, H, D)
    for (std::size_t i = 0; i + 1 < p.size(); i += 2)
      spatial.insert(spatial.begin(), {p[i], p[i + 1]});
  }
  if (r < 3 || spatial.size() < r - 2)
    corrupt("has paddings " + dims_str(p) + " for a rank-" + std::to_string(r) + " input");
  spatial.erase(spatial.begin(), spatial.end() - static_cast<std::ptrdiff_t>(r - 2));
  Dims begins = {0, 0}, ends = {0, 0};
  for (const auto& be : spatial) {
    begins.push_back(be.first);
    ends.push_back(be.second);
  }
  std::string onnx_mode = mode == "constant"                        ? "constant"
                          : mode == "reflect"                       ? "reflect"
                          : (mode == "edge" || mode == "replicate") ? "edge"
                                                                    : "";
  if (onnx_mode.empty()) unsupported("uses pad mode '" + mode + "'");
  Dims shape;
  for (std::size_t i = 0; i < r; ++i)
    shape.push_back((*s)[i] >= 0 ? sadd(sadd((*s)[i], begins[i]), ends[i]) : -1);
  double value =
      has_attr(op, "pad_value") ? a_float(op, "pad_value", 0.0) : a_float(op, "value", 0.0);
  Dims all = begins;
  all.insert(all.end(), ends.begin(), ends.end());
  ctx.out(op, "Out",
          ctx.node1("Pad", {x, ctx.iconst(all), ctx.fconst(value)}, shape, kFloat,
                    {as("mode", onnx_mode)}));
}

}  // namespace

void register_resize_ops(Registry& r) {
  for (const char* t :
       {"nearest_interp_v2", "bilinear_interp_v2", "nearest_interp", "bilinear_interp"})
    r[t] = interp;
  r["pad"] = pad;
  r["pad2d"] = pad_nd;
  r["pad3d"] = pad_nd;
}

}  // namespace nb
}  // namespace edgeocr
