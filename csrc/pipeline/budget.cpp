#include "pipeline/budget.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "edgeocr/pipeline.h"
#include "edgeocr/status.h"
#include "pipeline/model_checks.h"
#include "preprocess/preprocess.h"

namespace edgeocr {

// ---- MemoryBudget ----------------------------------------------------------------------------

std::shared_ptr<MemoryBudget> MemoryBudget::create(std::size_t total_bytes) {
  if (total_bytes == 0) fail(StatusCode::kInvalidArgument, "a memory budget must be > 0 bytes");
#if defined(__GLIBC__)
  // glibc's default raises its mmap threshold to the size of each large block freed (up to
  // 32 MiB), after which freed tensors and arena regions stay in the heap: measured, a det run
  // at 960x960 with the arena shrunk after each run left 33, 61, 91 MiB behind after three runs.
  // A fixed 1 MiB threshold gives every block of 1 MiB or more back to the system when freed
  // (5 MiB left behind, same peak). Process-wide, once.
  static const bool kSet = mallopt(M_MMAP_THRESHOLD, 1 << 20) == 1;
  (void)kSet;
#endif
  return std::shared_ptr<MemoryBudget>(new MemoryBudget(total_bytes));
}

MemoryBudget::Reservation& MemoryBudget::Reservation::operator=(Reservation&& o) noexcept {
  if (this != &o) {
    release();
    budget_ = std::move(o.budget_);
    bytes_ = o.bytes_;
    o.bytes_ = 0;
  }
  return *this;
}

void MemoryBudget::Reservation::release() {
  if (budget_) budget_->give_back(bytes_);
  budget_.reset();
  bytes_ = 0;
}

MemoryBudget::Reservation MemoryBudget::reserve(std::size_t bytes) {
  if (bytes > total_)
    fail(StatusCode::kOutOfMemory,
         "memory budget of " + std::to_string(total_ >> 20) + " MiB: this call needs " +
             std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB even with its smallest plan");
  std::unique_lock<std::mutex> lock(mu_);
  // Tickets keep the order of arrival, so a big call is not overtaken forever by small ones.
  const std::uint64_t ticket = next_ticket_++;
  bool waited = false;
  while (ticket != serving_ || in_use_ + bytes > total_) {
    waited = true;
    cv_.wait(lock);
  }
  ++serving_;
  if (waited) ++waits_;
  in_use_ += bytes;
  peak_ = std::max(peak_, in_use_);
  lock.unlock();
  cv_.notify_all();  // the next ticket may fit too
  Reservation r;
  r.budget_ = shared_from_this();
  r.bytes_ = bytes;
  return r;
}

void MemoryBudget::give_back(std::size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    in_use_ -= bytes;
  }
  cv_.notify_all();
}

std::size_t MemoryBudget::in_use() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_use_;
}

std::size_t MemoryBudget::peak_in_use() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_;
}

std::uint64_t MemoryBudget::waits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waits_;
}

// ---- planning --------------------------------------------------------------------------------

namespace {

constexpr int kMinDetSide = 320;  // the det frame is not shrunk below this long side
constexpr double kFloat = 4.0;

int down32(double v) {
  return std::max(32, static_cast<int>(v / 32) * 32);
}

// Bytes of one run on `px` input pixels: the input tensor and the model's activations and outputs.
double cls_run_bytes(const MemoryProfile& p, double px) {
  return px * (3 * kFloat + p.cls_bytes_per_pixel);
}

// Tile positions along one axis: tiles of `tile` (multiple of 32) starting at multiples of 32,
// overlapping by >= 2 * margin; the cores split the overlaps in the middle.
void axis_tiles(int frame, int tile, int margin, std::vector<int>* pos, std::vector<int>* core) {
  pos->clear();
  core->clear();
  if (tile >= frame) {
    pos->push_back(0);
    core->push_back(0);
    core->push_back(frame);
    return;
  }
  // As few tiles as keep every overlap >= 2 * margin, spread evenly (on the 32-pixel grid).
  const int step = std::max(32, tile - 2 * margin);
  const int span = (frame - tile) / 32;  // positions of the last tile, in 32-pixel units
  const int n = 1 + (frame - tile + step - 1) / step;
  for (int i = 0; i < n; ++i)
    pos->push_back(static_cast<int>((static_cast<long long>(span) * i + (n - 1) / 2) / (n - 1)) *
                   32);
  core->push_back(0);
  for (std::size_t i = 1; i < pos->size(); ++i) {
    const int prev_end = (*pos)[i - 1] + tile;
    core->push_back(((*pos)[i] + prev_end) / 2);
  }
  core->push_back(frame);
}

}  // namespace

std::vector<DetTile> det_tiles(int frame_w, int frame_h, int tile_w, int tile_h, int margin) {
  if (frame_w < 32 || frame_h < 32 || tile_w < 32 || tile_h < 32 || margin < 0 || frame_w % 32 ||
      frame_h % 32 || tile_w % 32 || tile_h % 32)
    fail(StatusCode::kInvalidArgument, "det_tiles: frame and tile sides must be multiples of 32");
  std::vector<int> xs, cx, ys, cy;
  axis_tiles(frame_w, tile_w, margin, &xs, &cx);
  axis_tiles(frame_h, tile_h, margin, &ys, &cy);
  std::vector<DetTile> out;
  for (std::size_t j = 0; j < ys.size(); ++j)
    for (std::size_t i = 0; i < xs.size(); ++i) {
      DetTile t;
      t.x = xs[i];
      t.y = ys[j];
      t.w = std::min(tile_w, frame_w);
      t.h = std::min(tile_h, frame_h);
      t.cx0 = cx[i];
      t.cx1 = cx[i + 1];
      t.cy0 = cy[j];
      t.cy1 = cy[j + 1];
      out.push_back(t);
    }
  return out;
}

namespace {

// The side of n tiles along a frame axis: together they cover the frame and n - 1 overlaps of
// 2 * kDetTileMargin (a multiple of 32, at most the frame).
int tile_side(int frame, int n) {
  if (n <= 1) return frame;
  const long long need = frame + 2LL * kDetTileMargin * (n - 1);
  const long long side = ((need + n - 1) / n + 31) / 32 * 32;
  return static_cast<int>(std::min<long long>(frame, side));
}

}  // namespace

std::vector<DetTile> det_tile_grid(int frame_w, int frame_h, double max_tile_px) {
  if (static_cast<double>(frame_w) * frame_h <= max_tile_px)
    return det_tiles(frame_w, frame_h, frame_w, frame_h, kDetTileMargin);
  std::vector<DetTile> best;
  double best_total = 0;
  for (int nx = 1; nx <= frame_w / 32; ++nx) {
    const int tw = tile_side(frame_w, nx);
    if (tw < std::min(frame_w, kMinDetTile)) break;
    for (int ny = 1; ny <= frame_h / 32; ++ny) {
      const int th = tile_side(frame_h, ny);
      if (th < std::min(frame_h, kMinDetTile)) break;
      if (static_cast<double>(tw) * th > max_tile_px) continue;
      auto tiles = det_tiles(frame_w, frame_h, tw, th, kDetTileMargin);
      const double total = static_cast<double>(tiles.size()) * tw * th;
      if (best.empty() || total < best_total) {
        best = std::move(tiles);
        best_total = total;
      }
      break;  // more rows only add pixels
    }
  }
  return best;
}

CallPlan plan_call(const PipelineConfig& c, const MemoryProfile& p, bool has_det, bool has_cls,
                   bool has_rec, int width, int height, std::size_t image_bytes,
                   std::size_t budget_bytes) {
  CallPlan plan;
  plan.image_bytes = image_bytes;
  const double budget = static_cast<double>(budget_bytes);
  const double fixed =
      static_cast<double>(image_bytes) + static_cast<double>(p.call_overhead_bytes);
  const double avail = budget - fixed;
  auto refuse = [&](const std::string& what, double need) {
    fail(StatusCode::kOutOfMemory,
         "memory budget of " + std::to_string(budget_bytes >> 20) + " MiB is too small for a " +
             std::to_string(width) + "x" + std::to_string(height) + " image: " + what + " needs " +
             std::to_string(static_cast<long long>(std::ceil((fixed + need) / (1 << 20)))) +
             " MiB even with its smallest plan (decoded pixels " +
             std::to_string(image_bytes >> 20) +
             " MiB); raise max_memory_mb or pass a smaller image");
  };

  // Recognition: the smallest plan reads one line at the narrowest width.
  const int H = c.rec_height;
  const double rec_px_bytes = 3 * kFloat + p.rec_bytes_per_pixel;
  double rec_need = 0;
  if (has_rec) {
    const double one_line = rec_px_bytes * H * c.rec_width_buckets.front();
    if (one_line > avail) refuse("recognising one line", one_line);
    // What a call holds for rec (when it fits): a full batch at 640 columns, or one line at the
    // widest bucket. Batches that need more are split, then squeezed (rec_batch_within).
    rec_need = std::min(
        avail, rec_px_bytes * H *
                   std::max(640.0 * c.rec_batch, static_cast<double>(c.rec_width_buckets.back())));
  }
  double cls_need = 0;
  if (has_cls && c.use_cls) {
    const double one = cls_run_bytes(p, static_cast<double>(c.cls_height) * c.cls_width);
    if (one > avail) refuse("classifying one line", one);
    plan.cls_batch = std::max(1, std::min(c.cls_batch, static_cast<int>(avail / one)));
    cls_need = one * plan.cls_batch;
  }

  // Detection: the config's frame in one run; else in tiles; else a smaller frame in tiles.
  double det_need = 0;
  if (has_det) {
    int w = 0, h = 0;
    det_target_size(width, height, c.det_resize, &w, &h);
    plan.det_w = w;
    plan.det_h = h;
    const double per_px = 3 * kFloat + kFloat + p.det_bytes_per_pixel;
    const double whole = per_px * w * h;
    if (whole <= avail) {
      det_need = whole;
    } else {
      for (double scale = 1.0;; scale *= 0.85) {
        if (scale < 1.0) {
          w = down32(plan.det_w * scale);
          h = down32(plan.det_h * scale);
          plan.det_scaled = true;
        }
        const double stitched = kFloat * w * h;  // the whole frame's probability map
        auto tiles = det_tile_grid(w, h, (avail - stitched) / per_px);
        if (!tiles.empty()) {
          plan.det_w = w;
          plan.det_h = h;
          det_need = stitched + per_px * tiles[0].w * tiles[0].h;
          plan.tiles = std::move(tiles);
          break;
        }
        if (std::max(w, h) <= kMinDetSide)
          refuse("detection",
                 stitched + per_px * std::min(w, kMinDetTile) * std::min(h, kMinDetTile));
      }
    }
  }
  const double need = fixed + std::max({det_need, cls_need, rec_need});
  plan.reserve_bytes = std::min(budget_bytes, static_cast<std::size_t>(std::ceil(need)));
  if (has_rec) {
    // Rec batches may use all the call holds.
    const double px_cap = (static_cast<double>(plan.reserve_bytes) - fixed) / rec_px_bytes;
    plan.rec_max_pixels = static_cast<std::size_t>(std::max(0.0, px_cap));
    plan.rec_max_width = c.rec_width_buckets.front();
    for (int bw : c.rec_width_buckets)
      if (static_cast<double>(H) * bw <= px_cap) plan.rec_max_width = bw;
  }
  return plan;
}

void rec_batch_within(const CallPlan& plan, int height, int* n, int* W) {
  auto px = [&] { return static_cast<std::size_t>(*n) * height * *W; };
  while (*n > 1 && px() > plan.rec_max_pixels) --*n;
  if (plan.rec_max_width > 0 && *W > plan.rec_max_width) *W = plan.rec_max_width;
}

// ---- the pipeline's budget hooks -------------------------------------------------------------

void Pipeline::set_memory_budget(std::shared_ptr<MemoryBudget> budget, MemoryProfile profile) {
  if (!(profile.det_bytes_per_pixel >= 0) || !(profile.cls_bytes_per_pixel >= 0) ||
      !(profile.rec_bytes_per_pixel >= 0))
    fail(StatusCode::kInvalidArgument, "memory profile: bytes per pixel must be >= 0");
  budget_ = std::move(budget);
  profile_ = profile;
}

CallPlan Pipeline::plan(int width, int height, std::size_t image_bytes) const {
  if (!budget_) fail(StatusCode::kInvalidArgument, "this pipeline has no memory budget");
  if (width <= 0 || height <= 0)
    fail(StatusCode::kInvalidArgument, "image size must be positive, got " + std::to_string(width) +
                                           "x" + std::to_string(height));
  return plan_call(config_, profile_, det_ != nullptr, cls_ != nullptr, rec_ != nullptr, width,
                   height, image_bytes, budget_->total());
}

Pipeline::BudgetedCall Pipeline::admit(int width, int height, std::size_t image_bytes) const {
  BudgetedCall call;
  call.plan = plan(width, height, image_bytes);
  call.reservation = budget_->reserve(call.plan.reserve_bytes);
  return call;
}

// ---- tiled detection -------------------------------------------------------------------------

void run_det_tiles(const Model& det, MemoryPool& pool, const ImageView& image, const CallPlan& plan,
                   const NormalizeParams& norm, float* map, double* model_seconds,
                   float sharpen_sigma, float sharpen_amount) {
  const int fw = plan.det_w;
  for (const DetTile& t : plan.tiles) {
    PoolBlock buf = pool.acquire(sizeof(float) * 3 * static_cast<std::size_t>(t.w) * t.h);
    det_preprocess_window(image, plan.det_w, plan.det_h, t.x, t.y, t.w, t.h, norm,
                          static_cast<float*>(buf.data()));
    if (sharpen_amount > 0.f) {
      float lo[3], hi[3];
      for (int c = 0; c < 3; ++c) {
        lo[c] = -norm.mean[c] / norm.std[c];
        hi[c] = (1.f - norm.mean[c]) / norm.std[c];
      }
      unsharp_planes(static_cast<float*>(buf.data()), 3, t.w, t.h, sharpen_sigma, sharpen_amount,
                     lo, hi);
    }
    TensorView in{buf.data(), DType::kFloat32, {1, 3, t.h, t.w}};
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<Tensor> out = det.run({in});
    *model_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    buf.reset();
    const DetMap m = checked_det_output(det, out, 1);
    if (m.height != t.h || m.width != t.w)
      fail(StatusCode::kInvalidModel, det.name() +
                                          ": a det run in tiles needs a map of the input's size (" +
                                          std::to_string(t.h) + "x" + std::to_string(t.w) +
                                          "), got " + shape_str(out[0].shape));
    const float* src = m.data;
    for (int y = t.cy0; y < t.cy1; ++y)
      std::memcpy(map + static_cast<std::size_t>(y) * fw + t.cx0,
                  src + static_cast<std::size_t>(y - t.y) * t.w + (t.cx0 - t.x),
                  sizeof(float) * (t.cx1 - t.cx0));
  }
}

}  // namespace edgeocr
