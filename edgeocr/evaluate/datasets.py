"""The labelled sets: the dev set's end-to-end and recognition JSON-lines files, and the
document pages of tools/gen_doc_pages.py (``docparse.jsonl``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _read_jsonl(path: Path) -> list[dict]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                out.append(json.loads(line))
    return out


def load_e2e(dataset_dir: Any, name: str = "e2e_synth.jsonl") -> list[dict]:
    """Read the end-to-end jsonl; adds ``path`` (absolute image path)."""
    d = Path(dataset_dir)
    samples = _read_jsonl(d / name)
    for s in samples:
        s["path"] = str((d / s["file"]).resolve())
        s.setdefault("tags", [])
        for ln in s.get("lines", []):
            ln.setdefault("ignore", False)
    return samples


def load_rec(dataset_dir: Any, name: str = "rec_synth.jsonl") -> list[dict]:
    """Read the recognition-crop jsonl; adds ``path`` (absolute image path)."""
    d = Path(dataset_dir)
    samples = _read_jsonl(d / name)
    for s in samples:
        s["path"] = str((d / s["file"]).resolve())
        s.setdefault("tags", [])
    return samples


def load_docparse(dataset_dir: Any, name: str = "docparse.jsonl") -> list[dict]:
    """Read the labelled document pages (tools/gen_doc_pages.py's format); adds ``path``."""
    d = Path(dataset_dir)
    pages = _read_jsonl(d / name)
    for p in pages:
        p["path"] = str((d / p["file"]).resolve())
        p.setdefault("tags", [])
    return pages
