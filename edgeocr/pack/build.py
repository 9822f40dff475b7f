"""pack()'s quantize step: the packed models, and what stays float in them and why.

:class:`Build` holds, per role, the source graph with named nodes, the nodes kept
float (by the recipe, ``--keep-float`` and the gate's auto-keep) and the roles left
float entirely; :meth:`Build.model` quantizes (with the pipeline's calibration
inputs) and optimises one model offline.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

from ..progress import Progress
from . import quantize as Q


class Build:
    """The packed models of ``sources`` ({role: ONNX bytes}) under ``settings``
    (:class:`edgeocr.pack.quantize.QuantSettings`, None: no quantization).

    ``inputs``: calibration inputs per role; ``keep_float``: node patterns
    kept float (``--keep-float``); ``optimize``: the offline graph
    optimisation level (None: none); ``tmp``: a folder for calibration caches.
    """

    def __init__(
        self,
        sources: dict,
        settings,
        inputs: dict,
        *,
        keep_float: Sequence[str],
        optimize: str | None,
        tmp: str,
        progress,
        log,
    ):
        self.sources, self.settings, self.inputs = sources, settings, inputs
        self.keep_float, self.optimize, self.tmp = list(keep_float), optimize, tmp
        self.progress = progress
        self.named: dict = {}
        self.kept: dict = {r: [] for r in sources}
        self.why_kept: dict = {r: {} for r in sources}  # node -> why it stays float
        self.float_roles: list = []  # roles left float entirely
        self.float_why: dict = {}
        self._damage: dict = {}
        self._floats: dict = {}
        if settings is None:
            return
        for role, data in sources.items():
            self.named[role] = Q.load_named(Q.optimize_graph(data, "basic"))
            for pattern, why in settings.keep_for(role):
                for n in Q.match_keep(self.named[role], pattern):
                    self.why_kept[role].setdefault(n, f"recipe {settings.recipe} {pattern}: {why}")
            for pattern in keep_float:
                for n in Q.match_keep(self.named[role], pattern):
                    self.why_kept[role].setdefault(n, f"--keep-float {pattern}")
            self.kept[role] = list(self.why_kept[role])
        if settings.mode == "int8":
            for role in sources:
                if settings.float_why(role):
                    self.float_roles.append(role)
                    self.float_why[role] = f"recipe {settings.recipe}: {settings.float_why(role)}"
                elif not inputs.get(role):
                    self.float_roles.append(role)
                    self.float_why[role] = (
                        "no calibration inputs (no text found on the calibration pages)"
                    )
                    log(f"warning: {role} stays float: {self.float_why[role]}")

    @property
    def quantized(self) -> bool:
        return self.settings is not None

    def _cache(self, role: str) -> str:
        return os.path.join(self.tmp, f"{role}.calib.json")

    def model(self, role: str) -> bytes:
        """The packed model of ``role``: quantized (unless left float), optimised offline."""
        data = self.sources[role]
        if self.settings is not None and role not in self.float_roles:
            cache = self._cache(role)
            bar = None
            if self.settings.mode == "int8" and not os.path.exists(cache):
                bar = Progress(len(self.inputs.get(role, [])), self.progress, f"calibrate {role}")
            data = Q.quantize_bytes(
                self.named[role],
                self.settings,
                self.inputs.get(role, []),
                self.kept[role],
                role=role,
                cache_path=cache,
                progress=bar,
            )
        return Q.optimize_graph(data, self.optimize) if self.optimize else bytes(data)

    def all(self) -> tuple[dict, float]:
        """Every packed model ({role: bytes}) and the seconds it took."""
        t0 = time.perf_counter()
        packed = {role: self.model(role) for role in self.sources}
        return packed, time.perf_counter() - t0

    def floats(self) -> dict:
        """The float models, optimised as the packed ones are."""
        if not self._floats:
            for r in self.sources:
                self._floats[r] = (
                    Q.optimize_graph(self.sources[r], self.optimize)
                    if self.optimize
                    else self.sources[r]
                )
        return self._floats

    def damage(self) -> dict:
        """Per quantized role, weighted nodes ranked by the error their quantization adds."""
        if not self._damage:
            for role in self.sources:
                if self.inputs.get(role) and role not in self.float_roles:
                    qbytes = Q.quantize_bytes(
                        self.named[role],
                        self.settings,
                        self.inputs[role],
                        self.kept[role],
                        role=role,
                        cache_path=self._cache(role),
                    )
                    self._damage[role] = Q.node_damage(self.named[role], qbytes, self.inputs[role])
        return self._damage

    def keep_node(self, role: str, node: str, why: str) -> None:
        self.kept[role].append(node)
        self.why_kept[role][node] = why

    def keep_role_float(self, role: str, why: str) -> None:
        self.float_roles.append(role)
        self.float_why[role] = why

    def kept_float_report(self) -> dict:
        """Per role: what stays float and why (whole model, op types the recipe leaves, nodes)."""
        out = {}
        settings = self.settings
        for role, model in self.named.items():
            if role in self.float_why:
                out[role] = {"whole_model": self.float_why[role]}
                continue
            ops = settings.ops_for(role) if settings.mode == "int8" else settings.op_types
            entry = {}
            if ops:
                left = {}
                for n in model.graph.node:
                    if n.op_type not in ops:
                        left[n.op_type] = left.get(n.op_type, 0) + 1
                entry["op_types_left_float"] = left
                entry["op_types_why"] = (
                    f"recipe {settings.recipe}: only {', '.join(ops)} quantized in {role}"
                    if settings.mode == "int8"
                    else f"--dynamic-ops {','.join(ops)}"
                )
            entry["nodes"] = [{"node": n, "why": w} for n, w in self.why_kept[role].items()]
            out[role] = entry
        return out
