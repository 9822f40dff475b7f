"""The result rows of edgeocr.ray: their columns and pyarrow schema, and one row's values (a
page's result, or its error)."""

from __future__ import annotations

#: The result columns, in order. ``lines`` and the image size are null on an error row.
RESULT_COLUMNS = (
    "path",
    "page",
    "page_count",
    "lines",
    "width",
    "height",
    "error",
    "decode_s",
    "det_s",
    "cls_s",
    "rec_s",
    "ocr_s",
    "worker",
)


def result_schema():
    """The pyarrow schema of a result row (fixed: blocks of error rows concatenate with others)."""
    import pyarrow as pa

    line = pa.struct(
        [("text", pa.string()), ("score", pa.float64()), ("box", pa.list_(pa.list_(pa.float32())))]
    )
    return pa.schema(
        [
            ("path", pa.string()),
            # 0-based page of a document (PDF, multi-page TIFF: one row per page); 0 for an
            # image; null on the error row of a document that could not be opened
            ("page", pa.int32()),
            # the pages of the row's document (1 for an image; null when it could not be
            # opened): a document is done when all of them are in the output (--resume)
            ("page_count", pa.int32()),
            ("lines", pa.list_(line)),
            ("width", pa.int32()),
            ("height", pa.int32()),
            ("error", pa.string()),  # null, or "<error class>: <message>"
            ("decode_s", pa.float64()),  # reading + decoding the file, in the actor
            ("det_s", pa.float64()),
            ("cls_s", pa.float64()),
            ("rec_s", pa.float64()),
            ("ocr_s", pa.float64()),  # the pipeline's total (det + cls + rec + glue)
            ("worker", pa.string()),  # host:pid of the actor that made the row
        ]
    )


#: An optional input column: for a document row, the 0-based pages already done, left out
#: (``--resume`` of a document cut off mid-run). Not carried into the result rows.
DONE_PAGES = "done_pages"


def error_text(exc: BaseException) -> str:
    """How an error row names its error: ``"InvalidInputError: image file not found: a.png"``."""
    return f"{type(exc).__name__}: {exc}"


def error_vals(path, e: BaseException, decode) -> dict:
    return {"path": path, "error": error_text(e), "decode_s": decode}


def result_vals(path, r, decode) -> dict:
    t = r.timings
    return {
        "path": path,
        "lines": [
            {"text": ln.text, "score": float(ln.score), "box": ln.box.tolist()} for ln in r.lines
        ],
        "width": int(r.image_size[0]),
        "height": int(r.image_size[1]),
        "error": None,
        "decode_s": decode,
        "det_s": t.get("det"),
        "cls_s": t.get("cls"),
        "rec_s": t.get("rec"),
        "ocr_s": t.get("total"),
    }
