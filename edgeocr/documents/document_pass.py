"""The whole-document pass over parsed pages as they stream (`Predictor.parse_pages`): the core's
``finish_document`` (csrc/document/document_pass.cpp) over a window of pages around each page.

The pass compares a page with its neighbours: a running header repeats on the next page or the
one after (odd and even pages carry different ones), a page number goes on by one from the page
before, a table or paragraph continues from the page before. So each page is finished over the
window of the ``BEHIND`` pages before it and the ``AHEAD`` pages after it, as parsed, and comes
out once the pages after it are parsed: ``parse_pages`` keeps streaming (a page comes out
``AHEAD`` pages late) and holds at most ``BEHIND + 1 + AHEAD`` parsed pages, whatever the
document's length, where running the pass over the whole document first would hold every page
(a 500-page PDF's results) and show nothing until the last page is read. What the window cannot
see: text repeated only on pages further apart than the window, and a document title told from
a heading that repeats beyond it (heading levels are one scale within the window).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator

from ..results import DocumentResult

BEHIND = 2
AHEAD = 2


def _core_of(result):
    """The core Document of a parsed page, None for a page that failed or was not parsed."""
    if getattr(result, "error", None) is not None:
        return None
    return getattr(result, "_core", None)


def _finished(window: list, k: int, parser) -> object:
    """Page ``k`` of ``window`` with the pass run over the whole window."""
    from .. import _core

    page = window[k]
    docs = [_core_of(r) for r in window]
    if docs[k] is None:
        return page
    done = _core.finish_document(docs, parser)[k]
    fresh = DocumentResult._from_core(done, page.source)
    return dataclasses.replace(
        page,
        lines=fresh.lines,
        regions=fresh.regions,
        line_styles=fresh.line_styles,
        _core=done,
    )


def finished_pages(
    results: Iterable, parser=None, behind: int = BEHIND, ahead: int = AHEAD
) -> Iterator:
    """``results`` (parsed pages of one document, in order) with the pass run on each over the
    window of ``behind`` pages before it and ``ahead`` after it; ``parser``: the
    ``_core.DocumentParser`` whose rules to use (default rules without)."""
    window: list = []
    k = 0  # the next page of the window to finish
    pages = iter(results)
    try:
        for r in pages:
            window.append(r)
            if len(window) - 1 - k < ahead:
                continue
            yield _finished(window, k, parser)
            k += 1
            if k > behind:
                window.pop(0)
                k -= 1
        while k < len(window):
            yield _finished(window, k, parser)
            k += 1
    finally:  # also when the caller stops early: the document's reader ends now
        close = getattr(pages, "close", None)
        if close is not None:
            close()
