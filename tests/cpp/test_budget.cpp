// Memory budget: det tile layout, reservations shared by threads, plans that fit or refuse.
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "check.h"
#include "edgeocr/pipeline.h"
#include "edgeocr/status.h"
#include "pipeline/budget.h"

using namespace edgeocr;

TEST(det_tiles_cores_partition_the_frame_inside_their_tiles) {
  struct Case {
    int fw, fh, tw, th;
  };
  for (const Case& c :
       {Case{1984, 1504, 576, 576}, Case{1984, 736, 1120, 736}, Case{320, 320, 320, 320},
        Case{4000 / 32 * 32, 96, 192, 96}, Case{1024, 1024, 192, 224}}) {
    const auto tiles = det_tiles(c.fw, c.fh, c.tw, c.th, 64);
    std::vector<int> owner(static_cast<std::size_t>(c.fw) * c.fh, 0);
    bool inside = true;
    for (const DetTile& t : tiles) {
      inside = inside && t.x % 32 == 0 && t.y % 32 == 0 && t.x >= 0 && t.y >= 0 &&
               t.x + t.w <= c.fw && t.y + t.h <= c.fh && t.cx0 >= t.x && t.cx1 <= t.x + t.w &&
               t.cy0 >= t.y && t.cy1 <= t.y + t.h;
      // At least 48 pixels of context beside a core, except at the frame's edges.
      inside =
          inside && (t.cx0 == 0 || t.cx0 - t.x >= 48) && (t.cx1 == c.fw || t.x + t.w - t.cx1 >= 48);
      for (int y = t.cy0; y < t.cy1; ++y)
        for (int x = t.cx0; x < t.cx1; ++x) ++owner[static_cast<std::size_t>(y) * c.fw + x];
    }
    CHECK(inside);
    bool once = true;
    for (int n : owner) once = once && n == 1;
    CHECK(once);
  }
}

TEST(det_tile_grid_keeps_each_tile_within_its_pixels_and_adds_little) {
  // A frame that fits is one run.
  const auto one = det_tile_grid(1216, 1600, 2097152.0);
  CHECK(one.size() == 1 && one[0].w == 1216 && one[0].h == 1600 && one[0].cy1 == 1600);
  // A 4000 x 3000 page's frame within 2 Mpx: two strips of the full width that overlap by twice
  // the margin, 6.5% more pixels than the frame.
  const auto two = det_tile_grid(1504, 1984, 2097152.0);
  CHECK(two.size() == 2);
  double total = 0;
  std::vector<int> owner(static_cast<std::size_t>(1504) * 1984, 0);
  for (const DetTile& t : two) {
    CHECK(static_cast<double>(t.w) * t.h <= 2097152.0);
    CHECK(t.x % 32 == 0 && t.y % 32 == 0 && t.x + t.w <= 1504 && t.y + t.h <= 1984);
    CHECK(t.cy0 == 0 || t.cy0 - t.y >= kDetTileMargin);
    CHECK(t.cy1 == 1984 || t.y + t.h - t.cy1 >= kDetTileMargin);
    total += static_cast<double>(t.w) * t.h;
    for (int y = t.cy0; y < t.cy1; ++y)
      for (int x = t.cx0; x < t.cx1; ++x) ++owner[static_cast<std::size_t>(y) * 1504 + x];
  }
  CHECK(total <= 1.07 * 1504 * 1984);
  bool once = true;
  for (int n : owner) once = once && n == 1;
  CHECK(once);
  // Smaller tiles: more of them, each within the pixels.
  const auto many = det_tile_grid(1504, 1984, 300000.0);
  CHECK(many.size() > 6);
  for (const DetTile& t : many) CHECK(static_cast<double>(t.w) * t.h <= 300000.0);
  // Nothing fits below the smallest tile.
  CHECK(det_tile_grid(1504, 1984, 1000.0).empty());
}

TEST(budget_reservations_wait_for_each_other_and_never_exceed_the_total) {
  auto b = MemoryBudget::create(100);
  std::atomic<int> held{0}, max_held{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 20; ++k) {
        MemoryBudget::Reservation r = b->reserve(30 + (i % 3) * 20);  // 30, 50 or 70 of 100
        const int now = held += static_cast<int>(r.bytes());
        int m = max_held;
        while (now > m && !max_held.compare_exchange_weak(m, now)) {
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        held -= static_cast<int>(r.bytes());
      }
    });
  for (auto& t : threads) t.join();
  CHECK(max_held <= 100);
  CHECK(b->in_use() == 0);
  CHECK(b->peak_in_use() <= 100);
  CHECK(b->waits() > 0);
  bool refused = false;
  try {
    b->reserve(101);
  } catch (const Error& e) {
    refused = e.code() == StatusCode::kOutOfMemory;
  }
  CHECK(refused);
  CHECK(b->in_use() == 0);
}

TEST(plans_fit_the_budget_or_refuse) {
  PipelineConfig c;
  MemoryProfile p;
  const std::size_t mb = 1 << 20;
  CallPlan whole = plan_call(c, p, true, true, true, 640, 480, 0, 1024 * mb);
  CHECK(whole.tiles.empty() && !whole.det_scaled && whole.reserve_bytes <= 1024 * mb);
  CallPlan tiled = plan_call(c, p, true, true, true, 4000, 3000, 36000000, 128 * mb);
  CHECK(!tiled.tiles.empty() && !tiled.det_scaled && tiled.det_w == 1984 &&
        tiled.reserve_bytes <= 128 * mb);
  CHECK(tiled.rec_max_pixels >=
        static_cast<std::size_t>(c.rec_height) * c.rec_width_buckets.front());
  CallPlan scaled = plan_call(c, p, true, true, true, 4000, 3000, 0, 24 * mb);
  CHECK(scaled.det_scaled && scaled.det_w < 1984 && scaled.reserve_bytes <= 24 * mb);
  bool refused = false;
  try {
    plan_call(c, p, true, true, true, 4000, 3000, 36000000,
              32 * mb);  // the pixels alone do not fit
  } catch (const Error& e) {
    refused = e.code() == StatusCode::kOutOfMemory;
  }
  CHECK(refused);
}

TEST_MAIN()
