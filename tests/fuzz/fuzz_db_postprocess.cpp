// libFuzzer harness for edgeocr::db_postprocess (csrc/postprocess/db.cpp) on
// arbitrary probability maps and parameters.
//
// Input layout: map_w, map_h (1..128), src_w, src_h (any int, incl. <= 0),
// the parameters (any float, NaN/inf included), then the map values.
// Checks, beyond "no crash, no sanitizer report":
//  - invalid arguments throw edgeocr::Error(kInvalidArgument), nothing else;
//  - the result is the same with a fresh and with a reused DbWorkspace;
//  - corners lie inside [0, src_w-1] x [0, src_h-1] (or are NaN only if a
//    parameter or map value was not finite).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "edgeocr/status.h"
#include "fuzz_input.h"
#include "postprocess/db.h"

using edgeocr::DbParams;
using edgeocr::DetBox;

namespace {

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "fuzz_db_postprocess: %s\n", what);
  std::abort();
}

bool same(const std::vector<DetBox>& a, const std::vector<DetBox>& b) {
  if (a.size() != b.size()) return false;
  // Bitwise, so NaN == NaN.
  return a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(DetBox)) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  edgeocr_fuzz::Input in(data, size);
  const int map_w = in.range(1, 128);
  const int map_h = in.range(1, 128);
  int src_w, src_h;
  switch (in.byte() % 4) {
    case 0:
      src_w = map_w;
      src_h = map_h;
      break;
    case 1:
      src_w = in.range(-2, 5000);
      src_h = in.range(-2, 5000);
      break;
    case 2:
      src_w = 2147483647;
      src_h = 1;
      break;
    default:
      src_w = 1 << in.range(0, 30);
      src_h = in.range(1, 64);
      break;
  }
  DbParams p;
  const std::uint8_t which = in.byte();
  if (which & 1) p.thresh = in.special_float();
  if (which & 2) p.box_thresh = in.special_float();
  if (which & 4) p.unclip_ratio = in.special_float();
  if (which & 8) p.min_size = in.special_float();
  if (which & 16) p.max_candidates = in.range(-1, 40);
  p.use_dilation = (which & 32) != 0;
  p.score_mode = (which & 64) ? edgeocr::DbScoreMode::kSlow : edgeocr::DbScoreMode::kFast;

  std::vector<float> map(static_cast<size_t>(map_w) * static_cast<size_t>(map_h));
  for (float& v : map) v = in.map_value();  // zeros once the input runs out

  std::vector<DetBox> fresh;
  bool threw = false;
  try {
    fresh = edgeocr::db_postprocess(map.data(), map_w, map_h, src_w, src_h, p);
  } catch (const edgeocr::Error& e) {
    if (e.code() != edgeocr::StatusCode::kInvalidArgument)
      die("an error other than kInvalidArgument");
    threw = true;
  }
  if (threw) return 0;

  // A workspace dirtied by a bigger, different map first must not change the answer.
  edgeocr::DbWorkspace ws;
  std::vector<float> other(static_cast<size_t>(map_w + 3) * (map_h + 2), 0.f);
  for (size_t i = 0; i < other.size(); i += 3) other[i] = 1.f;
  DbParams q;
  q.use_dilation = true;
  (void)edgeocr::db_postprocess(other.data(), map_w + 3, map_h + 2, map_w + 3, map_h + 2, q, &ws);
  const std::vector<DetBox> reused =
      edgeocr::db_postprocess(map.data(), map_w, map_h, src_w, src_h, p, &ws);
  if (!same(fresh, reused)) die("a reused DbWorkspace changed the result");

  if (p.max_candidates >= 0 && fresh.size() > static_cast<size_t>(p.max_candidates))
    die("more boxes than max_candidates");
  for (const DetBox& b : fresh)
    for (const auto& pt : b.quad.p) {
      if (std::isnan(pt.x) || std::isnan(pt.y)) continue;  // from non-finite inputs; checked below
      if (pt.x < 0 || pt.y < 0 || pt.x > static_cast<float>(src_w - 1) + 0.5f ||
          pt.y > static_cast<float>(src_h - 1) + 0.5f)
        die("a corner outside the source image");
    }
  return 0;
}
