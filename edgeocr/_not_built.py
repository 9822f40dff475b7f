"""The message for an ``import edgeocr`` whose compiled core (``edgeocr._core``) does not load.

The usual case: Python imported the source folder's ``edgeocr/`` (the checkout is the current
directory, or on ``sys.path``) rather than the installed package, and the source folder has no
compiled core because it was installed with ``pip install .`` (into site-packages), not built in
place. Only the standard library here: nothing else may be importable yet.
"""

from __future__ import annotations

import glob
import os


def core_import_error(err: ImportError) -> ImportError:
    pkg = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(pkg)
    built = glob.glob(os.path.join(pkg, "_core*.so")) + glob.glob(os.path.join(pkg, "_core*.pyd"))
    if not built and os.path.exists(os.path.join(root, "pyproject.toml")):
        return ImportError(
            f"edgeocr was imported from its source folder {pkg}, which has no compiled core: "
            f"run `pip install -e .` in {root} to build it there, or run Python from another "
            "folder to use the installed edgeocr"
        )
    if not built:
        return ImportError(
            f"edgeocr's compiled core (edgeocr._core) is missing from {pkg}: reinstall edgeocr "
            "(pip install --force-reinstall edgeocr)"
        )
    return ImportError(
        f"edgeocr's compiled core in {pkg} does not load ({err}): reinstall edgeocr for this "
        "Python and machine (pip install --force-reinstall edgeocr)"
    )
