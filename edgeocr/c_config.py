"""Where the installed wheel keeps the C API, for `edgeocr config`.

    cc app.c $(edgeocr config --cflags) $(edgeocr config --libs) -o app

The wheel installs edgeocr/include/edgeocr_c.h, edgeocr/lib/libedgeocr.so and
edgeocr/lib/cmake/edgeocr (for find_package(edgeocr) with
-Dedgeocr_DIR=$(edgeocr config --cmake-dir)). ONNX Runtime is not a link
dependency: libedgeocr loads it at run time (the onnxruntime wheel next to
edgeocr is found by itself).
"""

from __future__ import annotations

import os
import shlex

from .errors import UnsupportedError

_ROOT = os.path.dirname(os.path.abspath(__file__))


def _existing(path: str, what: str) -> str:
    if not os.path.exists(path):
        raise UnsupportedError(
            f"the C API {what} is not in this installation of edgeocr ({path}); "
            "it ships in edgeocr wheels built with EDGEOCR_BUILD_C_API=ON"
        )
    return path


def include_dir() -> str:
    """The folder holding edgeocr_c.h."""
    return _existing(os.path.join(_ROOT, "include"), "header folder")


def lib_dir() -> str:
    """The folder holding libedgeocr.so."""
    lib = _existing(os.path.join(_ROOT, "lib", "libedgeocr.so"), "library")
    return os.path.dirname(lib)


def cmake_dir() -> str:
    """The folder holding edgeocrConfig.cmake (pass it as -Dedgeocr_DIR=...)."""
    return _existing(os.path.join(_ROOT, "lib", "cmake", "edgeocr"), "CMake package folder")


def cflags() -> str:
    """Compiler flags: the include path of edgeocr_c.h."""
    return "-I" + shlex.quote(include_dir())


def libs() -> str:
    """Linker flags: libedgeocr, with an rpath so the program finds it where it is installed."""
    d = shlex.quote(lib_dir())
    return f"-L{d} -Wl,-rpath,{d} -ledgeocr"
