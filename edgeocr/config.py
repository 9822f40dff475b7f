"""`PipelineConfig`: every pre/post-processing parameter of the OCR pipeline.

The defaults are edgeocr's, documented in docs/pipeline-config.md together
with where they differ from PaddleOCR and RapidOCR and why. The names, types,
ranges and defaults are those of the C++ settings table
(csrc/pipeline/settings_table.cpp), which checks every value: a test keeps this
class's fields equal to the table, field by field.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field


def _float32_shortest(v: float) -> float:
    """The float32 value ``v`` as the shortest decimal that reads back as it (what numpy prints for
    np.float32(v)), without importing numpy: the nearest decimal of 1, 2, ... 9 digits that
    float32 rounds to the same value."""
    import struct

    want = struct.unpack("f", struct.pack("f", v))[0]
    for digits in range(1, 10):
        x = float(f"{want:.{digits}g}")
        if struct.unpack("f", struct.pack("f", x))[0] == want:
            return x
    return want  # inf, nan


@dataclass(frozen=True)
class PipelineConfig:
    """Every setting of the det -> cls -> rec pipeline, checked against the core's table."""

    # Detection: input size policy. 'min': enlarge so the short side is at least
    # det_limit_side_len; 'max': shrink so the long side is at most that. Then the
    # long side is capped at det_max_side_len and both sides rounded to multiples of 32.
    det_limit_type: str = "min"
    det_limit_side_len: int = 736
    det_max_side_len: int = 2000
    # The most det_limit_type may enlarge the image (1: never): small images, labels and strips
    # are read near their own size.
    det_max_upscale: float = 1.5
    # A det input of more pixels runs in overlapping tiles of at most this many (0: one run).
    det_tile_pixels: int = 2097152
    det_mean: tuple = (0.5, 0.5, 0.5)
    det_std: tuple = (0.5, 0.5, 0.5)
    # DB post-processing.
    det_thresh: float = 0.3
    det_box_thresh: float = 0.5
    det_unclip_ratio: float = 1.6
    det_max_candidates: int = 1000
    det_use_dilation: bool = True
    det_score_mode: str = "fast"
    det_min_size: float = 3.0
    # Direction classification (0 / 180 degrees).
    use_cls: bool = True
    cls_height: int = 48
    cls_width: int = 192
    cls_batch: int = 6
    cls_thresh: float = 0.9
    # Keep a 180-degree flip only if the recogniser reads the turned crop with
    # more confidence than the crop as detected.
    cls_verify: bool = True
    cls_mean: tuple = (0.5, 0.5, 0.5)
    cls_std: tuple = (0.5, 0.5, 0.5)
    # Recognition.
    rec_height: int = 48
    rec_batch: int = 6
    rec_width_buckets: tuple = field(default=tuple(range(320, 3201, 64)))
    # The most columns (lines x padded width) one rec run reads: wider batches run in parts padded
    # to the same width (same text, less memory held by the runtime). 0: no limit.
    rec_batch_columns: int = 3840
    # 'line': each rec line padded to its own width bucket, batched with lines of that bucket;
    # 'batch': padded to the widest of its batch of rec_batch lines (PaddleOCR, RapidOCR).
    rec_pad_to: str = "batch"
    rec_mean: tuple = (0.5, 0.5, 0.5)
    rec_std: tuple = (0.5, 0.5, 0.5)
    rotate_ratio: float = 1.5
    drop_score: float = 0.5  # model sets may set their own (ppocr-v4-mobile: 0.65)
    # CTC decoding writes a space between two characters when the space class reaches this
    # probability on a blank frame between them (0: plain greedy decoding).
    rec_space_gap: float = 0.1
    # With a recheck model (a second, stronger recogniser): a line rec reads with a lower score is
    # read again by the recheck model, whose reading replaces it (0: never).
    rec_recheck_below: float = 0.95
    # What rec_recheck_below is compared with: 'line' (rec's line score), 'word' (its weakest
    # word's score) or 'char' (its weakest character's probability).
    rec_recheck_trigger: str = "line"
    # Faded / washed-out / low-contrast pages: when the page's luminance range (0.5th to 99.5th
    # percentile) spans fewer grey levels than this, the stage reads it stretched to 0..255 (0:
    # never).
    det_stretch_below: int = 128
    rec_stretch_below: int = 64  # cls and rec
    # Blurred captures: when the page's edge sharpness at the det input's scale (the median
    # luminance step across an edge over the page's range) is below this, det reads the page a
    # second time unsharp-masked and adds the lines only that run found (0: never).
    det_sharpen_below: float = 0.15
    # Layout analysis (Predictor.parse): the layout model's input when the model does not fix it
    # (PicoDet CDLA fixes 800 x 608), the region score threshold, per-class NMS IoU, and the most
    # regions a page keeps.
    layout_height: int = 800
    layout_width: int = 608
    layout_score_thresh: float = 0.5
    layout_nms_iou: float = 0.5
    layout_max_regions: int = 300
    # Tables (Predictor.parse, docs/tables.md): "auto" (the table model's grid unless it is
    # unusable, then the grid method: ruled lines and text alignment), "model" or "grid"; the
    # table model's input side; when "auto" leaves the model's grid: a mean token probability
    # below table_min_score, less than table_min_fit of the text inside its cells.
    table_method: str = "auto"
    table_side: int = 488
    table_min_score: float = 0.5
    table_min_fit: float = 0.5

    def __post_init__(self):
        # Each value checked by the C++ settings table (type and range; InvalidInputError
        # naming the setting and what it allows) and stored as the core holds it
        # (ints in float fields as floats, lists as tuples).
        import edgeocr._core as _core

        for f in dataclasses.fields(self):
            v = _core.check_setting(f.name, getattr(self, f.name))
            object.__setattr__(self, f.name, tuple(v) if isinstance(v, list) else v)
        _core.validate_config(self.to_core())

    def to_core(self) -> dict:
        """The settings as the core takes them (a dict, lists for tuples)."""
        d = dataclasses.asdict(self)
        for k, v in d.items():
            if isinstance(v, tuple):
                d[k] = list(v)
        return d

    @classmethod
    def from_core(cls, d: dict) -> PipelineConfig:
        """From the core's settings (float32 values shown by their shortest float32 form: 0.65, not
        0.6499999761581421)."""

        def py(v):
            if isinstance(v, float):
                return _float32_shortest(v)
            if isinstance(v, (list, tuple)):
                return tuple(py(x) for x in v)
            return v

        return cls(**{k: py(v) for k, v in d.items()})

    @classmethod
    def from_dict(cls, d: dict) -> PipelineConfig:
        """A config from a dict of settings; unknown names raise InvalidInputError."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            from .errors import InvalidInputError

            raise InvalidInputError(f"unknown pipeline settings: {unknown}")
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})
