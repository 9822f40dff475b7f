"""The on-disk format of edgeocr's cache entries (csrc/common/disk_cache.h), written a second
time here so that tests can read entries and plant well-formed ones, as someone who can write
the cache folder could: content, a text record (the sha256 of the id, the content's size and
sha256), the record's length (8 bytes, little-endian) and the magic ``eocrcac1``."""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path

MAGIC = b"eocrcac1"


def record(id_text: bytes, content: bytes) -> bytes:
    return (
        b"edgeocr-cache-entry-v1\nid "
        + hashlib.sha256(id_text).hexdigest().encode()
        + b"\nsize "
        + str(len(content)).encode()
        + b"\nsha256 "
        + hashlib.sha256(content).hexdigest().encode()
        + b"\n"
    )


def entry_bytes(id_text: bytes, content: bytes) -> bytes:
    r = record(id_text, content)
    return content + r + struct.pack("<Q", len(r)) + MAGIC


def split(path: Path) -> tuple[bytes, dict]:
    """(content, record fields) of the entry at ``path``; ValueError if it is no entry."""
    data = Path(path).read_bytes()
    if len(data) < 16 or data[-8:] != MAGIC:
        raise ValueError(f"{path}: no entry record")
    (n,) = struct.unpack("<Q", data[-16:-8])
    rec = data[-16 - n : -16]
    fields = dict(line.split(" ", 1) for line in rec.decode().splitlines()[1:])
    content = data[: len(data) - 16 - n]
    if fields["sha256"] != hashlib.sha256(content).hexdigest():
        raise ValueError(f"{path}: content does not match its record")
    return content, fields


def digest_id(st) -> bytes:
    """The digest cache's id of a file version (loader.cpp: file_digest), from os.stat."""
    v = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    return ("edgeocr-digest-v2" + "".join(f" {x}" for x in v)).encode()


def digest_entry_path(cache: Path, st) -> Path:
    return Path(cache) / "sha256" / (hashlib.sha256(digest_id(st)).hexdigest() + ".entry")
