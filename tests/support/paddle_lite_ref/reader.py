"""Reader for Paddle Lite ``.nb`` files (meta_version 1 and 2).

Layout (see the fixtures' NB_FORMAT.md; Paddle Lite's
``lite/model_parser/model_parser.cc`` and ``flatbuffers/*.fbs`` are the source
of truth):

* 26-byte header: u16 meta_version, char[16] opt version, u64 topo_size;
* ``topo_size`` bytes: a FlatBuffers ``ProgramDesc``;
* the parameters: meta_version 2 streams one ``ParamDesc`` flatbuffer per
  tensor, meta_version 1 stores one ``CombinedParamsDesc`` flatbuffer.

The FlatBuffers decoding here is deliberately minimal and defensive: every
offset and length is checked against the buffer before it is used, and the
total amount of decoded data is capped relative to the file size, so a
corrupted or hostile file ends in :class:`NbFormatError`, never in a crash,
a hang or an out-of-memory kill.
"""

from __future__ import annotations

import hashlib
import os
import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import NbFormatError

HEADER_SIZE = 26

# lite/api/paddle_place.h
TARGETS = {
    0: "unk",
    1: "host",
    2: "x86",
    3: "cuda",
    4: "arm",
    5: "opencl",
    6: "any",
    7: "fpga",
    8: "npu",
    9: "xpu",
    10: "bm",
    11: "mlu",
    12: "rknpu",
    13: "apu",
    14: "huawei_ascend_npu",
    15: "imagination_nna",
    16: "intel_fpga",
    17: "metal",
    18: "nnadapter",
}
PRECISIONS = {
    0: "unk",
    1: "float",
    2: "int8",
    3: "int32",
    4: "any",
    5: "fp16",
    6: "bool",
    7: "int64",
    8: "int16",
    9: "uint8",
    10: "fp64",
}
LAYOUTS = {
    0: "unk",
    1: "nchw",
    2: "any",
    3: "nhwc",
    4: "imagedefault",
    5: "imagefolder",
    6: "imagenw",
    7: "metaltexturearray",
    8: "metaltexture2darray",
}

# VarType_.Type data types (framework.fbs) -> numpy
DTYPES = {
    0: np.bool_,
    1: np.int16,
    2: np.int32,
    3: np.int64,
    4: np.float16,
    5: np.float32,
    6: np.float64,
    20: np.uint8,
    21: np.int8,
}

KERNEL_ATTR = "__@kernel_type_attr@__"

# Caps that keep a corrupted file from asking for absurd amounts of work.
MAX_BLOCKS = 64
MAX_PARAMS = 65535


# ---------------------------------------------------------------------------
# public data model


@dataclass
class NbVar:
    """One variable of the program: its name, data type id, dims (-1 = dynamic)."""

    name: str
    dtype: int | None = None
    shape: tuple[int, ...] = ()
    persistable: bool = False
    var_type: int = 7  # LOD_TENSOR

    @property
    def np_dtype(self):
        return DTYPES.get(self.dtype) if self.dtype is not None else None


@dataclass
class NbOp:
    """One op in execution order: slot name -> variable names, and attributes."""

    type: str
    inputs: dict[str, list[str]] = field(default_factory=dict)
    outputs: dict[str, list[str]] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)
    index: int = 0

    @property
    def kernel_key(self) -> str:
        """The raw kernel key ``op/alias/target/precision/layout`` ('' if none)."""
        v = self.attrs.get(KERNEL_ATTR, "")
        return v if isinstance(v, str) else ""

    @property
    def kernel(self) -> tuple[str, str, str, str, str] | None:
        """The kernel key decoded to names: (op, alias, target, precision, layout)."""
        parts = self.kernel_key.split("/")
        if len(parts) != 5:
            return None
        out = [parts[0], parts[1]]
        for s, table in zip(parts[2:], (TARGETS, PRECISIONS, LAYOUTS)):
            try:
                out.append(table.get(int(s), s))
            except ValueError:
                out.append(s)
        return tuple(out)  # type: ignore[return-value]

    @property
    def target(self) -> str | None:
        k = self.kernel
        return k[2] if k else None

    def describe(self) -> str:
        key = self.kernel_key
        pretty = "/".join(self.kernel) if self.kernel else "none"
        return f"op #{self.index} '{self.type}' (kernel key {key or 'absent'} = {pretty})"

    def input(self, slot: str) -> str | None:
        v = self.inputs.get(slot) or []
        return v[0] if v else None

    def output(self, slot: str) -> str | None:
        v = self.outputs.get(slot) or []
        return v[0] if v else None


@dataclass
class NbProgram:
    """A parsed ``.nb`` file."""

    source: str
    meta_version: int
    producer: str  # version string of the opt that wrote the file, e.g. "v2.10"
    framework_version: int | None  # Paddle version of the source model, e.g. 2006002
    ops: list[NbOp]
    vars: dict[str, NbVar]
    params: dict[str, np.ndarray]
    param_dtypes: dict[str, int] = field(default_factory=dict)
    sha256: str = ""  # of the whole file's content

    @property
    def targets(self) -> list[str]:
        """Distinct kernel targets of the ops (host excluded), sorted."""
        ts = {op.target for op in self.ops if op.target}
        ts.discard("host")
        ts.discard("any")
        return sorted(ts)

    @property
    def target(self) -> str:
        ts = self.targets
        if not ts:
            return "host"
        return ts[0] if len(ts) == 1 else "+".join(ts)


# ---------------------------------------------------------------------------
# minimal, bounds-checked FlatBuffers access


class _Fb:
    """A FlatBuffers buffer region [base, end) of ``data`` with checked reads."""

    __slots__ = ("data", "base", "end", "budget", "what")

    def __init__(self, data: bytes, base: int, end: int, what: str, budget: list[int]):
        self.data = data
        self.base = base
        self.end = end
        self.what = what
        self.budget = budget  # shared one-element list: remaining decodable units

    def fail(self, msg: str):
        raise NbFormatError(f"{self.what}: {msg}")

    def check(self, pos: int, size: int):
        if pos < self.base or size < 0 or pos + size > self.end:
            self.fail(
                f"offset {pos} (+{size} bytes) lies outside the buffer "
                f"[{self.base}, {self.end}); the file is truncated or corrupted"
            )

    def spend(self, n: int):
        self.budget[0] -= n
        if self.budget[0] < 0:
            self.fail(
                "the program asks for far more data than the file holds; the file is corrupted"
            )

    def u8(self, pos):
        self.check(pos, 1)
        return self.data[pos]

    def u16(self, pos):
        self.check(pos, 2)
        return struct.unpack_from("<H", self.data, pos)[0]

    def i32(self, pos):
        self.check(pos, 4)
        return struct.unpack_from("<i", self.data, pos)[0]

    def u32(self, pos):
        self.check(pos, 4)
        return struct.unpack_from("<I", self.data, pos)[0]

    def root(self) -> _Table:
        return self.table(self.base + self.u32(self.base))

    def table(self, pos: int) -> _Table:
        vt = pos - self.i32(pos)
        vt_size = self.u16(vt)
        if vt_size < 4 or vt_size & 1:
            self.fail(f"bad FlatBuffers vtable size {vt_size} at offset {vt}")
        self.check(vt, vt_size)
        tsize = self.u16(vt + 2)
        self.check(pos, max(tsize, 4))
        self.spend(1)
        return _Table(self, pos, vt, vt_size, tsize)

    def vector(self, pos: int, elem: int) -> tuple[int, int]:
        n = self.u32(pos)
        self.check(pos + 4, n * elem)
        self.spend(n)
        return pos + 4, n

    def string(self, pos: int) -> str:
        start, n = self.vector(pos, 1)
        try:
            return bytes(self.data[start : start + n]).decode("utf-8")
        except UnicodeDecodeError:
            self.fail(f"string at offset {pos} is not valid UTF-8")


class _Table:
    __slots__ = ("fb", "pos", "vt", "vt_size", "tsize")

    def __init__(self, fb: _Fb, pos: int, vt: int, vt_size: int, tsize: int):
        self.fb, self.pos, self.vt, self.vt_size, self.tsize = fb, pos, vt, vt_size, tsize

    def _off(self, field_id: int) -> int:
        o = 4 + 2 * field_id
        if o + 2 > self.vt_size:
            return 0
        off = struct.unpack_from("<H", self.fb.data, self.vt + o)[0]
        if off and off >= self.tsize:
            self.fb.fail(
                f"field {field_id} of the table at offset {self.pos} lies outside the table"
            )
        return off

    def scalar(self, field_id: int, fmt: str, default=0):
        off = self._off(field_id)
        if not off:
            return default
        size = struct.calcsize(fmt)
        self.fb.check(self.pos + off, size)
        return struct.unpack_from("<" + fmt, self.fb.data, self.pos + off)[0]

    def ref(self, field_id: int) -> int | None:
        off = self._off(field_id)
        if not off:
            return None
        p = self.pos + off
        return p + self.fb.u32(p)

    def string(self, field_id: int, default: str = "") -> str:
        p = self.ref(field_id)
        return default if p is None else self.fb.string(p)

    def table(self, field_id: int) -> _Table | None:
        p = self.ref(field_id)
        return None if p is None else self.fb.table(p)

    def tables(self, field_id: int) -> list[_Table]:
        p = self.ref(field_id)
        if p is None:
            return []
        start, n = self.fb.vector(p, 4)
        out = []
        for i in range(n):
            e = start + 4 * i
            out.append(self.fb.table(e + self.fb.u32(e)))
        return out

    def strings(self, field_id: int) -> list[str]:
        p = self.ref(field_id)
        if p is None:
            return []
        start, n = self.fb.vector(p, 4)
        out = []
        for i in range(n):
            e = start + 4 * i
            out.append(self.fb.string(e + self.fb.u32(e)))
        return out

    def scalars(self, field_id: int, fmt: str) -> list:
        p = self.ref(field_id)
        if p is None:
            return []
        size = struct.calcsize(fmt)
        start, n = self.fb.vector(p, size)
        return list(struct.unpack_from(f"<{n}{fmt}", self.fb.data, start))

    def bytes_view(self, field_id: int) -> memoryview:
        p = self.ref(field_id)
        if p is None:
            return memoryview(b"")
        start, n = self.fb.vector(p, 1)
        self.fb.spend(-n)  # raw data is not decoded, it costs nothing extra
        return memoryview(self.fb.data)[start : start + n]


# ---------------------------------------------------------------------------
# program (framework.fbs)

# AttrType -> (field id, struct format or kind)
_ATTR_FIELDS = {
    0: (2, "i"),  # INT
    1: (3, "f"),  # FLOAT
    2: (4, "str"),  # STRING
    3: (5, "[i"),  # INTS
    4: (6, "[f"),  # FLOATS
    5: (7, "[str"),  # STRINGS
    6: (8, "?"),  # BOOLEAN
    7: (9, "[?"),  # BOOLEANS
    8: (10, "i"),  # BLOCK
    9: (11, "q"),  # LONG
    10: (12, "[i"),  # BLOCKS
    11: (13, "[q"),  # LONGS
    12: (15, "[d"),  # FLOAT64S (v2.13)
    15: (14, "d"),  # FLOAT64 (v2.13)
}


def _attr_value(t: _Table, what: str):
    atype = t.scalar(1, "i", 0)
    spec = _ATTR_FIELDS.get(atype)
    if spec is None:
        # VAR / VARS (v2.13) reference variables; nothing in PP-OCR uses them.
        return None
    fid, kind = spec
    if kind == "str":
        return t.string(fid)
    if kind == "[str":
        return t.strings(fid)
    if kind.startswith("["):
        vals = t.scalars(fid, kind[1:])
        return [bool(v) for v in vals] if kind == "[?" else vals
    if kind == "?":
        return bool(t.scalar(fid, "B", 0))
    # FlatBuffers omits fields equal to their default (0): keep the type right
    return t.scalar(fid, kind, 0.0 if kind in ("f", "d") else 0)


def _slots(tables: list[_Table]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for v in tables:
        out[v.string(0)] = v.strings(1)
    return out


def _parse_var(t: _Table) -> NbVar:
    name = t.string(0)
    persistable = bool(t.scalar(2, "B", 0))
    vt = t.table(1)
    dtype, dims, vtype = None, (), 7
    if vt is not None:
        vtype = vt.scalar(0, "i", 7)
        lod = vt.table(2)  # lod_tensor
        tensor = lod.table(0) if lod is not None else None
        if tensor is None:
            sel = vt.table(1)  # selected_rows
            tensor = sel
        if tensor is not None:
            dtype = tensor.scalar(0, "i", 0)
            dims = tuple(tensor.scalars(1, "q"))
    return NbVar(name=name, dtype=dtype, shape=dims, persistable=persistable, var_type=vtype)


def _parse_program(fb: _Fb):
    root = fb.root()
    blocks = root.tables(0)
    if not blocks:
        fb.fail("the program has no block")
    if len(blocks) > MAX_BLOCKS:
        fb.fail(f"the program claims {len(blocks)} blocks")
    vt = root.table(1)
    fw_version = vt.scalar(0, "q", 0) if vt is not None else None
    # PP-OCR models have a single block; sub-blocks (control flow) are read
    # for their variables only, the translator refuses ops that use them.
    main = blocks[0]
    vars_: dict[str, NbVar] = {}
    for b in blocks:
        for v in b.tables(2):
            nv = _parse_var(v)
            vars_.setdefault(nv.name, nv)
    ops: list[NbOp] = []
    for i, o in enumerate(main.tables(3)):
        attrs = {}
        for a in o.tables(3):
            attrs[a.string(0)] = _attr_value(a, fb.what)
        ops.append(
            NbOp(
                type=o.string(0),
                inputs=_slots(o.tables(1)),
                outputs=_slots(o.tables(2)),
                attrs=attrs,
                index=i,
            )
        )
    return ops, vars_, fw_version


# ---------------------------------------------------------------------------
# parameters (param.fbs)


def _parse_param(fb: _Fb, root: _Table | None = None) -> tuple[str, np.ndarray, int]:
    if root is None:
        root = fb.root()
    name = root.string(1)
    vtype = root.scalar(2, "B", 0)
    if vtype != 1:
        fb.fail(f"parameter '{name}' has variable type {vtype}, expected a LoDTensor (1)")
    t = root.table(3)
    if t is None:
        fb.fail(f"parameter '{name}' has no tensor")
    dims = t.scalars(2, "q")
    dtype_id = t.scalar(3, "i", 0)
    data = t.bytes_view(4)
    dt = DTYPES.get(dtype_id)
    if dt is None:
        fb.fail(f"parameter '{name}' has unsupported data type id {dtype_id}")
    if any(d < 0 for d in dims):
        fb.fail(f"parameter '{name}' has negative dims {dims}")
    count = 1
    for d in dims:
        count *= d
    itemsize = np.dtype(dt).itemsize
    if count * itemsize != len(data):
        fb.fail(
            f"parameter '{name}' has dims {dims} ({count} x {itemsize} bytes) but "
            f"{len(data)} bytes of data"
        )
    arr = np.frombuffer(data, dtype=np.dtype(dt).newbyteorder("<"), count=count)
    return name, arr.reshape(dims), dtype_id


def _parse_params_v2(data: bytes, pos: int, what: str, budget) -> tuple[dict, dict]:
    end = len(data)

    def need(p, n, msg):
        if p + n > end:
            raise NbFormatError(
                f"{what}: truncated parameter section ({msg} at offset {p} "
                f"needs {n} bytes, file has {end})"
            )

    need(pos, 2, "format version")
    pver = struct.unpack_from("<H", data, pos)[0]
    if pver != 0:
        raise NbFormatError(
            f"{what}: unknown parameter-section version {pver} (expected 0); "
            f"the file is corrupted or written by an unknown Paddle Lite"
        )
    pos += 2
    need(pos, 2, "meta size")
    msize = struct.unpack_from("<H", data, pos)[0]
    pos += 2
    need(pos, msize, "reserved meta")
    pos += msize
    need(pos, 2, "header size")
    hsize = struct.unpack_from("<H", data, pos)[0]
    pos += 2
    if hsize < 2:
        raise NbFormatError(f"{what}: parameter header size {hsize} is too small")
    need(pos, hsize, "parameter header")
    count = struct.unpack_from("<H", data, pos)[0]
    pos += hsize
    params, dtypes = {}, {}
    for i in range(count):
        need(pos, 8, f"parameter record {i}")
        total, off = struct.unpack_from("<II", data, pos)
        if off < 4 or off > total:
            raise NbFormatError(
                f"{what}: parameter record {i} has bad offset {off} "
                f"(total size {total}); the file is corrupted"
            )
        need(pos + 4, total, f"parameter record {i}")
        fb_start = pos + 4 + off
        fb_end = pos + 4 + total
        fb = _Fb(data, fb_start, fb_end, what, budget)
        name, arr, dt = _parse_param(fb)
        params[name] = arr
        dtypes[name] = dt
        pos = fb_end
    return params, dtypes


def _parse_params_v1(data: bytes, pos: int, what: str, budget) -> tuple[dict, dict]:
    fb = _Fb(data, pos, len(data), what, budget)
    plist = fb.root().tables(0)
    if len(plist) > MAX_PARAMS:
        fb.fail(f"{len(plist)} parameters is more than a .nb file can hold")
    params, dtypes = {}, {}
    for t in plist:
        name, arr, dt = _parse_param(fb, t)
        params[name] = arr
        dtypes[name] = dt
    return params, dtypes


# ---------------------------------------------------------------------------


def _load_bytes(path_or_bytes) -> tuple[bytes, str]:
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        return bytes(path_or_bytes), "<bytes>"
    if isinstance(path_or_bytes, (str, os.PathLike)):
        p = os.fspath(path_or_bytes)
        try:
            with open(p, "rb") as f:
                return f.read(), p
        except OSError as e:
            raise NbFormatError(f"{p}: cannot read the file ({e.strerror or e})") from e
    raise TypeError(f"read_nb expects a path or bytes, got {type(path_or_bytes).__name__}")


def _producer(data: bytes) -> str:
    raw = data[2:18]
    raw = raw.split(b"\0", 1)[0]
    return raw.decode("ascii", "replace")


def read_nb(path_or_bytes: str | os.PathLike | bytes, *, source: str | None = None) -> NbProgram:
    """Parse a Paddle Lite ``.nb`` file (a path or its bytes).

    Raises :class:`NbFormatError` for anything that is not a readable
    meta_version 1/2 ``.nb`` file.
    """
    data, what = _load_bytes(path_or_bytes)
    if source:
        what = source
    if len(data) < HEADER_SIZE:
        raise NbFormatError(
            f"{what}: {len(data)} bytes is too short for a Paddle Lite .nb "
            f"file (the header alone is {HEADER_SIZE} bytes)"
        )
    meta_version = struct.unpack_from("<H", data, 0)[0]
    producer = _producer(data)
    if meta_version == 0:
        raise NbFormatError(
            f"{what}: this .nb file uses the legacy NaiveBuffer format (meta_version 0), "
            f"written by Paddle Lite opt {producer or '< v2.7'} (before v2.7). edgeocr reads "
            f"only the FlatBuffers formats; re-export the model with paddle_lite_opt >= 2.7 "
            f"(e.g. `pip install paddlelite==2.10` and run paddle_lite_opt on the Paddle "
            f"inference model)."
        )
    if meta_version not in (1, 2):
        raise NbFormatError(
            f"{what}: unknown .nb meta_version {meta_version} (edgeocr reads 1 and 2, written "
            f"by Paddle Lite 2.7 to 2.13); the file is corrupted or not a Paddle Lite model"
        )
    topo_size = struct.unpack_from("<Q", data, 18)[0]
    if topo_size > len(data) - HEADER_SIZE or topo_size < 8:
        raise NbFormatError(
            f"{what}: program size {topo_size} in the header does not fit the "
            f"{len(data)}-byte file; the file is truncated or corrupted"
        )
    # Units of decoded data (table, vector elements, string bytes) a file may
    # ask for: generous for real files, bounded for hostile ones.
    budget = [4 * len(data) + 4096]
    topo_end = HEADER_SIZE + topo_size
    try:
        fb = _Fb(data, HEADER_SIZE, topo_end, what, budget)
        ops, vars_, fw_version = _parse_program(fb)
        if meta_version == 2:
            params, dtypes = _parse_params_v2(data, topo_end, what, budget)
        else:
            params, dtypes = _parse_params_v1(data, topo_end, what, budget)
    except NbFormatError:
        raise
    except (
        struct.error,
        ValueError,
        IndexError,
        OverflowError,
        MemoryError,
        RecursionError,
    ) as e:  # defensive: nothing but NbFormatError leaves the reader
        raise NbFormatError(f"{what}: corrupted .nb file ({type(e).__name__}: {e})") from e
    return NbProgram(
        source=what,
        meta_version=meta_version,
        producer=producer,
        framework_version=fw_version,
        ops=ops,
        vars=vars_,
        params=params,
        param_dtypes=dtypes,
        sha256=hashlib.sha256(data).hexdigest(),
    )
