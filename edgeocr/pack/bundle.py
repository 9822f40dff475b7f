"""The `.eocr` bundle: writing, reading and checking (format: docs/bundle-format.md).

A bundle is a zip archive whose members are all *stored* (not deflated), so
the model bytes can be handed to the runtime straight from a memory map of
the file. ``manifest.json`` says what the bundle holds; the loader checks the
format version, the required features and every member's size and sha256
before anything is used, and raises a :class:`BundleError` subclass naming
the member, the value found and the value expected.

Readable without edgeocr: ``unzip -l x.eocr``, ``unzip -p x.eocr manifest.json``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import mmap
import os
import struct
import time
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..config import PipelineConfig
from ..errors import ModelError, ModelNotFoundError, UnsupportedError

FORMAT_NAME = "edgeocr-bundle"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
ROLES = ("det", "cls", "rec")

# Features a bundle may require of its reader (manifest "requires"). A reader
# refuses a bundle that requires a feature it does not list here.
KNOWN_FEATURES = frozenset(
    {
        "onnx",  # models are ONNX graphs (ModelProto bytes)
        "ort-contrib-ops",  # ONNX Runtime com.microsoft operators (offline-optimised graphs)
        "int8-qdq",  # static int8 quantization (QuantizeLinear/DequantizeLinear, QLinear* ops)
        "int8-dynamic",  # dynamic int8 (DynamicQuantizeLinear, MatMulInteger, ConvInteger)
    }
)

# Model data are aligned to this many bytes within the file (padding in the
# local header's extra field), so a mapped member starts on a cache line.
ALIGNMENT = 64
_PAD_EXTRA_ID = 0xD935  # the zip "alignment" extra-field id used by Android's zipalign
_MAX_MANIFEST_BYTES = 32 * 2**20
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # signature .. extra field length: 30 bytes


class BundleError(ModelError):
    """A `.eocr` file that cannot be used; the message says which member and why."""


class BundleFormatError(BundleError):
    """Not a readable bundle: not a zip, truncated, a member missing, compressed or oversized."""


class BundleManifestError(BundleError):
    """manifest.json is missing, not JSON, or lacks or mistypes a required field."""


class BundleVersionError(BundleError, UnsupportedError):
    """The bundle's format version (or a feature it requires) is not one this edgeocr reads."""


class BundleChecksumError(BundleError):
    """A member's bytes do not match the size or sha256 recorded in the manifest."""


@dataclass
class Bundle:
    """A loaded, checked bundle.

    ``models`` maps role -> model bytes; for a bundle read from a file these
    are read-only memoryviews into a memory map of the file (no copy), valid
    until :meth:`close`. ``charset`` is the rec model's full class list
    (blank first), ``config`` the pipeline settings, ``manifest`` the parsed
    manifest.json.
    """

    path: str | None
    manifest: dict
    models: dict
    charset: list
    config: PipelineConfig
    _mmap: Any = field(default=None, repr=False)

    @property
    def det(self):
        return self.models.get("det")

    @property
    def cls(self):
        return self.models.get("cls")

    @property
    def rec(self):
        return self.models.get("rec")

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
        if self._mmap is not None:
            self._mmap.close()
            self._mmap = None

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
) -> dict:
    """The manifest for ``models`` (role -> {"data": bytes, plus any descriptive fields})."""
    from .. import __version__

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
    """Open and check a bundle file; model bytes are views into a memory map of it."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ModelNotFoundError(f"bundle not found: {path}")
    if os.path.isdir(path):
        raise BundleFormatError(f"{path} is a directory, not a .eocr bundle")
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            raise BundleFormatError(f"{path}: the file is empty (expected a .eocr zip archive)")
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        return _parse(mm, path, verify_checksums)
    except BaseException:
        try:
            mm.close()
        except BufferError:  # a view is still held by the traceback; the map closes when it goes
            pass
        raise


def load_bundle_bytes(
    data: bytes, *, name: str = "<bytes>", verify_checksums: bool = True
) -> Bundle:
    """Check and open a bundle held in memory (the models are views into ``data``)."""
    if not data:
        raise BundleFormatError(f"{name}: empty (expected a .eocr zip archive)")
    return _parse(data, name, verify_checksums, keep=None)


def _parse(buf, name: str, verify_checksums: bool, keep="mmap") -> Bundle:
    view = memoryview(buf)
    total = len(view)
    try:
        zf = zipfile.ZipFile(io.BytesIO(view) if keep is None else _MmapFile(buf))
        infos = zf.infolist()
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        OSError,
        ValueError,
        struct.error,
        EOFError,
        NotImplementedError,  # zipfile: "zip file version 21.7" from a corrupt header
    ) as e:
        raise BundleFormatError(
            f"{name}: not a readable .eocr bundle (a zip archive is expected; the file is "
            "truncated, "
            f"corrupt or of another kind): {e}"
        ) from e
    members: dict = {}
    for info in infos:
        if info.filename in members:
            raise BundleFormatError(f"{name}: member {info.filename!r} appears twice")
        members[info.filename] = info

    manifest = _parse_manifest(
        _member(view, members, MANIFEST, name, _MAX_MANIFEST_BYTES, total), name
    )
    models = {}
    for entry in manifest["models"]:
        data = _member(view, members, entry["file"], name, total, total)
        if len(data) != entry["size"]:
            raise BundleChecksumError(
                f"{name}: member {entry['file']!r} is {len(data)} bytes, the manifest says "
                f"{entry['size']}"
            )
        if verify_checksums:
            digest = sha256_of(data)
            if digest != entry["sha256"]:
                raise BundleChecksumError(
                    f"{name}: member {entry['file']!r} ({entry['role']} model) fails its checksum: "
                    f"sha256 {digest}, the manifest says {entry['sha256']}; the file is corrupt "
                    "or was modified"
                )
        models[entry["role"]] = data

    dictionary = manifest["dictionary"]
    charset = dictionary.get("charset")
    if not isinstance(charset, list) or not all(isinstance(c, str) for c in charset):
        raise BundleManifestError(
            f"{name}: manifest 'dictionary.charset' must be a list of strings"
        )
    if "rec" in models and len(charset) < 2:
        raise BundleManifestError(f"{name}: the bundle has a rec model but its dictionary is empty")
    pipeline = manifest["pipeline"]
    if not isinstance(pipeline, dict):
        raise BundleManifestError(f"{name}: manifest 'pipeline' must be an object")
    known = {f.name for f in dataclasses.fields(PipelineConfig)}
    unknown = sorted(set(pipeline) - known)
    if unknown:
        raise BundleVersionError(
            f"{name}: the bundle sets pipeline parameters this edgeocr does not know: {unknown} "
            "(made by a newer edgeocr? upgrade edgeocr)"
        )
    _check_pipeline_types(pipeline, name)
    try:
        config = PipelineConfig.from_dict(pipeline)
    except (TypeError, ValueError) as e:
        raise BundleManifestError(f"{name}: manifest 'pipeline' is invalid: {e}") from e
    return Bundle(
        name if keep is not None else None,
        manifest,
        models,
        charset,
        config,
        buf if keep is not None else None,
    )


def _check_pipeline_types(pipeline: dict, name: str) -> None:
    """Each pipeline value has the JSON type of edgeocr's default for that field."""
    defaults = PipelineConfig()
    for key, value in pipeline.items():
        want = getattr(defaults, key)
        if isinstance(want, bool):
            ok = isinstance(value, bool)
        elif isinstance(want, (int, float)):
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            ok = ok and (isinstance(want, float) or isinstance(value, int))
        elif isinstance(want, str):
            ok = isinstance(value, str)
        elif isinstance(want, tuple):
            ok = isinstance(value, list) and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in value
            )
        else:
            ok = True
        if not ok:
            raise BundleManifestError(
                f"{name}: manifest pipeline.{key} is {value!r}; expected a value like {want!r}"
            )


class _MmapFile(io.RawIOBase):
    """A read-only file object over an mmap that zipfile can seek in (without copying it)."""

    def __init__(self, mm):
        self._mm = mm
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, pos: int, whence: int = 0) -> int:
        base = {0: 0, 1: self._pos, 2: len(self._mm)}[whence]
        self._pos = max(0, base + pos)
        return self._pos

    def tell(self) -> int:
        return self._pos

    def readinto(self, b) -> int:
        chunk = self._mm[self._pos : self._pos + len(b)]
        b[: len(chunk)] = chunk
        self._pos += len(chunk)
        return len(chunk)


def _member(
    view: memoryview, members: dict, file: str, name: str, limit: int, total: int
) -> memoryview:
    """The bytes of a stored member, checked against its local header, as a view."""
    info = members.get(file)
    if info is None:
        what = "the manifest" if file == MANIFEST else f"member {file!r} (listed in the manifest)"
        raise BundleFormatError(f"{name}: {what} is missing from the archive")
    if info.compress_type != zipfile.ZIP_STORED:
        raise BundleFormatError(
            f"{name}: member {file!r} is compressed (method {info.compress_type}); bundle "
            "members must be "
            "stored uncompressed"
        )
    if info.file_size != info.compress_size or info.file_size > limit or info.file_size > total:
        raise BundleFormatError(
            f"{name}: member {file!r} declares {info.file_size} bytes ({info.compress_size} "
            "stored) in a "
            f"{total}-byte file (limit {limit}); the archive is corrupt or hostile"
        )
    off = info.header_offset
    if off < 0 or off + _LOCAL_HEADER.size > total:
        raise BundleFormatError(
            f"{name}: member {file!r}: local header outside the file (truncated?)"
        )
    sig, _, flags, method, _, _, _, csize, _, nlen, xlen = _LOCAL_HEADER.unpack_from(view, off)
    if sig != b"PK\x03\x04":
        raise BundleFormatError(
            f"{name}: member {file!r}: no local header at offset {off} (corrupt archive)"
        )
    if method != zipfile.ZIP_STORED or flags & 0x1:
        raise BundleFormatError(
            f"{name}: member {file!r} is compressed or encrypted in its local header"
        )
    start = off + _LOCAL_HEADER.size + nlen + xlen
    end = start + info.file_size
    if end > total:
        raise BundleFormatError(
            f"{name}: member {file!r} runs past the end of the file ({end} > {total} bytes); "
            "truncated bundle"
        )
    if (
        bytes(view[off + _LOCAL_HEADER.size : off + _LOCAL_HEADER.size + nlen]).decode(
            "utf-8", "replace"
        )
        != file
    ):
        raise BundleFormatError(
            f"{name}: member {file!r}: local header names another file (corrupt archive)"
        )
    return view[start:end]


def _parse_manifest(raw: memoryview, name: str) -> dict:
    try:
        manifest = json.loads(bytes(raw).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BundleManifestError(f"{name}: manifest.json is not valid UTF-8 JSON: {e}") from e
    if not isinstance(manifest, dict):
        raise BundleManifestError(
            f"{name}: manifest.json must hold a JSON object, got {type(manifest).__name__}"
        )
    if manifest.get("format") != FORMAT_NAME:
        raise BundleManifestError(
            f"{name}: manifest 'format' is {manifest.get('format')!r}, expected {FORMAT_NAME!r}; "
            "not an edgeocr bundle"
        )
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise BundleManifestError(
            f"{name}: manifest 'format_version' must be an integer, got {version!r}"
        )
    if version != FORMAT_VERSION:
        producer = manifest.get("producer", {})
        by = producer.get("version") if isinstance(producer, dict) else None
        newer = "newer" if version > FORMAT_VERSION else "older, unsupported"
        raise BundleVersionError(
            f"{name}: bundle format version {version} ({newer}; written by edgeocr {by or '?'}); "
            f"this edgeocr reads format version {FORMAT_VERSION} only"
        )
    requires = manifest.get("requires", [])
    if not isinstance(requires, list) or not all(isinstance(r, str) for r in requires):
        raise BundleManifestError(f"{name}: manifest 'requires' must be a list of strings")
    missing = sorted(set(requires) - KNOWN_FEATURES)
    if missing:
        raise BundleVersionError(
            f"{name}: the bundle requires features this edgeocr does not have: {missing} "
            f"(supported: {sorted(KNOWN_FEATURES)}); upgrade edgeocr"
        )
    for key, kind in (("models", list), ("pipeline", dict), ("dictionary", dict)):
        if not isinstance(manifest.get(key), kind):
            raise BundleManifestError(
                f"{name}: manifest '{key}' is missing or not a JSON {kind.__name__}"
            )
    seen = set()
    for i, m in enumerate(manifest["models"]):
        if not isinstance(m, dict):
            raise BundleManifestError(f"{name}: manifest models[{i}] is not an object")
        for key, kind in (
            ("role", str),
            ("file", str),
            ("size", int),
            ("sha256", str),
            ("format", str),
        ):
            if not isinstance(m.get(key), kind) or isinstance(m.get(key), bool):
                raise BundleManifestError(
                    f"{name}: manifest models[{i}].{key} is missing or not a {kind.__name__}"
                )
        if m["role"] not in ROLES:
            raise BundleVersionError(
                f"{name}: models[{i}] has role {m['role']!r}; this edgeocr knows {ROLES}"
            )
        if m["role"] in seen:
            raise BundleManifestError(f"{name}: two models with role {m['role']!r}")
        if m["format"] != "onnx":
            raise BundleVersionError(
                f"{name}: {m['file']}: model format {m['format']!r} is not supported (onnx)"
            )
        if m["size"] < 0:
            raise BundleManifestError(f"{name}: models[{i}].size is negative")
        seen.add(m["role"])
    if "det" not in seen and "rec" not in seen:
        raise BundleManifestError(f"{name}: the bundle has neither a det nor a rec model")
    return manifest
