"""
pixel and post-processing kernels (for tests and benchmarks)
"""

from __future__ import annotations

import collections.abc
import typing

import numpy
import numpy.typing

__all__: list[str] = [
    "Charset",
    "crop_preprocess",
    "ctc_greedy_decode",
    "db_postprocess",
    "det_preprocess",
    "det_target_size",
    "edge_sharpness",
    "luminance_range",
    "reading_order",
]

class Charset:
    """
    The rec model's classes (charset[0] the blank), converted once for ctc_greedy_decode.
    """
    def __init__(self, chars: collections.abc.Sequence[str]) -> None: ...
    def __len__(self) -> int: ...

def crop_preprocess(
    img: numpy.ndarray,
    quad: typing.Annotated[numpy.typing.ArrayLike, numpy.float32],
    out_w: typing.SupportsInt | typing.SupportsIndex,
    out_h: typing.SupportsInt | typing.SupportsIndex,
    dst_w: typing.SupportsInt | typing.SupportsIndex,
    mean: typing.Annotated[
        collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex], "FixedSize(3)"
    ] = [0.5, 0.5, 0.5],
    std: typing.Annotated[
        collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex], "FixedSize(3)"
    ] = [0.5, 0.5, 0.5],
    pad_value: typing.SupportsFloat | typing.SupportsIndex = 0.0,
    to_rgb: bool = False,
) -> numpy.typing.NDArray[numpy.float32]:
    """
    Perspective crop of quad (4, 2: tl, tr, br, bl) + resize to out_w x out_h + normalise, written into float32 (3, out_h, dst_w) with columns [out_w, dst_w) set to pad_value.
    """

@typing.overload
def ctc_greedy_decode(
    probs: numpy.ndarray,
    charset: Charset,
    space_gap: typing.SupportsFloat | typing.SupportsIndex = 0.0,
) -> tuple[str, float]:
    """
    Greedy CTC decoding of float32 probabilities (T, C); charset[0] is the blank (a list of strings, or a Charset built once).
    Returns (text, score), score being the mean max-probability of the emitted characters.
    space_gap > 0: a space is also written between two characters when the charset's " " class reaches space_gap on a blank frame between them (the pipeline's rec_space_gap).
    """

@typing.overload
def ctc_greedy_decode(
    probs: numpy.ndarray,
    charset: collections.abc.Sequence[str],
    space_gap: typing.SupportsFloat | typing.SupportsIndex = 0.0,
) -> tuple[str, float]:
    """
    Greedy CTC decoding of float32 probabilities (T, C); charset[0] is the blank (a list of strings, or a Charset built once).
    Returns (text, score), score being the mean max-probability of the emitted characters.
    space_gap > 0: a space is also written between two characters when the charset's " " class reaches space_gap on a blank frame between them (the pipeline's rec_space_gap).
    """

def db_postprocess(
    prob: numpy.ndarray,
    src_w: typing.SupportsInt | typing.SupportsIndex,
    src_h: typing.SupportsInt | typing.SupportsIndex,
    thresh: typing.SupportsFloat | typing.SupportsIndex = 0.30000001192092896,
    box_thresh: typing.SupportsFloat | typing.SupportsIndex = 0.6000000238418579,
    unclip_ratio: typing.SupportsFloat | typing.SupportsIndex = 1.5,
    max_candidates: typing.SupportsInt | typing.SupportsIndex = 1000,
    use_dilation: bool = False,
    score_mode: str = "fast",
    min_size: typing.SupportsFloat | typing.SupportsIndex = 3.0,
) -> tuple[numpy.typing.NDArray[numpy.float32], numpy.typing.NDArray[numpy.float32]]:
    """
    DB post-processing of a float32 probability map (H, W) (or (1, 1, H, W)).
    Returns (boxes float32 (N, 4, 2) in source pixels, each clockwise from the top-left; scores float32 (N,)).
    """

def det_preprocess(
    img: numpy.ndarray,
    out_w: typing.SupportsInt | typing.SupportsIndex,
    out_h: typing.SupportsInt | typing.SupportsIndex,
    mean: typing.Annotated[
        collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex], "FixedSize(3)"
    ] = [0.5, 0.5, 0.5],
    std: typing.Annotated[
        collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex], "FixedSize(3)"
    ] = [0.5, 0.5, 0.5],
    to_rgb: bool = False,
) -> numpy.typing.NDArray[numpy.float32]:
    """
    Bilinear resize (OpenCV INTER_LINEAR geometry) + normalise + HWC->CHW of a uint8 BGR, BGRA or gray image. Returns float32 (3, out_h, out_w), channels BGR unless to_rgb.
    """

def det_target_size(
    w: typing.SupportsInt | typing.SupportsIndex,
    h: typing.SupportsInt | typing.SupportsIndex,
    limit_type: str = "max",
    limit_side_len: typing.SupportsInt | typing.SupportsIndex = 960,
    max_side_len: typing.SupportsInt | typing.SupportsIndex = 4000,
    max_upscale: typing.SupportsFloat | typing.SupportsIndex = 1000.0,
) -> tuple[int, int]:
    """
    PaddleOCR DetResizeForTest (type 0) target size (w, h), each a multiple of 32, the image enlarged at most max_upscale times.
    """

def edge_sharpness(
    img: numpy.ndarray,
    lo: typing.SupportsInt | typing.SupportsIndex,
    hi: typing.SupportsInt | typing.SupportsIndex,
    d: typing.SupportsInt | typing.SupportsIndex = 1,
) -> float:
    """
    The page's edge sharpness (the pipeline's det_sharpen_below measure): the median luminance step to the neighbours d pixels away over the grid samples in the middle half of [lo, hi] with a step of at least (hi - lo) / 16, divided by hi - lo; 1 when there is nothing to judge.
    """

def luminance_range(
    img: numpy.ndarray,
    low_share: typing.SupportsFloat | typing.SupportsIndex = 0.005,
    high_share: typing.SupportsFloat | typing.SupportsIndex = 0.005,
) -> tuple[int, int]:
    """
    The luminance levels (lo, hi) below which low_share and above which high_share of the pixels lie, measured on a grid of at most 65536 pixels (the pipeline's levels stretch).
    """

def reading_order(boxes: numpy.ndarray) -> list[int]:
    """
    Reading order of text boxes (N, 4, 2), each clockwise from the top-left: a permutation (list of indices), lines top to bottom, left to right within a line.
    """
