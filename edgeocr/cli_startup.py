"""How the `edgeocr` command starts and ends fast: what a one-image `edgeocr predict` does around
its command, kept out of the commands (edgeocr/cli.py).

* :func:`make_predictor` makes the Predictor while the process does what it needs anyway: ONNX
  Runtime loads on one thread, the Predictor is made on another while this one imports the image
  decoders (numpy's OpenBLAS held to one thread meanwhile, unless the user set it).
* :func:`allow_quick_exit` / :func:`end_process`: a command whose output is complete when it
  returns ends the process without the interpreter's teardown (``os._exit``).

Each saves a fraction of a second of a ~1 s command (benchmarks/README.md, "`cli_one_image.py`").
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Callable, NoReturn

# Set by allow_quick_exit(): end_process() may end the process without the interpreter's teardown.
_quick_exit = False


def make_predictor(make: Callable[[], object], first_file: str, decode_in_python: bool = False):
    """``make()`` (a Predictor), made while ONNX Runtime loads on a thread and this one imports
    the image decoders ``first_file`` needs (none for a PNG or JPEG the core decodes, unless
    ``decode_in_python``: e.g. ``--draw``, which draws on a numpy array)."""
    runtime = _start_runtime()
    try:
        return _make_while_importing(make, first_file, decode_in_python)
    finally:
        runtime.join()


def _start_runtime() -> threading.Thread:
    """Loads ONNX Runtime on a thread (~0.04 s, in C++ without the GIL) while this one imports
    the Predictor's modules: a one-image command saves the shorter of the two. A failure is left
    to the Predictor, which reports it. Returns the thread: join it before the process may end
    (an exit while it is inside the runtime's loading aborts)."""
    from . import _runtime

    def load() -> None:
        try:
            _runtime.runtime_info()
        except Exception:  # noqa: BLE001 - reported when the Predictor loads the runtime
            pass

    thread = threading.Thread(target=load, name="edgeocr-runtime")
    thread.start()
    return thread


def _make_while_importing(make, first_file: str, decode_in_python: bool):
    """``make()``, on a thread while this one imports the image decoders the first file needs.

    Making a Predictor imports no numpy and its models load in C++ with the GIL released. A PNG
    or JPEG is decoded and read in the core without numpy (Predictor.predict): nothing more is
    imported.
    Other files need numpy, OpenCV and Pillow (~0.3 s together), imported meanwhile: a one-image
    run saves the shorter of the two.
    """
    from .image_io import core_decodes

    try:
        with open(first_file, "rb") as f:
            in_core = core_decodes(f.read(8))
    except OSError:  # reported by predict
        in_core = False
    if in_core and not decode_in_python:
        return make()
    # numpy's OpenBLAS starts a thread per core when imported (0.12 s of CPU here, on the core
    # the models load on); predicting multiplies no matrices in numpy. A user's setting stands.
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1, thread_name_prefix="edgeocr-load") as pool:
        loading = pool.submit(make)
        try:
            # The first image's decoding needs these (edgeocr/image_io.py): imported meanwhile.
            import cv2  # noqa: F401
            import numpy  # noqa: F401
            from PIL import Image  # noqa: F401
        except ImportError:  # reported where they are used
            pass
        return loading.result()


def allow_quick_exit() -> None:
    """Called by a command whose output is complete when it returns (the files it writes closed)
    and that leaves nothing to the interpreter's teardown (a Ray cluster to shut down, ...):
    :func:`end_process` then ends the process at once."""
    global _quick_exit
    _quick_exit = True


def end_process(rc: int) -> NoReturn:
    """Ends the process with status ``rc``: at once (``os._exit``, after flushing stdout and
    stderr) when the command allowed it, else by ``sys.exit``.

    Tearing down the interpreter (the runtime's sessions, OpenCV, numpy) took 0.1 s of a 1 s
    `edgeocr predict`, whose output is complete by then.
    """
    if not _quick_exit:
        sys.exit(rc)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: what normal exit would report
        sys.exit(rc)
    os._exit(rc)
