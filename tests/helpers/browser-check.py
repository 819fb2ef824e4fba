#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Open a local HTML or SVG file in headless Chromium and report on it.

    browser-check.py [options] FILE
    browser-check.py [options] http://127.0.0.1:PORT/PAGE

A page served on the loopback interface (perun serve) may also load what
its own server serves; any other request is an error as for files.

Chromium is driven over the DevTools protocol (a websocket, spoken here
with the standard library only), so the page under test is not modified:
  * every uncaught exception, console.error() and browser log error is an
    error, and so is any request that leaves the machine (pages must work
    offline);
  * --count SELECTOR prints "count <selector> <n>" (document.querySelectorAll);
  * --eval EXPR prints "eval <expr> <JSON result>";
  * --wait EXPR waits (up to --timeout) until EXPR is true before the
    counts, evals and screenshot: for pages that fill in after loading;
  * --screenshot PNG saves a full-page screenshot.
Output is one line per item on stdout; errors go as "error: <text>".

Exit: 0 loaded without errors, 1 JavaScript/log/network errors, 2 usage or
page not loaded, 77 no Chromium (the automake "skip" code).
"""
import argparse
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

SKIP = 77


def find_chromium():
    env = os.environ.get("PERUN_CHROMIUM")
    if env:
        return env if shutil.which(env) else None
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class WebSocket:
    """A minimal RFC 6455 client: text frames out (masked), frames in."""

    def __init__(self, url, timeout):
        parts = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
                   "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise OSError("websocket handshake: connection closed")
            head += chunk
        status, _, rest = head.partition(b"\r\n\r\n")
        if b" 101 " not in status.split(b"\r\n")[0]:
            raise OSError("websocket handshake refused: " + status.split(b"\r\n")[0].decode())
        self.buf = rest

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buf)))
            if not chunk:
                raise OSError("websocket closed")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def send(self, text):
        payload = text.encode()
        head = bytearray([0x81])
        n = len(payload)
        if n < 126:
            head.append(0x80 | n)
        elif n < 65536:
            head.append(0x80 | 126)
            head += struct.pack(">H", n)
        else:
            head.append(0x80 | 127)
            head += struct.pack(">Q", n)
        mask = os.urandom(4)
        head += mask
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes(head) + masked)

    def recv(self):
        message = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(n)
            opcode = b0 & 0x0F
            if opcode == 0x8:
                raise OSError("websocket closed by the browser")
            if opcode in (0x9, 0xA):  # ping/pong: nothing to answer for CDP
                continue
            message += payload
            if b0 & 0x80:
                return message.decode()


class DevTools:
    def __init__(self, ws, timeout):
        self.ws = ws
        self.timeout = timeout
        self.next_id = 0
        self.events = []

    def call(self, method, **params):
        self.next_id += 1
        my_id = self.next_id
        self.ws.send(json.dumps({"id": my_id, "method": method, "params": params}))
        self.ws.sock.settimeout(self.timeout)  # wait_event and drain shorten it
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == my_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error'].get('message')}")
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, name, deadline):
        for i, ev in enumerate(self.events):
            if ev["method"] == name:
                return self.events.pop(i)
        while time.monotonic() < deadline:
            self.ws.sock.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                msg = json.loads(self.ws.recv())
            except socket.timeout:
                break
            if msg.get("method") == name:
                return msg
            if "method" in msg:
                self.events.append(msg)
        return None

    def drain(self, seconds):
        """Collect events for a little while (late errors, timers)."""
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            self.ws.sock.settimeout(left)
            try:
                msg = json.loads(self.ws.recv())
            except socket.timeout:
                return
            if "method" in msg:
                self.events.append(msg)


def describe_exception(params):
    details = params.get("exceptionDetails", {})
    exc = details.get("exception", {})
    text = exc.get("description") or details.get("text", "exception")
    where = f"{details.get('url', '')}:{details.get('lineNumber', 0) + 1}"
    return f"{text.splitlines()[0]} ({where})"


def loopback_origin(url):
    """scheme://host:port of an http URL on the loopback interface, else None."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        return None
    return f"{parts.scheme}://{parts.netloc}"


def collect_errors(events, page_url):
    errors = []
    origin = loopback_origin(page_url)
    for ev in events:
        method, params = ev["method"], ev.get("params", {})
        if method == "Runtime.exceptionThrown":
            errors.append("exception: " + describe_exception(params))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = [a.get("value", a.get("description", "")) for a in params.get("args", [])]
            errors.append("console.error: " + " ".join(str(a) for a in args))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            errors.append("log: " + params["entry"].get("text", ""))
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if origin and (url == origin or url.startswith(origin + "/")):
                continue
            if not url.startswith(("file:", "data:", "blob:", "about:")):
                errors.append("network request (the page must work offline): " + url)
    return errors


def launch(chromium, width, height, timeout, host=None):
    """Start headless Chromium, offline but for host (a served page's
    loopback host): (process, profile dir, DevTools of its page with the
    Page, Runtime, Log and Network domains on).  RuntimeError if it
    cannot; shutdown() stops it either way."""
    profile_dir = tempfile.mkdtemp(prefix="perun-chromium-")
    cmd = [chromium, "--headless=new", "--remote-debugging-port=0",
           f"--user-data-dir={profile_dir}", "--no-first-run", "--no-default-browser-check",
           "--disable-gpu", "--disable-dev-shm-usage", "--disable-extensions",
           "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--metrics-recording-only", "--mute-audio",
           # offline: nothing resolves but a served page's loopback host
           "--host-resolver-rules=MAP * ~NOTFOUND" + (f", EXCLUDE {host}" if host else ""),
           f"--window-size={width},{height}", "about:blank"]
    if os.geteuid() == 0:
        cmd.insert(1, "--no-sandbox")  # Chromium refuses to run its sandbox as root
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        port_file = os.path.join(profile_dir, "DevToolsActivePort")
        deadline = time.monotonic() + timeout
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            if proc.poll() is not None or time.monotonic() > deadline:
                err = proc.stderr.read().decode(errors="replace") if proc.poll() is not None else ""
                raise RuntimeError("chromium did not start: " + err.strip()[-500:])
            time.sleep(0.05)
        time.sleep(0.05)
        with open(port_file) as f:
            port = int(f.readline())
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            targets = json.load(r)
        page = next(t for t in targets if t.get("type") == "page")
        cdp = DevTools(WebSocket(page["webSocketDebuggerUrl"], timeout), timeout)
        for domain in ("Page", "Runtime", "Log", "Network"):
            cdp.call(f"{domain}.enable")
        cdp.events.clear()  # about:blank's own events
    except BaseException:
        shutdown(proc, profile_dir)
        raise
    return proc, profile_dir, cdp


def shutdown(proc, profile_dir):
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


def screenshot(cdp, path, width, height):
    """A full-page PNG at least width x height."""
    metrics = cdp.call("Page.getLayoutMetrics")
    size = metrics.get("cssContentSize") or metrics.get("contentSize")
    width = max(width, int(size["width"]))
    height = min(max(height, int(size["height"])), 16000)
    shot = cdp.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                    clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1})
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))


def main():
    ap = argparse.ArgumentParser(description="check a local page in headless Chromium")
    ap.add_argument("file")
    ap.add_argument("--count", action="append", default=[], metavar="SELECTOR")
    ap.add_argument("--eval", action="append", default=[], metavar="EXPR")
    ap.add_argument("--wait", action="append", default=[], metavar="EXPR")
    ap.add_argument("--screenshot", metavar="PNG")
    ap.add_argument("--width", type=int, default=1200)
    ap.add_argument("--height", type=int, default=900)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for the load")
    ap.add_argument("--settle", type=float, default=0.3,
                    help="seconds to keep listening after the load event")
    args = ap.parse_args()

    served = loopback_origin(args.file)
    if not served and not os.path.isfile(args.file):
        print(f"browser-check: no such file: {args.file}", file=sys.stderr)
        return 2
    chromium = find_chromium()
    if not chromium:
        print("browser-check: chromium not found (Debian: apt-get install chromium)",
              file=sys.stderr)
        return SKIP
    page_url = args.file if served else "file://" + urllib.parse.quote(os.path.abspath(args.file))

    try:
        proc, profile_dir, cdp = launch(
            chromium, args.width, args.height, args.timeout,
            urllib.parse.urlsplit(args.file).hostname if served else None)
    except RuntimeError as e:
        print(f"browser-check: {e}", file=sys.stderr)
        return 2
    deadline = time.monotonic() + args.timeout
    try:
        nav = cdp.call("Page.navigate", url=page_url)
        if nav.get("errorText"):
            print(f"browser-check: cannot load {args.file}: {nav['errorText']}", file=sys.stderr)
            return 2
        if not cdp.wait_event("Page.loadEventFired", deadline):
            print(f"browser-check: {args.file} did not finish loading in {args.timeout} s",
                  file=sys.stderr)
            return 2
        cdp.drain(args.settle)
        for expr in args.wait:
            while True:
                res = cdp.call("Runtime.evaluate", expression=expr, returnByValue=True)
                if res.get("result", {}).get("value"):
                    break
                if time.monotonic() > deadline:
                    print(f"browser-check: waited {args.timeout} s for {expr}", file=sys.stderr)
                    return 2
                cdp.drain(0.1)

        for sel in args.count:
            res = cdp.call("Runtime.evaluate", returnByValue=True,
                           expression=f"document.querySelectorAll({json.dumps(sel)}).length")
            if "exceptionDetails" in res:
                print(f"browser-check: bad selector: {sel}", file=sys.stderr)
                return 2
            print(f"count {sel} {res['result']['value']}")
        for expr in args.eval:
            res = cdp.call("Runtime.evaluate", expression=expr, returnByValue=True,
                           awaitPromise=True)
            if "exceptionDetails" in res:
                print(f"error: eval {expr}: {describe_exception(res)}")
                value = None
            else:
                value = res["result"].get("value")
            print(f"eval {expr} {json.dumps(value)}")
        if args.screenshot:
            screenshot(cdp, args.screenshot, args.width, args.height)
            print(f"screenshot {args.screenshot}")
        cdp.drain(0.05)
        errors = collect_errors(cdp.events, page_url)
        for e in errors:
            print("error: " + e)
        print(f"errors {len(errors)}")
        return 1 if errors else 0
    finally:
        shutdown(proc, profile_dir)


if __name__ == "__main__":
    sys.exit(main())
