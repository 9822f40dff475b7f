"""Write Paddle Lite ``.nb`` files (meta_version 1 or 2) from an ``NbProgram``.

A test helper, not a replacement for Paddle Lite's ``opt``: it lets the tests
round-trip real files through both parameter layouts (meta_version 1 is
written by ``opt`` only with ``PADDLE_LITE_MODEL_VERSION1`` set, so no fixture
has it), build tiny synthetic files for fast fuzzing, and make files with
chosen ops. The byte layout follows the fixtures' NB_FORMAT.md.

The FlatBuffers encoding is written front to back: a table's vtable comes
first, then the table, then the objects it refers to (unsigned offsets point
forward, as FlatBuffers requires).

    python tools/paddle_lite/nb_writer.py IN.nb OUT.nb --meta-version 1
"""

from __future__ import annotations

import struct
import sys
from typing import Any

import numpy as np

# --- a tiny front-to-back FlatBuffers encoder -------------------------------


class Table:
    def __init__(self, fields: dict[int, tuple[str, Any]]):
        self.fields = fields  # field id -> (kind, value)


class Str:
    def __init__(self, s: str):
        self.s = s


class Vec:
    def __init__(self, kind: str, items):
        self.kind = kind  # struct format of the elements, "table" or "str"
        self.items = items if isinstance(items, (bytes, bytearray)) else list(items)


_SIZES = {"b": 1, "B": 1, "?": 1, "h": 2, "H": 2, "i": 4, "I": 4, "f": 4, "q": 8, "Q": 8, "d": 8}


class Encoder:
    def __init__(self):
        self.buf = bytearray()

    def align(self, n: int):
        while len(self.buf) % n:
            self.buf.append(0)

    def patch(self, field_pos: int, target: int):
        struct.pack_into("<I", self.buf, field_pos, target - field_pos)

    def obj(self, o) -> int:
        if isinstance(o, Table):
            return self.table(o)
        if isinstance(o, Str):
            self.align(4)
            p = len(self.buf)
            raw = o.s.encode("utf-8")
            self.buf += struct.pack("<I", len(raw)) + raw + b"\0"
            return p
        if isinstance(o, Vec):
            return self.vector(o)
        raise TypeError(type(o))

    def vector(self, v: Vec) -> int:
        if v.kind in ("table", "str"):
            self.align(4)
            p = len(self.buf)
            self.buf += struct.pack("<I", len(v.items)) + b"\0" * (4 * len(v.items))
            for i, item in enumerate(v.items):
                self.patch(p + 4 + 4 * i, self.obj(item if v.kind == "table" else Str(item)))
            return p
        size = _SIZES[v.kind]
        # the elements (after the u32 length) aligned to their size
        while (len(self.buf) + 4) % max(size, 4):
            self.buf.append(0)
        p = len(self.buf)
        if isinstance(v.items, (bytes, bytearray)):
            data = bytes(v.items)
        else:
            data = struct.pack(f"<{len(v.items)}{v.kind}", *v.items)
        self.buf += struct.pack("<I", len(data) // size) + data
        return p

    def table(self, t: Table) -> int:
        ids = sorted(t.fields)
        nfields = (ids[-1] + 1) if ids else 0
        # table layout: soffset, then the fields (8-byte ones first for alignment)
        layout = []
        off = 4
        for fid in sorted(ids, key=lambda f: -_field_size(t.fields[f])):
            sz = _field_size(t.fields[fid])
            while off % sz:
                off += 1
            layout.append((fid, off))
            off += sz
        tsize = off
        vt = [0] * nfields
        for fid, o in layout:
            vt[fid] = o
        self.align(2)
        vt_pos = len(self.buf)
        self.buf += struct.pack(f"<HH{nfields}H", 4 + 2 * nfields, tsize, *vt)
        self.align(8)
        tpos = len(self.buf)
        self.buf += b"\0" * tsize
        struct.pack_into("<i", self.buf, tpos, tpos - vt_pos)
        refs = []
        for fid, o in layout:
            kind, val = t.fields[fid]
            if kind in _SIZES:
                struct.pack_into("<" + kind, self.buf, tpos + o, val)
            else:
                refs.append((tpos + o, val))
        for field_pos, val in refs:
            self.patch(field_pos, self.obj(val))
        return tpos

    def finish(self, root: Table) -> bytes:
        self.buf = bytearray(b"\0" * 8)  # root offset + padding
        p = self.table(root)
        struct.pack_into("<I", self.buf, 0, p)
        return bytes(self.buf)


def _field_size(f) -> int:
    kind, _ = f
    return _SIZES.get(kind, 4)


# --- Paddle Lite schemas -----------------------------------------------------


def _attr(name: str, v) -> Table:
    f: dict[int, tuple[str, Any]] = {0: ("ref", Str(name))}
    if isinstance(v, bool):
        f[1], f[8] = ("i", 6), ("B", int(v))
    elif isinstance(v, int):
        if -(1 << 31) <= v < (1 << 31):
            f[1], f[2] = ("i", 0), ("i", v)
        else:
            f[1], f[11] = ("i", 9), ("q", v)
    elif isinstance(v, float):
        f[1], f[3] = ("i", 1), ("f", v)
    elif isinstance(v, str):
        f[1], f[4] = ("i", 2), ("ref", Str(v))
    elif isinstance(v, (list, tuple)):
        if v and all(isinstance(x, bool) for x in v):
            f[1], f[9] = ("i", 7), ("ref", Vec("B", [int(x) for x in v]))
        elif v and all(isinstance(x, str) for x in v):
            f[1], f[7] = ("i", 5), ("ref", Vec("str", v))
        elif v and any(isinstance(x, float) for x in v):
            f[1], f[6] = ("i", 4), ("ref", Vec("f", [float(x) for x in v]))
        else:
            f[1], f[5] = ("i", 3), ("ref", Vec("i", [int(x) for x in v]))
    elif v is None:
        f[1] = ("i", 13)  # VAR: unused by the reader
    else:
        raise TypeError(f"attribute {name}: {type(v).__name__}")
    return Table(f)


def _slots(d: dict[str, list[str]]) -> Vec:
    return Vec(
        "table", [Table({0: ("ref", Str(k)), 1: ("ref", Vec("str", d[k]))}) for k in sorted(d)]
    )


def _var(v) -> Table:
    tensor = Table(
        {
            0: ("i", int(v.dtype if v.dtype is not None else 5)),
            1: ("ref", Vec("q", [int(d) for d in v.shape])),
        }
    )
    lod = Table({0: ("ref", tensor)})
    vtype = Table({0: ("i", int(v.var_type)), 2: ("ref", lod)})
    return Table({0: ("ref", Str(v.name)), 1: ("ref", vtype), 2: ("B", int(v.persistable))})


def program_bytes(prog) -> bytes:
    ops = []
    for op in prog.ops:
        ops.append(
            Table(
                {
                    0: ("ref", Str(op.type)),
                    1: ("ref", _slots(op.inputs)),
                    2: ("ref", _slots(op.outputs)),
                    3: ("ref", Vec("table", [_attr(k, op.attrs[k]) for k in sorted(op.attrs)])),
                }
            )
        )
    vars_ = [_var(prog.vars[k]) for k in sorted(prog.vars)]
    block = Table(
        {
            0: ("i", 0),
            1: ("i", -1),
            2: ("ref", Vec("table", vars_)),
            3: ("ref", Vec("table", ops)),
            4: ("i", -1),
        }
    )
    fields: dict[int, tuple[str, Any]] = {0: ("ref", Vec("table", [block]))}
    if prog.framework_version:
        fields[1] = ("ref", Table({0: ("q", int(prog.framework_version))}))
    return Encoder().finish(Table(fields))


_DT_IDS = {
    np.dtype(np.bool_): 0,
    np.dtype(np.int16): 1,
    np.dtype(np.int32): 2,
    np.dtype(np.int64): 3,
    np.dtype(np.float16): 4,
    np.dtype(np.float32): 5,
    np.dtype(np.float64): 6,
    np.dtype(np.uint8): 20,
    np.dtype(np.int8): 21,
}


def _param_table(name: str, arr: np.ndarray) -> Table:
    arr = np.ascontiguousarray(arr)
    t = Table(
        {
            0: ("i", 0),
            2: ("ref", Vec("q", list(arr.shape))),
            3: ("i", _DT_IDS[arr.dtype]),
            4: ("ref", Vec("B", arr.tobytes())),
        }
    )
    return Table(
        {
            0: ("ref", Table({0: ("i", 0), 1: ("i", 0)})),
            1: ("ref", Str(name)),
            2: ("B", 1),
            3: ("ref", t),
        }
    )


def params_bytes(params: dict[str, np.ndarray], meta_version: int) -> bytes:
    names = sorted(params)
    if meta_version == 1:
        return Encoder().finish(
            Table({0: ("ref", Vec("table", [_param_table(n, params[n]) for n in names]))})
        )
    out = bytearray(struct.pack("<HHH", 0, 0, 6))
    out += struct.pack("<HI", len(names), max([params[n].nbytes for n in names] or [0]))
    for n in names:
        fb = Encoder().finish(_param_table(n, params[n]))
        out += struct.pack("<II", 4 + len(fb), 4) + fb
    return bytes(out)


def write_nb(prog, meta_version: int = 2, producer: str = "v2.10") -> bytes:
    """Serialise ``prog`` (an ``NbProgram``) to ``.nb`` bytes."""
    topo = program_bytes(prog)
    head = struct.pack("<H", meta_version) + producer.encode()[:15].ljust(16, b"\0")
    head += struct.pack("<Q", len(topo))
    return head + topo + params_bytes(prog.params, meta_version)


def main(argv: list[str] | None = None) -> int:
    import argparse
    import importlib.util
    from pathlib import Path

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--meta-version", type=int, default=2, choices=(1, 2))
    a = ap.parse_args(argv)
    pkg = Path(__file__).resolve().parents[2] / "tests" / "support" / "paddle_lite_ref"
    spec = importlib.util.spec_from_file_location(
        "_pl", pkg / "__init__.py", submodule_search_locations=[str(pkg)]
    )
    mod = importlib.util.module_from_spec(spec)
    sys.modules["_pl"] = mod
    spec.loader.exec_module(mod)
    prog = mod.read_nb(a.src)
    Path(a.dst).write_bytes(write_nb(prog, a.meta_version, prog.producer or "v2.10"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
