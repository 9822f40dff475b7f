"""``edgeocr bench PADDLE_DIR --compare paddle``: Paddle Inference as a contender.

``PADDLE_DIR`` holds Paddle inference model folders ``det/``, ``cls/``, ``rec/``
(``inference.json`` or ``.pdmodel`` + ``.pdiparams`` [+ ``inference.yml``]).
They are converted once with paddle2onnx (edgeocr/pack/paddle.py; cached in
``$EDGEOCR_CACHE_DIR/bench-paddle/<content hash>``) so that edgeocr and the
other contenders run the ONNX of the very same networks, while the Paddle
contenders run the Paddle files in Paddle Inference (CPU):

* ``paddle-ir`` / ``paddle-noir``: IR optimisation on / off, oneDNN off;
* ``paddle-ir-mkldnn`` / ``paddle-noir-mkldnn``: the same with oneDNN (MKLDNN).

``paddle`` in ``--compare`` means all four. Each runs the Python pipeline of
the ``onnxruntime`` contender (:class:`edgeocr.bench.eager.PythonPipeline`:
the same pre/post-processing steps) with Paddle Inference in place of ONNX
Runtime, so ``paddle-*`` against ``onnxruntime`` compares the runtimes, and
against ``edgeocr`` the whole SDK. All use edgeocr's default settings (the
folders' inference.yml settings are not applied here).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

VARIANTS = {
    "paddle-ir": {"ir_optim": True, "mkldnn": False},
    "paddle-noir": {"ir_optim": False, "mkldnn": False},
    "paddle-ir-mkldnn": {"ir_optim": True, "mkldnn": True},
    "paddle-noir-mkldnn": {"ir_optim": False, "mkldnn": True},
}
ROLES = ("det", "cls", "rec")
SOURCES_FILE = "paddle_sources.json"


def is_paddle_dir(path) -> bool:
    """A folder with det/ and rec/ sub-folders that hold Paddle inference models."""
    if not path or not os.path.isdir(path):
        return False
    from ..pack.paddle import find_model

    try:
        for r in ("det", "rec"):
            find_model(os.path.join(path, r))
    except Exception:  # noqa: BLE001 - not such a folder
        return False
    return True


def _content_hash(folder: str) -> str:
    h = hashlib.sha256()
    for root, _, files in sorted(os.walk(folder)):
        for f in sorted(files):
            p = os.path.join(root, f)
            h.update(os.path.relpath(p, folder).encode())
            with open(p, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
    return h.hexdigest()[:24]


def prepare(paddle_dir: str, log=print) -> str:
    """A folder of det/cls/rec .onnx converted from ``paddle_dir`` (cached); returns its path."""
    from .._core import loader
    from ..pack import paddle as P

    # The core's cache folder (csrc/common/disk_cache.h); none (disk caches off, or the folder
    # refused): converted into a temporary folder every time.
    base = loader.cache_folder("bench-paddle") or tempfile.mkdtemp(prefix="edgeocr-bench-paddle-")
    root = Path(base) / _content_hash(paddle_dir)
    done = root / SOURCES_FILE
    if done.is_file():
        return str(root)
    root.mkdir(parents=True, exist_ok=True)
    sources = {}
    for role in ROLES:
        d = os.path.join(paddle_dir, role)
        if not os.path.isdir(d):
            continue
        m = P.read_config(P.find_model(d), role)
        log(f"bench: converting {m.model_file} with paddle2onnx ...")
        data = P.with_characters(P.convert(m), m.characters)
        tmp = root / f"{role}.onnx.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, root / f"{role}.onnx")
        sources[role] = os.path.abspath(d)
    tmp = root / (SOURCES_FILE + ".tmp")
    tmp.write_text(json.dumps(sources))
    os.replace(tmp, done)
    return str(root)


class PaddleNet:
    """One Paddle inference model in Paddle Inference: ``net(x)`` -> its first output."""

    def __init__(self, folder: str, role: str, threads, ir_optim: bool, mkldnn: bool):
        from ..pack import paddle as P

        m = P.read_config(P.find_model(folder), role)
        self.runner = P.PaddleRunner(m, ir_optim=ir_optim, mkldnn=mkldnn, threads=threads or 1)
        self.metadata = {"character": "\n".join(m.characters)} if m.characters else {}

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.runner.run(x)[0]


def make_pipeline(name: str, converted: str, threads):
    """The Python pipeline of the onnxruntime contender on Paddle Inference (variant ``name``)."""
    from .eager import PythonPipeline

    path = os.path.join(converted, SOURCES_FILE)
    if not os.path.isfile(path):
        raise RuntimeError(
            f"--compare {name} needs a folder of Paddle inference models (det/, cls/, rec/) "
            "as MODEL_OR_SET"
        )
    with open(path, encoding="utf-8") as f:
        sources = json.load(f)
    nets = {r: PaddleNet(d, r, threads, **VARIANTS[name]) for r, d in sources.items()}
    # Paddle Inference builds its kernels on the first run: one run per net here, so that a
    # configuration that cannot run these networks is reported as such (it happens: oneDNN in
    # Paddle 3.3 refuses some PIR attributes) instead of failing in the middle of the timing.
    probes = {"det": (1, 3, 64, 64), "cls": (1, 3, 48, 192)}
    for role, shape in probes.items():
        if role in nets:
            try:
                nets[role](np.zeros(shape, np.float32))
            except Exception as e:
                raise RuntimeError(f"Paddle Inference cannot run {role}: {e}".strip()[:600]) from e
    return PythonPipeline.from_nets(nets)
