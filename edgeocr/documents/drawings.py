"""Page images again, for pictures of results: `edgeocr predict --draw DIR` (a PNG per page) and
the review page (review.py).

Results do not keep their page's pixels (a document's pages would pile up in memory), so the
image a result came from is read again from its source when it is drawn: an image file, a frame
of a multi-page TIFF, or a PDF page rendered again at the resolution the result records
(PDFium renders a page the same way each time). Reading a PDF page again costs a small part of
parsing it.

>>> images = PageImages()
>>> for page in predictor.parse_pages("report.pdf"):
...     cv2.imwrite(f"p{page.page + 1}.png", page.draw(images.get(page)))
>>> images.close()
"""

from __future__ import annotations

import os

from .._numpy import np
from ..errors import InvalidInputError, OutputError
from .pages import check_dpi, is_document, open_document


class PageImages:
    """The page image of each result, read again from the result's source (a path), or from
    ``source`` (the document as given when the results' ``source`` is not a path: bytes, an
    array, a PIL image). ``password`` opens an encrypted PDF; ``max_pixels`` is the pixel cap
    (the Predictor's). One document stays open between calls for the same source: results come
    in document order. Not thread-safe; close() (or a ``with`` block) closes it."""

    def __init__(self, source=None, password: str | None = None, max_pixels: int | None = None):
        self.source, self.password, self.max_pixels = source, password, max_pixels
        self._key = None
        self._doc = None

    def get(self, result) -> np.ndarray:
        """The image of ``result``'s page (uint8, as `load_image` gives), its size the result's
        (``width`` x ``height``). Raises InvalidInputError when it cannot be read again."""
        src = self.source if self.source is not None else getattr(result, "source", None)
        page = int(getattr(result, "page", 0) or 0)
        if src is None or (isinstance(src, str) and not os.path.isfile(src)):
            raise InvalidInputError(
                f"the image of page {page + 1} of {src!r} cannot be read again: "
                "its source is not a file (give the document: source=)"
            )
        dpi = float(getattr(result, "dpi", 0) or 0) or None
        try:  # a PDF page is rendered again at its dpi; an image's (its file's, any) is no matter
            check_dpi(dpi)
        except InvalidInputError:
            dpi = None
        key = (id(src) if not isinstance(src, (str, os.PathLike)) else os.fspath(src), dpi)
        if key != self._key:
            self.close()
            self._doc = open_document(
                src, dpi=dpi, password=self.password, max_pixels=self.max_pixels
            )
            self._key = key
        if not 0 <= page < self._doc.count:
            raise InvalidInputError(f"{self._doc.source} has no page {page + 1}")
        read = self._doc.read(page)
        if read.error is not None:
            raise read.error
        img = read.image
        want = (int(getattr(result, "width", 0) or 0), int(getattr(result, "height", 0) or 0))
        h, w = img.shape[:2]
        if want[0] > 0 and want[1] > 0 and want != (w, h):
            # A page kept as it was (not rendered: its size computed from its points) may differ
            # by a rounding; anything more is another page.
            if abs(want[0] - w) > 2 or abs(want[1] - h) > 2:
                raise InvalidInputError(
                    f"page {page + 1} of {self._doc.source} reads as {w} x {h} pixels now, "
                    f"not {want[0]} x {want[1]} as when it was read: has the file changed?"
                )
            import cv2

            img = cv2.resize(img, want, interpolation=cv2.INTER_AREA)
        return img

    def close(self) -> None:
        """Closes the open document (a later get() opens it again)."""
        if self._doc is not None:
            self._doc.close()
        self._doc, self._key = None, None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def drawing_name(result, document: bool) -> str:
    """The file name of a result's drawing: ``NAME.png`` for an image, ``NAME-pN.png`` for
    page N (1-based) of a document (PDF, multi-page TIFF)."""
    src = getattr(result, "source", None)
    stem = os.path.splitext(os.path.basename(str(src)))[0] if src else "page"
    if document:
        return f"{stem}-p{int(getattr(result, 'page', 0) or 0) + 1}.png"
    return f"{stem}.png"


class DrawingFolder:
    """`edgeocr predict --draw DIR`: each result drawn on its page, written to ``folder`` as
    :func:`drawing_name` names it (made if missing). ``images``: where page images come from
    (a `PageImages`, default one over the results' sources)."""

    def __init__(self, folder, images: PageImages | None = None):
        self.folder = os.fspath(folder)
        os.makedirs(self.folder, exist_ok=True)  # an OSError (a file there) is the caller's
        self.images = images if images is not None else PageImages()
        self._documents: dict = {}
        self.written: list[str] = []

    def add(self, result) -> str | None:
        """Draws ``result`` and writes it; returns the file's path, or None for a page that
        failed to be read (nothing to draw). An image that cannot be read again raises
        `InvalidInputError`; a file that cannot be written, `OutputError`."""
        import cv2

        if getattr(result, "error", None) is not None:
            return None
        src = getattr(result, "source", None)
        if src not in self._documents:
            self._documents[src] = bool(getattr(result, "page", 0)) or (
                src is not None and is_document(src)
            )
        name = drawing_name(result, self._documents[src])
        path = os.path.join(self.folder, name)
        # A parsed page (DocumentResult) draws its layout, an OCR result its lines.
        picture = result.draw(self.images.get(result))
        try:
            ok = cv2.imwrite(path, picture)
        except cv2.error as e:
            raise OutputError(f"cannot write {path} ({e})") from None
        if not ok:
            raise OutputError(f"cannot write {path}")
        self.written.append(path)
        return path

    def add_reporting(self, result, err=None) -> bool:
        """:meth:`add`, but a page whose image cannot be read again is reported on ``err``
        (default: standard error) instead of raised: False then. What the command line does,
        so that a page it cannot draw does not cost the document it writes."""
        import sys

        try:
            self.add(result)
            return True
        except InvalidInputError as e:
            page = int(getattr(result, "page", 0) or 0) + 1
            print(f"{result.source}: page {page}: cannot draw it: {e}", file=err or sys.stderr)
            return False

    def close(self) -> None:
        self.images.close()


def drawing_folder(folder, password: str | None, predictor) -> DrawingFolder:
    """The `DrawingFolder` of ``edgeocr predict --draw DIR``: page images read with the
    command's ``--password`` and the predictor's pixel cap."""
    cap = getattr(predictor, "max_image_pixels", None)
    return DrawingFolder(folder, PageImages(password=password, max_pixels=cap))


def page_image(result, source=None, password: str | None = None) -> np.ndarray:
    """The image of ``result``'s page, read again (:class:`PageImages`): what
    ``result.draw(image)`` needs for a page of a PDF. ``source``: the document when the
    result's ``source`` is not a path."""
    with PageImages(source, password) as images:
        return images.get(result)
