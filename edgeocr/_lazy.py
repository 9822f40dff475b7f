"""Names a package exports but imports on first use (PEP 562): its ``__getattr__``."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def exports(package: str, names: Mapping[str, str], namespace: dict) -> Callable[[str], object]:
    """The module ``__getattr__`` of ``package`` that imports ``names[name]`` (a module relative
    to the package) the first time ``name`` is read, and keeps the value in ``namespace`` (the
    package's globals) so that later reads are plain lookups."""

    def __getattr__(name: str):
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    return __getattr__
