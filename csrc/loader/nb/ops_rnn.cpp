// Paddle's rnn op in LSTM mode (PP-OCR rec's BiLSTM neck).
#include <cstring>

#include "loader/nb/registry.h"

namespace edgeocr {
namespace nb {
namespace {

// Copies `w` (rows = 4H gate-major) into dst with the gates reordered from
// Paddle's (i, f, c, o) to ONNX's (i, o, f, c).
void reorder_into(const Array& w, float* dst) {
  std::size_t rows = static_cast<std::size_t>(w.shape[0]);
  std::size_t cols = static_cast<std::size_t>(w.numel()) / rows;
  std::size_t h = rows / 4;
  const int order[4] = {0, 3, 1, 2};
  for (int g = 0; g < 4; ++g)
    std::memcpy(dst + g * h * cols, w.ptr + order[g] * h * cols * 4, h * cols * 4);
}

void rnn(Ctx& ctx, const NbOp& op) {
  std::string mode = a_str(op, "mode", "LSTM");
  if (mode != "LSTM") unsupported("uses rnn mode '" + mode + "' (only LSTM is translated)");
  for (const auto& v : op.inputs_of("SequenceLength"))
    if (ctx.has(v)) unsupported("uses SequenceLength");
  std::string x = ctx.get(op.input("Input"));
  Shape s = ctx.shape(x);
  bool bidi = a_bool(op, "is_bidirec", false);
  int64_t layers = a_int(op, "num_layers", 1), hidden = a_int(op, "hidden_size", 0);
  int64_t ndir = bidi ? 2 : 1;
  const auto& wl = op.inputs_of("WeightList");
  if (layers < 1 || layers > static_cast<int64_t>(wl.size()) ||
      static_cast<int64_t>(wl.size()) != 4 * layers * ndir)
    unsupported("has " + std::to_string(wl.size()) + " weights for " + std::to_string(layers) +
                " layers x " + std::to_string(ndir) + " directions");
  if (hidden <= 0) corrupt("has hidden_size " + std::to_string(hidden));
  std::vector<Array> ws;
  for (const auto& v : wl) {
    const Array* c = ctx.cval(v);
    if (!c) unsupported("has computed weights");
    Array f = to_float(ctx, *c);
    if (f.shape.empty() || f.shape[0] != 4 * hidden)
      corrupt("has an LSTM weight of shape " + dims_str(f.shape) + " for hidden_size " +
              std::to_string(hidden));
    ws.push_back(f);
  }
  std::size_t half = static_cast<std::size_t>(2 * layers * ndir);
  const auto& pre = op.inputs_of("PreState");
  std::string init_h, init_c;
  if (pre.size() == 2) {
    init_h = ctx.get(pre[0]);
    init_c = ctx.get(pre[1]);
  }
  int64_t t = s && s->size() == 3 ? (*s)[0] : -1, n = s && s->size() == 3 ? (*s)[1] : -1;
  std::string y = x;
  for (int64_t layer = 0; layer < layers; ++layer) {
    std::size_t k0 = static_cast<std::size_t>(layer * ndir);
    const Array& w0 = ws[2 * k0];
    const Array& r0 = ws[2 * k0 + 1];
    int64_t in_cols = w0.numel() / (4 * hidden), r_cols = r0.numel() / (4 * hidden);
    Array W = ctx.alloc(kFloat, {ndir, 4 * hidden, in_cols});
    Array R = ctx.alloc(kFloat, {ndir, 4 * hidden, r_cols});
    Array B = ctx.alloc(kFloat, {ndir, 8 * hidden});
    for (int64_t d = 0; d < ndir; ++d) {
      std::size_t k = static_cast<std::size_t>(layer * ndir + d);
      const Array* parts[4] = {&ws[2 * k], &ws[2 * k + 1], &ws[half + 2 * k],
                               &ws[half + 2 * k + 1]};
      if (parts[0]->numel() != 4 * hidden * in_cols || parts[1]->numel() != 4 * hidden * r_cols ||
          parts[2]->numel() != 4 * hidden || parts[3]->numel() != 4 * hidden)
        corrupt("has LSTM weights of inconsistent shapes");
      float* wd = reinterpret_cast<float*>(W.mutable_data()) + d * 4 * hidden * in_cols;
      float* rd = reinterpret_cast<float*>(R.mutable_data()) + d * 4 * hidden * r_cols;
      float* bd = reinterpret_cast<float*>(B.mutable_data()) + d * 8 * hidden;
      reorder_into(*parts[0], wd);
      reorder_into(*parts[1], rd);
      reorder_into(*parts[2], bd);
      reorder_into(*parts[3], bd + 4 * hidden);
    }
    std::vector<std::string> ins = {y, ctx.materialize(ctx.new_const(std::move(W), "lstm_w")),
                                    ctx.materialize(ctx.new_const(std::move(R), "lstm_r")),
                                    ctx.materialize(ctx.new_const(std::move(B), "lstm_b")), ""};
    if (!init_h.empty()) {
      std::string a = ctx.iconst({layer * ndir}), b = ctx.iconst({(layer + 1) * ndir}),
                  z = ctx.iconst({0});
      ins.push_back(ctx.node1("Slice", {init_h, a, b, z}, Dims{ndir, n, hidden}));
      ins.push_back(ctx.node1("Slice", {init_c, a, b, z}, Dims{ndir, n, hidden}));
    }
    std::string o =
        ctx.node1("LSTM", ins, Dims{t, ndir, n, hidden}, kFloat,
                  {ai("hidden_size", hidden), as("direction", bidi ? "bidirectional" : "forward")});
    // [T, D, N, H] -> [T, N, D*H]
    y = ctx.node1("Transpose", {o}, Dims{t, n, ndir, hidden}, kFloat, {ais("perm", {0, 2, 1, 3})});
    y = ctx.node1("Reshape", {y, ctx.iconst({0, 0, ndir * hidden})}, Dims{t, n, ndir * hidden});
  }
  ctx.out(op, "Out", y);
}

}  // namespace

void register_rnn_ops(Registry& r) {
  r["rnn"] = rnn;
}

}  // namespace nb
}  // namespace edgeocr
