"""The C++ loader (csrc/loader): SHA-256, the bundle reader against a hostile
corpus, role/dictionary rules, model-set settings, and parity of loose files
and bundles."""

from __future__ import annotations

import hashlib
import json
import os
import random
import struct
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import numpy as np
import pytest
from limits import PEAK_RSS_MB, run_limited

import edgeocr
from edgeocr import _core
from edgeocr.errors import BundleError, InvalidInputError, ModelError

DATA = Path(__file__).resolve().parents[1] / "data"


# ---------------------------------------------------------------------------
# SHA-256
# ---------------------------------------------------------------------------
# FIPS 180-2 / NIST CSRC example vectors.
SHA256_VECTORS = [
    (b"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    (b"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
        b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ),
    (
        b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqr"
        b"lmnopqrsmnopqrstnopqrstu",
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
    ),
    (b"a" * 1_000_000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
]


@pytest.mark.parametrize(
    "data,digest", SHA256_VECTORS, ids=["empty", "abc", "448bit", "896bit", "million-a"]
)
def test_sha256_standard_vectors(data, digest):
    assert _core.loader.sha256_hex(data) == digest


def test_sha256_every_length_around_blocks():
    rng = random.Random(7)
    for n in list(range(0, 200)) + [1023, 1024, 1025, 65535, 65536, 65537]:
        data = bytes(rng.getrandbits(8) for _ in range(n))
        assert _core.loader.sha256_hex(data) == hashlib.sha256(data).hexdigest(), n


def test_sha256_portable_code_matches_too():
    """Both block functions give hashlib's digest: the SHA-extension one (where the CPU has it,
    as in this process) and the portable one (EDGEOCR_SHA256=portable, in a child)."""
    code = textwrap.dedent(
        """
        import hashlib, random
        from edgeocr import _core
        rng = random.Random(11)
        for n in list(range(0, 160)) + [4096, 65537, 1 << 20]:
            data = rng.randbytes(n)
            assert _core.loader.sha256_hex(data) == hashlib.sha256(data).hexdigest(), n
        print("ok")
        """
    )
    for env in ({}, {"EDGEOCR_SHA256": "portable"}):
        r = subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0 and r.stdout.strip() == "ok", (env, r.stderr[-2000:])


# ---------------------------------------------------------------------------
# Dictionaries and roles (one implementation, bound from C++)
# ---------------------------------------------------------------------------
def test_keys_parsing_rules():
    parse = _core.loader.parse_keys
    assert parse(b"a\nb\r\nc\rd\n\n\n") == ["a", "b", "c", "d"]
    assert parse(b"a\n\nb") == ["a", "", "b"]  # inner empty lines are characters' slots
    assert parse("é\n中\n".encode()) == ["é", "中"]
    with pytest.raises(ModelError, match="not UTF-8"):
        parse(b"a\n\xff\n")
    # Control characters (Unicode Cc) are refused as C refuses them (tests/c/test_c_regressions.c):
    # a C caller reads text up to its first NUL; space and other printable text are characters.
    for text, what in [
        (b"a\n\0\n", "line 2 holds the control character U\\+0000"),
        (b"a\tb\n", "U\\+0009"),
        (b"\x1b[2J\n", "U\\+001B"),
        (b"\x7f", "U\\+007F"),
        ("a\n\x85\n".encode(), "U\\+0085"),
    ]:
        with pytest.raises(ModelError, match=what):
            parse(text)
    assert parse(" \n\u00a0\n\u3000\n".encode()) == [" ", "\u00a0", "\u3000"]
    split = _core.loader.split_lines_like_python
    for text in ["a\nb", "a\r\nb\rc", "x\x0by\x0cz", "p\u2028q\u2029r\x85s", "end\n", "", "\n\n"]:
        assert split(text.encode()) == text.splitlines(), repr(text)


def test_keys_list_that_is_not_unicode_text_is_invalid_input(v4_paths):
    # A lone surrogate has no UTF-8 form: was pybind11's "Unable to cast Python instance".
    import edgeocr

    keys = ["a"] * 6622 + ["\ud800"]
    with pytest.raises(edgeocr.InvalidInputError, match=r"keys\[6622\] is not valid Unicode"):
        edgeocr.Predictor(det=v4_paths["det"], rec=v4_paths["rec"], keys=keys, threads=1)


def test_model_bytes_are_named_model_bytes_not_bundle_bytes():
    import edgeocr

    with pytest.raises(edgeocr.ModelError, match="^<model bytes>: not a loadable ONNX model"):
        edgeocr.Predictor(b"junk" * 10)


def test_roles_and_charset_rules(v4_paths, tmp_path):
    p = edgeocr.Predictor(det=v4_paths["det"], rec=v4_paths["rec"])
    assert p.roles == {"det", "rec"}
    charset = p.charset
    assert charset[0] == "" and charset[-1] == " "
    # Given as the wrong role: refused, naming what it looks like.
    with pytest.raises(ModelError, match="given as the det model.*rec model"):
        edgeocr.Predictor(det=v4_paths["rec"])
    # A keys file one character short of the model's classes.
    keys = tmp_path / "keys.txt"
    keys.write_text("\n".join(charset[1:-2]) + "\n", encoding="utf-8")
    with pytest.raises(ModelError, match="classes but the keys file"):
        edgeocr.Predictor(rec=v4_paths["rec"], keys=keys)
    # A dictionary of the right size made of NULs, as a list or a file: refused, not read as text
    # that starts with '\0'.
    nuls = ["\0"] * (len(charset) - 2)
    with pytest.raises(ModelError, match="character 1 holds the control character U\\+0000"):
        edgeocr.Predictor(rec=v4_paths["rec"], keys=nuls)
    keys.write_bytes(b"\0\n" * len(nuls))
    with pytest.raises(ModelError, match="line 1 holds the control character U\\+0000"):
        edgeocr.Predictor(rec=v4_paths["rec"], keys=keys)
    # The same dictionary as the metadata's, from a file: same classes.
    keys.write_text("\n".join(charset[1:-1]) + "\n", encoding="utf-8")
    assert edgeocr.Predictor(rec=v4_paths["rec"], keys=keys).charset == charset


# ---------------------------------------------------------------------------
# Model-set settings: one decision for loose files, Predictor() and bundles
# ---------------------------------------------------------------------------
def test_model_set_settings_by_sha256(v4_paths, v6_paths):
    name, settings = _core.loader.model_set_settings(
        v4_paths["det"], v4_paths["cls"], v4_paths["rec"]
    )
    assert name == "ppocr-v4-mobile" and json.loads(settings) == {"drop_score": 0.65}
    with open(v4_paths["det"], "rb") as f:
        det_bytes = f.read()
    assert _core.loader.model_set_settings(det_bytes, None, v4_paths["rec"])[0] == "ppocr-v4-mobile"
    assert _core.loader.model_set_settings(det_bytes[:-1] + b"\0", None, v4_paths["rec"]) == (
        "",
        "{}",
    )
    assert (
        _core.loader.model_set_settings(v4_paths["det"], None, v6_paths["rec"])[0]
        == "ppocr-v4det-v6rec"
    )
    assert _core.loader.model_set_settings(v6_paths["det"], None, v4_paths["rec"]) == ("", "{}")
    assert (
        _core.loader.model_set_settings(v6_paths["det"], v6_paths["cls"], v6_paths["rec"])[0]
        == "ppocr-v6-small"
    )


def test_loose_default_and_bundle_get_the_same_settings(v4_paths, v4_bundle):
    loose = edgeocr.Predictor(det=v4_paths["det"], cls=v4_paths["cls"], rec=v4_paths["rec"])
    default = edgeocr.Predictor(models="ppocr-v4-mobile")
    packed = edgeocr.Predictor(v4_bundle)
    assert loose.config.drop_score == default.config.drop_score == packed.config.drop_score == 0.65
    assert loose.config == default.config == packed.config
    # The caller's overrides win everywhere.
    assert edgeocr.Predictor(v4_bundle, drop_score=0.4).config.drop_score == 0.4
    assert (
        edgeocr.Predictor(
            det=v4_paths["det"], rec=v4_paths["rec"], drop_score=0.4
        ).config.drop_score
        == 0.4
    )


def test_settings_errors_name_the_setting(v4_paths):
    with pytest.raises(InvalidInputError, match=r"det_thresh.*number.*0\.3"):
        edgeocr.Predictor(rec=v4_paths["rec"], det_thresh="0.3")
    with pytest.raises(InvalidInputError, match=r"cls_batch.*integer"):
        edgeocr.Predictor(rec=v4_paths["rec"], cls_batch=1e10)
    with pytest.raises(InvalidInputError, match=r"det_limit_side_len.*20000"):
        edgeocr.Predictor(rec=v4_paths["rec"], det_limit_side_len=20000)


# ---------------------------------------------------------------------------
# Parity: loose files and the bundle packed from them
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def v4_bundle(v4_paths, tmp_path_factory) -> Path:
    from edgeocr.pack import pack

    out = tmp_path_factory.mktemp("loader") / "v4.eocr"
    # Stored as given (no offline optimisation, no quantization): the same graphs as the files.
    pack(
        out,
        det=v4_paths["det"],
        cls=v4_paths["cls"],
        rec=v4_paths["rec"],
        optimize=None,
        measure_latency=False,
        threads=1,
        log=lambda *a, **k: None,
    )
    return out


def _assert_same(loose, packed, from_bytes, images) -> int:
    n_lines = 0
    for img in images:
        a, b, c = loose.predict(img), packed.predict(img), from_bytes.predict(img)
        assert (
            [ln.text for ln in a.lines]
            == [ln.text for ln in b.lines]
            == [ln.text for ln in c.lines]
        ), img
        for la, lb, lc in zip(a.lines, b.lines, c.lines):
            np.testing.assert_allclose(la.box, lb.box, atol=0.5)
            np.testing.assert_array_equal(lb.box, lc.box)
        n_lines += len(a.lines)
    return n_lines


@pytest.fixture(scope="module")
def three_ways(v4_paths, v4_bundle):
    loose = edgeocr.Predictor(
        det=v4_paths["det"], cls=v4_paths["cls"], rec=v4_paths["rec"], threads=1
    )
    packed = edgeocr.Predictor(v4_bundle, threads=1)
    from_bytes = edgeocr.Predictor(v4_bundle.read_bytes(), threads=1)
    return loose, packed, from_bytes


def test_loose_and_bundle_give_identical_results(three_ways):
    images = sorted(DATA.glob("*.png"))
    assert len(images) >= 4
    assert _assert_same(*three_ways, images) > 0


def test_loose_and_bundle_agree_on_dev_pages(three_ways, dev_set):
    pages = sorted(
        p for p in (dev_set / "images").rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png")
    )
    assert pages
    assert _assert_same(*three_ways, pages[:: max(1, len(pages) // 4)][:4]) > 0


def test_bundle_reader_api(v4_bundle):
    from edgeocr.pack import load_bundle, load_bundle_bytes

    with load_bundle(v4_bundle) as b:
        view = b.models["rec"]
        assert view.readonly and hashlib.sha256(view).hexdigest() == b.model_entry("rec")["sha256"]
        kept = memoryview(view)[:16]
    # A view taken before close() keeps the mapping alive (no use after unmap).
    assert len(bytes(kept)) == 16
    raw = v4_bundle.read_bytes()
    b = load_bundle_bytes(raw, name="mem")
    assert bytes(b.models["det"][:8]) == raw[raw.find(bytes(b.models["det"][:64])) :][:8]
    assert b.config.drop_score == 0.65


# ---------------------------------------------------------------------------
# Hostile bundles: every one ends in a BundleError (an edgeocr.ModelError)
# within 1.2 GB peak RSS and 15 s of CPU, in a subprocess (tests/python/limits.py).
# ---------------------------------------------------------------------------
def _local(
    name: bytes, data: bytes, method: int = 0, crc: int | None = None, usize: int | None = None
) -> bytes:
    crc = zlib.crc32(data) if crc is None else crc
    usize = len(data) if usize is None else usize
    return (
        struct.pack(
            "<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc, len(data), usize, len(name), 0
        )
        + name
        + data
    )


def _central(
    name: bytes,
    data: bytes,
    offset: int,
    method: int = 0,
    size: int | None = None,
    usize: int | None = None,
) -> bytes:
    size = len(data) if size is None else size
    usize = size if usize is None else usize
    return (
        struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50,
            20,
            20,
            0,
            method,
            0,
            0,
            zlib.crc32(data),
            size,
            usize,
            len(name),
            0,
            0,
            0,
            0,
            0,
            offset,
        )
        + name
    )


def _eocd(n: int, cd_size: int, cd_offset: int, n_total: int | None = None) -> bytes:
    n_total = n if n_total is None else n_total
    return struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n_total, n_total, cd_size, cd_offset, 0)


def _zip(members, *, methods=None) -> bytes:
    """A stored zip of (name, data) with exact control over the bytes."""
    out, central = b"", b""
    for name, data in members:
        method = (methods or {}).get(name, 0)
        stored = zlib.compress(data)[2:-4] if method == 8 else data
        off = len(out)
        out += _local(name.encode(), stored, method, zlib.crc32(data), len(data))
        central += _central(name.encode(), stored, off, method, len(stored), len(data))
    return out + central + _eocd(len(members), len(central), len(out))


FAKE_MODEL = b"\x08\x07" + b"not really an onnx graph" * 40
RANDOM_MODEL = random.Random(5).randbytes(2000)  # deflate cannot shrink it


def _manifest(**edits) -> dict:
    m = {
        "format": "edgeocr-bundle",
        "format_version": 1,
        "producer": {"name": "edgeocr", "version": "0.1.0", "onnxruntime": None, "created": "2026"},
        "requires": ["onnx"],
        "target": "generic",
        "models": [
            {
                "role": "det",
                "file": "det.onnx",
                "format": "onnx",
                "size": len(FAKE_MODEL),
                "sha256": hashlib.sha256(FAKE_MODEL).hexdigest(),
            }
        ],
        "pipeline": {"det_thresh": 0.3},
        "dictionary": {"charset": [], "blank_index": 0},
        "quantization": {"mode": "none"},
        "verification": {},
    }
    for path, value in edits.items():
        keys = path.split("__")
        d = m
        for k in keys[:-1]:
            d = d[int(k)] if isinstance(d, list) else d[k]
        if value is _DEL:
            del d[keys[-1]]
        else:
            d[int(keys[-1]) if isinstance(d, list) else keys[-1]] = value
    return m


_DEL = object()


def _bundle(manifest, model=FAKE_MODEL, text=None) -> bytes:
    body = text if text is not None else json.dumps(manifest).encode()
    return _zip([("manifest.json", body), ("det.onnx", model)])


def _overlapping() -> bytes:
    inner = _local(b"rec.onnx", FAKE_MODEL)
    outer_data = b"\0" * 16 + inner
    first = _local(b"det.onnx", outer_data)
    man = json.dumps(_manifest()).encode()
    man_off = len(first)
    body = first + _local(b"manifest.json", man)
    rec_off = 30 + len(b"det.onnx") + 16
    central = (
        _central(b"det.onnx", outer_data, 0)
        + _central(b"rec.onnx", FAKE_MODEL, rec_off)
        + _central(b"manifest.json", man, man_off)
    )
    return body + central + _eocd(3, len(central), len(body))


def _patch_eocd(raw: bytes, **fields) -> bytes:
    i = raw.rfind(b"PK\x05\x06")
    sig, d, cd, n1, n2, size, off, clen = struct.unpack_from("<IHHHHIIH", raw, i)
    vals = dict(n1=n1, n2=n2, size=size, off=off)
    vals.update(fields)
    return raw[:i] + struct.pack(
        "<IHHHHIIH", sig, d, cd, vals["n1"], vals["n2"], vals["size"], vals["off"], clen
    )


def _patch_central(raw: bytes, name: bytes, **fields) -> bytes:
    i = raw.find(b"PK\x01\x02")
    while i >= 0:
        nlen = struct.unpack_from("<H", raw, i + 28)[0]
        if raw[i + 46 : i + 46 + nlen] == name:
            break
        i = raw.find(b"PK\x01\x02", i + 4)
    b = bytearray(raw)
    if "csize" in fields:
        struct.pack_into("<I", b, i + 20, fields["csize"])
    if "usize" in fields:
        struct.pack_into("<I", b, i + 24, fields["usize"])
    if "offset" in fields:
        struct.pack_into("<I", b, i + 42, fields["offset"])
    return bytes(b)


def _deep(n: int) -> bytes:
    m = json.dumps(_manifest()).encode()
    return m[:-1] + b', "verification": ' + b"[" * n + b"]" * n + b"}"


def hostile_corpus() -> dict:
    """name -> (bundle bytes, expected BundleError subclass name)."""
    good = _bundle(_manifest())
    corpus = {
        # wrong types
        "format_version_string": (_bundle(_manifest(format_version="1")), "BundleManifestError"),
        "models_not_list": (_bundle(_manifest(models={"det": 1})), "BundleManifestError"),
        "models_empty": (_bundle(_manifest(models=[])), "BundleManifestError"),
        "model_size_string": (_bundle(_manifest(models__0__size="4")), "BundleManifestError"),
        "model_size_float": (_bundle(_manifest(models__0__size=1e30)), "BundleManifestError"),
        "model_size_negative": (_bundle(_manifest(models__0__size=-1)), "BundleManifestError"),
        "model_size_past_file": (_bundle(_manifest(models__0__size=2**40)), "BundleManifestError"),
        "sha256_short": (_bundle(_manifest(models__0__sha256="abc")), "BundleManifestError"),
        "role_missing": (_bundle(_manifest(models__0__role=_DEL)), "BundleManifestError"),
        "file_not_string": (
            _bundle(_manifest(models__0__file=["det.onnx"])),
            "BundleManifestError",
        ),
        "pipeline_list": (_bundle(_manifest(pipeline=[1, 2])), "BundleManifestError"),
        "cls_batch_string": (
            _bundle(_manifest(pipeline={"cls_batch": "6"})),
            "BundleManifestError",
        ),
        "det_mean_short": (_bundle(_manifest(pipeline={"det_mean": [0.5]})), "BundleManifestError"),
        "det_std_zero": (
            _bundle(_manifest(pipeline={"det_std": [0, 0, 0]})),
            "BundleManifestError",
        ),
        "use_cls_string": (_bundle(_manifest(pipeline={"use_cls": "yes"})), "BundleManifestError"),
        "charset_ints": (
            _bundle(_manifest(dictionary={"charset": ["", 1, 2]})),
            "BundleManifestError",
        ),
        "charset_not_list": (
            _bundle(_manifest(dictionary={"charset": "abc"})),
            "BundleManifestError",
        ),
        "producer_list": (_bundle(_manifest(producer=["edgeocr"])), "BundleManifestError"),
        "runtime_level_bad": (
            _bundle(_manifest(runtime={"graph_optimization": "turbo"})),
            "BundleManifestError",
        ),
        "manifest_is_list": (_bundle(None, text=b"[1, 2, 3]"), "BundleManifestError"),
        "manifest_not_json": (_bundle(None, text=b"{not json"), "BundleManifestError"),
        "manifest_not_utf8": (_bundle(None, text=b'{"format": "\xff\xfe"}'), "BundleManifestError"),
        "manifest_nan": (
            _bundle(
                None, text=json.dumps(_manifest(pipeline={"det_thresh": float("nan")})).encode()
            ),
            "BundleManifestError",
        ),
        # absurd values: refused before anything is sized from them
        "det_side_20000": (
            _bundle(_manifest(pipeline={"det_limit_side_len": 20000})),
            "BundleManifestError",
        ),
        "det_max_side_huge": (
            _bundle(_manifest(pipeline={"det_max_side_len": 2**31 - 1})),
            "BundleManifestError",
        ),
        "rec_batch_1e9": (_bundle(_manifest(pipeline={"rec_batch": 10**9})), "BundleManifestError"),
        "rec_height_huge": (
            _bundle(_manifest(pipeline={"rec_height": 100000})),
            "BundleManifestError",
        ),
        "rec_buckets_huge": (
            _bundle(_manifest(pipeline={"rec_width_buckets": [2**40]})),
            "BundleManifestError",
        ),
        "rec_buckets_many": (
            _bundle(_manifest(pipeline={"rec_width_buckets": list(range(8, 8 + 5000))})),
            "BundleManifestError",
        ),
        "rec_input_too_big": (
            _bundle(
                _manifest(
                    pipeline={"rec_batch": 1024, "rec_height": 512, "rec_width_buckets": [8192]}
                )
            ),
            "BundleManifestError",
        ),
        "int_overflow": (
            _bundle(
                None,
                text=json.dumps(_manifest())
                .replace('"det_thresh": 0.3', '"cls_batch": 1' + "0" * 400)
                .encode(),
            ),
            "BundleManifestError",
        ),
        "charset_huge_strings": (
            _bundle(_manifest(dictionary={"charset": ["", "x" * 100000]})),
            "BundleManifestError",
        ),
        # deep nesting
        "deep_nesting_100k": (_bundle(None, text=_deep(100_000)), "BundleManifestError"),
        "deep_nesting_30": (_bundle(None, text=_deep(30)), "BundleManifestError"),
        # versions and features
        "format_version_99": (_bundle(_manifest(format_version=99)), "BundleVersionError"),
        "requires_fp4": (_bundle(_manifest(requires=["onnx", "fp4"])), "BundleVersionError"),
        "role_unknown": (_bundle(_manifest(models__0__role="segmenter")), "BundleVersionError"),
        "format_nb": (_bundle(_manifest(models__0__format="paddle")), "BundleVersionError"),
        "pipeline_unknown_key": (
            _bundle(_manifest(pipeline={"det_magic": 1})),
            "BundleVersionError",
        ),
        "not_an_edgeocr_bundle": (_bundle(_manifest(format="other")), "BundleManifestError"),
        # checksums
        "bad_checksum": (_bundle(_manifest(), model=FAKE_MODEL[:-1] + b"!"), "BundleChecksumError"),
        "size_mismatch": (
            _bundle(_manifest(models__0__size=len(FAKE_MODEL) - 1)),
            "BundleChecksumError",
        ),
        # truncated files
        "truncated_half": (good[: len(good) // 2], "BundleFormatError"),
        "truncated_no_eocd": (good[:-10], "BundleFormatError"),
        "truncated_to_30": (good[:30], "BundleFormatError"),
        "empty": (b"", "BundleFormatError"),
        "random_bytes": (random.Random(3).randbytes(4096), "BundleFormatError"),
        # zip tricks
        "compressed_manifest": (
            _zip(
                [("manifest.json", json.dumps(_manifest()).encode()), ("det.onnx", FAKE_MODEL)],
                methods={"manifest.json": 8},
            ),
            "BundleFormatError",
        ),
        "compressed_model": (
            _zip(
                [
                    (
                        "manifest.json",
                        json.dumps(
                            _manifest(
                                models__0__size=len(RANDOM_MODEL),
                                models__0__sha256=hashlib.sha256(RANDOM_MODEL).hexdigest(),
                            )
                        ).encode(),
                    ),
                    ("det.onnx", RANDOM_MODEL),
                ],
                methods={"det.onnx": 8},
            ),
            "BundleFormatError",
        ),
        "member_missing": (
            _zip(
                [("manifest.json", json.dumps(_manifest()).encode()), ("other.bin", RANDOM_MODEL)]
            ),
            "BundleFormatError",
        ),
        "manifest_missing": (_zip([("det.onnx", FAKE_MODEL)]), "BundleFormatError"),
        "duplicate_member": (
            _zip(
                [
                    ("manifest.json", json.dumps(_manifest()).encode()),
                    ("det.onnx", FAKE_MODEL),
                    ("det.onnx", FAKE_MODEL),
                ]
            ),
            "BundleFormatError",
        ),
        "offset_past_eof": (_patch_central(good, b"det.onnx", offset=2**31), "BundleFormatError"),
        "size_past_eof": (
            _patch_central(good, b"det.onnx", csize=2**31, usize=2**31),
            "BundleFormatError",
        ),
        "stored_sizes_differ": (
            _patch_central(good, b"det.onnx", usize=10**9),
            "BundleFormatError",
        ),
        "zip64_marker": (_patch_central(good, b"det.onnx", csize=0xFFFFFFFF), "BundleFormatError"),
        "overlapping_members": (_overlapping(), "BundleFormatError"),
        "huge_count": (_patch_eocd(good, n1=65000, n2=65000), "BundleFormatError"),
        "count_ffff": (_patch_eocd(good, n1=0xFFFF, n2=0xFFFF), "BundleFormatError"),
        "cd_offset_past_eof": (_patch_eocd(good, off=2**31), "BundleFormatError"),
        "cd_size_huge": (_patch_eocd(good, size=2**31), "BundleFormatError"),
        "manifest_9mib": (
            _zip(
                [
                    ("manifest.json", b" " * (9 << 20) + json.dumps(_manifest()).encode()),
                    ("det.onnx", FAKE_MODEL),
                ]
            ),
            "BundleFormatError",
        ),
    }
    return corpus


_CHILD = textwrap.dedent(
    """
    import json, sys
    import edgeocr
    from edgeocr.errors import EdgeOCRError
    out = {}
    try:
        edgeocr.Predictor(sys.argv[1], threads=1)
        out["result"] = "loaded"
    except EdgeOCRError as e:
        out["result"] = type(e).__name__
        out["message"] = str(e)
        out["bases"] = [c.__name__ for c in type(e).__mro__]
    # This process's own peak (VmHWM starts afresh at exec; wait4's ru_maxrss would also count
    # the pages of the pytest process it was forked from).
    with open("/proc/self/status") as f:
        out["peak_mb"] = next(int(ln.split()[1]) for ln in f if ln.startswith("VmHWM")) / 1024
    print(json.dumps(out))
    """
)


def _run_hostile(path: Path) -> dict:
    # Under an address-space, CPU-time (15 s) and wall-clock limit (tests/python/limits.py).
    o = run_limited([sys.executable, "-c", _CHILD, str(path)])
    assert o.returncode == 0 and not o.timed_out, o.describe()
    out = json.loads(o.stdout.strip().splitlines()[-1])
    assert out["peak_mb"] < PEAK_RSS_MB, o.describe()
    return out


_CORPUS = hostile_corpus()


@pytest.mark.parametrize("case", sorted(_CORPUS))
def test_hostile_bundle_is_refused(case, tmp_path):
    data, expected = _CORPUS[case]
    path = tmp_path / f"{case}.eocr"
    path.write_bytes(data)
    out = _run_hostile(path)
    assert out["result"] == expected, out
    assert (
        "BundleError" in out["bases"]
        and "ModelError" in out["bases"]
        and "EdgeOCRError" in out["bases"]
    )
    assert "\n" not in out["message"] and path.name in out["message"]


def test_hostile_bundles_in_process_name_the_field():
    """The same corpus from bytes, in this process: the messages say what and where."""
    msgs = {}
    for case, (data, expected) in _CORPUS.items():
        if case in ("empty",):
            continue
        with pytest.raises(BundleError) as info:
            _core.loader.Bundle.from_buffer(data, case, True)
        assert type(info.value).__name__ == expected, (case, info.value)
        msgs[case] = str(info.value)
    assert "models[0].size" in msgs["model_size_string"]
    assert "det_limit_side_len" in msgs["det_side_20000"] and "20000" in msgs["det_side_20000"]
    assert "nests deeper" in msgs["deep_nesting_100k"]
    assert "overlap" in msgs["overlapping_members"]
    assert "compressed" in msgs["compressed_model"]
    assert "fp4" in msgs["requires_fp4"]
    assert "checksum" in msgs["bad_checksum"]


def test_a_valid_fake_bundle_passes_the_reader():
    """The corpus's base is sound: only the mutation makes each case fail."""
    b = _core.loader.Bundle.from_buffer(_bundle(_manifest()), "base", True)
    assert b.roles == ["det"] and bytes(b.member("det")) == FAKE_MODEL
    with pytest.raises(ModelError):  # its model is not a graph: the runtime refuses it
        edgeocr.Predictor(_bundle(_manifest()), threads=1)


def test_info_on_a_bad_bundle_is_one_line(tmp_path):
    path = tmp_path / "bad.eocr"
    path.write_bytes(_CORPUS["det_side_20000"][0])
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from edgeocr.cli import main; sys.exit(main())",
            "info",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0
    err = proc.stderr.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1 and "det_limit_side_len" in err, (
        err
    )


def test_file_digests_are_cached_on_disk_per_file_version(v4_paths, tmp_path):
    """The loader knows a set by its files' sha256; a fresh process finds a file's digest in the
    on-disk cache ($EDGEOCR_CACHE_DIR/sha256, keyed by device, inode, size, mtime and ctime)
    instead of hashing it again. A damaged entry is ignored; a changed file is hashed again, also
    when its mtime is put back (ctime); a digest taken less than 2 s after the file's last change
    is not trusted (the racy-entry rule)."""
    import os
    import shutil
    import time

    from cache_entries import digest_entry_path, digest_id, entry_bytes, split

    det = tmp_path / "det.onnx"
    shutil.copy(v4_paths["det"], det)
    want = hashlib.sha256(det.read_bytes()).hexdigest()
    cache = tmp_path / "cache"
    env = dict(os.environ, EDGEOCR_CACHE_DIR=str(cache))
    code = (
        "import sys; from edgeocr import _core; "
        "print(_core.loader.model_set_settings(sys.argv[1], None, sys.argv[2])[0])"
    )

    def known_set():
        r = subprocess.run(
            [sys.executable, "-c", code, str(det), v4_paths["rec"]],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert r.returncode == 0, r.stderr[-2000:]
        return r.stdout.strip()

    def entries():
        return sorted((cache / "sha256").glob("*.entry"))

    def stored(path):
        digest, taken = split(path)[0].decode().split()
        return digest, int(taken)

    assert known_set() == "ppocr-v4-mobile"
    mine = digest_entry_path(cache, det.stat())
    assert mine in entries() and stored(mine)[0] == want  # the copy's digest (and the rec file's)
    for p in entries():
        p.write_text("not a digest")
    assert known_set() == "ppocr-v4-mobile"  # damaged entries: hashed again
    assert stored(mine)[0] == want

    # A well-formed entry for this very file version that names another digest (as a stale
    # entry would): trusted only when taken safely after the file's last change.
    st = det.stat()
    other = hashlib.sha256(b"another file").hexdigest()
    last_change = max(st.st_mtime_ns, st.st_ctime_ns)
    mine.write_bytes(entry_bytes(digest_id(st), f"{other} {last_change + 10**9}".encode()))
    assert known_set() == "ppocr-v4-mobile"  # racy: hashed again, and stored anew
    assert stored(mine)[0] == want and stored(mine)[1] >= time.time_ns() - 600 * 10**9
    mine.write_bytes(entry_bytes(digest_id(st), f"{other} {last_change + 3 * 10**9}".encode()))
    assert known_set() == ""  # not racy: the entry is what the cache says (so the rule decides)

    # The same size, other bytes, the mtime put back: ctime tells the new version.
    data = bytearray(det.read_bytes())
    data[-1] ^= 0xFF
    det.write_bytes(bytes(data))
    os.utime(det, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert det.stat().st_mtime_ns == st.st_mtime_ns and det.stat().st_size == st.st_size
    mine.write_bytes(entry_bytes(digest_id(st), f"{want} {last_change + 3 * 10**9}".encode()))
    assert known_set() == ""  # hashed again: not the known file
    # The same size, other bytes, a later mtime: another file version, never the stored digest.
    det.write_bytes(Path(v4_paths["det"]).read_bytes())
    data[-2] ^= 0xFF
    det.write_bytes(bytes(data))
    st = det.stat()
    os.utime(det, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert known_set() == ""
