// A memory budget for a pipeline: every call plans its det size / det tiles, cls batch and rec
// batches so that what it allocates (decoded pixels, pooled tensors, ONNX Runtime's activations)
// fits, reserves that much of the budget before it runs (waiting while other calls hold it), and
// gives it back when it returns.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "edgeocr/image.h"
#include "edgeocr/memory_pool.h"
#include "edgeocr/model.h"
#include "edgeocr/stage_params.h"

namespace edgeocr {

struct PipelineConfig;

// Bytes a model needs while it runs, per pixel of its input: ONNX Runtime's activations and
// outputs on the shared arena shrunk after each run (SessionOptions::shrink_arena), and the
// pooled copy of the outputs. Measured (docs/memory-budget.md, `edgeocr bench --memory`):
// PP-OCRv4 mobile det 174-178, rec 478-489; PP-OCRv6 small det 220-223, rec 645-649; cls v2.0
// 209. The defaults cover both model sets.
struct MemoryProfile {
  double det_bytes_per_pixel = 235;
  double cls_bytes_per_pixel = 220;
  double rec_bytes_per_pixel = 690;
  // The layout model (DocumentParser), per pixel of its input: PicoDet CDLA at 800 x 608 grew
  // ONNX Runtime's arena by 72 MiB in one run (~150 bytes per pixel).
  double layout_bytes_per_pixel = 170;
  // The table model, per pixel of its side x side input: SLANet-plus at 488 x 488 grew the
  // process by 38 and 58 MiB over its first two runs (167-245 bytes per pixel).
  double table_bytes_per_pixel = 260;
  // Per call, outside the tensors: result vectors, DB workspace, per-thread scratch, ORT's own
  // bookkeeping for a run.
  std::size_t call_overhead_bytes = std::size_t{6} << 20;
};

// Thread-safe. A reservation waits (first come, first served) until the bytes it asks for are
// free; it never fails for lack of memory held by others, only when it asks for more than the
// whole budget. Calls hold one reservation each and never wait while holding one, so waiting
// cannot deadlock.
class MemoryBudget : public std::enable_shared_from_this<MemoryBudget> {
 public:
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& o) noexcept { *this = std::move(o); }
    Reservation& operator=(Reservation&& o) noexcept;
    Reservation(const Reservation&) = delete;
    Reservation& operator=(const Reservation&) = delete;
    ~Reservation() { release(); }
    std::size_t bytes() const { return bytes_; }
    void release();

   private:
    friend class MemoryBudget;
    std::shared_ptr<MemoryBudget> budget_;
    std::size_t bytes_ = 0;
  };

  // total_bytes > 0.
  static std::shared_ptr<MemoryBudget> create(std::size_t total_bytes);

  std::size_t total() const { return total_; }
  // Blocks until `bytes` are free. Throws OutOfMemory when bytes > total().
  Reservation reserve(std::size_t bytes);
  std::size_t in_use() const;
  std::size_t peak_in_use() const;  // over the budget's life
  std::uint64_t waits() const;      // reservations that had to wait

 private:
  explicit MemoryBudget(std::size_t total) : total_(total) {}
  void give_back(std::size_t bytes);

  const std::size_t total_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::size_t in_use_ = 0, peak_ = 0;
  std::uint64_t next_ticket_ = 0, serving_ = 0, waits_ = 0;
};

// One det run on part of the det frame: the tile [x, x + w) x [y, y + h) of the frame is run
// through the model, and its probability map is kept for the core [cx0, cx1) x [cy0, cy1)
// (tiles overlap; each frame pixel belongs to exactly one core).
struct DetTile {
  int x = 0, y = 0, w = 0, h = 0;
  int cx0 = 0, cy0 = 0, cx1 = 0, cy1 = 0;
};

// How one call runs within its share of the budget.
struct CallPlan {
  int det_w = 0, det_h = 0;        // the det frame (the model input size when not tiled)
  bool det_scaled = false;         // smaller than the config's det size (budget too small to tile)
  std::vector<DetTile> tiles;      // empty: one det run on the whole frame
  int cls_batch = 0;               // at most the config's
  std::size_t rec_max_pixels = 0;  // n * height * width of one rec batch at most
  int rec_max_width = 0;           // widest rec input; wider lines are squeezed
  std::size_t image_bytes = 0;     // decoded pixels counted in this call
  std::size_t reserve_bytes = 0;   // what the call reserves of the budget
};

// The plan for an image of width x height whose decoded pixels (image_bytes, 0 when the caller
// owns them) count against the budget. Throws OutOfMemory, naming the budget and what the
// smallest plan needs, when even the smallest plan does not fit.
CallPlan plan_call(const PipelineConfig& config, const MemoryProfile& profile, bool has_det,
                   bool has_cls, bool has_rec, int width, int height, std::size_t image_bytes,
                   std::size_t budget_bytes);

// Tile layout of a frame_w x frame_h det frame in tiles of at most tile_w x tile_h (multiples of
// 32) overlapping by at least 2 * margin. Exposed for tests.
std::vector<DetTile> det_tiles(int frame_w, int frame_h, int tile_w, int tile_h, int margin);

// Det frame pixels of context on each side of a tile's core, and the smallest tile side.
constexpr int kDetTileMargin = 64;
constexpr int kMinDetTile = 192;

// The tiles of the grid whose tiles have at most max_tile_px pixels each (with kDetTileMargin of
// context beside every core, as det_tiles) and which runs the fewest pixels in all: the whole
// frame as one tile when it fits; empty when even tiles of kMinDetTile (or the frame's side, when
// smaller) do not fit.
std::vector<DetTile> det_tile_grid(int frame_w, int frame_h, double max_tile_px);

// Shrinks a rec batch of *n crops padded to width *W to the plan: fewer crops at the same width
// first, then a narrower input (wider lines are squeezed) when one crop alone does not fit.
void rec_batch_within(const CallPlan& plan, int height, int* n, int* W);

// Runs `det` on each of plan.tiles (inputs sampled from `image` as det_preprocess_window does)
// and writes each tile's core into `map` (plan.det_h x plan.det_w floats). Adds the time spent
// in the model to *model_seconds. sharpen_amount > 0: each tile's input is unsharp-masked
// (unsharp_planes, sigma sharpen_sigma) before the run.
void run_det_tiles(const Model& det, MemoryPool& pool, const ImageView& image, const CallPlan& plan,
                   const NormalizeParams& norm, float* map, double* model_seconds,
                   float sharpen_sigma = 0.f, float sharpen_amount = 0.f);

}  // namespace edgeocr
