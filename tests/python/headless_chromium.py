"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
JSON messages ended by NUL bytes on the child's fds 3 and 4), for tests that open a page as a
person would: layout, screenshots, the DOM, and every request the page makes. Standard library
only; Debian's ``chromium`` package (``find_chromium``)."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    """The Chromium executable on PATH (EDGEOCR_CHROMIUM overrides), else None."""
    explicit = os.environ.get("EDGEOCR_CHROMIUM")
    if explicit:
        return explicit
    for name in NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


class Chromium:
    """One headless browser with one page. ``call(method, **params)`` sends a command to the
    page's session and returns its result; events seen meanwhile are kept in ``events``."""

    def __init__(self, exe: str, width: int = 1400, height: int = 1000, timeout: float = 120):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="edgeocr-chromium-")
        to_r, self._to = os.pipe()  # we write commands, Chromium reads them on its fd 3
        self._from, from_w = os.pipe()  # Chromium writes replies on its fd 4
        args = [
            exe,
            "--headless",
            "--no-sandbox",  # CI runs as root, where Chromium's sandbox refuses to start
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={self.profile}",
            "--remote-debugging-pipe",
            "about:blank",
        ]
        # A small Python shim puts the pipe's ends at fds 3 and 4, where Chromium looks for
        # them (moved above 9 first, so that neither clobbers the other), then runs Chromium.
        shim = (
            "import fcntl, os, sys\n"
            "a, b = (fcntl.fcntl(int(x), fcntl.F_DUPFD_CLOEXEC, 10) for x in sys.argv[1:3])\n"
            "os.dup2(a, 3)\n"
            "os.dup2(b, 4)\n"
            "os.execv(sys.argv[3], sys.argv[3:])\n"
        )
        self.log = os.path.join(self.profile, "stderr.log")
        with open(self.log, "wb") as log:  # Chromium logs much; a pipe could fill and block it
            self.proc = subprocess.Popen(
                [sys.executable, "-c", shim, str(to_r), str(from_w), *args],
                pass_fds=(to_r, from_w),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        os.close(to_r)
        os.close(from_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []
        self.session = None
        try:
            targets = self._send(None, "Target.getTargets")["targetInfos"]
            page = next(t for t in targets if t["type"] == "page")
            self.session = self._send(
                None, "Target.attachToTarget", targetId=page["targetId"], flatten=True
            )["sessionId"]
            self.call(
                "Emulation.setDeviceMetricsOverride",
                width=width,
                height=height,
                deviceScaleFactor=1,
                mobile=False,
            )
            self.call("Page.enable")
            self.call("Network.enable")
        except BaseException:
            self.close()
            raise

    def _send(self, session, method: str, **params) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._to, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._next()
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def _next(self) -> dict:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                with open(self.log, "rb") as f:
                    err = f.read()[-2000:].decode(errors="replace")
                raise TimeoutError(f"no reply from Chromium; its log ends: {err}")
            ready, _, _ = select.select([self._from], [], [], min(left, 1.0))
            if ready:
                chunk = os.read(self._from, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the pipe")
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method: str, **params) -> dict:
        return self._send(self.session, method, **params)

    def wait_event(self, method: str) -> dict:
        """The first event ``method`` seen (waiting for it when none is)."""
        while True:
            for e in self.events:
                if e["method"] == method:
                    return e
            self.events.append(self._next())

    def open(self, url: str) -> None:
        """Navigates to ``url`` and waits for its load event."""
        self.events.clear()
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str):
        """The JSON value of a JavaScript expression (run by DevTools, not by the page)."""
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression[:80]}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def screenshot(self) -> bytes:
        """A PNG of the whole page (not only the viewport), at one device pixel per CSS pixel."""
        import base64

        size = self.call("Page.getLayoutMetrics")["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        r = self.call("Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True)
        return base64.b64decode(r["data"])

    def requests(self) -> list[str]:
        """The URLs of every request the page made since it was opened."""
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e["method"] == "Network.requestWillBeSent"
        ]

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                try:
                    msg = {"id": 0, "method": "Browser.close"}
                    os.write(self._to, json.dumps(msg).encode() + b"\0")
                    self.proc.wait(timeout=20)
                except (OSError, subprocess.TimeoutExpired):
                    self.proc.kill()
                    self.proc.wait(timeout=20)
        finally:
            for fd in (self._to, self._from):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
