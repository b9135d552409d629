"""Answer keys for students' own numbers: one student's in the terminal, or a whole roster's in a file.

Usage (from the project root; ``make key`` and ``make keys`` run these):

    mwm-answer-keys alice                 # alice's answers, one per line
    mwm-answer-keys --roster roster.csv                  # keys/keys.html
    mwm-answer-keys --roster roster.csv --out keys/keys.csv

Every student's numbers are derived from their student id (``mwm_grader.variants``), the
same id nbgrader files their submission under; every answer is computed by ``mwm``, exactly as
the grader computes it. A roster is a CSV file with one student per row, read by
:func:`mwm_grader.roster.read_roster_entries`: the ids from the column headed ``student_id``
(the ``grades.csv`` that ``nbgrader export`` writes can be used as it is), ``Student ID``,
``student``, ``username``, ``user`` or ``id``, or else from the first column; every id
lower-cased and checked, a bad or repeated one refused with its row named. Keys go to ``keys/``
by default, which git ignores; a file written elsewhere in the repository gets a warning.
``--out`` ending in ``.csv`` writes one row per answer (student, problem, part, variable,
answer, points); ending in ``.html``, one page with each student's answers and worked solutions,
and beside it a ``mathjax/`` folder that the page loads to show the maths.
"""
from __future__ import annotations

import argparse
import csv
import html
import sys
from pathlib import Path

from . import COURSE_ROOT  # noqa: E402

ROOT = COURSE_ROOT
from mwm_grader import make_exercises as mk  # noqa: E402

from mwm_practice.ids import normalize_student_id  # noqa: E402
from mwm_grader.roster import RosterError, read_roster  # noqa: E402,F401  (read_roster: the hub reads rosters here)

#: Where keys go unless --out says otherwise: a folder git ignores (a key in the repository is a key published).
KEYS_FOLDER = ROOT / "keys"


def problems_for(student: str | None):
    """The sixteen problems built with ``student``'s numbers (None: the website's numbers)."""
    from mwm_grader import problems
    from mwm_grader.variants import numbers_for

    built, missing = problems.build_all(numbers_for(student))
    if missing:
        raise RuntimeError(f"problems missing from the library: {missing}")
    return built


def plain(answer) -> str:
    """An answer as plain text (no TeX): 0.7616, (0.1, 0.2), “hot”, n_chunks(10, 3) = 4."""
    import numpy as np

    from mwm_grader.problems import fmt

    e = answer.expected
    if answer.kind == "number":
        return fmt(e, answer.decimals, answer.sig).replace("\\times 10^{", "e").replace("}", "")
    if answer.kind == "vector":
        arr = np.asarray(e, dtype=float)
        row = lambda r: "(" + ", ".join(fmt(x, answer.decimals, answer.sig) for x in r) + ")"  # noqa: E731
        return row(arr) if arr.ndim == 1 else "(" + ", ".join(row(r) for r in arr) + ")"
    if answer.kind == "integer":
        return str(int(e))
    if answer.kind == "function":
        return "; ".join(f"{answer.name}({', '.join(map(str, args))}) = {want}" for args, want in answer.cases)
    if answer.kind == "choice":
        return str(e)
    return str(bool(e))


def key_rows(student: str | None) -> list[dict]:
    """One row per answer: problem, part, variable, answer (plain text), points of the part."""
    rows = []
    for p in problems_for(student):
        for part in p.parts:
            for i, a in enumerate(part.answers):
                rows.append({"student": student or "", "problem": p.number, "part": part.letter,
                             "variable": a.signature or a.name, "answer": plain(a),
                             "points": part.points if i == 0 else ""})
    return rows


def roster_html(ids: list[str], mathjax: str) -> str:
    """One page: for each student, their answers and worked solutions with their numbers."""
    sections = []
    for sid in ids:
        page = mk.answer_key_html(problems_for(sid), {}, mathjax)
        body = page[page.index("<body>") + len("<body>"):page.index("</body>")]
        body = body.replace("<h1>Practice problems: answer key</h1>",
                            f'<h1 id="{html.escape(sid)}">Answer key of {html.escape(sid)}</h1>')
        body = body.replace(' id="p', f' id="{html.escape(sid)}-p')
        sections.append(f"<section>{body}</section>")
    head = page[:page.index("<body>") + len("<body>")]
    toc = "<h1>Answer keys</h1><p>" + ", ".join(
        f'<a href="#{html.escape(s)}">{html.escape(s)}</a>' for s in ids) + "</p>"
    return head.replace("<title>Practice problems: answer key</title>", "<title>Answer keys</title>") + \
        toc + "\n".join(sections) + "\n</body></html>\n"


def git_would_take(out: Path) -> bool:
    """True when ``out`` is inside this repository and git does not ignore it (a ``git add -A`` would publish it)."""
    import subprocess

    target = out.resolve()
    if not target.is_relative_to(ROOT):
        return False
    try:
        ignored = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", str(target)],
                                 capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
    return not ignored


def _published(out: Path) -> str:
    """Why writing keys at ``out`` could publish them ("" if it cannot): inside this repository and not ignored by git."""
    if not git_would_take(out):
        return ""
    return (f"{out} is inside the course's repository and git does not ignore it: a `git add -A` would publish every "
            "student's answers. Keys belong in keys/ (the default), which git ignores.")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("student", nargs="?", help="a student id: print that student's answers")
    ap.add_argument("--roster", type=Path, help="a CSV file of student ids (a column headed student_id, or the first)")
    ap.add_argument("--out", type=Path,
                    help="with --roster: a file ending in .csv or .html (default keys/keys.html, a folder git ignores)")
    args = ap.parse_args(argv)
    if (args.student is None) == (args.roster is None):
        ap.error("give either one student id or --roster FILE")
    if args.student is not None:
        try:
            args.student = normalize_student_id(args.student)
        except ValueError as exc:
            print(f"answer_keys: {exc}", file=sys.stderr)
            return 2
        rows = key_rows(args.student)
        print(f"Answer key of {args.student!r} ({sum(r['points'] or 0 for r in rows)} points)")
        for r in rows:
            print(f"  {r['problem']:>2} ({r['part']})  {r['variable']:<18} {r['answer']}")
        return 0
    if args.out is None:
        args.out = KEYS_FOLDER / "keys.html"
    if args.out.suffix not in (".csv", ".html"):
        ap.error(f"--out must end in .csv or .html, got {args.out}")
    try:
        ids = read_roster(args.roster)
    except RosterError as exc:
        print(f"answer_keys: {exc}", file=sys.stderr)
        return 2
    warning = _published(args.out)
    if warning:
        print(f"answer_keys: WARNING: {warning}", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.out.suffix == ".csv":
        with open(args.out, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=["student", "problem", "part", "variable", "answer", "points"])
            writer.writeheader()
            for sid in ids:
                writer.writerows(key_rows(sid))
    else:
        mathjax = mk.copy_mathjax(args.out.parent)
        args.out.write_text(roster_html(ids, mathjax), encoding="utf-8")
    print(f"{len(ids)} answer keys -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
