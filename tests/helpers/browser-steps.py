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
  run:COMMAND           run a shell command (in the current directory)
Each step prints one line; the first that fails prints "error: ..." and
stops.  What browser-check.py counts as an error (an exception, a console
or log error, a request leaving the machine) is one here too, and so is
a response with a status of 400 or more.

Exit: 0 all steps passed without errors, 1 a step failed or errors, 2 usage
or page not loaded, 77 no Chromium.
"""
import importlib.util
import json
import os
import subprocess
import sys
import time
import urllib.parse

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("browser_check", os.path.join(here, "browser-check.py"))
bc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bc)


def errors_of(events, page_url):
    """browser-check's errors, and every response of status 400 or more."""
    errors = bc.collect_errors(events, page_url)
    for ev in events:
        if ev["method"] == "Network.responseReceived":
            resp = ev.get("params", {}).get("response", {})
            if resp.get("status", 200) >= 400:
                errors.append(f"HTTP {resp['status']}: {resp.get('url', '')}")
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
            bc.screenshot(self.cdp, arg, 1200, 900)
        elif kind == "run":
            if subprocess.run(arg, shell=True).returncode:
                raise RuntimeError(f"command failed: {arg}")
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
    try:
        proc, profile_dir, cdp = bc.launch(chromium, 1200, 900, timeout, parts.hostname)
    except RuntimeError as e:
        print(f"browser-steps: {e}", file=sys.stderr)
        return 2
    try:
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
        errors = errors_of(cdp.events, url)
        for e in errors:
            print("error: " + e)
        print(f"errors {len(errors)}")
        return 1 if errors or failed else 0
    finally:
        bc.shutdown(proc, profile_dir)


if __name__ == "__main__":
    sys.exit(main())
