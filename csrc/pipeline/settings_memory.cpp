// The memory a pipeline's settings imply per call, and the validation of a whole config against it
// (see edgeocr/settings.h).
#include <algorithm>
#include <cstdio>
#include <string>

#include "edgeocr/settings.h"
#include "edgeocr/status.h"

namespace edgeocr {
namespace {

std::uint64_t round_up32(std::uint64_t v) {
  return (v + 31) / 32 * 32;
}

// What ONNX Runtime itself holds per det input pixel while the det model runs
// (activations, on top of edgeocr's 16 bytes of input and map): peak RSS grew
// by 187 and 192 bytes per pixel for 1024 and 2048 px square inputs of the
// PP-OCRv4 mobile det model (CPU, one shared arena), less the 16 counted.
constexpr std::uint64_t kDetRuntimeBytesPerPixel = 176;

std::string mib(std::uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return b;
}

}  // namespace

SettingsMemory settings_memory(const PipelineConfig& c, std::int64_t rec_classes) {
  // Every size below is range-checked first (at most 8192 px, 256 per batch,
  // 16384 px wide), so these products fit in 64 bits.
  SettingsMemory m;
  const auto& r = c.det_resize;
  const std::uint64_t side = round_up32(static_cast<std::uint64_t>(
      std::max(32, r.limit_type == DetLimitType::kMax ? std::min(r.limit_side_len, r.max_side_len)
                                                      : r.max_side_len)));
  // One det run reads the whole frame, or a tile of at most det_tile_pixels (at least 192 x 192)
  // while the frame's probability map is stitched.
  const std::uint64_t frame = side * side;
  std::uint64_t run = frame;
  if (c.det_tile_pixels > 0)
    run = std::min<std::uint64_t>(
        frame, std::max<std::uint64_t>(static_cast<std::uint64_t>(c.det_tile_pixels), 192 * 192));
  m.det = frame * sizeof(float) + run * (3 * sizeof(float) + kDetRuntimeBytesPerPixel);
  m.det_side = static_cast<int>(side);
  m.cls = static_cast<std::uint64_t>(c.cls_batch) *
          (3 * static_cast<std::uint64_t>(c.cls_height) * c.cls_width + 2) * sizeof(float);
  int narrowest = 0;
  if (!c.rec_width_buckets.empty())
    narrowest = *std::min_element(c.rec_width_buckets.begin(), c.rec_width_buckets.end());
  auto rec_at = [&](int width) {
    const std::uint64_t w = static_cast<std::uint64_t>(std::max(width, 0));
    const std::uint64_t classes = rec_classes > 0 ? static_cast<std::uint64_t>(rec_classes) : 0;
    return (3 * static_cast<std::uint64_t>(c.rec_height) * w + (w + 7) / 8 * classes) *
           sizeof(float);
  };
  // Lines per run at a width: rec_batch, fewer when rec_batch_columns caps the run.
  auto per_run = [&](int width) -> std::uint64_t {
    if (c.rec_batch_columns <= 0 || width <= 0) return static_cast<std::uint64_t>(c.rec_batch);
    return static_cast<std::uint64_t>(std::clamp(c.rec_batch_columns / width, 1, c.rec_batch));
  };
  m.cls_line = (3 * static_cast<std::uint64_t>(c.cls_height) * c.cls_width + 2) * sizeof(float);
  m.rec_line =
      3 * static_cast<std::uint64_t>(c.rec_height) * std::max(narrowest, 0) * sizeof(float);
  m.rec = 0;
  for (int w : c.rec_width_buckets) m.rec = std::max(m.rec, per_run(w) * rec_at(w));
  m.rec_min = per_run(narrowest) * rec_at(narrowest);
  return m;
}

void validate_config(const PipelineConfig& config, std::uint64_t cap_bytes,
                     std::int64_t rec_classes) {
  for (const SettingInfo& s : settings_table()) check_setting(s, s.get(config));
  const SettingsMemory m = settings_memory(config, rec_classes);
  const std::uint64_t worst_cap = std::max(cap_bytes, kDefaultSettingsMemoryCap);
  const char* worst_why = cap_bytes > kDefaultSettingsMemoryCap
                              ? "max_memory_mb"
                              : "the settings' memory limit (raise it with max_memory_mb)";
  auto refuse = [&](const std::string& what, std::uint64_t need, std::uint64_t cap,
                    const char* why) {
    fail(StatusCode::kInvalidArgument, what + " need " + mib(need) +
                                           " of tensors per call, more than " + mib(cap) + " (" +
                                           why + ")");
  };
  if (m.det > worst_cap)
    refuse("det_limit_type/det_limit_side_len/det_max_side_len allow det inputs up to " +
               std::to_string(m.det_side) + " px square, which",
           m.det, worst_cap, worst_why);
  if (m.cls > worst_cap) refuse("cls_batch x cls_height x cls_width", m.cls, worst_cap, worst_why);
  if (m.rec > worst_cap)
    refuse("rec_batch (within rec_batch_columns) x rec_height x rec_width_buckets", m.rec,
           worst_cap, worst_why);
  if (cap_bytes > 0) {
    // What every call of a stage needs, whatever the image: the input of one line. Under a budget
    // the planner runs batches down to one line and counts that input, the model's activations
    // and a call overhead on top, so this check is never stricter than the planner.
    if (config.use_cls && m.cls_line > cap_bytes)
      refuse("one line of cls_height x cls_width", m.cls_line, cap_bytes, "max_memory_mb");
    if (m.rec_line > cap_bytes)
      refuse("one line of rec_height x the narrowest of rec_width_buckets", m.rec_line, cap_bytes,
             "max_memory_mb");
  }
}

}  // namespace edgeocr
