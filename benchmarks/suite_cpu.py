"""Where the test suite's CPU goes: core-seconds per test file, every process counted.

``make test`` keeps every core busy to the end (about sixteen minutes on two cores; the
course's goal is ten), so it lasts about (CPU used) / (cores): its time is a budget of CPU. pytest's durations give
wall time, and a process's own CPU counters miss what it does not wait for (a database server,
the browser, a graded kernel in its sandbox). This runs pytest with a plugin that puts each
test file's worker, and so every process that file starts, into a control group (Linux
cgroups, v1 ``cpuacct`` or v2) of its own, then prints the CPU each group used, largest first
(``core-s``, and its ``share`` of the run's CPU; files under one core-second are left out), and
a last group for pytest's own start-up, collection and controller (``(pytest itself)``). Under
the table: the run's wall time, and how busy the machine's cores were meanwhile, which counts
every process on the machine, the run's and any other's. A file's session-wide fixtures (the
website, built once) count for the first file that asks for them; the second notebook pass's
chapters are listed with ``portable:`` in front.

Usage (as root, or wherever the cgroup folders are writable)::

    .venv/bin/python benchmarks/suite_cpu.py                      # what `make test` runs
    .venv/bin/python benchmarks/suite_cpu.py -- -n 2 tests/test_bleu.py   # any pytest arguments

Not a test: CPU seconds vary by some percent between runs of the same code on one machine
(measured: 1,830 and 1,928 core-seconds for two runs differing by about 30); compare files
side by side within a run, or runs of the same files.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
V1 = Path("/sys/fs/cgroup/cpuacct")
V2 = Path("/sys/fs/cgroup")
#: The environment variable naming the run's folder of groups (set for the plugin in pytest's processes).
GROUPS_ENV = "MWM_SUITE_CPU_GROUPS"


def _hierarchy() -> tuple[Path, str] | None:
    """(the folder new groups go in, "v1" or "v2"), or None where no writable cgroup hierarchy has a CPU counter."""
    if (V1 / "cpuacct.usage").is_file() and os.access(V1, os.W_OK):
        return V1, "v1"
    if (V2 / "cgroup.controllers").is_file() and os.access(V2, os.W_OK):
        return V2, "v2"
    return None


def _usage_seconds(group: Path) -> float:
    """CPU seconds used by every process that was ever in ``group`` (v1 ``cpuacct.usage`` or v2 ``cpu.stat``)."""
    if (group / "cpuacct.usage").is_file():
        return int((group / "cpuacct.usage").read_text()) / 1e9
    stat = dict(line.split() for line in (group / "cpu.stat").read_text().splitlines())
    return int(stat["usage_usec"]) / 1e6


def _busy_seconds() -> float:
    """Seconds the machine's CPUs were not idle since boot (/proc/stat: all but idle and iowait)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


# --- the plugin, loaded in pytest's processes with -p benchmarks.suite_cpu ---------------------

def _group_name(test_file: str) -> str:
    """A group's folder name for ``test_file`` (its "/" become "+", which :func:`_test_file` turns back)."""
    return re.sub(r"[^A-Za-z0-9_.:+-]", "_", test_file.replace("/", "+"))


def _test_file(group_name: str) -> str:
    return group_name.replace("+", "/")


_current = [None]


def pytest_runtest_setup(item):
    """Before a test of another file than the last: move this process into that file's group."""
    run = os.environ.get(GROUPS_ENV)
    name = item.nodeid.split("::", 1)[0]
    if not run or _current[0] == name:
        return
    _current[0] = name
    portable = "portable:" if os.environ.get("NPY_DISABLE_CPU_FEATURES") else ""   # the second notebook pass
    group = Path(run) / _group_name(portable + name)
    group.mkdir(exist_ok=True)
    (group / "cgroup.procs").write_text(str(os.getpid()))


def main(argv=None) -> int:
    """Run pytest (``make test``'s arguments, or those after ``--``) with per-file groups; print the table.

    Returns pytest's exit status, or 2 where no writable cgroup hierarchy exists.
    """
    argv = sys.argv[1:] if argv is None else argv
    found = _hierarchy()
    if found is None:
        print("suite_cpu: no writable cgroup hierarchy with a CPU counter (run as root on Linux)", file=sys.stderr)
        return 2
    base = found[0]
    run = base / f"mwm-suite-{os.getpid()}"
    run.mkdir()
    args = argv[argv.index("--") + 1:] if "--" in argv else \
        ["-n", str((os.cpu_count() or 1) + 1), "--dist", "loadfile", "--no-loadscope-reorder"]
    env = dict(os.environ, **{GROUPS_ENV: str(run)})
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    # in PYTEST_ADDOPTS, so that the pytest the second notebook pass starts loads the plugin too
    env["PYTEST_ADDOPTS"] = " ".join(filter(None, [env.get("PYTEST_ADDOPTS", ""), "-p benchmarks.suite_cpu"]))
    itself = run / "(pytest itself)"    # this process and pytest's own: start-up, collection, the controller
    itself.mkdir()
    (itself / "cgroup.procs").write_text(str(os.getpid()))
    start, busy = time.monotonic(), _busy_seconds()
    status = subprocess.call([sys.executable, "-m", "pytest", *args], cwd=ROOT, env=env)
    wall, busy = time.monotonic() - start, _busy_seconds() - busy
    rows = sorted(((_usage_seconds(g), g.name) for g in run.iterdir() if g.is_dir()), reverse=True)
    total = sum(seconds for seconds, _ in rows)
    print(f"\n{'core-s':>8} {'share':>6}  test file")
    for seconds, name in rows:
        if seconds >= 1:
            print(f"{seconds:8.1f} {seconds / total:6.1%}  {_test_file(name)}")
    print(f"{total:8.1f}          the run ({len(rows) - 1} test files and pytest itself); wall {wall:.0f} s; "
          f"the machine's cores busy {busy:.0f} of {wall * (os.cpu_count() or 1):.0f} core-s (every process on it)")
    (base / "cgroup.procs").write_text(str(os.getpid()))   # out of the run's groups, so that they can go
    for group in run.iterdir():   # empty once pytest's processes have ended; a group still in use stays
        try:
            group.rmdir()
        except OSError:
            pass
    try:
        run.rmdir()
    except OSError:
        pass
    return status


if __name__ == "__main__":
    sys.exit(main())
