"""Autograde a synthetic class with nbgrader: seconds per student, two layouts side by side.

Usage (from the project root):
    .venv/bin/python benchmarks/grade_class.py [--students 12] [--rounds 1]

For each layout a temporary course is made from ``exercises/problems.py`` with the
course's own ``nbgrader_config.py``, the assignment is generated with nbgrader's
``generate_assignment``, and N synthetic submissions are placed in ``submitted/``:
a third correct (every worked solution), a third with wrong values (each part wrong
with probability 1/2, fixed seed) and a third blank (the release as it is). Then the
teacher's command ``nbgrader autograde practice`` grades the whole class in one run,
and the wall-clock time is divided by N (nbgrader's own start-up, a few seconds, is
shared by the class). Layouts:

* ``single``       the course's layout: every problem in one notebook, ``practice.ipynb``;
* ``per-problem``  the same problems, one notebook per problem (``p01.ipynb`` ...).

Rounds alternate the layouts (single, per-problem, single, ...). The CPU seconds of
nbgrader and its kernels (user + system) are printed too: on a busy machine the wall
clock waits for other work, the CPU time does not. The scores are checked (correct =
full marks, blank = 0), so a fast but wrong grading cannot pass unnoticed. Goal: at
most 3 s per student for the whole problem set on a 2-core machine. This is a
measurement, not a test.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]


sys.path.insert(0, str(ROOT))  # the scripts are imported as a package from the repository root
from scripts import make_exercises as mk  # noqa: E402


def make_course(folder: Path, problems, lit, layout: str, n_students: int, seed: int = 0) -> dict:
    """A course with the assignment generated and ``n_students`` submissions; returns the expected scores."""
    course = folder / layout
    course.mkdir(parents=True)
    shutil.copy(ROOT / "exercises" / "nbgrader_config.py", course)
    mk.write_source(course, problems, lit, layout=layout, run=False)
    mk.generate_assignment(course)
    solutions = {f"{p.slug}-{q.letter}-answer": q.solution for p in problems for q in p.parts}
    points = {f"{p.slug}-{q.letter}-answer": q.points for p in problems for q in p.parts}
    rng = random.Random(seed)
    release = course / "release" / "practice"
    kinds = {}
    for s in range(n_students):
        student = f"student{s:03d}"
        kind = ("correct", "wrong", "blank")[s % 3]
        kinds[student] = kind
        dest = course / "submitted" / student / "practice"
        dest.mkdir(parents=True)
        for nb_path in release.glob("*.ipynb"):
            nb = nbformat.read(nb_path, as_version=4)
            if kind != "blank":
                for cell in nb.cells:
                    gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
                    if gid in solutions:
                        cell.source = solutions[gid]
                        if kind == "wrong" and rng.random() < 0.5:
                            # a wrong value: the answer cell ends by spoiling the first answer it sets
                            name = re.search(r"^(\w+)\s*(?:,\s*\w+\s*)*=", solutions[gid], re.M)
                            if name:
                                cell.source += f"\n{name.group(1)} = 12345"
            nbformat.write(nb, dest / nb_path.name)
        (dest / "timestamp.txt").write_text("2026-01-01 10:00:00.000000 UTC")
    total = sum(points.values())
    return {"course": course, "kinds": kinds, "total": total}


def grade(course: Path) -> tuple[float, float]:
    """Run ``nbgrader autograde practice`` in ``course``; return (wall seconds, CPU seconds)."""
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "autograde", "practice",
                             "--force", "--log-level=ERROR"], cwd=course, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise RuntimeError(f"autograde failed in {course}:\n{result.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def check_scores(info: dict) -> None:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{info['course'] / 'gradebook.db'}", "machines-with-memory") as gb:
        for student, kind in info["kinds"].items():
            score = gb.find_submission("practice", student).score
            if kind == "correct" and score != info["total"] or kind == "blank" and score != 0 \
                    or kind == "wrong" and not 0 <= score <= info["total"]:
                raise AssertionError(f"{student} ({kind}) scored {score} of {info['total']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=12, help="class size (default 12)")
    ap.add_argument("--rounds", type=int, default=1, help="times each layout is graded (alternating)")
    ap.add_argument("--only", choices=["single", "per-problem"], help="grade one layout only")
    args = ap.parse_args()
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    problems_mod = mk.load_problems_module()
    problems, missing = problems_mod.build_all()
    print(f"{len(problems)} problems, {sum(len(p.parts) for p in problems)} graded parts"
          + (f" (problems {sorted(missing)} not built yet)" if missing else "")
          + f"; {args.students} students (1/3 correct, 1/3 wrong, 1/3 blank); "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start")
    layouts = [args.only] if args.only else ["single", "per-problem"]
    results = {layout: [] for layout in layouts}
    with tempfile.TemporaryDirectory() as tmp:
        courses = {layout: make_course(Path(tmp), problems, problems_mod.lit, layout, args.students)
                   for layout in layouts}
        for r in range(args.rounds):
            for layout in layouts:
                wall, cpu = grade(courses[layout]["course"])
                check_scores(courses[layout])
                results[layout].append((wall, cpu))
                print(f"  round {r + 1}, {layout:11s}: {wall:6.1f} s wall, {cpu:6.1f} s CPU for the class")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    print(f"\n{'layout':12s} {'notebooks':>9s} {'s/student (wall)':>17s} {'s/student (CPU)':>16s}")
    per = {}
    for layout in layouts:
        notebooks = 1 if layout == "single" else len(problems)
        wall = statistics.median(w for w, _ in results[layout]) / args.students
        cpu = statistics.median(c for _, c in results[layout]) / args.students
        per[layout] = wall
        print(f"{layout:12s} {notebooks:9d} {wall:17.2f} {cpu:16.2f}")
    if len(per) == 2:
        print(f"\nper-problem / single: {per['per-problem'] / per['single']:.1f}x")
    if "single" in per:
        print(f"goal for the course's layout (single): <= 3 s per student: "
              f"{'met' if per['single'] <= 3 else 'NOT met'} on this run")


if __name__ == "__main__":
    main()
