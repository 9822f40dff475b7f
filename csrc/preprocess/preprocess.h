// Fused preprocessing kernels: source pixels -> normalised planar float model input in one pass.
//
// All functions are thread-safe (per-call scratch is thread_local) and throw edgeocr::Error
// with StatusCode::kInvalidArgument on bad arguments. None takes ownership of anything.
#pragma once

#include <cstdint>

#include "edgeocr/image.h"
#include "edgeocr/stage_params.h"  // NormalizeParams, DetResizeParams

namespace edgeocr {

// PaddleOCR DetResizeForTest (limit type 0). The ratio comes from the limit type (kMax: shrink so
// the long side <= limit_side_len; kMin: enlarge so the short side >= limit_side_len), at most
// max_upscale (>= 1; PaddleOCR has no such cap), then the long side is capped at max_side_len, then
// each side is rounded to a multiple of 32 (at least 32). Rounding is half-to-even, as Python's
// round() that PaddleOCR uses; when a max_upscale above 1 capped the enlargement (and
// max_side_len did not shrink it) each side is rounded up instead, within max_side_len, so the
// rounding never undoes the enlargement of a strip.
void det_target_size(int src_w, int src_h, const DetResizeParams& p, int* out_w, int* out_h);

// Bilinear resize of src to out_w x out_h (pixel-centre aligned like OpenCV INTER_LINEAR:
// sx = (x + 0.5) * src_w / out_w - 0.5, clamped to [0, src_w - 1]), normalise, and write planar
// CHW float32 into dst (3 * out_h * out_w floats). Gray is replicated to 3 channels. Pixels
// are read as the view says (ImageView: alpha composited onto src.matte when >= 0, else
// ignored; levels src.black..src.white stretched to 0..255), each tap before interpolation.
// Steady-state calls do not allocate (grow-only thread_local scratch).
void det_preprocess(const ImageView& src, int out_w, int out_h, const NormalizeParams& norm,
                    float* dst);

// The window [x0, x0 + win_w) x [y0, y0 + win_h) of det_preprocess's frame_w x frame_h output,
// each pixel sampled exactly as det_preprocess samples it (for det runs in tiles). dst holds
// 3 * win_h * win_w floats.
void det_preprocess_window(const ImageView& src, int frame_w, int frame_h, int x0, int y0,
                           int win_w, int win_h, const NormalizeParams& norm, float* dst);

// Size of the rectified crop of q as PaddleOCR computes it:
// w = int(max(|tl - tr|, |bl - br|)), h = int(max(|tl - bl|, |tr - br|)), each at least 1.
void crop_size(const Quad& q, int* w, int* h);

// The source point crop_preprocess samples at the fraction (u, v) of the crop's width and height:
// (0,0), (1,0), (1,1), (0,1) are q.p[0..3], and the sides map by the same homography, so a
// column u of a crop of q lies on the segment quad_point(q, u, 0) - quad_point(q, u, 1). Throws
// Error(kInvalidArgument) for a quad with non-finite or collinear corners.
Point2f quad_point(const Quad& q, double u, double v);

// Perspective crop + resize + normalise + pad in one pass. With (crop_w, crop_h) = crop_size(q),
// output pixel (u, v) samples the rectified crop at
//   cx = clamp((u + 0.5) * crop_w / out_w - 0.5, 0, crop_w - 1),
//   cy = clamp((v + 0.5) * crop_h / out_h - 0.5, 0, crop_h - 1),
// which the homography taking (0,0), (crop_w,0), (crop_w,crop_h), (0,crop_h) to q.p[0..3] maps to
// a source point (as cv2.warpPerspective does with the inverse of
// getPerspectiveTransform(q, rect));
// the source is sampled bilinearly with replicated border. The clamp reproduces what resizing a
// materialised crop would do at its edges. Writes planar CHW with row pitch dst_w floats
// (dst_w >= out_w) and plane size out_h * dst_w; columns [out_w, dst_w) get pad_value.
// To get the crop rotated by 90 degrees, pass q with its corners rotated.
// Pixels are read as in det_preprocess (matte, levels).
void crop_preprocess(const ImageView& src, const Quad& q, int out_w, int out_h, int dst_w,
                     const NormalizeParams& norm, float pad_value, float* dst);

// Table-structure model input (SLANet: rapid_table's ResizeTableImage + NormalizeImage +
// PaddingTableImage). The size a w x h crop is resized to: the long side becomes `side`, the
// other side * side / long side, truncated (as rapid_table's int()), at least 1. All > 0.
void table_input_size(int w, int h, int side, int* out_w, int* out_h);

// Crop + resize + normalise + pad in one pass: the pixels [x, x + w) x [y, y + h) of src (the
// rectangle inside src) are resized to (out_w, out_h) = table_input_size(w, h, side) with
// det_preprocess's sampling applied to that crop (sx = x + clamp((u + 0.5) * w / out_w - 0.5,
// 0, w - 1), likewise sy; bilinear between the crop's pixels, as cv2.resize INTER_LINEAR of
// the cropped array), normalised, and written at the top-left of a side x side planar CHW
// frame (3 * side * side floats) whose other pixels are pad_value. Pixels are read as in
// det_preprocess (matte, levels).
void table_preprocess(const ImageView& src, int x, int y, int w, int h, int side,
                      const NormalizeParams& norm, float pad_value, float* dst);

// Darkness map of a region for the table grid method's ruled-line search: the pixels
// [x, x + w) x [y, y + h) of src (inside src) in cells of cell x cell source pixels (the last
// row and column of cells may be smaller), map value = the lowest luminance of the cell's
// pixels (so a 1-pixel rule survives a coarse cell), read as the view says (matte; levels
// stretched and clamped to 0..255). dst holds ceil(w / cell) * ceil(h / cell) bytes, row-major.
void luminance_min_map(const ImageView& src, int x, int y, int w, int h, int cell,
                       std::uint8_t* dst);

// Page statistics, from a grid of at most ~65536 pixels spread evenly over the image (so a call
// costs well under a millisecond whatever the image size). Luminance is (77 R + 150 G + 29 B) /
// 256.

// The grey level to composite the transparent pixels of an alpha image onto, decided from the
// opaque pixels (alpha >= 128). When most of the image is transparent, the opaque pixels are the
// ink: the matte contrasts with them (255 under dark ink, 0 under light ink). When most of it is
// opaque, the opaque pixels hold the page's own background: the matte is their median, so
// transparent margins read as more page. 255 when the image has no opaque pixel.
int choose_matte(const ImageView& src);

// The luminance levels below which `low_share` and above which `high_share` of the pixels lie,
// read as the view says (matte, but not the view's levels). 0 <= low_share < 1 - high_share.
void luminance_range(const ImageView& src, double low_share, double high_share, int* lo, int* hi);

// How sharp the page's edges are: on the luminance grid (at most 65536 samples, as
// luminance_range), the luminance step from each sample to its neighbours `d` pixels to the right
// and below (the larger), over the samples whose level lies in the middle half of [lo, hi] and
// whose step is at least (hi - lo) / 16 (an edge, not flat paper or ink); the median step divided
// by hi - lo. Printed text read at its own resolution: about 0.2 to 0.5; a page blurred over
// several pixels: below 0.15. 1 when hi - lo < 16 or fewer than 64 samples are edges (nothing to
// judge). Read as the view says (matte, but not the view's levels).
double edge_sharpness(const ImageView& src, int lo, int hi, int d);

// Unsharp mask in place on `planes` float planes of width x height (CHW):
// x + amount * (x - gaussian(x, sigma)), borders replicated, each plane clamped to [lo[c], hi[c]].
// Memory: 2 * ceil(3 * sigma) + 1 rows of scratch, whatever the plane's height.
void unsharp_planes(float* data, int planes, int width, int height, float sigma, float amount,
                    const float* lo, const float* hi);

}  // namespace edgeocr
