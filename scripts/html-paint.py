#!/usr/bin/env python3
"""Measure how fast an HTML report paints and becomes usable in headless Chromium.

    scripts/html-paint.py REPORTS/index.html [--runs 3] [--chromium PATH]

Drives Chromium over its DevTools protocol on a pipe (`--remote-debugging-pipe`: no network, no
package beyond Python's standard library), in a fresh profile, one navigation per run, and
prints for each run, then the median:

- first paint and first contentful paint (the page's `paint` performance entries);
- ready: the report script's `toolnorm-ready` mark (filters wired, list drawn: interactive);
- load: the end of the load event; and the file's size.

All times in milliseconds from the start of the navigation. Exit code 2 when Chromium cannot be
driven.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, chromium, profile):
        # fd 3: what Chromium reads (our commands); fd 4: what it writes (answers and events).
        cmd_r, self.cmd_w = os.pipe()
        self.ev_r, ev_w = os.pipe()
        fds = {3: cmd_r, 4: ev_w}

        def child_fds():
            # Through fds above 4 first, so that neither dup2 clobbers the other's source.
            high = {n: os.dup(fd) for n, fd in fds.items()}
            for n, fd in high.items():
                os.dup2(fd, n)
                os.set_inheritable(n, True)

        self.proc = subprocess.Popen(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--remote-debugging-pipe",
                "--user-data-dir=" + profile,
                "--window-size=1280,900",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=child_fds,
            # 3 and 4 are made in the child after the parent's fds are inherited: keep them.
            close_fds=False,
        )
        os.close(cmd_r)
        os.close(ev_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self.ev_r, 1 << 20)
            if not chunk:
                raise EOFError("Chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None, timeout=120):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, session, timeout=300):
        deadline = time.monotonic() + timeout
        for i, m in enumerate(self.events):
            if m.get("method") == method and m.get("sessionId") == session:
                del self.events[i]
                return m
        while True:
            m = self._read_message(deadline)
            if m.get("method") == method and m.get("sessionId") == session:
                return m
            self.events.append(m)

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


MEASURE = """(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const paint = {};
  for (const e of performance.getEntriesByType('paint')) paint[e.name] = e.startTime;
  const ready = performance.getEntriesByName('toolnorm-ready')[0];
  return JSON.stringify({
    firstPaint: paint['first-paint'] ?? null,
    firstContentfulPaint: paint['first-contentful-paint'] ?? null,
    ready: ready ? ready.startTime : null,
    load: nav ? nav.loadEventEnd : null,
    elements: document.getElementsByTagName('*').length,
  });
})()"""


def run_once(chromium, url):
    profile = tempfile.mkdtemp(prefix="html-paint-")
    b = Browser(chromium, profile)
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        b.send("Page.enable", session=session)
        b.send("Page.navigate", {"url": url}, session=session)
        b.wait_event("Page.loadEventFired", session)
        # Paint entries are queued after the frame that painted: give the page a frame or two.
        for _ in range(50):
            res = b.send(
                "Runtime.evaluate",
                {"expression": MEASURE, "returnByValue": True},
                session=session,
            )
            m = json.loads(res["result"]["value"])
            if m["firstContentfulPaint"] is not None and m["ready"] is not None:
                return m
            time.sleep(0.1)
        return m
    finally:
        b.close()
        shutil.rmtree(profile, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("page")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--chromium", default=os.environ.get("TOOLNORM_CHROMIUM"))
    args = ap.parse_args()
    chromium = args.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("no chromium on PATH (scripts/install-test-deps.sh installs it)", file=sys.stderr)
        return 2
    page = os.path.abspath(args.page)
    url = "file://" + page
    print(f"{args.page}: {os.path.getsize(page) / 1e6:.1f} MB")
    runs = []
    for i in range(args.runs):
        try:
            m = run_once(chromium, url)
        except (OSError, RuntimeError, TimeoutError, EOFError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        runs.append(m)
        fmt = lambda v: "-" if v is None else f"{v:.0f}"
        print(
            f"run {i + 1}: first paint {fmt(m['firstPaint'])} ms, first contentful paint "
            f"{fmt(m['firstContentfulPaint'])} ms, ready {fmt(m['ready'])} ms, load {fmt(m['load'])} ms, "
            f"{m['elements']} elements"
        )
    med = lambda k: statistics.median([r[k] for r in runs if r[k] is not None] or [float("nan")])
    print(
        f"median of {len(runs)}: first contentful paint {med('firstContentfulPaint'):.0f} ms, "
        f"ready {med('ready'):.0f} ms, load {med('load'):.0f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
