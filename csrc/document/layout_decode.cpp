#include "document/layout_decode.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace edgeocr {
namespace {

struct Candidate {
  BoxF box;
  float score;
  int cls;
};

float area(const BoxF& b) {
  return std::max(0.f, b.x1 - b.x0) * std::max(0.f, b.y1 - b.y0);
}

float iou(const BoxF& a, const BoxF& b) {
  const float iw = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
  const float ih = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
  if (iw <= 0.f || ih <= 0.f) return 0.f;
  const float inter = iw * ih;
  return inter / (area(a) + area(b) - inter + 1e-5f);
}

// The expected distance of a distribution over bins 0..bins-1 (softmax of the logits), or NaN.
double expected_bin(const float* logits, int bins) {
  float mx = logits[0];
  for (int i = 1; i < bins; ++i) mx = std::max(mx, logits[i]);
  if (!std::isfinite(mx)) return NAN;
  double sum = 0, acc = 0;
  for (int i = 0; i < bins; ++i) {
    const double e = std::exp(static_cast<double>(logits[i]) - mx);
    sum += e;
    acc += e * i;
  }
  return acc / sum;
}

bool better(const Candidate& a, const Candidate& b) {
  if (a.score != b.score) return a.score > b.score;
  if (a.cls != b.cls) return a.cls < b.cls;
  if (a.box.y0 != b.box.y0) return a.box.y0 < b.box.y0;
  return a.box.x0 < b.box.x0;
}

}  // namespace

int layout_stride_for(std::int64_t cells, int in_w, int in_h) {
  for (int s : {8, 16, 32, 64, 128}) {
    const std::int64_t gw = (in_w + s - 1) / s, gh = (in_h + s - 1) / s;
    if (gw * gh == cells) return s;
  }
  return 0;
}

std::vector<LayoutBox> layout_boxes(const std::vector<LayoutLevel>& levels, int classes, int bins,
                                    int in_w, int in_h, int src_w, int src_h,
                                    const LayoutParams& p) {
  std::vector<std::vector<Candidate>> by_class(static_cast<std::size_t>(std::max(classes, 0)));
  if (classes <= 0 || bins <= 0 || in_w <= 0 || in_h <= 0 || src_w <= 0 || src_h <= 0) return {};
  const double sx = static_cast<double>(src_w) / in_w, sy = static_cast<double>(src_h) / in_h;
  std::vector<std::int64_t> order;
  std::vector<float> best;
  for (const LayoutLevel& lv : levels) {
    if (lv.cells <= 0 || lv.stride <= 0 || lv.grid_w <= 0 || !lv.scores || !lv.dist) continue;
    // The cells with the highest best-class score (a NaN score counts as none).
    best.assign(static_cast<std::size_t>(lv.cells), -1.f);
    for (std::int64_t i = 0; i < lv.cells; ++i) {
      const float* s = lv.scores + i * classes;
      float m = -1.f;
      for (int c = 0; c < classes; ++c)
        if (std::isfinite(s[c]) && s[c] > m) m = s[c];
      best[static_cast<std::size_t>(i)] = m;
    }
    order.resize(static_cast<std::size_t>(lv.cells));
    std::iota(order.begin(), order.end(), std::int64_t{0});
    const std::size_t k = std::min<std::size_t>(order.size(), std::max(p.top_k_per_level, 0));
    auto by_best = [&](std::int64_t a, std::int64_t b) {
      const float x = best[static_cast<std::size_t>(a)], y = best[static_cast<std::size_t>(b)];
      return x != y ? x > y : a < b;
    };
    if (k < order.size()) std::nth_element(order.begin(), order.begin() + k, order.end(), by_best);
    for (std::size_t j = 0; j < k; ++j) {
      const std::int64_t i = order[j];
      if (!(best[static_cast<std::size_t>(i)] > p.score_thresh)) continue;
      const double cx = (static_cast<double>(i % lv.grid_w) + 0.5) * lv.stride;
      const double cy = (static_cast<double>(i / lv.grid_w) + 0.5) * lv.stride;
      const float* d = lv.dist + i * 4 * bins;
      const double l = expected_bin(d, bins) * lv.stride,
                   t = expected_bin(d + bins, bins) * lv.stride,
                   r = expected_bin(d + 2 * bins, bins) * lv.stride,
                   b = expected_bin(d + 3 * bins, bins) * lv.stride;
      if (!std::isfinite(l + t + r + b)) continue;
      // Clipped to the model input, then mapped to the image (as PaddleDetection's decode).
      const double x0 = std::clamp(cx - l, 0.0, double(in_w)) * sx;
      const double y0 = std::clamp(cy - t, 0.0, double(in_h)) * sy;
      const double x1 = std::clamp(cx + r, 0.0, double(in_w)) * sx;
      const double y1 = std::clamp(cy + b, 0.0, double(in_h)) * sy;
      if (!(x1 > x0) || !(y1 > y0)) continue;
      const BoxF box{static_cast<float>(x0), static_cast<float>(y0), static_cast<float>(x1),
                     static_cast<float>(y1)};
      const float* s = lv.scores + i * classes;
      for (int c = 0; c < classes; ++c)
        if (std::isfinite(s[c]) && s[c] > p.score_thresh)
          by_class[static_cast<std::size_t>(c)].push_back({box, s[c], c});
    }
  }
  std::vector<Candidate> kept;
  for (auto& cands : by_class) {
    std::sort(cands.begin(), cands.end(), better);
    if (cands.size() > static_cast<std::size_t>(std::max(p.nms_candidates, 0)))
      cands.resize(static_cast<std::size_t>(std::max(p.nms_candidates, 0)));
    std::vector<Candidate> picked;
    for (const Candidate& c : cands) {
      bool keep = true;
      for (const Candidate& q : picked)
        if (iou(c.box, q.box) > p.nms_iou) {
          keep = false;
          break;
        }
      if (keep) picked.push_back(c);
    }
    kept.insert(kept.end(), picked.begin(), picked.end());
  }
  std::sort(kept.begin(), kept.end(), better);
  if (kept.size() > static_cast<std::size_t>(std::max(p.max_regions, 0)))
    kept.resize(static_cast<std::size_t>(std::max(p.max_regions, 0)));
  std::vector<LayoutBox> out;
  out.reserve(kept.size());
  for (const Candidate& c : kept) out.push_back({c.box, c.cls, c.score});
  return out;
}

}  // namespace edgeocr
