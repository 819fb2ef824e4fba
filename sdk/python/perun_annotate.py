# SPDX-License-Identifier: GPL-3.0-or-later
"""Annotations of Python programs for Perun, as <perun/annotate.h> gives C.

Pure Python, no dependencies.  With PERUN_ANNOTATE set (the keys of
PerfFlowAspect's PERFFLOW_OPTIONS: name, log-filename-include, log-dir,
log-enable, cpu-mem-usage, log-event, log-format), every process writes
Chrome Trace Event JSON to <log-dir>/perun.<parts>.pfw, the same events and
file names as libperun-annotate, so that 'perun import chrome' merges the
traces of C and Python processes of one workflow into one profile.
Without PERUN_ANNOTATE the decorators return the functions unchanged.

    import perun_annotate as pa

    @pa.critical_path()                  # around; before, after,
    def solve(x): ...                    # around_async, before_async, ...

    @pa.sync("parse")                    # a decorator, or a context:
    def parse(text): ...                 #   with pa.sync("load"): ...

    with pa.async_region("request", 7):  # begin and end, or separately:
        ...                              #   pa.async_begin / pa.async_end
    pa.instant("checkpoint", items=3)
    pa.counter("queue", length=12)
    pa.sync_event("before", "foo", __file__)   # PerfFlowAspect's calls
    pa.async_event("after", "bar", __file__)

The file parses as JSON after every event: each is written with the
closing bracket after it, which the next one overwrites.
"""
import functools
import itertools
import os
import resource
import socket
import sys
import threading
import time

__all__ = ["critical_path", "sync", "async_region", "async_begin", "async_end",
           "instant", "counter", "sync_event", "async_event", "flush"]

_KEYS = ("name", "log-filename-include", "log-dir", "log-enable", "cpu-mem-usage",
         "log-event", "log-format")


class _Options:
    def __init__(self, text):
        self.name, self.parts, self.dir = "generic", ["hostname", "pid"], "."
        self.enable, self.cpu_mem, self.compact, self.object = True, False, False, False
        for item in text.split(":") if text else []:
            if "=" not in item:
                raise ValueError("PERUN_ANNOTATE: '%s' is not key=value" % item)
            key, value = item.split("=", 1)
            self._set(key, value)

    @staticmethod
    def _bool(key, value):
        v = value.lower()
        if v in ("true", "1", "yes"):
            return True
        if v in ("false", "0", "no"):
            return False
        raise ValueError("PERUN_ANNOTATE: bad value '%s' for key '%s' (True or False)"
                         % (value, key))

    @staticmethod
    def _choice(key, value, one, zero):
        if value.lower() not in (one, zero):
            raise ValueError("PERUN_ANNOTATE: bad value '%s' for key '%s' (%s or %s)"
                             % (value, key, zero, one))
        return value.lower() == one

    def _set(self, key, value):
        if key == "name":
            if not value or len(value) > 127:
                raise ValueError("PERUN_ANNOTATE: bad value '%s' for key 'name' "
                                 "(a name of 1 to 127 characters)" % value)
            self.name = value
        elif key == "log-filename-include":
            parts = [p for p in value.split(",") if p]
            if any(p not in ("name", "instance-path", "hostname", "pid") for p in parts):
                raise ValueError("PERUN_ANNOTATE: bad value '%s' for key '%s' (a list of "
                                 "name, instance-path, hostname, pid)" % (value, key))
            order = ("name", "instance-path", "hostname", "pid")
            self.parts = sorted(set(parts), key=order.index)
        elif key == "log-dir":
            if not value:
                raise ValueError("PERUN_ANNOTATE: bad value '' for key 'log-dir' "
                                 "(a directory)")
            self.dir = value
        elif key == "log-enable":
            self.enable = self._bool(key, value)
        elif key == "cpu-mem-usage":
            self.cpu_mem = self._bool(key, value)
        elif key == "log-event":
            self.compact = self._choice(key, value, "compact", "verbose")
        elif key == "log-format":
            self.object = self._choice(key, value, "object", "array")
        else:
            raise ValueError("PERUN_ANNOTATE: unknown key '%s' (%s)" % (key, ", ".join(_KEYS)))


def _json_str(s):
    out = ['"']
    for c in str(s):
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20:
            out.append("\\u%04x" % ord(c))
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def _us(ns):
    return "%d.%03d" % (ns // 1000, ns % 1000)


def _args(kv):
    return "{" + ",".join("%s:%s" % (_json_str(k), _value(v)) for k, v in kv.items()) + "}"


def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    return _json_str(v)


class _Writer:
    """One process's trace file, kept valid JSON after every write."""

    def __init__(self, opts):
        self.opts = opts
        self.lock = threading.Lock()
        self.local = threading.local()
        self.host = socket.gethostname()
        self._reset()

    def _reset(self):
        self.fd, self.failed, self.off, self.pid = None, False, 0, os.getpid()
        self.local = threading.local()

    def _path(self):
        parts = []
        for p in self.opts.parts:
            if p == "name":
                parts.append(self.opts.name)
            elif p == "instance-path":
                ids = [os.environ.get(v) for v in ("FLUX_ENCLOSING_ID", "FLUX_JOB_ID")]
                parts.append(".".join(i for i in ids if i) or "local")
            elif p == "hostname":
                parts.append(self.host.split(".")[0])
            else:
                parts.append(str(self.pid))
        return os.path.join(self.opts.dir, ".".join(["perun"] + parts))

    def _tail(self):
        return "\n]}\n" if self.opts.object else "\n]\n"

    def _append(self, text):
        data = (text + self._tail()).encode()
        os.pwrite(self.fd, data, self.off)
        self.off += len(text.encode())

    def _open(self):
        if self.fd is not None or self.failed:
            return self.fd is not None
        base = self._path()
        try:
            # Never overwrite a trace of the same name (an exec'd image of
            # this pid, or a pid of an earlier run): .1, .2, ...
            for k in range(100):
                path = base + (".%d.pfw" % k if k else ".pfw")
                try:
                    self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC,
                                      0o644)
                    break
                except FileExistsError:
                    continue
            else:
                raise FileExistsError(17, "100 traces of this name exist", path)
        except OSError as e:
            self.failed = True
            sys.stderr.write("perun-annotate: cannot write the trace '%s': %s; annotations "
                             "go on without it\n" % (path, e.strerror))
            return False
        head = ('{"displayTimeUnit":"ms","otherData":{"hostname":%s,"name":%s,'
                '"writer":"perun-annotate.py"},"traceEvents":[\n'
                % (_json_str(self.host), _json_str(self.opts.name))) if self.opts.object else "[\n"
        head += ('{"name":"process_name","ph":"M","pid":%d,"tid":%d,"args":{"name":%s}}'
                 % (self.pid, self.pid, _json_str(self.opts.name)))
        head += (',\n{"name":"process_labels","ph":"M","pid":%d,"tid":%d,"args":{"labels":%s}}'
                 % (self.pid, self.pid, _json_str(self.host)))
        self._append(head)
        return True

    def event(self, ph, name, cat, ts, extra=""):
        tid = threading.get_native_id()
        text = (',\n{"pid":%d,"tid":%d,"ts":%s,"ph":"%s","name":%s,"cat":%s%s}'
                % (self.pid, tid, _us(ts), ph, _json_str(name), _json_str(cat or ""), extra))
        with self.lock:
            if not self._open():
                return
            if not getattr(self.local, "named", False):
                self.local.named = True
                self._append(',\n{"name":"thread_name","ph":"M","pid":%d,"tid":%d,'
                             '"args":{"name":%s}}'
                             % (self.pid, tid, _json_str(threading.current_thread().name)))
            self._append(text)

    def stack(self):
        s = getattr(self.local, "stack", None)
        if s is None:
            s = self.local.stack = []
        return s


_writer = None
_ids = itertools.count(1)


def _setup():
    global _writer
    text = os.environ.get("PERUN_ANNOTATE")
    if text is None:
        return
    try:
        opts = _Options(text)
    except ValueError as e:
        sys.stderr.write("perun-annotate: %s\n" % e)
        return
    if not opts.enable:
        return
    _writer = _Writer(opts)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_writer._reset)


def flush():
    """Every event is written when it happens: nothing to do (for symmetry)."""


def _now():
    return time.time_ns()


def _cat_of(fn):
    code = getattr(fn, "__code__", None)
    return code.co_filename if code else ""


def _usage_begin():
    return (time.thread_time_ns(), _now())


def _usage_end(w, name, cat, begin):
    cpu0, wall0 = begin
    wall, cpu = _now() - wall0, time.thread_time_ns() - cpu0
    pct = 100.0 * cpu / wall if wall > 0 else 0.0
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    w.event("C", name, cat, wall0, ',"args":{"cpu_usage":%.3f,"memory_usage":%d}' % (pct, kib))
    w.event("C", name, cat, wall0 + wall, ',"args":{"cpu_usage":0.0,"memory_usage":0}')


def _begin(name, cat):
    w = _writer
    ts = _now()
    w.stack().append((name, cat, ts, _usage_begin() if w.opts.cpu_mem else None))
    if not w.opts.compact:
        w.event("B", name, cat, ts)


def _end(name):
    w = _writer
    ts, stack = _now(), w.stack()
    for i in range(len(stack) - 1, -1, -1):
        if stack[i][0] == name:
            break
    else:
        return  # an end this thread did not begin: dropped, so B and E balance
    while len(stack) > i:
        n, c, begin, usage = stack.pop()
        if usage:
            _usage_end(w, n, c, usage)
        if w.opts.compact:
            w.event("X", n, c, begin, ',"dur":%s' % _us(ts - begin))
        else:
            w.event("E", n, c, ts)


def _async(ph, name, cat, id):
    _writer.event(ph, name, cat, _now(), ',"id":"0x%x"' % id)


def _point(name, cat, args):
    _writer.event("i", name, cat, _now(), ',"s":"t","args":%s' % _args(args))


def _counter(name, cat, args):
    _writer.event("C", name, cat, _now(), ',"args":%s' % _args(args))


class sync:
    """A synchronous region: a decorator or a with-block."""

    def __init__(self, name=None, cat=None):
        self.name, self.cat = name, cat

    def __enter__(self):
        if _writer:
            _begin(self.name, self.cat or "")
        return self

    def __exit__(self, *exc):
        if _writer:
            _end(self.name)
        return False

    def __call__(self, fn):
        if not _writer:
            return fn
        name, cat = self.name or fn.__name__, self.cat or _cat_of(fn)

        @functools.wraps(fn)
        def wrapper(*a, **kw):
            _begin(name, cat)
            try:
                return fn(*a, **kw)
            finally:
                _end(name)
        return wrapper


class async_region:
    """An asynchronous region with an id: a decorator or a with-block."""

    def __init__(self, name, id=0, cat=None):
        self.name, self.id, self.cat = name, id, cat

    def __enter__(self):
        async_begin(self.name, self.id, self.cat)
        return self

    def __exit__(self, *exc):
        async_end(self.name, self.id, self.cat)
        return False

    def __call__(self, fn):
        if not _writer:
            return fn

        @functools.wraps(fn)
        def wrapper(*a, **kw):
            with async_region(self.name, self.id, self.cat or _cat_of(fn)):
                return fn(*a, **kw)
        return wrapper


def async_begin(name, id=0, cat=None):
    if _writer:
        _async("b", name, cat or "", id)


def async_end(name, id=0, cat=None):
    if _writer:
        _async("e", name, cat or "", id)


def instant(name, cat=None, **args):
    if _writer:
        _point(name, cat or "", args)


def counter(name, cat=None, **args):
    if _writer:
        _counter(name, cat or "", args)


_POINTCUTS = ("before", "after", "around", "before_async", "after_async", "around_async")


def critical_path(pointcut="around", scope=None):
    """PerfFlowAspect's decorator: the function is on the critical path."""
    if pointcut not in _POINTCUTS:
        raise ValueError("critical_path: bad pointcut '%s' (%s)" % (pointcut, ", ".join(_POINTCUTS)))

    def decorate(fn):
        if not _writer:
            return fn
        name, cat = fn.__name__, _cat_of(fn)
        kind = pointcut.replace("_async", "")
        is_async = pointcut.endswith("_async")

        @functools.wraps(fn)
        def wrapper(*a, **kw):
            id = next(_ids) if is_async else 0
            if kind == "before":
                (_async("b", name, cat, id) if is_async
                 else _point(name, cat, {"pointcut": "before"}))
            elif kind == "around":
                _async("b", name, cat, id) if is_async else _begin(name, cat)
            try:
                return fn(*a, **kw)
            finally:
                if kind == "after":
                    (_async("e", name, cat, id) if is_async
                     else _point(name, cat, {"pointcut": "after"}))
                elif kind == "around":
                    _async("e", name, cat, id) if is_async else _end(name)
        return wrapper
    return decorate


def sync_event(pointcut, name, cat=None):
    """PerfFlowAspect's sync_event: 'before' begins, 'after' ends a region."""
    if _writer:
        if pointcut == "before":
            _begin(name, cat or "")
        elif pointcut == "after":
            _end(name)
        else:
            raise ValueError("sync_event: bad pointcut '%s' (before or after)" % pointcut)


def async_event(pointcut, name, cat=None, scope=0):
    """PerfFlowAspect's async_event: 'before' begins, 'after' ends (id: scope)."""
    if _writer:
        if pointcut not in ("before", "after"):
            raise ValueError("async_event: bad pointcut '%s' (before or after)" % pointcut)
        _async("b" if pointcut == "before" else "e", name, cat or "", scope or 0)


_setup()
