"""Kernel start-up with and without the grading sandbox, side by side.

Usage (from the project root; bubblewrap installed):
    .venv/bin/python benchmarks/sandbox_startup.py [--reps 20]

Each repetition, in alternating order, starts a kernel, waits until it answers
``kernel_info`` (what nbclient waits for before the first cell), runs one cell
(``import numpy, mwm``) and shuts the kernel down (``now=True``, as the course's nbgrader
configuration does):

* plain:     jupyter_client's ``AsyncKernelManager`` (TCP, the teacher's rights);
* sandboxed: ``mwm_grader.sandbox.SandboxedKernelManager`` (bwrap, prlimit, ipc).

It prints the median and the spread (min-max) of the time to ready, of the first cell and
of the shutdown, and the ratio sandboxed / plain. A measurement, not a test.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time

from jupyter_client.manager import AsyncKernelManager

from mwm_grader.sandbox import SandboxedKernelManager


async def one(km_class, folder: str) -> tuple[float, float, float]:
    """Seconds to a ready kernel, to run ``import numpy, mwm``, and to shut it down."""
    t0 = time.perf_counter()
    km = km_class(kernel_name="python3")
    await km.start_kernel(cwd=folder, extra_arguments=["--HistoryManager.hist_file=:memory:"])
    kc = km.client()
    kc.start_channels()
    await kc.wait_for_ready(timeout=60)
    t1 = time.perf_counter()
    reply = await kc.execute_interactive("import numpy, mwm", timeout=60)
    assert reply["content"]["status"] == "ok", reply["content"]
    t2 = time.perf_counter()
    kc.stop_channels()
    await km.shutdown_kernel(now=True)
    t3 = time.perf_counter()
    return t1 - t0, t2 - t1, t3 - t2


def summary(xs: list[float]) -> str:
    return f"{statistics.median(xs):6.3f} s  ({min(xs):.3f}-{max(xs):.3f})"


async def main(reps: int) -> None:
    folder = tempfile.mkdtemp(prefix="mwm-bench-")
    os.chmod(folder, 0o755)
    times = {"plain": [], "sandboxed": []}
    await one(AsyncKernelManager, folder)  # warm-up: the page cache, the sandbox's one-time probe
    await one(SandboxedKernelManager, folder)
    for i in range(reps):
        order = [("plain", AsyncKernelManager), ("sandboxed", SandboxedKernelManager)]
        for name, cls in order if i % 2 == 0 else order[::-1]:
            times[name].append(await one(cls, folder))
    os.rmdir(folder)
    print(f"{reps} starts each, alternating; median (min-max)")
    for k, label in enumerate(("ready (kernel_info)", "first cell: import numpy, mwm", "shutdown (now=True)")):
        p = [t[k] for t in times["plain"]]
        s = [t[k] for t in times["sandboxed"]]
        print(f"{label:32s} plain {summary(p)}   sandboxed {summary(s)}   "
              f"ratio {statistics.median(s) / statistics.median(p):.2f}")
    p = [sum(t) for t in times["plain"]]
    s = [sum(t) for t in times["sandboxed"]]
    print(f"{'total':32s} plain {summary(p)}   sandboxed {summary(s)}   "
          f"ratio {statistics.median(s) / statistics.median(p):.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    asyncio.run(main(parser.parse_args().reps))
