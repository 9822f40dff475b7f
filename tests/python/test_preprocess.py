"""The fused preprocessing kernels (edgeocr._core.kernels) against OpenCV + numpy.

Tolerances are in grey levels (0..255 before normalisation):

* det_preprocess vs cv2.resize(INTER_LINEAR): OpenCV's uint8 path uses 11-bit fixed-point
  weights and rounds its result to uint8; the kernel interpolates in float and does not round.
  Max difference <= 1.0 grey level (measured about 0.8).
* crop_preprocess vs cv2.warpPerspective(INTER_LINEAR, BORDER_REPLICATE) to the crop size, then
  cv2.resize: the two-step pipeline quantises sub-pixel positions to 1/32, rounds the warped crop
  to uint8 and interpolates twice (an interpolation of interpolations), the kernel samples the
  source once. On smooth images: mean abs difference <= 0.6, max <= 4 grey levels (measured
  about 0.39 and 2.7). On an
  axis-aligned integer quad the warp is an exact copy, so the max difference is <= 1.0.
"""

import math

import cv2
import numpy as np
import pytest

from edgeocr import InvalidInputError
from edgeocr._core import kernels

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


def normalise_chw(img_hwc, mean, std):
    x = img_hwc.astype(np.float32) / 255.0
    x = (x - np.asarray(mean, np.float32)) / np.asarray(std, np.float32)
    return x.transpose(2, 0, 1)


def grey_levels(diff_normalised, std):
    """Express a difference of normalised values in grey levels, per channel."""
    return np.abs(diff_normalised) * (255.0 * np.asarray(std, np.float32)[:, None, None])


def as_bgr(img):
    if img.ndim == 2:
        return np.repeat(img[:, :, None], 3, axis=2)
    return img[:, :, :3]


def random_image(rng, h, w, channels):
    shape = (h, w) if channels == 1 else (h, w, channels)
    return rng.integers(0, 256, size=shape, dtype=np.uint8)


def smooth_image(rng, h, w):
    """Random BGR image without pixel-level noise, so that resampling twice stays close to once."""
    small = rng.integers(0, 256, size=(max(2, h // 12), max(2, w // 12), 3), dtype=np.uint8)
    return cv2.GaussianBlur(cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC), (5, 5), 0)


@pytest.mark.parametrize(
    ("src_w", "src_h", "out_w", "out_h"),
    [
        (1240, 1675, 960, 1312),
        (333, 129, 161, 417),
        (640, 480, 96, 64),
        (7, 5, 320, 224),
        (1, 40, 32, 32),
        (50, 1, 64, 32),
    ],
)
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_det_matches_cv2_resize(src_w, src_h, out_w, out_h, channels):
    rng = np.random.default_rng(src_w * 31 + src_h + channels)
    img = random_image(rng, src_h, src_w, channels)
    got = kernels.det_preprocess(img, out_w, out_h, mean=IMAGENET_MEAN, std=IMAGENET_STD)
    assert got.dtype == np.float32 and got.shape == (3, out_h, out_w)
    resized = cv2.resize(img, (out_w, out_h), interpolation=cv2.INTER_LINEAR)
    want = normalise_chw(as_bgr(resized), IMAGENET_MEAN, IMAGENET_STD)
    assert grey_levels(got - want, IMAGENET_STD).max() <= 1.0


def test_det_to_rgb_swaps_channels():
    rng = np.random.default_rng(3)
    img = random_image(rng, 45, 67, 3)
    got = kernels.det_preprocess(img, 32, 64, mean=IMAGENET_MEAN, std=IMAGENET_STD, to_rgb=True)
    rgb = cv2.cvtColor(cv2.resize(img, (32, 64), interpolation=cv2.INTER_LINEAR), cv2.COLOR_BGR2RGB)
    want = normalise_chw(rgb, IMAGENET_MEAN, IMAGENET_STD)
    assert grey_levels(got - want, IMAGENET_STD).max() <= 1.0


@pytest.mark.parametrize(
    "view",
    [
        lambda a: a[3:40:2, 5:-3],
        lambda a: a[:, ::-1],
        lambda a: a[::-1],
        lambda a: a[..., ::-1],
        lambda a: np.asfortranarray(a),
        lambda a: a[:1],
        lambda a: a[:, :1],
    ],
    ids=["row_step", "flip_x", "flip_y", "flip_channels", "fortran", "one_row", "one_column"],
)
def test_det_reads_any_strided_view(view):
    rng = np.random.default_rng(4)
    v = view(random_image(rng, 50, 60, 3))
    got = kernels.det_preprocess(v, 40, 24)
    want = kernels.det_preprocess(np.ascontiguousarray(v), 40, 24)
    np.testing.assert_array_equal(got, want)


def paddle_det_target_size(w, h, limit_type, limit_side_len, max_side_limit):
    """PaddleOCR DetResizeForTest.resize_image_type0, transcribed."""
    if limit_type == "max":
        ratio = float(limit_side_len) / max(h, w) if max(h, w) > limit_side_len else 1.0
    else:
        ratio = float(limit_side_len) / min(h, w) if min(h, w) < limit_side_len else 1.0
    resize_h, resize_w = int(h * ratio), int(w * ratio)
    if max(resize_h, resize_w) > max_side_limit:
        ratio = float(max_side_limit) / max(resize_h, resize_w)
        resize_h, resize_w = int(resize_h * ratio), int(resize_w * ratio)
    resize_h = max(int(round(resize_h / 32) * 32), 32)
    resize_w = max(int(round(resize_w / 32) * 32), 32)
    return resize_w, resize_h


def test_det_target_size_matches_paddleocr():
    rng = np.random.default_rng(5)
    cases = [(1240, 1675), (80, 48), (1, 1), (100, 10), (8000, 6000)]
    cases += [tuple(int(v) for v in rng.integers(1, 5000, size=2)) for _ in range(500)]
    for w, h in cases:
        for limit_type, limit in (("max", 960), ("min", 736), ("max", 1280), ("min", 32)):
            got = kernels.det_target_size(w, h, limit_type, limit, 4000)
            assert got == paddle_det_target_size(w, h, limit_type, limit, 4000), (w, h, limit_type)


def test_det_max_upscale_caps_only_the_enlargement():
    rng = np.random.default_rng(6)
    cases = [(720, 268), (100, 36), (1, 1), (2000, 100), (1240, 1675)]
    cases += [tuple(int(v) for v in rng.integers(1, 3000, size=2)) for _ in range(300)]
    for w, h in cases:
        for cap in (1.0, 1.5, 2.0, 1000.0):
            got = kernels.det_target_size(w, h, "min", 736, 2000, cap)
            capped = min(w, h) < 736 and 736 / min(w, h) > cap > 1
            ratio = min(736 / min(w, h), cap) if min(w, h) < 736 else 1.0
            rw, rh = int(w * ratio), int(h * ratio)
            if max(rw, rh) > 2000:
                s = 2000 / max(rw, rh)
                rw, rh = int(rw * s), int(rh * s)
                capped = False

            def side(v, capped=capped):
                # A capped enlargement is rounded up (within the long-side cap), else to nearest.
                up = max(-(-v // 32) * 32, 32)
                return up if capped and up <= 2000 else max(round(v / 32) * 32, 32)

            assert got == (side(rw), side(rh)), (w, h, cap)
            # A cap never shrinks and never changes a 'max' rule, which does not enlarge.
            assert kernels.det_target_size(w, h, "max", 960, 4000, cap) == kernels.det_target_size(
                w, h, "max", 960, 4000
            )
    with pytest.raises(InvalidInputError, match="max_upscale"):
        kernels.det_target_size(100, 100, "min", 736, 2000, 0.5)
    # A 300 x 27 strip at 1.5x: 450 x 40 rounded up to 480 x 64 (to the nearest, 448 x 32 would
    # read it at 1.19x high); uncapped, PaddleOCR's rounding.
    assert kernels.det_target_size(300, 27, "min", 736, 2000, 1.5) == (480, 64)
    assert kernels.det_target_size(300, 27, "min", 32, 2000, 1.5) == (352, 32)


def crop_size(quad):
    w = int(max(np.linalg.norm(quad[0] - quad[1]), np.linalg.norm(quad[2] - quad[3])))
    h = int(max(np.linalg.norm(quad[0] - quad[3]), np.linalg.norm(quad[1] - quad[2])))
    return max(w, 1), max(h, 1)


def cv2_crop(img, quad, out_w, out_h, mean, std):
    """PaddleOCR get_rotate_crop_image with INTER_LINEAR, then a resize to the output size."""
    cw, ch = crop_size(quad)
    rect = np.float32([[0, 0], [cw, 0], [cw, ch], [0, ch]])
    m = cv2.getPerspectiveTransform(quad, rect)
    crop = cv2.warpPerspective(
        img, m, (cw, ch), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    resized = cv2.resize(crop, (out_w, out_h), interpolation=cv2.INTER_LINEAR)
    return normalise_chw(resized, mean, std)


def rotated_quad(cx, cy, w, h, degrees, jitter, rng):
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    local = np.float32([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    pts = local @ np.float32([[c, s], [-s, c]]) + np.float32([cx, cy])
    return (pts + rng.uniform(-jitter, jitter, size=(4, 2))).astype(np.float32)


@pytest.mark.parametrize(
    ("degrees", "jitter", "out_w"),
    [(0, 0, 320), (7, 0, 320), (-20, 0, 200), (90, 0, 100), (3, 4, 320), (-12, 6, 160)],
)
def test_crop_matches_cv2_warp_then_resize(degrees, jitter, out_w):
    rng = np.random.default_rng(abs(degrees) * 10 + jitter)
    img = smooth_image(rng, 300, 400)
    quad = rotated_quad(200, 150, 260, 40, degrees, jitter, rng)
    got = kernels.crop_preprocess(img, quad, out_w, 48, out_w, mean=IMAGENET_MEAN, std=IMAGENET_STD)
    assert got.dtype == np.float32 and got.shape == (3, 48, out_w)
    diff = grey_levels(
        got - cv2_crop(img, quad, out_w, 48, IMAGENET_MEAN, IMAGENET_STD), IMAGENET_STD
    )
    assert diff.mean() <= 0.6
    assert diff.max() <= 4.0


def test_crop_of_integer_axis_aligned_quad_is_exact_resize():
    rng = np.random.default_rng(6)
    img = random_image(rng, 120, 200, 3)  # noise: any extra resampling would show
    quad = np.float32([[13, 21], [173, 21], [173, 53], [13, 53]])
    got = kernels.crop_preprocess(img, quad, 320, 48, 320)
    want = cv2_crop(img, quad, 320, 48, (0.5,) * 3, (0.5,) * 3)
    assert grey_levels(got - want, (0.5,) * 3).max() <= 1.0


def test_crop_pads_beyond_out_w_and_accepts_lists():
    rng = np.random.default_rng(7)
    img = random_image(rng, 64, 64, 4)
    quad = [[3.5, 4.0], [60.0, 9.0], [58.0, 30.0], [2.0, 27.0]]  # float64 lists are converted
    padded = kernels.crop_preprocess(img, quad, 37, 16, 50, pad_value=-1.5)
    tight = kernels.crop_preprocess(img, np.float32(quad), 37, 16, 37, pad_value=-1.5)
    assert padded.shape == (3, 16, 50)
    np.testing.assert_array_equal(padded[:, :, :37], tight)
    assert (padded[:, :, 37:] == -1.5).all()


def test_bad_arguments_raise_value_error():
    img = np.zeros((10, 12, 3), np.uint8)
    quad = np.float32([[0, 0], [8, 0], [8, 4], [0, 4]])
    with pytest.raises(ValueError):
        kernels.det_preprocess(img.astype(np.float32), 8, 8)
    with pytest.raises(ValueError):
        kernels.det_preprocess(np.zeros((2, 10, 12, 3), np.uint8), 8, 8)
    with pytest.raises(ValueError):
        kernels.det_preprocess(np.zeros((10, 12, 5), np.uint8), 8, 8)
    with pytest.raises(ValueError):
        kernels.det_preprocess(np.zeros((0, 12, 3), np.uint8), 8, 8)
    with pytest.raises(ValueError):
        kernels.det_preprocess(img, 0, 8)
    with pytest.raises(ValueError):
        kernels.det_preprocess(img, 8, 8, std=(0.5, 0.0, 0.5))
    with pytest.raises(ValueError):
        kernels.det_target_size(100, 100, "middle", 960, 4000)
    with pytest.raises(ValueError):
        kernels.det_target_size(0, 100, "max", 960, 4000)
    with pytest.raises(ValueError):
        kernels.crop_preprocess(img, quad[:3], 8, 8, 8)
    with pytest.raises(ValueError):
        kernels.crop_preprocess(img, quad, 8, 8, 7)
    with pytest.raises(ValueError):
        kernels.crop_preprocess(img.astype(np.int16), quad, 8, 8, 8)
    # Rejected by the core (InvalidArgument), which the module maps to a ValueError subclass.
    with pytest.raises(ValueError):
        kernels.crop_preprocess(img, np.float32([[0, 0], [4, 0], [10, 0], [1, 0]]), 8, 8, 8)
    with pytest.raises(ValueError):
        kernels.crop_preprocess(img, np.float32([[0, 0], [np.nan, 0], [8, 4], [0, 4]]), 8, 8, 8)
