// Operands converters read in more than one way: convolution pads and shape-like inputs.
#include <algorithm>
#include <cctype>

#include "loader/nb/translate.h"

namespace edgeocr {
namespace nb {

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
