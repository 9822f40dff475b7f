// Shape and layout ops: reshape, squeeze, unsqueeze, transpose, flatten,
// concat, split, slice, stack. Constant inputs are folded.
#include <algorithm>
#include <cstring>
#include <set>

#include "loader/nb/registry.h"

namespace edgeocr {
namespace nb {
namespace {

constexpr int64_t kMaxFoldElements = 1 << 16;

void check_rank(std::size_t r, const char* what) {
  if (r > kMaxRank) corrupt(std::string("has ") + std::to_string(r) + " " + what);
}

Shape reshape_shape(const Shape& in, const Dims& target) {
  if (!in) {
    if (std::find(target.begin(), target.end(), 0) != target.end()) return std::nullopt;
    return target;
  }
  Dims out;
  for (std::size_t i = 0; i < target.size(); ++i)
    out.push_back(target[i] == 0 && i < in->size() ? (*in)[i] : target[i]);
  if (std::count(out.begin(), out.end(), -1) == 1 && all_known(*in)) {
    int64_t known = 1;
    for (int64_t d : out)
      if (d != -1) known = smul(known, d);
    int64_t total = prod(*in);
    if (known > 0 && total % known == 0) *std::find(out.begin(), out.end(), -1) = total / known;
  }
  return out;
}

// The value of a constant reshaped to `target` (0: copy the dim, -1: infer), as numpy.
Array reshape_const(const Array& c, const Dims& target) {
  Dims tgt;
  int64_t known = 1, infer = -1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    int64_t d = target[i];
    if (d == 0) {
      if (i >= c.shape.size()) corrupt("reshapes a constant with a 0 beyond its rank");
      d = c.shape[i];
    }
    if (d == -1) {
      if (infer >= 0) corrupt("reshapes a constant with two -1 dims");
      infer = static_cast<int64_t>(i);
    } else if (d < 0) {
      corrupt("reshapes a constant to " + dims_str(target));
    } else {
      known = smul(known, d);
    }
    tgt.push_back(d);
  }
  int64_t n = c.numel();
  if (infer >= 0) {
    if (known == 0 || n % known)
      corrupt("cannot reshape a constant of " + std::to_string(n) + " values to " +
              dims_str(target));
    tgt[infer] = n / known;
  } else if (known != n) {
    corrupt("cannot reshape a constant of " + std::to_string(n) + " values to " + dims_str(target));
  }
  Array a = c;
  a.shape = tgt;
  return a;
}

void reshape(Ctx& ctx, const NbOp& op) {
  std::string xv = op.input("X");
  IntsArg shp = shape_input(ctx, op, "Shape", "ShapeTensor");
  if (shp.kind == IntsArg::kNone) {
    shp.kind = IntsArg::kList;
    shp.v = a_ints(op, "shape", {});
  }
  if (shp.kind == IntsArg::kList) {
    check_rank(shp.v.size(), "target dims");
    if (const Array* c = ctx.cval(xv)) {
      ctx.set_const_out(op.output("Out"), reshape_const(*c, shp.v));
      return;
    }
    std::string x = ctx.get(xv);
    ctx.out(op, "Out",
            ctx.node1("Reshape", {x, ctx.iconst(shp.v)}, reshape_shape(ctx.shape(x), shp.v),
                      ctx.dtype(x)));
    return;
  }
  std::string x = ctx.get(xv);
  ctx.out(op, "Out", ctx.node1("Reshape", {x, shp.name}, std::nullopt, ctx.dtype(x)));
}

void squeeze(Ctx& ctx, const NbOp& op) {
  std::string xv = op.input("X");
  const Array* c = ctx.cval(xv);
  std::string x = c ? std::string() : ctx.get(xv);
  Shape s = c ? Shape(c->shape) : ctx.shape(x);
  if (!s) unsupported("squeezes a tensor of unknown rank");
  std::size_t r = s->size();
  Dims axes = a_ints(op, "axes", {});
  std::vector<bool> drop(r, false);
  if (axes.empty()) {
    for (std::size_t i = 0; i < r; ++i) drop[i] = (*s)[i] == 1;
  } else {
    // Paddle ignores axes whose dim is not 1
    for (int64_t a : axes) {
      int64_t b = a < 0 ? a + static_cast<int64_t>(r) : a;
      if (b >= 0 && b < static_cast<int64_t>(r) && ((*s)[b] == 1 || (*s)[b] == -1)) drop[b] = true;
    }
  }
  Dims out_shape, sq;
  for (std::size_t i = 0; i < r; ++i) {
    if (drop[i])
      sq.push_back(static_cast<int64_t>(i));
    else
      out_shape.push_back((*s)[i]);
  }
  if (c) {
    Array a = *c;
    a.shape = out_shape;
    ctx.set_const_out(op.output("Out"), std::move(a));
    return;
  }
  std::string y = sq.empty() ? ctx.node1("Identity", {x}, out_shape, ctx.dtype(x))
                             : ctx.node1("Squeeze", {x, ctx.iconst(sq)}, out_shape, ctx.dtype(x));
  ctx.out(op, "Out", y);
}

// Paddle inserts the axes one after another (negative ones counted from the
// current rank + 1); returns the final positions of the new dims.
Dims unsqueeze_axes(std::size_t rank, const Dims& axes) {
  check_rank(rank + axes.size(), "dims after unsqueeze");
  std::vector<bool> dims(rank, false);
  for (int64_t a : axes) {
    int64_t n = static_cast<int64_t>(dims.size());
    int64_t cur = a < 0 ? a + n + 1 : a;
    cur = std::max<int64_t>(0, std::min(cur, n));
    dims.insert(dims.begin() + cur, true);
  }
  Dims pos;
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i]) pos.push_back(static_cast<int64_t>(i));
  return pos;
}

void unsqueeze(Ctx& ctx, const NbOp& op) {
  std::string xv = op.input("X");
  IntsArg axes = shape_input(ctx, op, "AxesTensor", "AxesTensorList");
  if (axes.kind == IntsArg::kNone) {
    axes.kind = IntsArg::kList;
    axes.v = a_ints(op, "axes", {});
  }
  if (axes.kind != IntsArg::kList) unsupported("takes its axes from a computed tensor");
  const Array* c = ctx.cval(xv);
  Shape s = c ? Shape(c->shape) : ctx.shape(ctx.get(xv));
  if (!s) unsupported("unsqueezes a tensor of unknown rank");
  Dims pos = unsqueeze_axes(s->size(), axes.v);
  Dims out_shape = *s;
  for (int64_t p : pos) out_shape.insert(out_shape.begin() + p, 1);
  if (c) {
    Array a = *c;
    a.shape = out_shape;
    ctx.set_const_out(op.output("Out"), std::move(a));
    return;
  }
  std::string x = ctx.get(xv);
  ctx.out(op, "Out", ctx.node1("Unsqueeze", {x, ctx.iconst(pos)}, out_shape, ctx.dtype(x)));
}

void transpose(Ctx& ctx, const NbOp& op) {
  std::string xv = op.input("X");
  Dims perm = a_ints(op, "axis", {});
  check_rank(perm.size(), "perm entries");
  if (const Array* c = ctx.cval(xv)) {
    ctx.set_const_out(op.output("Out"), transpose_array(ctx, *c, perm));
    return;
  }
  std::string x = ctx.get(xv);
  Shape s = ctx.shape(x);
  Shape shape;
  if (s && s->size() == perm.size()) {
    Dims d;
    for (int64_t p : perm) {
      if (p < 0 || p >= static_cast<int64_t>(s->size())) corrupt("has perm " + dims_str(perm));
      d.push_back((*s)[p]);
    }
    shape = d;
  }
  ctx.out(op, "Out", ctx.node1("Transpose", {x}, shape, ctx.dtype(x), {ais("perm", perm)}));
}

void flatten_range(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  Shape s = ctx.shape(x);
  if (!s) unsupported("flattens a tensor of unknown rank");
  std::size_t r = s->size();
  int64_t a = norm_axis(a_int(op, "start_axis", 1), r, "start_axis");
  int64_t b = norm_axis(a_int(op, "stop_axis", -1), r, "stop_axis");
  if (b < a) corrupt("has stop_axis before start_axis");
  Dims mid(s->begin() + a, s->begin() + b + 1);
  int64_t merged = all_known(mid) ? prod(mid) : -1;
  Dims out(s->begin(), s->begin() + a);
  out.push_back(merged);
  out.insert(out.end(), s->begin() + b + 1, s->end());
  Dims tgt;
  if (std::count_if(out.begin(), out.end(), [](int64_t d) { return d < 0; }) <= 1) {
    tgt = out;
  } else if (all_known(*s, b + 1)) {
    // leading dims copied with 0 (same positions), merged part inferred
    tgt.assign(a, 0);
    tgt.push_back(-1);
    tgt.insert(tgt.end(), s->begin() + b + 1, s->end());
  } else {
    unsupported("flattens a range of a tensor with several unknown dims");
  }
  ctx.out(op, "Out", ctx.node1("Reshape", {x, ctx.iconst(tgt)}, out, ctx.dtype(x)));
}

void flatten(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  int64_t axis = a_int(op, "axis", 1);
  Shape s = ctx.shape(x), shape;
  if (s) {
    int64_t r = static_cast<int64_t>(s->size());
    int64_t a = axis < 0 ? axis + r : axis;
    if (a < 0 || a > r) corrupt("has axis " + std::to_string(axis));
    Dims h(s->begin(), s->begin() + a), t(s->begin() + a, s->end());
    shape = Dims{all_known(h) ? prod(h) : -1, all_known(t) ? prod(t) : -1};
  }
  ctx.out(op, "Out", ctx.node1("Flatten", {x}, shape, ctx.dtype(x), {ai("axis", axis)}));
}

int64_t axis_from(Ctx& ctx, const NbOp& op, int64_t def) {
  int64_t axis = a_int(op, "axis", def);
  std::string at = op.input("AxisTensor");
  if (!at.empty()) {
    const Array* c = ctx.cval(at);
    if (!c) unsupported("takes its axis from a computed tensor");
    if (c->numel() < 1) corrupt("has an empty AxisTensor");
    axis = c->iat(0);
  }
  return axis;
}

bool fold_concat(Ctx& ctx, const NbOp& op, int64_t axis) {
  std::vector<Array> cs;
  int64_t total = 0;
  for (const auto& v : op.inputs_of("X")) {
    const Array* c = ctx.cval(v);
    if (!c || c->shape.empty() ||
        (!cs.empty() && (c->dtype != cs[0].dtype || c->shape.size() != cs[0].shape.size())))
      return false;
    total += c->numel();
    if (total > kMaxFoldElements) return false;
    cs.push_back(*c);
  }
  if (cs.empty()) return false;
  std::size_t r = cs[0].shape.size();
  int64_t a = norm_axis(axis, r, "axis");
  Dims oshape = cs[0].shape;
  oshape[a] = 0;
  for (const Array& c : cs) {
    for (std::size_t i = 0; i < r; ++i)
      if (static_cast<int64_t>(i) != a && c.shape[i] != cs[0].shape[i]) return false;
    oshape[a] += c.shape[a];
  }
  Array out = ctx.alloc(cs[0].dtype, oshape);
  int64_t outer = prod(Dims(oshape.begin(), oshape.begin() + a));
  std::size_t item = out.itemsize(), off = 0;
  int64_t inner_out = prod(Dims(oshape.begin() + a, oshape.end()));
  for (const Array& c : cs) {
    std::size_t chunk =
        static_cast<std::size_t>(prod(Dims(c.shape.begin() + a, c.shape.end()))) * item;
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(out.mutable_data() + (static_cast<std::size_t>(o * inner_out)) * item + off,
                  c.ptr + static_cast<std::size_t>(o) * chunk, chunk);
    off += chunk;
  }
  ctx.set_const_out(op.output("Out"), std::move(out));
  return true;
}

void concat(Ctx& ctx, const NbOp& op) {
  if (op.inputs_of("X").size() <= 64 && fold_concat(ctx, op, axis_from(ctx, op, 0))) return;
  std::vector<std::string> xs;
  for (const auto& v : op.inputs_of("X")) xs.push_back(ctx.get(v));
  if (xs.empty()) unsupported("has no inputs");
  int64_t axis = axis_from(ctx, op, 0);
  bool known = true;
  for (const auto& x : xs) known = known && ctx.shape(x).has_value();
  Shape shape;
  if (known) {
    Dims s0 = *ctx.shape(xs[0]);
    axis = norm_axis(axis, s0.size(), "axis");
    int64_t total = 0;
    for (const auto& x : xs) {
      Dims s = *ctx.shape(x);
      if (s.size() != s0.size()) corrupt("concatenates tensors of different ranks");
      total = (total < 0 || s[axis] < 0) ? -1 : sadd(total, s[axis]);
    }
    s0[axis] = total;
    shape = s0;
  } else if (axis < 0) {
    unsupported("concatenates tensors of unknown rank along a negative axis");
  }
  ctx.out(op, "Out", ctx.node1("Concat", xs, shape, ctx.dtype(xs[0]), {ai("axis", axis)}));
}

void split(Ctx& ctx, const NbOp& op) {
  std::string x = ctx.get(op.input("X"));
  Shape s = ctx.shape(x);
  int64_t axis = axis_from(ctx, op, 0);
  if (!s) unsupported("splits a tensor of unknown rank");
  axis = norm_axis(axis, s->size(), "axis");
  const auto& outs = op.outputs_of("Out");
  if (outs.empty()) unsupported("has no outputs");
  IntsArg sec = shape_input(ctx, op, "", "SectionsTensorList");
  if (sec.kind == IntsArg::kNone) {
    sec.kind = IntsArg::kList;
    sec.v = a_ints(op, "sections", {});
  }
  if (sec.kind != IntsArg::kList) unsupported("takes its sections from a computed tensor");
  int64_t num = a_int(op, "num", 0);
  std::vector<std::string> names;
  Dims sizes;
  int64_t d = (*s)[axis];
  if (!sec.v.empty()) {
    // sections and outputs correspond one to one: check before making anything
    if (sec.v.size() != outs.size())
      unsupported("has " + std::to_string(outs.size()) + " outputs for " +
                  std::to_string(sec.v.size()) + " sections");
    auto neg = std::find(sec.v.begin(), sec.v.end(), -1);
    if (neg != sec.v.end()) {
      if (d < 0) unsupported("infers a split section on an unknown dim");
      int64_t rest = d;
      for (int64_t v : sec.v)
        if (v != -1) rest -= v;
      *neg = rest;
    }
    names = ctx.node("Split", {x, ctx.iconst(sec.v)}, static_cast<int>(outs.size()), std::nullopt,
                     ctx.dtype(x), {ai("axis", axis)});
    sizes = sec.v;
  } else {
    int64_t n = num ? num : static_cast<int64_t>(outs.size());
    if (n != static_cast<int64_t>(outs.size()))
      unsupported("has " + std::to_string(outs.size()) + " outputs for " + std::to_string(n) +
                  " sections");
    names =
        ctx.node("Split", {x}, static_cast<int>(n), std::nullopt, ctx.dtype(x), {ai("axis", axis)});
    sizes.assign(static_cast<std::size_t>(n), d >= 0 ? d / n : -1);
  }
  for (std::size_t i = 0; i < outs.size(); ++i) {
    Dims shp = *s;
    shp[axis] = sizes[i];
    ctx.shapes[names[i]] = shp;
    ctx.dtypes[names[i]] = ctx.dtype(x);
    ctx.bind(outs[i], names[i]);
  }
}

// Python's len(range(*slice(b, e, st).indices(d))).
int64_t slice_len(int64_t d, int64_t b, int64_t e, int64_t st) {
  if (st == 0) corrupt("has a slice step of 0");
  int64_t lower = st < 0 ? -1 : 0, upper = st < 0 ? d - 1 : d;
  auto fix = [&](int64_t v) {
    if (v < 0) {
      v += d;  // v < 0 <= d: no overflow
      if (v < lower) v = lower;
    } else if (v > upper) {
      v = upper;
    }
    return v;
  };
  int64_t lo = fix(b), hi = fix(e);
  if (st > 0) return lo < hi ? (hi - lo - 1) / st + 1 : 0;
  if (st == INT64_MIN) return hi < lo ? 1 : 0;
  return hi < lo ? (lo - hi - 1) / (-st) + 1 : 0;
}

// Python's slice(b, e, st).indices(d): the first index and the count.
std::pair<int64_t, int64_t> slice_start_len(int64_t d, int64_t b, int64_t e, int64_t st) {
  int64_t lower = st < 0 ? -1 : 0, upper = st < 0 ? d - 1 : d;
  int64_t lo = b < 0 ? std::max(b + d, lower) : std::min(b, upper);
  return {lo, slice_len(d, b, e, st)};
}

// Small constant inputs (shape arithmetic, e.g. x2paddle's shape -> slice ->
// concat -> reshape chains) are sliced at translation time, so that shapes
// stay static downstream.
bool fold_slice(Ctx& ctx, const NbOp& op, const Array& c, const Dims& axes, const Dims& starts,
                const Dims& ends, const Dims& steps) {
  if (c.numel() > kMaxFoldElements || c.shape.empty()) return false;
  std::size_t r = c.shape.size();
  Dims first(r, 0), step(r, 1), len = c.shape;
  std::size_t n = std::min({axes.size(), starts.size(), ends.size(), steps.size()});
  for (std::size_t i = 0; i < n; ++i) {
    int64_t a = norm_axis(axes[i], r, "axis");
    auto sl = slice_start_len(c.shape[a], starts[i], ends[i], steps[i]);
    first[a] = sl.first;
    step[a] = steps[i];
    len[a] = sl.second;
  }
  Dims dec = a_ints(op, "decrease_axis", {});
  std::vector<bool> drop(r, false);
  for (int64_t v : dec) drop[norm_axis(v, r, "decrease_axis")] = true;
  Dims oshape;
  for (std::size_t i = 0; i < r; ++i)
    if (!drop[i]) oshape.push_back(len[i]);
  if (oshape.empty() && !dec.empty()) oshape = {1};  // Paddle keeps a 1-element 1-D tensor
  Array out = ctx.alloc(c.dtype, oshape);
  int64_t total = prod(len);
  Dims stride(r, 1);
  for (std::size_t i = r; i-- > 1;) stride[i - 1] = stride[i] * c.shape[i];
  Dims idx(r, 0);
  std::size_t item = c.itemsize();
  for (int64_t k = 0; k < total; ++k) {
    int64_t src = 0;
    for (std::size_t i = 0; i < r; ++i) src += (first[i] + idx[i] * step[i]) * stride[i];
    std::memcpy(out.mutable_data() + static_cast<std::size_t>(k) * item,
                c.ptr + static_cast<std::size_t>(src) * item, item);
    for (std::size_t i = r; i-- > 0;) {
      if (++idx[i] < len[i]) break;
      idx[i] = 0;
    }
  }
  ctx.set_const_out(op.output("Out"), std::move(out));
  return true;
}

void slice_common(Ctx& ctx, const NbOp& op, bool strided) {
  if (const Array* c = ctx.cval(op.input("Input"))) {
    Dims axes = a_ints(op, "axes", {});
    check_rank(axes.size(), "axes");
    IntsArg st = shape_input(ctx, op, "StartsTensor", "StartsTensorList");
    IntsArg en = shape_input(ctx, op, "EndsTensor", "EndsTensorList");
    IntsArg sp;
    if (strided) sp = shape_input(ctx, op, "StridesTensor", "StridesTensorList");
    if (st.kind != IntsArg::kName && en.kind != IntsArg::kName && sp.kind != IntsArg::kName) {
      Dims starts = st.kind == IntsArg::kList ? st.v : a_ints(op, "starts", {});
      Dims ends = en.kind == IntsArg::kList ? en.v : a_ints(op, "ends", {});
      Dims steps = sp.kind == IntsArg::kList ? sp.v
                   : strided                 ? a_ints(op, "strides", Dims(axes.size(), 1))
                                             : Dims(axes.size(), 1);
      for (int64_t v : steps)
        if (v == 0) corrupt("has a slice step of 0");
      Array copy = *c;  // set_const_out may rebind the input's variable
      if (fold_slice(ctx, op, copy, axes, starts, ends, steps)) return;
    }
  }
  std::string x = ctx.get(op.input("Input"));
  Shape s = ctx.shape(x);
  Dims axes = a_ints(op, "axes", {});
  check_rank(axes.size(), "axes");
  IntsArg starts = shape_input(ctx, op, "StartsTensor", "StartsTensorList");
  IntsArg ends = shape_input(ctx, op, "EndsTensor", "EndsTensorList");
  IntsArg steps;
  if (strided) steps = shape_input(ctx, op, "StridesTensor", "StridesTensorList");
  if (starts.kind == IntsArg::kNone) {
    starts.kind = IntsArg::kList;
    starts.v = a_ints(op, "starts", {});
  }
  if (ends.kind == IntsArg::kNone) {
    ends.kind = IntsArg::kList;
    ends.v = a_ints(op, "ends", {});
  }
  if (steps.kind == IntsArg::kNone) {
    steps.kind = IntsArg::kList;
    steps.v = strided ? a_ints(op, "strides", Dims(axes.size(), 1)) : Dims(axes.size(), 1);
  }
  std::vector<std::string> ins = {x};
  for (IntsArg* v : {&starts, &ends})
    ins.push_back(v->kind == IntsArg::kList ? ctx.iconst(v->v) : v->name);
  ins.push_back(ctx.iconst(axes));
  ins.push_back(steps.kind == IntsArg::kList ? ctx.iconst(steps.v) : steps.name);
  Shape shape;
  if (s) {
    int64_t r = static_cast<int64_t>(s->size());
    Dims d = *s;
    bool lists = starts.kind == IntsArg::kList && ends.kind == IntsArg::kList &&
                 steps.kind == IntsArg::kList;
    std::size_t n = lists ? std::min({axes.size(), starts.v.size(), ends.v.size(), steps.v.size()})
                          : axes.size();
    for (std::size_t i = 0; i < n; ++i) {
      int64_t a = norm_axis(axes[i], s->size(), "axis");
      (void)r;
      if (!lists || (*s)[a] < 0)
        d[a] = -1;
      else
        d[a] = slice_len((*s)[a], starts.v[i], ends.v[i], steps.v[i]);
    }
    shape = d;
  }
  std::string y = ctx.node1("Slice", ins, shape, ctx.dtype(x));
  Dims dec = a_ints(op, "decrease_axis", {});
  if (!dec.empty()) {
    if (!shape) unsupported("decreases axes of a tensor of unknown rank");
    std::size_t r = shape->size();
    std::vector<bool> drop(r, false);
    for (int64_t v : dec) drop[norm_axis(v, r, "decrease_axis")] = true;
    Dims sq, rest;
    for (std::size_t i = 0; i < r; ++i) {
      if (drop[i])
        sq.push_back(static_cast<int64_t>(i));
      else
        rest.push_back((*shape)[i]);
    }
    if (sq.size() == r)  // Paddle keeps a 1-element 1-D tensor
      y = ctx.node1("Reshape", {y, ctx.iconst({1})}, Dims{1}, ctx.dtype(x));
    else
      y = ctx.node1("Squeeze", {y, ctx.iconst(sq)}, rest, ctx.dtype(x));
  }
  ctx.out(op, "Out", y);
}

void strided_slice(Ctx& ctx, const NbOp& op) {
  slice_common(ctx, op, true);
}
void slice(Ctx& ctx, const NbOp& op) {
  slice_common(ctx, op, false);
}

void stack(Ctx& ctx, const NbOp& op) {
  std::vector<std::string> xs;
  for (const auto& v : op.inputs_of("X")) xs.push_back(ctx.get(v));
  if (xs.empty()) unsupported("has no inputs");
  Shape s0 = ctx.shape(xs[0]);
  if (!s0) unsupported("stacks tensors of unknown rank");
  int64_t axis = a_int(op, "axis", 0);
  int64_t r = static_cast<int64_t>(s0->size()) + 1;
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) corrupt("has axis " + std::to_string(a_int(op, "axis", 0)));
  Dims us = *s0;
  us.insert(us.begin() + axis, 1);
  std::vector<std::string> parts;
  for (const auto& x : xs)
    parts.push_back(ctx.node1("Unsqueeze", {x, ctx.iconst({axis})}, us, ctx.dtype(x)));
  Dims out = *s0;
  out.insert(out.begin() + axis, static_cast<int64_t>(xs.size()));
  ctx.out(op, "Y", ctx.node1("Concat", parts, out, ctx.dtype(xs[0]), {ai("axis", axis)}));
}

}  // namespace

void register_tensor_ops(Registry& r) {
  r["reshape"] = reshape;
  r["reshape2"] = reshape;
  r["squeeze"] = squeeze;
  r["squeeze2"] = squeeze;
  r["unsqueeze"] = unsqueeze;
  r["unsqueeze2"] = unsqueeze;
  r["transpose"] = transpose;
  r["transpose2"] = transpose;
  r["flatten_contiguous_range"] = flatten_range;
  r["flatten"] = flatten;
  r["flatten2"] = flatten;
  r["concat"] = concat;
  r["split"] = split;
  r["slice"] = slice;
  r["strided_slice"] = strided_slice;
  r["stack"] = stack;
}

}  // namespace nb
}  // namespace edgeocr
