"""``--output`` of ``edgeocr predict --ray``: a folder of part files written on the workers,
resumable."""

from __future__ import annotations

import os

from .jsonl import jsonl_datasink_class

#: Rows per part file (a hint to Ray's writers: a write task takes blocks until it has this many).
PART_ROWS = 2000


class ResultOutput:
    """``--output``: a folder of part files, written by Ray's writers on the workers (the rows
    never go through the driver): ``OUT.parquet/`` of Parquet parts
    (``Dataset.write_parquet``), ``OUT.jsonl/`` of JSON-lines parts (:class:`JsonLinesDatasink`:
    a line per row, ``json.dumps`` of the row).

    Opening it with ``resume`` reads which pages it holds: ``complete`` are the paths done
    (every page of a document written, or the error row of one that could not be opened),
    ``done_pages`` the pages written of a document cut off mid-run. A part cut off by a crash
    is repaired first: a Parquet part that does not read is removed, a JSON line cut off is
    dropped (their pages are done again).
    """

    def __init__(self, out: str, resume: bool, part_rows: int = PART_ROWS):
        from ..errors import InvalidInputError

        # Absolute: Ray's workers write the parts, and their working folder is not the
        # driver's (init_local_ray gives a job run from a checkout an empty working_dir), so a
        # relative OUT would land in theirs.
        self.out = os.path.abspath(os.fspath(out).rstrip("/") or "/")
        if self.out.endswith(".parquet"):
            self.kind = "parquet"
        elif self.out.endswith((".jsonl", ".json")):
            self.kind = "jsonl"
        else:
            raise InvalidInputError(f"--output must end in .parquet or .jsonl, got {out!r}")
        self.part_rows = part_rows
        self.notes: list[str] = []
        self.complete: set = set()
        self.done_pages: dict = {}
        if os.path.exists(self.out):
            if not resume:
                raise InvalidInputError(
                    f"{self.out} exists: pass --resume to skip the pages in it, or remove it"
                )
            if not os.path.isdir(self.out):
                raise InvalidInputError(
                    f"{self.out} is a file, not a folder of parts (edgeocr's Ray runs once wrote "
                    "JSON lines to one file): to resume into it, move it into a folder of that "
                    f"name: mv {self.out} {self.out}.part && mkdir {self.out} && "
                    f"mv {self.out}.part {self.out}/part-0.{self.kind}"
                )
            self._read()
        self._before = set(self._parts())

    def _parts(self) -> list[str]:
        if not os.path.isdir(self.out):
            return []
        ext = "." + self.kind
        return sorted(n for n in os.listdir(self.out) if n.endswith(ext))

    def _read(self) -> None:
        pages: dict = {}
        counts: dict = {}
        for name in self._parts():
            for path, page, count in self._rows(os.path.join(self.out, name)):
                if page is None or count is None:
                    # a document that could not be opened, or a row from before page_count
                    self.complete.add(path)
                else:
                    pages.setdefault(path, set()).add(page)
                    counts[path] = count
        for path, got in pages.items():
            if path in self.complete:
                continue
            if len(got) >= counts[path] and all(0 <= p < counts[path] for p in got):
                self.complete.add(path)
            else:
                self.done_pages[path] = got

    def _rows(self, part: str):
        """(path, page, page_count) of every whole row of ``part`` (repairing a cut one)."""
        if self.kind == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            try:
                names = pq.read_schema(part).names
                cols = [c for c in ("path", "page", "page_count") if c in names]
                t = pq.read_table(part, columns=cols)
            except (pa.ArrowException, OSError) as e:
                os.remove(part)
                self.notes.append(f"removed {part}, cut off mid-write ({e}); its pages run again")
                return []
            n = t.num_rows
            col = {c: t.column(c).to_pylist() if c in cols else [None] * n for c in cols}
            return zip(
                col["path"],
                col.get("page", [0] * n),
                col.get("page_count", [None] * n),
            )
        import json

        out, good_end = [], 0
        with open(part, "rb") as f:
            for raw in f:
                if not raw.endswith(b"\n"):
                    break
                try:
                    row = json.loads(raw)
                    out.append((row["path"], row.get("page", 0), row.get("page_count")))
                except (ValueError, KeyError, TypeError):
                    break
                good_end += len(raw)
        if good_end != os.path.getsize(part):  # a line cut off mid-write: drop it
            with open(part, "r+b") as f:
                f.truncate(good_end)
            self.notes.append(f"{part}: dropped a line cut off mid-write; its page runs again")
        return out

    def write(self, ds) -> tuple[int, int]:
        """Run ``ds`` (a dataset of result rows) and write its rows on the workers; returns
        (rows written, error rows among them)."""
        # Write tasks ask for no CPU: the actors hold the cluster's CPUs for the whole job, and
        # writing a part is I/O the nodes have to spare.
        remote = {"num_cpus": 0}
        if self.kind == "parquet":
            ds.write_parquet(self.out, min_rows_per_file=self.part_rows, ray_remote_args=remote)
            return self._count_new_parquet()
        sink = jsonl_datasink_class()(self.out, min_rows_per_file=self.part_rows)
        ds.write_datasink(sink, ray_remote_args=remote)
        return sink.rows, sink.errors

    def _count_new_parquet(self) -> tuple[int, int]:
        import pyarrow.parquet as pq

        rows = errors = 0
        for name in self._parts():
            if name not in self._before:
                t = pq.read_table(os.path.join(self.out, name), columns=["error"])
                rows += t.num_rows
                errors += t.num_rows - t.column("error").null_count
        return rows, errors
