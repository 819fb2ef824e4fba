#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The annotated.c workload in Python (perun_annotate): 3 threads, each 4
calls of work() (critical path, around) with a 2 ms "nap" with-block, a
1 ms "load" region by PerfFlowAspect's sync_event, an instant and a
counter; prep() (before) and finish() (after); 3 async "request" regions
begun in the main thread and ended by the workers (3 ms or more); a
"fork" argument forks a child that runs work() twice."""
import os
import sys
import threading
import time

import perun_annotate as pa


@pa.critical_path()
def work(i):
    with pa.sync("nap"):
        time.sleep(0.002)
    pa.sync_event("before", "load", __file__)
    time.sleep(0.001)
    pa.sync_event("after", "load", __file__)
    pa.instant("step", i=i)
    pa.counter("progress", done=i + 1)
    return i


@pa.critical_path(pointcut="before")
def prep():
    time.sleep(0.001)


@pa.critical_path(pointcut="after")
def finish():
    time.sleep(0.001)


def worker(n):
    time.sleep(0.003)
    pa.async_end("request", n)
    for i in range(4):
        work(i)


def main():
    prep()
    if sys.argv[1:] == ["fork"]:
        pid = os.fork()
        if pid == 0:
            work(0)
            work(1)
            os._exit(0)
        os.waitpid(pid, 0)
    threads = []
    for n in range(3):
        pa.async_begin("request", n)
        t = threading.Thread(target=worker, args=(n,), name="worker-%d" % n)
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    finish()


main()
