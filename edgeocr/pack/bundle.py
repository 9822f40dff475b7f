"""The `.eocr` bundle: writing, reading and checking (format: docs/bundle-format.md).

A bundle is a zip archive whose members are all *stored* (not deflated), so
the model bytes can be handed to the runtime straight from a memory map of
the file. ``manifest.json`` says what the bundle holds. Writing is here;
reading is the C++ loader's (csrc/loader: zip directory, manifest schema,
sha256), which checks the format version, the required features, every
manifest field and every member's size and sha256 before anything is used,
and raises a :class:`BundleError` subclass naming the member, the value found
and the value expected.

Readable without edgeocr: ``unzip -l x.eocr``, ``unzip -p x.eocr manifest.json``.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import time
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..config import PipelineConfig
from ..errors import (  # noqa: F401 - re-exported: edgeocr.pack.BundleError etc.
    BundleChecksumError,
    BundleError,
    BundleFormatError,
    BundleManifestError,
    BundleVersionError,
)

FORMAT_NAME = "edgeocr-bundle"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
ROLES = ("det", "cls", "rec", "recheck", "layout", "table")

# Features a bundle may require of its reader (manifest "requires"); the C++ reader
# (csrc/loader/bundle.cpp) refuses a bundle that requires a feature it does not list.
KNOWN_FEATURES = frozenset(
    {"onnx", "ort-contrib-ops", "int8-qdq", "int8-dynamic", "recheck", "layout", "table"}
)

# Model data are aligned to this many bytes within the file (padding in the
# local header's extra field), so a mapped member starts on a cache line.
ALIGNMENT = 64
_PAD_EXTRA_ID = 0xD935  # the zip "alignment" extra-field id used by Android's zipalign
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # signature .. extra field length: 30 bytes


@dataclass
class Bundle:
    """A loaded, checked bundle.

    ``models`` maps role -> model bytes; for a bundle read from a file these
    are read-only memoryviews into a memory map of the file (no copy), valid
    until :meth:`close` (each view keeps the mapping alive while it exists).
    ``charset`` is the rec model's full class list (blank first), ``config``
    the pipeline settings, ``manifest`` the parsed, validated manifest.json.
    """

    path: str | None
    manifest: dict
    models: dict
    charset: list
    config: PipelineConfig
    _core: Any = field(default=None, repr=False)
    #: The recheck model's classes, blank first ([] without a recheck model).
    recheck_charset: list = field(default_factory=list)

    @property
    def det(self):
        return self.models.get("det")

    @property
    def cls(self):
        return self.models.get("cls")

    @property
    def rec(self):
        return self.models.get("rec")

    @property
    def recheck(self):
        return self.models.get("recheck")

    @property
    def layout(self):
        return self.models.get("layout")

    @property
    def table(self):
        return self.models.get("table")

    def model_entry(self, role: str) -> dict:
        for m in self.manifest["models"]:
            if m["role"] == role:
                return m
        raise KeyError(role)

    def close(self) -> None:
        """Release the memory map; the model memoryviews become invalid."""
        for v in self.models.values():
            if isinstance(v, memoryview):
                v.release()
        self.models = {}
        self._core = None

    def __enter__(self) -> Bundle:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        roles = ", ".join(f"{r}={len(v) / 2**20:.1f}MiB" for r, v in self.models.items())
        q = self.manifest.get("quantization", {}).get("mode", "none")
        return f"edgeocr.pack.Bundle({self.path!r}, {roles}, quantization={q!r})"


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------
def sha256_of(data) -> str:
    return hashlib.sha256(data).hexdigest()


def build_manifest(
    models: Mapping[str, Mapping[str, Any]],
    charset: list,
    config: PipelineConfig,
    *,
    quantization: Mapping[str, Any] | None = None,
    target: str = "generic",
    verification: Mapping[str, Any] | None = None,
    requires: list | None = None,
    extra: Mapping[str, Any] | None = None,
    recheck_charset: list | None = None,
) -> dict:
    """The manifest for ``models`` (role -> {"data": bytes, plus any descriptive fields})."""
    from .._core import __version__

    entries = []
    for role in ROLES:
        if role not in models:
            continue
        info = dict(models[role])
        data = info.pop("data")
        entries.append(
            {
                "role": role,
                "file": info.pop("file", f"{role}.onnx"),
                "format": info.pop("format", "onnx"),
                "size": len(data),
                "sha256": sha256_of(data),
                **info,
            }
        )
    try:
        import onnxruntime

        ort_version = onnxruntime.__version__
    except ImportError:  # packing without the Python wheel (edgeocr's own runtime still works)
        ort_version = None
    manifest = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "producer": {
            "name": "edgeocr",
            "version": __version__,
            "onnxruntime": ort_version,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
        "requires": sorted(set(requires or ["onnx"])),
        "target": target,
        "models": entries,
        "pipeline": config.to_core(),
        "dictionary": {"charset": list(charset), "blank_index": 0},
        "quantization": dict(quantization or {"mode": "none"}),
        "verification": dict(verification or {}),
    }
    if "recheck" in models:  # a reader without recheck models refuses the bundle by `requires`
        manifest["requires"] = sorted({*manifest["requires"], "recheck"})
        manifest["recheck_dictionary"] = {"charset": list(recheck_charset or []), "blank_index": 0}
    # Document parsing's models: a reader that knows no layout (table) role refuses the bundle by
    # `requires` instead of parsing nothing.
    for role in ("layout", "table"):
        if role in models:
            manifest["requires"] = sorted({*manifest["requires"], role})
    if extra:
        manifest.update(extra)
    return manifest


def write_bundle(
    path: str | os.PathLike, manifest: Mapping[str, Any], models: Mapping[str, Any]
) -> int:
    """Write manifest + model bytes (role -> bytes) as a stored zip; returns the file size.

    Written to a temporary name and renamed, so a failed write never leaves a
    half bundle under ``path``.
    """
    path = os.fspath(path)
    by_file = {}
    for m in manifest["models"]:
        data = models[m["role"]]
        if len(data) != m["size"] or sha256_of(data) != m["sha256"]:
            raise BundleChecksumError(
                f"{m['file']}: bytes do not match the manifest entry being written"
            )
        by_file[m["file"]] = data
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with (
            open(tmp, "wb") as raw,
            zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_STORED) as zf,
        ):
            body = json.dumps(manifest, ensure_ascii=False, indent=1).encode("utf-8")
            _write_member(zf, raw, MANIFEST, body)
            for name, data in by_file.items():
                _write_member(zf, raw, name, data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return os.path.getsize(path)


def _write_member(zf: zipfile.ZipFile, raw, name: str, data) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # fixed: same inputs, same bytes
    info.compress_type = zipfile.ZIP_STORED
    info.external_attr = 0o644 << 16
    # Pad the local header's extra field so the data start on an ALIGNMENT boundary.
    start = raw.tell() + _LOCAL_HEADER.size + len(name.encode("utf-8"))
    pad = (-(start + 6)) % ALIGNMENT
    info.extra = struct.pack("<HHH", _PAD_EXTRA_ID, 2 + pad, ALIGNMENT) + b"\0" * pad
    zf.writestr(info, bytes(data))


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------
def load_bundle(path: str | os.PathLike, *, verify_checksums: bool = True) -> Bundle:
    """Open and check a bundle file (in C++); model bytes are views into a memory map of it."""
    import edgeocr._core as _core

    path = os.fspath(path)
    return _wrap(_core.loader.Bundle.open(path, verify_checksums), path)


def load_bundle_bytes(
    data: bytes, *, name: str = "<bytes>", verify_checksums: bool = True
) -> Bundle:
    """Check and open a bundle held in memory (the models are views into ``data``)."""
    import edgeocr._core as _core

    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise BundleFormatError(f"{name}: expected bytes, got {type(data).__name__}")
    return _wrap(_core.loader.Bundle.from_buffer(data, name, verify_checksums), None)


def _wrap(core_bundle, path: str | None) -> Bundle:
    manifest = json.loads(core_bundle.manifest_json)
    models = {role: memoryview(core_bundle.member(role)) for role in core_bundle.roles}
    config = PipelineConfig.from_core(json.loads(core_bundle.config_json))
    return Bundle(
        path,
        manifest,
        models,
        list(core_bundle.charset),
        config,
        core_bundle,
        list(core_bundle.recheck_charset),
    )
