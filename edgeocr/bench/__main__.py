"""``python -m edgeocr.bench --worker NAME ...``: one contender alone in this process."""

from __future__ import annotations

import sys

from .compare import worker_main

if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))
