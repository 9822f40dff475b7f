"""JsonLinesDatasink: JSON-lines part files written by Ray Data's write tasks. It subclasses a
Ray class, so it is made when first asked for (importing edgeocr.ray needs no Ray)."""

from __future__ import annotations


def jsonl_datasink_class():
    """:class:`JsonLinesDatasink`, defined when Ray Data is imported (it subclasses Ray's)."""
    from ray.data.datasource import BlockBasedFileDatasink

    class _JsonLinesDatasink(BlockBasedFileDatasink):
        """Ray Data datasink of JSON-lines part files: each row as ``json.dumps`` writes it
        (non-ASCII kept), one a line, written by the write tasks on the workers. ``rows`` and
        ``errors``: what the job wrote, once ``write_datasink`` returns."""

        def __init__(self, path: str, **kwargs):
            super().__init__(path, file_format="jsonl", **kwargs)
            self.rows = self.errors = 0

        def write_block_to_file(self, block, file) -> None:
            import json

            file.write(
                "".join(
                    json.dumps(r, ensure_ascii=False) + "\n" for r in block.to_arrow().to_pylist()
                ).encode("utf-8")
            )

        def write(self, blocks, ctx):
            from ray.data.block import BlockAccessor

            blocks = list(blocks)
            super().write(blocks, ctx)
            rows = errors = 0
            for b in blocks:
                t = BlockAccessor.for_block(b).to_arrow()
                rows += t.num_rows
                errors += t.num_rows - t.column("error").null_count
            return rows, errors

        def on_write_complete(self, write_result) -> None:
            super().on_write_complete(write_result)
            for r in write_result.write_returns:
                if r:
                    self.rows += r[0]
                    self.errors += r[1]

    return _JsonLinesDatasink
