"""Table scores: TEDS and TEDS-struct (PubTabNet's definition) and the cells' adjacency F1.

A table is given as its cells, ``{"row", "col", "row_span", "col_span", "text", "header"}``
(edgeocr's ``TableCell``, the generator's labels), or as HTML (:func:`cells_from_html`: what
rapid-table, PP-Structure and PubTabNet give).

* **TEDS** (Zhong et al., "Image-based table recognition", 2020): the table as an HTML tree
  ``table > thead/tbody > tr > td``, each ``td`` with its ``colspan``, ``rowspan`` and its text;
  ``TEDS(a, b) = 1 - TED(a, b) / max(|a|, |b|)``, TED the tree edit distance (unit cost to
  insert or delete a node; renaming costs 1 between nodes of different tags or, for two
  ``td``, different spans, else the two texts' normalised edit distance, 0 for other tags), |t|
  the number of nodes. Header rows (the rows above the first row with a body cell) go in
  ``thead``, the others in ``tbody``; texts are compared after NFKC and whitespace runs
  made one space. The edit distance is Zhang and Shasha's (the same optimum as APTED, which
  PubTabNet's script uses).
* **TEDS-struct**: the same with every text left out (structure only).
* **Adjacency F1** (ICDAR 2013 table competition): each non-empty cell and its nearest
  non-empty neighbour to the right and below make a relation (text, text, direction); F1 of
  the predicted relations against the true ones (multisets). It does not care how a table is
  split into rows when the neighbours stay neighbours.

Standard library only (this package's rule: no numpy needed here).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from html.parser import HTMLParser

from .text import edit_distance, normalize_text_ws

# A tree this large would take long in pure Python (the distance is O(n^2 m^2) at worst): a
# 40 x 40 table has ~1700 nodes. Larger trees are refused rather than run for minutes.
MAX_NODES = 4000


class TableError(ValueError):
    """A table that cannot be scored (a malformed cell list or HTML, a tree too large)."""


# -- cells -------------------------------------------------------------------------------------
def _cell(c: dict) -> dict:
    try:
        out = {
            "row": int(c["row"]),
            "col": int(c["col"]),
            "row_span": int(c.get("row_span", 1)),
            "col_span": int(c.get("col_span", 1)),
            "text": str(c.get("text", "") or ""),
            "header": bool(c.get("header", False)),
        }
    except (KeyError, TypeError, ValueError) as e:
        raise TableError(f"not a table cell: {c!r} ({e})") from None
    if out["row"] < 0 or out["col"] < 0 or out["row_span"] < 1 or out["col_span"] < 1:
        raise TableError(f"a cell's row/col must be >= 0 and its spans >= 1: {c!r}")
    return out


def normalize_cells(cells: Sequence[dict]) -> list:
    """The cells checked and ordered by (row, col)."""
    return sorted((_cell(c) for c in cells), key=lambda c: (c["row"], c["col"]))


class _HtmlCells(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.cells: list = []
        self.row = -1
        self.taken: set = set()  # (row, col) slots covered by spans from rows above
        self.col = 0
        self.in_head = False
        self.cur = None

    def handle_starttag(self, tag, attrs):
        if tag == "thead":
            self.in_head = True
        elif tag == "tbody":
            self.in_head = False
        elif tag == "tr":
            self.row += 1
            self.col = 0
        elif tag in ("td", "th"):
            if self.row < 0:  # a cell outside any row: a row of its own
                self.row = 0
            a = dict(attrs)
            while (self.row, self.col) in self.taken:
                self.col += 1
            try:
                rs, cs = int(a.get("rowspan") or 1), int(a.get("colspan") or 1)
            except ValueError:
                rs = cs = 1
            rs, cs = max(1, min(rs, 1000)), max(1, min(cs, 1000))
            self.cur = {
                "row": self.row,
                "col": self.col,
                "row_span": rs,
                "col_span": cs,
                "text": "",
                "header": self.in_head or tag == "th",
            }
            for r in range(self.row, self.row + rs):
                for k in range(self.col, self.col + cs):
                    self.taken.add((r, k))
            self.col += cs
        elif tag == "br" and self.cur is not None:
            self.cur["text"] += " "

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cur is not None:
            self.cells.append(self.cur)
            self.cur = None
        elif tag == "thead":
            self.in_head = False

    def handle_data(self, data):
        if self.cur is not None:
            self.cur["text"] += data


def cells_from_html(html: str) -> list:
    """The cells of an HTML table (``<tr>``, ``<td>``/``<th>`` with ``rowspan``/``colspan``;
    ``<thead>`` rows are header rows), slots taken by spans from above skipped as a browser
    does."""
    p = _HtmlCells()
    p.feed(html or "")
    p.close()
    return normalize_cells(p.cells)


# -- trees ---------------------------------------------------------------------------------------
class _Node:
    __slots__ = ("tag", "rs", "cs", "text", "children")

    def __init__(self, tag, rs=1, cs=1, text="", children=None):
        self.tag, self.rs, self.cs, self.text = tag, rs, cs, text
        self.children = children or []


def _tree(cells: Sequence[dict], with_text: bool) -> _Node:
    cells = normalize_cells(cells)
    rows: dict = {}
    for c in cells:
        rows.setdefault(c["row"], []).append(c)
    order = sorted(rows)
    body_from = next((r for r in order if any(not c["header"] for c in rows[r])), None)
    head, body = _Node("thead"), _Node("tbody")
    for r in order:
        tr = _Node("tr")
        for c in rows[r]:
            text = normalize_text_ws(c["text"]) if with_text else ""
            tr.children.append(_Node("td", c["row_span"], c["col_span"], text))
        (head if body_from is None or r < body_from else body).children.append(tr)
    return _Node("table", children=[n for n in (head, body) if n.children])


def _postorder(root: _Node) -> tuple:
    """(nodes in post-order, leftmost-leaf index of each, keyroots)."""
    nodes: list = []
    lmd: list = []

    def walk(n):
        first = None
        for ch in n.children:
            leaf = walk(ch)
            if first is None:
                first = leaf
        nodes.append(n)
        idx = len(nodes) - 1
        lmd.append(first if first is not None else idx)
        return lmd[idx]

    # Tables are shallow (depth 4): recursion depth is no concern.
    walk(root)
    seen: dict = {}
    for i, leaf in enumerate(lmd):
        seen[leaf] = i  # the highest node with this leftmost leaf
    return nodes, lmd, sorted(seen.values())


def _rename(a: _Node, b: _Node) -> float:
    if a.tag != b.tag or a.rs != b.rs or a.cs != b.cs:
        return 1.0
    if a.tag != "td":
        return 0.0
    n = max(len(a.text), len(b.text))
    return edit_distance(a.text, b.text) / n if n else 0.0


def tree_edit_distance(a: _Node, b: _Node) -> float:
    """Zhang and Shasha's tree edit distance with unit insert/delete and :func:`_rename`."""
    na, la, ka = _postorder(a)
    nb, lb, kb = _postorder(b)
    if len(na) * len(nb) > MAX_NODES * MAX_NODES // 16 or max(len(na), len(nb)) > MAX_NODES:
        raise TableError(f"tables too large to score ({len(na)} and {len(nb)} nodes)")
    td = [[0.0] * len(nb) for _ in range(len(na))]
    for i in ka:
        for j in kb:
            li, lj = la[i], lb[j]
            m, n = i - li + 2, j - lj + 2
            fd = [[0.0] * n for _ in range(m)]
            for x in range(1, m):
                fd[x][0] = fd[x - 1][0] + 1
            for y in range(1, n):
                fd[0][y] = fd[0][y - 1] + 1
            for x in range(1, m):
                i1 = li + x - 1
                for y in range(1, n):
                    j1 = lj + y - 1
                    if la[i1] == li and lb[j1] == lj:
                        v = min(
                            fd[x - 1][y] + 1,
                            fd[x][y - 1] + 1,
                            fd[x - 1][y - 1] + _rename(na[i1], nb[j1]),
                        )
                        fd[x][y] = v
                        td[i1][j1] = v
                    else:
                        p, q = la[i1] - li, lb[j1] - lj
                        fd[x][y] = min(fd[x - 1][y] + 1, fd[x][y - 1] + 1, fd[p][q] + td[i1][j1])
    return td[len(na) - 1][len(nb) - 1]


def _size(n: _Node) -> int:
    return 1 + sum(_size(c) for c in n.children)


def teds(pred_cells: Sequence[dict], true_cells: Sequence[dict], structure_only: bool = False):
    """TEDS of a predicted table against the true one (1.0: the same tree); with
    ``structure_only``, TEDS-struct."""
    a, b = _tree(pred_cells, not structure_only), _tree(true_cells, not structure_only)
    n = max(_size(a), _size(b))
    return 1.0 - tree_edit_distance(a, b) / n


# -- adjacency ---------------------------------------------------------------------------------
def adjacency_relations(cells: Sequence[dict]) -> Counter:
    """The (text, text, "right" | "down") relations between each non-empty cell and its nearest
    non-empty neighbour to the right and below (ICDAR 2013), as a multiset."""
    cells = [c for c in normalize_cells(cells) if normalize_text_ws(c["text"])]
    grid: dict = {}
    for k, c in enumerate(cells):
        for r in range(c["row"], c["row"] + c["row_span"]):
            for col in range(c["col"], c["col"] + c["col_span"]):
                grid[(r, col)] = k
    if not grid:
        return Counter()
    max_r = max(r for r, _ in grid)
    max_c = max(c for _, c in grid)
    rel: Counter = Counter()
    for k, c in enumerate(cells):
        text = normalize_text_ws(c["text"])
        right, down = set(), set()
        for r in range(c["row"], c["row"] + c["row_span"]):
            for col in range(c["col"] + c["col_span"], max_c + 1):
                if (r, col) in grid and grid[(r, col)] != k:
                    right.add(grid[(r, col)])
                    break
        for col in range(c["col"], c["col"] + c["col_span"]):
            for r in range(c["row"] + c["row_span"], max_r + 1):
                if (r, col) in grid and grid[(r, col)] != k:
                    down.add(grid[(r, col)])
                    break
        for o in right:
            rel[(text, normalize_text_ws(cells[o]["text"]), "right")] += 1
        for o in down:
            rel[(text, normalize_text_ws(cells[o]["text"]), "down")] += 1
    return rel


def adjacency_counts(pred_cells, true_cells) -> tuple:
    """(relations in both, predicted relations, true relations)."""
    p, t = adjacency_relations(pred_cells), adjacency_relations(true_cells)
    return sum((p & t).values()), sum(p.values()), sum(t.values())


def adjacency_f1(pred_cells, true_cells) -> float:
    """F1 of the predicted adjacency relations (1.0 when neither table has any)."""
    both, n_pred, n_true = adjacency_counts(pred_cells, true_cells)
    if n_pred == 0 and n_true == 0:
        return 1.0
    return 2.0 * both / (n_pred + n_true)
