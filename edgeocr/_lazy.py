"""Names a package exports but imports on first use (PEP 562): its ``__getattr__``."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def exports(
    package: str, names: Mapping[str, str], namespace: dict, submodules: tuple = ()
) -> Callable[[str], object]:
    """The module ``__getattr__`` of ``package`` that imports ``names[name]`` (a module relative
    to the package) the first time ``name`` is read, and keeps the value in ``namespace`` (the
    package's globals) so that later reads are plain lookups. ``submodules``: the package's
    modules that an eager ``__init__`` used to import, still reachable as attributes
    (``edgeocr.models`` after ``import edgeocr``)."""

    def __getattr__(name: str):
        if name in submodules:
            return importlib.import_module(f".{name}", package)  # sets the attribute itself
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    return __getattr__
