"""pack()'s pages: those it calibrates on and those its gate verifies on."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidInputError
from ..image_io import IMAGE_EXTENSIONS, image_files, load_image


def list_images(folder: str, limit: int = 0) -> list[str]:
    """Image files directly in ``folder`` (sorted), at most ``limit`` (0 = all), spread evenly
    over the sorted list when there are more (names often group pages of one kind)."""
    if not os.path.isdir(folder):
        raise InvalidInputError(f"not a folder of images: {folder}")
    out = image_files(folder)
    if not out:
        raise InvalidInputError(f"{folder}: no images ({', '.join(IMAGE_EXTENSIONS)})")
    if not limit or len(out) <= limit:
        return out
    pick = np.unique(np.linspace(0, len(out) - 1, limit).round().astype(int))
    return [out[i] for i in pick]


def hold_out(paths: Sequence[str]) -> tuple[list, list]:
    """(calibration pages, verification pages): every third page is held back to verify
    (at least one; one page cannot be split)."""
    paths = list(paths)
    if len(paths) < 2:
        raise InvalidInputError(
            "the gate holds back part of the calibration pages to verify on: give at least 2 "
            "calibration images (--calib DIR), or labelled pages (--eval DIR)"
        )
    held = paths[1::3]
    return [p for p in paths if p not in held], held


@dataclass
class GatePages:
    """The pages of a pack: calibrated on, and verified on (the gate's)."""

    calib: list  # calibration image paths (without the held-back ones)
    held: list  # calibration pages held back from calibration to verify on
    samples: list  # labelled pages (``eval_dir``): the gate's pages when given
    sample_imgs: list  # decoded pages to calibrate on (labelled ones without --calib)
    verify_imgs: list  # decoded pages the gate compares on
    eval_dir: str | None = None

    @property
    def eval_name(self) -> str:
        return os.path.basename(os.path.normpath(self.eval_dir or ""))

    @property
    def pages_from(self) -> str:
        return "eval" if self.samples else ("held-out calib" if self.held else "calib")


def gate_pages(
    calib: str | None, calib_limit: int, eval_dir: str | None, eval_limit: int, quantize: str
) -> GatePages:
    """The calibration pages (``calib``, at most ``calib_limit``) and the gate's pages: the
    labelled ones in ``eval_dir`` (at most ``eval_limit``, 0 = all), else every third
    calibration page held back when quantizing, else the calibration pages."""
    calib_paths = list_images(calib, calib_limit) if calib else []
    samples = []
    if eval_dir:
        from ..evaluate.datasets import load_e2e

        if not os.path.isfile(os.path.join(eval_dir, "e2e_synth.jsonl")):
            raise InvalidInputError(
                f"{eval_dir}: not a labelled set (expected e2e_synth.jsonl and its images)"
            )
        samples = load_e2e(eval_dir)
        samples = samples[:eval_limit] if eval_limit else samples
        if not samples:
            raise InvalidInputError(f"{eval_dir}: no labelled images")
    held = []
    if quantize != "none" and calib_paths and not samples:
        calib_paths, held = hold_out(calib_paths)
    verify_paths = [s["path"] for s in samples] or held or calib_paths
    sample_paths = calib_paths or [s["path"] for s in samples[:4]]
    return GatePages(
        calib_paths,
        held,
        samples,
        [load_image(p) for p in sample_paths],
        [load_image(p) for p in verify_paths],
        eval_dir,
    )
