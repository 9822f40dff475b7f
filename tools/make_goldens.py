#!/usr/bin/env python3
"""tests/data/golden/default_scale.json: what the shipped default settings read on the inputs
that test_nb_pipeline, test_det_tiles and test_hard_captures read at an older det scale (the
cases are defined once, in tests/python/default_goldens.py; their twins compare with this file).

    python tools/make_goldens.py [--only CASE ...] [--check]

Needs the test models (pip install -e ".[test,models]") and the Paddle Lite fixtures
(../shared/fixtures/paddle_lite, or $EDGEOCR_SHARED_DIR). Run it when a change of what the
default reads is intended, and say in the commit what changed and why. --check: exit 1 when
the file differs from this run (nothing written).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))

import default_goldens  # noqa: E402

# As the test suite runs (tests/python/conftest.py): float models whatever the environment asks.
os.environ["EDGEOCR_PRECISION"] = "fp32"


def shared_dir() -> Path:
    env = os.environ.get("EDGEOCR_SHARED_DIR")
    return Path(env) if env else ROOT.parent / "shared"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", default=None, choices=default_goldens.case_names())
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)

    from edgeocr.models import MODEL_SETS

    v4 = MODEL_SETS["ppocr-v4-mobile"].paths()
    if v4 is None:
        raise SystemExit("ppocr-v4-mobile is not installed: pip install -e '.[test,models]'")
    nb_dir = shared_dir() / "fixtures" / "paddle_lite" / "nb"
    path = default_goldens.GOLDEN
    old = default_goldens.load() if path.exists() else {}
    new = dict(old)
    for name in args.only or default_goldens.case_names():
        if name.startswith("nb_") and not (nb_dir / "det_x86.nb").exists():
            raise SystemExit(f"the Paddle Lite fixtures are not at {nb_dir}")
        new[name] = default_goldens.compute(name, nb_dir=nb_dir, v4_paths=v4)
        for d in default_goldens.differences(old.get(name, {}), new[name]):
            print(f"{name}: {d}")
    if args.check:
        stale = [n for n, v in new.items() if default_goldens.differences(old.get(n, {}), v)]
        return 1 if stale else 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(new, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)} ({len(new)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
