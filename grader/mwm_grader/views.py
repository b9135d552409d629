"""The problems as a student's kernel is given them: views, plain data the teacher's side writes.

A student's kernel (``mwm_practice``) never builds a problem: it reads a *view*, a JSON object

    {"format": 1, "id": "alice" | null, "checked": "none" | "first" | "all",
     "problems": {"1": {"number", "slug", "title", "markdown", "given",
                        "parts": [{"letter", "points",
                                   "answers": [{"name", "kind", "what", "decimals", "sig", "options",
                                                "n_args", "shape", "case_args",
                                                ... and where checked: "expected", "case_wants", "slips"}]}]},
                  ...}}

``checked`` says which parts carry their expected values and the mistakes catalogue's usable
slips (:func:`mwm_grader.mistakes.usable`: hint and value, never a worked answer):

* ``"none"``, the grading view (:func:`grading_view`): what the sandboxed kernel gets while a
  submission is graded; no expected value anywhere in it;
* ``"first"``, a student's own view (:func:`student_view`), written by the student's set-up
  (:func:`write_student_view`, ``mwm-student``): each problem's first part is checked in the
  kernel, as a visible check is;
* ``"all"``, the website's view (:func:`website_view`): the website's numbers, whose worked
  solutions the website shows anyway; shipped inside ``mwm_practice`` and kept current by
  ``make exercises``.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from mwm_practice.notebook import VIEW_FILE, VIEW_FORMAT, check_view

from . import mistakes, problems
from .variants import numbers_for

__all__ = ["CHECKED", "built_problems", "problem_markdown", "problem_view", "view_of", "grading_view", "student_view", "website_view",
           "view_json", "write_student_view"]

#: The kinds of view, by which parts carry their expected values.
CHECKED = ("none", "first", "all")


def _plain(x):
    """A value as JSON data: arrays and tuples as lists, numpy scalars as Python numbers."""
    if isinstance(x, np.ndarray):
        return _plain(x.tolist())
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return x


#: Significant digits a checked value keeps in a view. Sums and products of a few numbers differ in
#: their last bit or two from one processor's vector code to another's (seen: 29.03283967999998 on
#: one, 29.032839679999984 on another), and a view must be the same file on every machine; a check
#: compares to far fewer digits than these.
VIEW_DIGITS = 12


def _portable(x):
    """:func:`_plain`, with every float rounded to :data:`VIEW_DIGITS` significant digits."""
    x = _plain(x)
    if isinstance(x, list):
        return [_portable(v) for v in x]
    if isinstance(x, dict):
        return {k: _portable(v) for k, v in x.items()}
    if isinstance(x, float) and np.isfinite(x):
        return float(f"{x:.{VIEW_DIGITS}g}")
    return x


def problem_markdown(problem) -> str:
    """A problem as the notebook shows it: what it trains, the statement, the parts with their points."""
    parts = "\n".join(f"**({p.letter})** {p.question} *[{p.points} point{'s' if p.points != 1 else ''}]*\n"
                      for p in problem.parts)
    return f"*{problem.level.capitalize()}: {problem.practises}.*\n\n{problem.statement}\n\n{parts}"


def _scalars(x) -> list:
    """Every number and string inside ``x`` (nested lists, tuples, arrays, dicts), flattened."""
    if isinstance(x, dict):
        return [v for item in x.values() for v in _scalars(item)]
    if isinstance(x, np.ndarray):
        return _scalars(x.tolist())
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in _scalars(item)]
    if isinstance(x, (bool, np.bool_)) or x is None:
        return []
    return [x]


def _same(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a.strip().lower() == b.strip().lower()
    try:
        return abs(float(a) - float(b)) <= 5e-4 + 1e-3 * abs(float(b))
    except (TypeError, ValueError):
        return False


def _all_same(a, b) -> bool:
    """True when ``a`` and ``b`` hold the same numbers and words, in order (within the answers' tolerance)."""
    x, y = _scalars(a), _scalars(b)
    return len(x) == len(y) and all(_same(u, v) for u, v in zip(x, y))


def _gives_away(value, later: list) -> bool:
    """True when a number or string of ``value`` is one of ``later`` (a later part's answers, flattened)."""
    return any(_same(v, w) for v in _scalars(value) for w in later)


def problem_view(problem, *, checked_parts=(), guarded: bool = False) -> dict:
    """One built problem as a view holds it.

    Args:
        problem: a :class:`~mwm_grader.problems.Problem` built with a student's numbers.
        checked_parts: the letters of the parts whose answers carry their expected value, their
            function cases' results and their usable slips.
        guarded: the view is a student's own (the parts after the checked ones are graded
            later): a slip is left out when any number or word of its value is also an answer of
            an unchecked part of the problem; a function is checked on one case, as the student's
            kernel checks it: the first whose result is no such answer (the others' results are
            null).

    Returns:
        dict (JSON-serialisable): number, slug, title, the statement as Markdown, the given code,
        and per part its letter, points and answers (name, kind, the form asked for, precision,
        options, the shape of a list, for a function its argument count and the arguments it is
        tried on; and for a checked part ``expected``, ``case_wants`` and ``slips``).
    """
    later = [v for q in problem.parts if q.letter not in checked_parts for a in q.answers
             for v in _scalars([w for _x, w in a.cases] if a.kind == "function" else a.expected)] if guarded else []
    parts = []
    for part in problem.parts:
        checked = part.letter in checked_parts
        usable = mistakes.usable(problem, part) if checked else {}
        answers = []
        for a in part.answers:
            entry = {"name": a.name, "kind": a.kind, "what": a.what, "decimals": a.decimals, "sig": a.sig,
                     "options": list(a.options), "n_args": a.n_args,
                     "shape": list(np.shape(a.expected)) if a.kind == "vector" else None,
                     "case_args": [_plain(list(args)) for args, _want in a.cases] if a.kind == "function" else []}
            wants = [_portable(want) for _args, want in a.cases] if a.kind == "function" else []
            if guarded and wants:   # one case checked: the first whose result is no later part's answer
                keep = next((k for k, want in enumerate(wants) if not _gives_away(want, later)), None)
                wants = [None] * len(wants) if keep is None else [None] * keep + [wants[keep]]
            # the part's own answer is what its check confirms (the student computes it anyway); a
            # function's case results are other numbers, which must not be a later answer
            if checked and not (a.kind == "function" and all(w is None for w in wants)):
                entry["expected"] = None if a.kind == "function" else _portable(a.expected)
                entry["case_wants"] = wants
                slips = [(m, _portable(m.values[a.name])) for m in usable.get(a.name, [])]
                if a.kind == "function":   # on the cases the view gives results of; there two slips may
                    known = [k for k, w in enumerate(wants) if w is not None]   # agree, or one be right: not told apart
                    slips = [(m, [value[k] for k in known]) for m, value in slips]
                    right = [wants[k] for k in known]
                    slips = [(m, value) for m, value in slips if not _all_same(value, right)
                             and not any(o is not m and _all_same(value, other) for o, other in slips)]
                entry["slips"] = [{"key": m.key, "hint": m.hint, "value": value} for m, value in slips
                                  if not _gives_away(value, later)]
            answers.append(entry)
        parts.append({"letter": part.letter, "points": part.points, "answers": answers})
    return {"number": problem.number, "slug": problem.slug, "title": problem.title,
            "markdown": problem_markdown(problem), "given": problem.given, "parts": parts}


def view_of(built, student: str | None, checked: str) -> dict:
    """The view of built problems.

    Args:
        built: the :class:`~mwm_grader.problems.Problem` s, built with ``student``'s numbers.
        student: the id the numbers were made for (None: the website's).
        checked: one of :data:`CHECKED`.

    Raises:
        ValueError: ``checked`` is not one of :data:`CHECKED`.
    """
    if checked not in CHECKED:
        raise ValueError(f"checked should be one of {CHECKED}, got {checked!r}")
    views = {}
    for p in sorted(built, key=lambda p: p.number):
        letters = [q.letter for q in p.parts] if checked == "all" else [p.parts[0].letter] if checked == "first" else []
        views[str(p.number)] = problem_view(p, checked_parts=letters, guarded=checked == "first")
    return check_view({"format": VIEW_FORMAT, "id": student, "checked": checked, "problems": views})


def built_problems(student: str | None) -> list:
    """Every problem built with ``student``'s numbers (None: the website's), answers computed by ``mwm``.

    Raises:
        RuntimeError: a problem cannot be built (a part of ``mwm`` it needs is missing).
    """
    built, missing = problems.build_all(numbers_for(student))
    if missing:
        raise RuntimeError(f"problems missing from the library: {missing}")
    return built


def grading_view(student: str | None, built=None) -> dict:
    """What the sandboxed kernel gets while ``student``'s submission is graded: no expected value."""
    return view_of(built if built is not None else built_problems(student), student, "none")


def student_view(student: str) -> dict:
    """A student's own view: their numbers, each problem's first part checkable in their kernel.

    Raises:
        ValueError: ``student`` is not a student id (:func:`mwm_practice.ids.check_student_id`).
    """
    from mwm_practice.ids import check_student_id, normalize_student_id

    check_student_id(student)
    return view_of(built_problems(student), normalize_student_id(student), "first")


def website_view() -> dict:
    """The website's numbers, every part checkable: the view ``Practice(self_study=True)`` reads."""
    return view_of(built_problems(None), None, "all")


def view_json(view: dict) -> str:
    """A view as the text written to a file: sorted keys, one line per problem, a final newline."""
    lines = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True, ensure_ascii=False)}"
                       for k, v in view["problems"].items())
    head = {k: v for k, v in view.items() if k != "problems"}
    return "{" + json.dumps(head, sort_keys=True, ensure_ascii=False)[1:-1] + ', "problems": {\n' + lines + "\n}}\n"


def write_student_view(student: str, folder: Path) -> tuple[Path, bool]:
    """Write ``student``'s view as ``folder``/:data:`~mwm_practice.notebook.VIEW_FILE`.

    Returns:
        (the file, whether its content changed).
    """
    path = Path(folder) / VIEW_FILE
    text = view_json(student_view(student))
    old = path.read_text(encoding="utf-8") if path.is_file() else None
    if old != text:
        path.write_text(text, encoding="utf-8")
    return path, old != text
