"""Answer keys for students' own numbers: one student's in the terminal, or a whole roster's in a file.

Usage (from the project root; ``make key`` and ``make keys`` run these):

    .venv/bin/python scripts/answer_keys.py alice                 # alice's answers, one per line
    .venv/bin/python scripts/answer_keys.py --roster roster.csv --out keys.html
    .venv/bin/python scripts/answer_keys.py --roster roster.csv --out keys.csv

Every student's numbers are derived from their student id (``mwm.practice.variants``), the
same id nbgrader files their submission under; every answer is computed by ``mwm``, exactly as
the grader computes it. A roster is a CSV file with one student per row: the ids are read from
the column headed ``student_id`` (the ``grades.csv`` that ``nbgrader export`` writes can be used
as it is), ``student``, ``username``, ``user`` or ``id``, or else from the first column.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the scripts are imported as a package from the repository root
from scripts import make_exercises as mk  # noqa: E402

#: Column headings that name the student id, the most specific first.
HEADERS = ["student_id", "student", "username", "user", "id"]


def problems_for(student: str | None):
    """The sixteen problems built with ``student``'s numbers (None: the website's numbers)."""
    from mwm.practice import problems
    from mwm.practice.variants import numbers_for

    built, missing = problems.build_all(numbers_for(student))
    if missing:
        raise RuntimeError(f"problems missing from the library: {missing}")
    return built


def plain(answer) -> str:
    """An answer as plain text (no TeX): 0.7616, (0.1, 0.2), “hot”, n_chunks(10, 3) = 4."""
    import numpy as np

    from mwm.practice.problems import fmt

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


def read_roster(path: Path) -> list[str]:
    """The student ids of a roster: a CSV file, one student per row.

    The ids are taken from the column headed ``student_id`` (as in the ``grades.csv`` that
    ``nbgrader export`` writes), ``student``, ``id``, ``username`` or ``user``; without such a
    header, from the first column. Blank cells and repeats are dropped.

    Raises:
        ValueError: the file holds no student id.
    """
    with open(path, newline="", encoding="utf-8") as f:
        rows = [row for row in csv.reader(f) if any(cell.strip() for cell in row)]
    column = 0
    if rows:
        header = [cell.strip().lower() for cell in rows[0]]
        named = [name for name in HEADERS if name in header]
        if named:
            column = header.index(min(named, key=HEADERS.index))
            rows = rows[1:]
    ids = []
    for row in rows:
        value = row[column].strip() if column < len(row) else ""
        if value and value not in ids:
            ids.append(value)
    if not ids:
        raise ValueError(f"roster {path} holds no student id (one student per row; a column headed student_id, "
                         "or the ids in the first column)")
    return ids


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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("student", nargs="?", help="a student id: print that student's answers")
    ap.add_argument("--roster", type=Path, help="a CSV file of student ids (first column)")
    ap.add_argument("--out", type=Path, help="with --roster: keys.csv or keys.html")
    args = ap.parse_args(argv)
    if (args.student is None) == (args.roster is None):
        ap.error("give either one student id or --roster FILE")
    if args.student is not None:
        rows = key_rows(args.student)
        print(f"Answer key of {args.student!r} ({sum(r['points'] or 0 for r in rows)} points)")
        for r in rows:
            print(f"  {r['problem']:>2} ({r['part']})  {r['variable']:<18} {r['answer']}")
        return 0
    if args.out is None or args.out.suffix not in (".csv", ".html"):
        ap.error("--roster needs --out ending in .csv or .html")
    ids = read_roster(args.roster)
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
