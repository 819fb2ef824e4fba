#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Drive a page of a local server in headless Chromium, step by step.

    browser-steps.py URL STEP...

It reuses browser-check.py's DevTools client.  Steps run in order:
  click:SELECTOR        click the first element matching SELECTOR
  type:SELECTOR=TEXT    set an input's value and fire its input event
  select:SELECTOR=VALUE choose an option and fire change
  check:SELECTOR        tick a checkbox (fires change)
  wait:EXPR             evaluate EXPR until it is truthy (up to --timeout s)
  eval:EXPR             print "eval <EXPR> <JSON value>"
  goto:URL              load another URL (a path is taken on the same origin)
  shot:PNG              a full-page screenshot
  sleep:SECONDS         let the page work
Each step prints one line; the first that fails prints "error: ..." and
stops.  Any JavaScript exception, console error, browser log error or
request to another origin than the server's is an error too.

Exit: 0 all steps passed without errors, 1 a step failed or errors, 2 usage
or page not loaded, 77 no Chromium.
"""
import base64
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("browser_check", os.path.join(here, "browser-check.py"))
bc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bc)


def errors_of(events, origin):
    errors = []
    for ev in events:
        method, params = ev["method"], ev.get("params", {})
        if method == "Runtime.exceptionThrown":
            errors.append("exception: " + bc.describe_exception(params))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = [a.get("value", a.get("description", "")) for a in params.get("args", [])]
            errors.append("console.error: " + " ".join(str(a) for a in args))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            errors.append("log: " + params["entry"].get("text", ""))
        elif method == "Network.responseReceived":
            resp = params.get("response", {})
            if resp.get("status", 200) >= 400:
                errors.append(f"HTTP {resp['status']}: {resp.get('url', '')}")
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if not url.startswith((origin + "/", "data:", "blob:", "about:")):
                errors.append("network request to another origin: " + url)
    return errors


class Page:
    def __init__(self, cdp, timeout):
        self.cdp, self.timeout = cdp, timeout

    def js(self, expr):
        res = self.cdp.call("Runtime.evaluate", expression=expr, returnByValue=True,
                            awaitPromise=True)
        if "exceptionDetails" in res:
            raise RuntimeError(bc.describe_exception(res))
        return res["result"].get("value")

    def element(self, sel, action):
        ok = self.js(f"(() => {{ const e = document.querySelector({json.dumps(sel)});"
                     f" if (!e) return false; {action}; return true; }})()")
        if not ok:
            raise RuntimeError(f"no element {sel}")

    def navigate(self, url):
        nav = self.cdp.call("Page.navigate", url=url)
        if nav.get("errorText"):
            raise RuntimeError(f"cannot load {url}: {nav['errorText']}")
        if not self.cdp.wait_event("Page.loadEventFired", time.monotonic() + self.timeout):
            raise RuntimeError(f"{url} did not load in {self.timeout} s")

    def step(self, step, origin):
        kind, _, arg = step.partition(":")
        if kind == "click":
            self.element(arg, "e.scrollIntoView(); e.click()")
        elif kind in ("type", "select"):
            # the "=" after the selector (attribute selectors have their own)
            cut = arg.index("=", arg.rfind("]") + 1)
            sel, value = arg[:cut], arg[cut + 1:]
            event = "input" if kind == "type" else "change"
            self.element(sel, f"e.value = {json.dumps(value)};"
                         f" e.dispatchEvent(new Event({json.dumps(event)}, {{ bubbles: true }}))")
        elif kind == "check":
            self.element(arg, "e.checked = true;"
                         " e.dispatchEvent(new Event('change', { bubbles: true }))")
        elif kind == "wait":
            deadline = time.monotonic() + self.timeout
            while not self.js(f"!!({arg})"):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"still false after {self.timeout} s: {arg}")
                self.cdp.drain(0.1)
        elif kind == "eval":
            print(f"eval {arg} {json.dumps(self.js(arg))}")
            return
        elif kind == "goto":
            self.navigate(arg if "://" in arg else origin + arg)
        elif kind == "shot":
            metrics = self.cdp.call("Page.getLayoutMetrics")
            size = metrics.get("cssContentSize") or metrics.get("contentSize")
            width, height = max(1200, int(size["width"])), min(max(900, int(size["height"])), 16000)
            shot = self.cdp.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                                 clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1})
            os.makedirs(os.path.dirname(os.path.abspath(arg)), exist_ok=True)
            with open(arg, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        elif kind == "sleep":
            self.cdp.drain(float(arg))
        else:
            raise RuntimeError(f"unknown step {step}")
        print(f"ok {step}")


def main():
    args = sys.argv[1:]
    timeout = 60.0
    if args[:1] == ["--timeout"]:
        timeout, args = float(args[1]), args[2:]
    if len(args) < 1:
        print(__doc__, file=sys.stderr)
        return 2
    url, steps = args[0], args[1:]
    parts = urllib.parse.urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    chromium = bc.find_chromium()
    if not chromium:
        print("browser-steps: chromium not found (Debian: apt-get install chromium)",
              file=sys.stderr)
        return bc.SKIP
    profile_dir = tempfile.mkdtemp(prefix="perun-chromium-")
    cmd = [chromium, "--headless=new", "--remote-debugging-port=0",
           f"--user-data-dir={profile_dir}", "--no-first-run", "--no-default-browser-check",
           "--disable-gpu", "--disable-dev-shm-usage", "--disable-extensions",
           "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--metrics-recording-only", "--mute-audio",
           # offline: nothing resolves but the loopback server
           "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
           "--window-size=1200,900", "about:blank"]
    if os.geteuid() == 0:
        cmd.insert(1, "--no-sandbox")
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        port_file = os.path.join(profile_dir, "DevToolsActivePort")
        deadline = time.monotonic() + timeout
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            if proc.poll() is not None or time.monotonic() > deadline:
                print("browser-steps: chromium did not start", file=sys.stderr)
                return 2
            time.sleep(0.05)
        time.sleep(0.05)
        with open(port_file) as f:
            port = int(f.readline())
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            targets = json.load(r)
        target = next(t for t in targets if t.get("type") == "page")
        cdp = bc.DevTools(bc.WebSocket(target["webSocketDebuggerUrl"], timeout), timeout)
        for domain in ("Page", "Runtime", "Log", "Network"):
            cdp.call(f"{domain}.enable")
        cdp.events.clear()
        page = Page(cdp, timeout)
        failed = False
        try:
            page.navigate(url)
            cdp.drain(0.3)
            for step in steps:
                page.step(step, origin)
        except RuntimeError as e:
            print(f"error: {e}")
            failed = True
        cdp.drain(0.1)
        errors = errors_of(cdp.events, origin)
        for e in errors:
            print("error: " + e)
        print(f"errors {len(errors)}")
        return 1 if errors or failed else 0
    finally:
        try:
            os.killpg(proc.pid, 15)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
        shutil.rmtree(profile_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
