"""The whole-document pass over parsed pages as they stream (`Predictor.parse_pages`): the core's
``finish_document`` (csrc/document/document_pass.cpp) over a window of pages around each page.

The pass compares a page with its neighbours: a running header repeats on the next page or the
one after (odd and even pages carry different ones), a page number goes on by one from the page
before, a table or paragraph continues from the page before. So each page is finished over the
window of the ``BEHIND`` pages before it (as they were given out: the pass reads them and
leaves them as they are, so what a page says of the page before it holds in what the caller
got) and the ``AHEAD`` pages after it (as parsed), and comes out once the pages after it are
parsed: ``parse_pages`` keeps streaming (a page comes out
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


def _finished(before: list, pages: list, parser) -> object:
    """``pages[0]`` with the pass run over ``before`` (pages already given out, as they were
    given: context the pass does not change) and ``pages`` (it and the pages after it)."""
    from .. import _core

    page = pages[0]
    window = before + pages
    docs = [_core_of(r) for r in window]
    k = len(before)
    if docs[k] is None:
        return page
    done = _core.finish_document(docs, parser, k)[k]
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
    window of the ``behind`` pages before it (as they were given out: the pass leaves them as
    they were, so a page's links into the page before it hold in what the caller got) and the
    ``ahead`` pages after it; ``parser``: the ``_core.DocumentParser`` whose rules to use
    (default rules without)."""
    given: list = []  # the last `behind` pages given out
    waiting: list = []  # pages parsed, not yet given out
    pages = iter(results)

    def give():
        out = _finished(given, waiting, parser)
        given.append(out)
        if len(given) > behind:
            given.pop(0)
        waiting.pop(0)
        return out

    try:
        for r in pages:
            waiting.append(r)
            if len(waiting) > ahead:
                yield give()
        while waiting:
            yield give()
    finally:  # also when the caller stops early: the document's reader ends now
        close = getattr(pages, "close", None)
        if close is not None:
            close()
