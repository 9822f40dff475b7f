"""pack()'s verify and gate steps: the packed pipeline against the float one, and the verdict.

:class:`Gate` runs the packed models through an engine on the gate's pages and
compares them with the float reference engine (per-stage output differences,
text agreement, accuracy on labelled pages, latency); with auto-keep it returns
the nodes or models that cost the most to float until the drop is within
``max_drop``; :meth:`Gate.judge` writes the verdict into the report and raises
:class:`AccuracyGateError` past ``max_drop`` (unless forced).
"""

from __future__ import annotations

import time

from ..progress import Progress
from . import verify as V
from .build import Build
from .errors import AccuracyGateError
from .pages import GatePages
from .predictors import predictor_from_models

# Fewer held-back lines than this and the gate warns that it cannot see a drop of max_drop.
MIN_GATE_LINES = 100


def drop_of(report: dict) -> float:
    """The report's accuracy drop in points (labelled pages, else 1-NED agreement)."""
    if "eval" in report:
        return report["eval"]["drop_points"]
    if "agreement" in report:
        return 100.0 * (1.0 - report["agreement"]["one_minus_ned"])
    return 0.0


class Gate:
    """Verification of ``build``'s packed models against the float engine ``ref``."""

    def __init__(
        self,
        ref,
        load_seconds: float,
        build: Build,
        pages: GatePages,
        charset: list,
        config,
        *,
        max_drop: float,
        threads: int | None,
        runtime_optimization: str,
        progress,
        log,
    ):
        self.ref, self.load_seconds, self.build, self.pages = ref, load_seconds, build, pages
        self.charset, self.config, self.max_drop = charset, config, max_drop
        self.threads, self.runtime_optimization = threads, runtime_optimization
        self.progress, self.log = progress, log
        self._reference: list | None = None

    def reference(self) -> list:
        """The float pipeline's results on the gate's pages, computed once."""
        if self._reference is None:
            bar = Progress(len(self.pages.verify_imgs), self.progress, "verify (float)")
            self._reference, _ = V.run_images(self.ref, self.pages.verify_imgs, bar)
        return self._reference

    def measure(self, models: dict, *, latency: bool = False) -> dict:
        """The verification report of ``models`` ({role: bytes}) against the float pipeline."""
        t0 = time.perf_counter()
        pred = predictor_from_models(
            models,
            self.charset,
            self.config,
            recheck_charset=self.ref.recheck_charset,
            threads=self.threads,
            optimization=self.runtime_optimization,
        )
        report = {
            "load_ms": {
                "before": 1000 * self.load_seconds,
                "after": 1000 * (time.perf_counter() - t0),
            }
        }
        report["stages"] = V.stage_diffs(self.build.sources, models, self.build.inputs)
        imgs, samples = self.pages.verify_imgs, self.pages.samples
        if not imgs:
            return report
        a = self.reference()
        bar = Progress(len(imgs), self.progress, "verify (packed)")
        b, _ = V.run_images(pred, imgs, bar)
        report["agreement"] = {**V.text_agreement(a, b), "pages_from": self.pages.pages_from}
        if samples:
            before, after = V.accuracy(samples, a), V.accuracy(samples, b)
            report["eval"] = {
                "dataset": self.pages.eval_name,
                "n_images": len(samples),
                "before": before,
                "after": after,
                "drop_points": V.accuracy_drop(before, after),
            }
        if latency:
            ta, tb = V.interleaved_seconds(self.ref, pred, imgs)
            report["latency_ms"] = {
                "before": V.median_ms(ta),
                "after": V.median_ms(tb),
                "images": len(imgs),
                "threads": self.threads or 0,
            }
        return report

    def drop_alone(self, packed: dict) -> dict:
        """The drop with only one model quantized, per quantized model."""
        alone = {}
        for role in self.build.sources:
            if role in self.build.float_roles:
                continue
            trial = {
                r: (packed[r] if r == role else self.build.floats()[r]) for r in self.build.sources
            }
            alone[role] = drop_of(self.measure(trial))
        return alone

    def verify(
        self, packed: dict, *, auto_keep: str, max_keep_nodes: int, layerwise: bool, latency: bool
    ) -> dict:
        """The report of ``packed`` (updated in place when auto-keep returns models to float)."""
        report = self.measure(packed, latency=latency)
        if auto_keep != "off" and drop_of(report) > self.max_drop:
            report = self._auto_keep(packed, report, auto_keep, max_keep_nodes, latency)
        build = self.build
        failed = build.quantized and drop_of(report) > self.max_drop
        if (layerwise or failed) and build.quantized:
            report["layerwise"] = {
                role: [{"node": n, "op": op, "added_rel_error": sc} for n, op, sc in dmg[:10]]
                for role, dmg in build.damage().items()
            }
        if build.quantized:
            report["kept_float"] = build.kept_float_report()
        if failed and len([r for r in build.sources if r not in build.float_roles]) > 1:
            report["drop_alone"] = self.drop_alone(packed)
        return report

    def _auto_keep(self, packed, report, mode: str, max_keep_nodes: int, latency: bool) -> dict:
        # 1. ("nodes") Return the most damaging nodes to float, doubling the count per round
        #    (at most max_keep_nodes nodes).
        # 2. If that is not enough, return whole roles to float, the one whose quantization
        #    alone costs most first, until the drop is within max_drop.
        build, log, max_drop = self.build, self.log, self.max_drop
        ranked = []
        if mode == "nodes" and max_keep_nodes > 0:
            ranked = [
                (role, n, op, score)
                for role, dmg in build.damage().items()
                for n, op, score in dmg
                if n not in build.kept[role]
            ]
        ranked.sort(key=lambda r: -r[3])
        step, taken = 1, 0
        rounds = [{"kept_float": 0, "drop_points": drop_of(report)}]
        limit = min(len(ranked), max_keep_nodes)
        while drop_of(report) > max_drop and taken < limit:
            batch = ranked[taken : min(limit, taken + step)]
            taken += len(batch)
            step *= 2
            for role, n, _, score in batch:
                why = f"--auto-keep nodes: adds {score:.3f} relative error when quantized"
                build.keep_node(role, n, why)
            for role in {r for r, *_ in batch}:
                packed[role] = build.model(role)
            report = self.measure(packed)
            rounds.append(
                {
                    "kept_float": taken,
                    "nodes": [f"{r}:{n}" for r, n, _, _ in batch],
                    "drop_points": drop_of(report),
                }
            )
            log(f"auto-keep: {taken} node(s) kept float, drop {drop_of(report):.2f} pts")
        if drop_of(report) > max_drop and len(build.sources) > 1:
            alone = self.drop_alone(packed)
            for role, d in alone.items():
                log(f"auto-keep: only {role} quantized: drop {d:.2f} pts")
            for role in sorted(alone, key=lambda r: -alone[r]):
                if drop_of(report) <= max_drop:
                    break
                build.keep_role_float(
                    role,
                    f"--auto-keep {mode}: quantized alone it cost {alone[role]:.2f} pts "
                    f"of 1-NED (allowed {max_drop} for the bundle)",
                )
                packed[role] = build.floats()[role]
                report = self.measure(packed)
                rounds.append(
                    {
                        "role_float": role,
                        "alone_drop_points": alone[role],
                        "drop_points": drop_of(report),
                    }
                )
                log(f"auto-keep: {role} kept float, drop {drop_of(report):.2f} pts")
        if latency and rounds[1:]:
            report = self.measure(packed, latency=True)
        report["auto_keep"] = rounds
        return report

    def judge(self, report: dict, *, build_seconds: float, force: bool) -> None:
        """The verdict in ``report`` (drop_points, drop_measure, max_drop, gate_warning,
        forced); raises AccuracyGateError past max_drop unless ``force``."""
        max_drop, log, pages = self.max_drop, self.log, self.pages
        report["drop_points"] = drop_of(report)
        report["drop_measure"] = (
            "eval: max drop of det_hmean and 1-NED against the labels"
            if "eval" in report
            else "1 - (1-NED of the packed pipeline's text against the float pipeline's text), "
            + (
                "on calibration pages held back from calibration"
                if pages.held
                else "on the calibration pages"
            )
            if "agreement" in report
            else "none: no pages to verify on"
        )
        report["max_drop"] = max_drop
        agr = report.get("agreement")
        quantized = self.build.quantized
        if quantized and agr and not pages.samples and agr["lines"] < MIN_GATE_LINES:
            # One changed line in 25 already moves 1-NED by up to 4 points, and a model that
            # costs 0.5 points changes about one line in ten: on few lines the gate sees noise.
            report["gate_warning"] = (
                f"the gate compared only {agr['lines']} lines (held-back pages); below "
                f"{MIN_GATE_LINES} a drop of {max_drop} points may not show: give more or denser "
                "calibration pages (--calib, --calib-limit) or labelled pages (--eval)"
            )
            log(f"warning: {report['gate_warning']}")
        report["build_seconds"] = build_seconds
        report["machine"] = machine()
        log(V.format_report(report))
        if quantized and report["drop_points"] > max_drop:
            msg = (
                f"accuracy drops {report['drop_points']:.2f} points "
                + (
                    f"on {pages.eval_dir}"
                    if "eval" in report
                    else f"on {len(pages.verify_imgs)} verification page(s)"
                )
                + f" (allowed: {max_drop}); bundle not written"
            )
            blame = _blame(report)
            if blame:
                msg += f"; {blame}"
            if not force:
                raise AccuracyGateError(
                    msg + " (use --force to write it anyway, or --auto-keep / --keep-float)",
                    report,
                )
            log(f"warning: {msg.replace('; bundle not written', '')}; written anyway (--force)")
            report["forced"] = True
        elif quantized and not pages.verify_imgs:
            log("warning: no pages to verify on: the bundle is written unverified (--force)")
            report["forced"] = True


def _blame(report: dict) -> str:
    """Which model and which nodes cost the most (for the gate's refusal)."""
    parts = []
    alone = report.get("drop_alone") or {}
    if alone:
        worst = max(alone, key=alone.get)
        parts.append(
            "quantized alone, "
            + ", ".join(f"{r} costs {d:.2f}" for r, d in sorted(alone.items(), key=lambda x: -x[1]))
            + " points"
        )
    else:
        worst = None
    lw = report.get("layerwise") or {}
    roles = [worst] if worst in lw else list(lw)
    for role in roles:
        nodes = lw[role][:3]
        if nodes:
            parts.append(
                f"{role} nodes adding the most error: "
                + ", ".join(f"{d['node']} ({d['op']})" for d in nodes)
            )
    return "; ".join(parts)


def machine() -> dict:
    """This host for the report: CPU, arch, cores and the CPU features that decide int8 speed."""
    from .._runtime import cpu_flags_line, machine_info

    m = machine_info()
    return {
        "cpu": m["cpu"],
        "arch": m["arch"],
        "cores": m["nproc"],
        "int8_features": cpu_flags_line(),
    }
