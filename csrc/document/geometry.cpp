#include "document/geometry.h"

#include <numeric>

namespace edgeocr {
namespace geo {

std::vector<std::vector<int>> rows_of(const std::vector<BoxF>& boxes) {
  std::vector<int> order(boxes.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const float ya = yc(boxes[static_cast<std::size_t>(a)]);
    const float yb = yc(boxes[static_cast<std::size_t>(b)]);
    return ya != yb ? ya < yb : a < b;
  });
  std::vector<std::vector<int>> rows;
  BoxF band{};
  for (int i : order) {
    const BoxF& b = boxes[static_cast<std::size_t>(i)];
    if (!finite(b)) continue;
    if (rows.empty() || !same_row(band, b)) {
      rows.push_back({i});
      band = b;
    } else {
      rows.back().push_back(i);
      band = unite(band, b);
    }
  }
  for (auto& r : rows)
    std::sort(r.begin(), r.end(), [&](int a, int b) {
      return boxes[static_cast<std::size_t>(a)].x0 < boxes[static_cast<std::size_t>(b)].x0;
    });
  return rows;
}

float median(std::vector<float> v) {
  if (v.empty()) return 0.f;
  const std::size_t m = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(m), v.end());
  return v[m];
}

}  // namespace geo
}  // namespace edgeocr
