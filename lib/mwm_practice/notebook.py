"""What the practice notebook runs in the student's kernel: the id, the problems, the hand-in.

The notebook's first code cell makes one :class:`Practice`, which finds the student id
(:func:`student_id`) and the **view** of the problems made for it, and says which. A view is
data the teacher's tools write (``mwm_grader.views``): each problem's statement, its given
numbers and the form of its answers, and, for the parts this kernel may check, the expected
value and the recognised slips. This package never builds a problem: the code that computes
answers is on the teacher's side only, so a student's kernel cannot compute anyone's key.

Where the view comes from, first found first:

* ``Practice(view=...)``: a teacher trying a student's numbers with the teacher's tools;
* ``MWM_PRACTICE_VIEW`` (:data:`VIEW_ENV`): set by the grader while a notebook is graded (no
  expected value at all), or by a teacher's command;
* :data:`VIEW_FILE` written by the student's set-up beside their nbgrader config (the
  student's own numbers; each problem's first part checkable here);
* ``Practice(self_study=True)``, or no view for the id: the website's numbers
  (:data:`WEBSITE_VIEW`, shipped with this package; every part checkable, as the website's
  worked solutions show them anyway).

Each problem's first code cell, ``given = practice.problem(N)``, shows the problem and returns
its numbers. Each part ends with a locked cell, ``practice.hand_in("pNN-x", name=value, ...)``, which

* hands the answers out of the kernel as data: one display output of the MIME type
  :data:`MIME_ANSWER` holding the part and every answer, encoded as plain JSON
  (:func:`encode`). When the work is graded, the teacher's process reads that output and
  decides the part; nothing in the kernel awards points;
* checks the form of every answer at once (a number, two numbers, one of the listed words)
  and, where the view allows, its value, and says so in one line per answer: ``h1: right``,
  ``h2: a number; its value is checked when your work is graded``. A wrong value that matches
  a recognised slip gets the slip's hint (never the expected value, outside self-study).
"""
from __future__ import annotations

import ast
import getpass
import json
import math
import os
import re
from types import SimpleNamespace

import numpy as np

from . import checks

__all__ = ["MIME_ANSWER", "MIME_STUDENT", "VIEW_ENV", "VIEW_FILE", "VIEW_FORMAT", "WEBSITE_VIEW", "Practice",
           "student_id", "encode", "decode", "given_names", "given_values", "check_view", "website_view", "find_view",
           "check_answer", "matches", "named_slip"]

#: The environment variable through which the grader (or a teacher's command) hands the kernel a view.
VIEW_ENV = "MWM_PRACTICE_VIEW"
#: The file name of a student's own view, written by the student's set-up beside their nbgrader config.
VIEW_FILE = "mwm-practice-view.json"
#: The view of the website's numbers, a data file of this package (written by ``make exercises``).
WEBSITE_VIEW = "website_view.json"
#: The format number every view carries.
VIEW_FORMAT = 1

#: The MIME type of a handed-in answer (a display output of a hand-in cell).
MIME_ANSWER = "application/vnd.mwm.answer+json"
#: The MIME type of the record of the id a notebook was worked under (output of its first cell).
MIME_STUDENT = "application/vnd.mwm.student+json"

#: Longest list (entries) and string (characters) an answer record keeps.
MAX_ITEMS = 1000
MAX_TEXT = 200


def student_id(environ=None) -> tuple[str | None, str]:
    """The student id whose numbers a notebook uses, and where it was found.

    Order: ``MWM_STUDENT`` if set (an empty value means no id), else ``JUPYTERHUB_USER``, else
    the student id of the student's nbgrader config (``CourseDirectory.student_id`` in an
    ``nbgrader_config.py`` of the notebook's folder, a folder above it, or the Jupyter config
    folder: what ``nbgrader submit`` files the work under), else the user name of the process.

    Args:
        environ: the environment to read (default ``os.environ``).

    Returns:
        (id, source): the id (None for no id: the website's numbers) and a few words saying
        where it came from, e.g. ``("alice", "JUPYTERHUB_USER")``.
    """
    env = os.environ if environ is None else environ
    if "MWM_STUDENT" in env:
        value = env["MWM_STUDENT"].strip()
        return (value or None), "MWM_STUDENT"
    if env.get("JUPYTERHUB_USER", "").strip():
        return env["JUPYTERHUB_USER"].strip(), "JUPYTERHUB_USER"
    found = _configured_id(env)
    if found:
        return found
    try:
        return getpass.getuser(), "your user name"
    except (KeyError, OSError):  # no user name (a container without one)
        return None, "no id found"


_CONFIGURED_ID = re.compile(r"""^\s*c\.CourseDirectory\.student_id\s*=\s*(['"])([^'"\n]+)\1""", re.M)


def _configured_id(env) -> tuple[str, str] | None:
    """(id, where) from the first nbgrader_config.py that sets ``CourseDirectory.student_id``, or None.

    Looked for in the working folder (a kernel's is its notebook's) and up to three folders
    above it, then in ``JUPYTER_CONFIG_DIR`` (a hub user's); the file is read, not run.
    """
    from pathlib import Path

    here = Path.cwd()
    places = [here, *list(here.parents)[:3]]
    if env.get("JUPYTER_CONFIG_DIR"):
        places.append(Path(env["JUPYTER_CONFIG_DIR"]))
    for folder in places:
        path = folder / "nbgrader_config.py"
        try:
            m = _CONFIGURED_ID.search(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        if m and m.group(2).strip():
            return m.group(2).strip(), f"your nbgrader config, {path}"
    return None


# --------------------------------------------------------------------------------------
# Answers as plain JSON
# --------------------------------------------------------------------------------------
def _number(x: float):
    # 12 significant figures: far finer than any tolerance (5e-4 and up), and the same on
    # every CPU (the last bits of tanh or exp can differ between numpy's SIMD kernels)
    x = float(x)
    return float(f"{x:.12g}") if math.isfinite(x) else repr(x)  # JSON has no nan or inf


def encode(value):
    """An answer as plain JSON data, tagged with its kind, so that it can leave the kernel.

    Numbers become ``{"number": x}`` (``x`` a float to 12 significant figures, or the string
    "nan" / "inf" / "-inf"),
    booleans ``{"bool": b}``, strings ``{"str": s}`` (at most :data:`MAX_TEXT` characters),
    lists, tuples and arrays ``{"list": [...]}`` of encoded items (at most :data:`MAX_ITEMS`),
    None ``{"none": true}``, and anything else ``{"other": "its type name"}``.

    Args:
        value: any Python value.

    Returns:
        dict: JSON-serialisable; :func:`decode` turns it back into a value the checks of
        :mod:`mwm_practice.checks` accept.
    """
    if value is None:
        return {"none": True}
    if isinstance(value, (bool, np.bool_)):
        return {"bool": bool(value)}
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return {"number": _number(value)}
    if isinstance(value, str):
        return {"str": value[:MAX_TEXT], **({"cut": True} if len(value) > MAX_TEXT else {})}
    if isinstance(value, (list, tuple, np.ndarray)):
        items = list(value[:MAX_ITEMS]) if not isinstance(value, np.ndarray) else list(value[:MAX_ITEMS])
        out = {"list": [encode(v) for v in items]}
        if len(value) > MAX_ITEMS:
            out["cut"] = True
        return out
    if callable(value):
        return {"other": "function"}
    return {"other": type(value).__name__[:40]}


class Unreadable:
    """An answer whose kind the record could not carry (shown as "a <kind>" in messages)."""

    def __init__(self, kind: str):
        self.kind = str(kind)[:40]

    def __repr__(self):
        return f"a {self.kind}"


def decode(data):
    """The value an :func:`encode` record stands for (lists stay lists; unknown kinds become :class:`Unreadable`).

    Args:
        data: one record, as parsed from JSON (from the notebook: untrusted).

    Returns:
        a float, bool, str, None, list of those, or an :class:`Unreadable`.
    """
    if not isinstance(data, dict) or len(data) not in (1, 2):
        return Unreadable("unreadable answer")
    if "number" in data:
        x = data["number"]
        if isinstance(x, bool) or not isinstance(x, (int, float, str)):
            return Unreadable("unreadable number")
        try:
            return float(x)
        except ValueError:
            return Unreadable("unreadable number")
    if "bool" in data:
        return data["bool"] if isinstance(data["bool"], bool) else Unreadable("unreadable True/False")
    if "str" in data:
        return data["str"][:MAX_TEXT] if isinstance(data["str"], str) else Unreadable("unreadable string")
    if "none" in data:
        return None
    if "list" in data:
        if not isinstance(data["list"], list) or data.get("cut") or len(data["list"]) > MAX_ITEMS:
            return Unreadable("list too long to grade")
        return [decode(v) for v in data["list"]]
    if "other" in data:
        return Unreadable(str(data["other"]))
    return Unreadable("unreadable answer")


def given_names(given_code: str) -> list[str]:
    """The variables a problem's ``given`` code sets, in the order it sets them (:func:`given_values`' names).

    Raises:
        ValueError: as :func:`given_values`.
    """
    return list(given_values(given_code))


def _literal(node):
    """The value of an expression of a given cell: a literal, or ``np.array(<literal>)``; nothing runs."""
    if (isinstance(node, ast.Call) and ast.unparse(node.func) == "np.array" and len(node.args) == 1
            and not node.keywords):
        return np.array(ast.literal_eval(node.args[0]))
    return ast.literal_eval(node)


def given_values(given_code: str) -> dict:
    """The variables a problem's ``given`` code sets, read without running it: name -> value.

    Args:
        given_code: assignments of literals (numbers, strings, lists, tuples, dicts) or of
            ``np.array(<literal>)``, one per line, as the teacher's tools write them.

    Returns:
        dict, in the order the code sets them.

    Raises:
        ValueError: the code does anything else (a view is data; nothing in it runs).
    """
    values = {}
    for node in ast.parse(given_code).body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            raise ValueError(f"given code should only assign values, found {ast.unparse(node)[:60]!r}")
        target, value = node.targets[0], node.value
        names = target.elts if isinstance(target, ast.Tuple) else [target]
        items = value.elts if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) else [value]
        if len(names) != len(items) or not all(isinstance(n, ast.Name) for n in names):
            raise ValueError(f"given code should assign names one value each, found {ast.unparse(node)[:60]!r}")
        for name, item in zip(names, items):
            try:
                values[name.id] = _literal(item)
            except (ValueError, TypeError, SyntaxError):
                raise ValueError(f"given code should only assign values, found {ast.unparse(item)[:60]!r}") from None
    return values


def _view_answer(data: dict) -> SimpleNamespace:
    """An answer of a view, shaped like the teacher's answers for :func:`check_answer`.

    ``expected``, the cases' results (``case_wants``) and ``slips`` are present only where the
    view lets this kernel check the value.
    """
    shape = data.get("shape")
    checked = "expected" in data
    expected = data.get("expected")
    if data["kind"] == "vector":
        expected = np.asarray(expected, dtype=float) if checked else (np.zeros(shape) if shape is not None else None)
    args = data.get("case_args") or []
    wants = list(data.get("case_wants") or [])
    wants += [None] * (len(args) - len(wants))   # a case whose result this kernel does not check: None
    return SimpleNamespace(
        name=data["name"], kind=data["kind"], what=data.get("what", ""), decimals=data.get("decimals"),
        sig=data.get("sig"), options=tuple(data.get("options") or ()), n_args=data.get("n_args"),
        expected=expected, checked=checked,
        cases=tuple((tuple(a), want) for a, want in zip(args, wants)),
        slips=tuple(SimpleNamespace(key=s["key"], hint=s["hint"], value=s["value"]) for s in data.get("slips") or ()))


def _view_problem(data: dict) -> SimpleNamespace:
    parts = [SimpleNamespace(letter=p["letter"], points=p["points"], answers=[_view_answer(a) for a in p["answers"]])
             for p in data["parts"]]
    return SimpleNamespace(number=data["number"], slug=data["slug"], title=data["title"], markdown=data["markdown"],
                           given=data["given"], parts=parts)


def check_view(view) -> dict:
    """``view`` checked to be a view of the problems (:data:`VIEW_FORMAT`), as a dict.

    Args:
        view: a dict, or JSON text of one.

    Returns:
        the dict: ``{"format", "id", "checked", "problems": {"1": {...}, ...}}``.

    Raises:
        ValueError: not JSON, not a dict, another format, or without problems.
    """
    if isinstance(view, (str, bytes)):
        try:
            view = json.loads(view)
        except ValueError as exc:
            raise ValueError(f"view is not JSON: {exc}") from None
    if not isinstance(view, dict) or view.get("format") != VIEW_FORMAT or not isinstance(view.get("problems"), dict):
        raise ValueError(f"view should be a dict of format {VIEW_FORMAT} with its problems, as the teacher's "
                         f"tools write it; got {str(view)[:80]!r}")
    return view


def website_view() -> dict:
    """The website's numbers, every part's value checkable (the self-study view the course ships)."""
    from importlib.resources import files

    return check_view(files("mwm_practice").joinpath(WEBSITE_VIEW).read_text(encoding="utf-8"))


def _first_parts_only(view: dict) -> dict:
    """``view`` with the checks of every part but each problem's first removed (as a student's own view has them)."""
    problems = {}
    for key, problem in view["problems"].items():
        parts = [problem["parts"][0], *[{**q, "answers": [{k: v for k, v in a.items()
                                                             if k not in ("expected", "case_wants", "slips")}
                                                            for a in q["answers"]]}
                                         for q in problem["parts"][1:]]]
        problems[key] = {**problem, "parts": parts}
    return {**view, "checked": "first" if view.get("checked") != "none" else "none", "problems": problems}


def find_view(student: str, environ=None):
    """The view the teacher's set-up wrote for ``student``, and the file it was read from; (None, None) if none.

    Looked for as :data:`VIEW_FILE` where a student's nbgrader config is looked for
    (``JUPYTER_CONFIG_DIR`` first, then the working folder and three folders above it); a file
    for another id is passed over. The file is data: its given numbers are read, never run.
    """
    from pathlib import Path

    from .ids import normalize_student_id

    env = os.environ if environ is None else environ
    here = Path.cwd()
    places = [here, *list(here.parents)[:3]]
    if env.get("JUPYTER_CONFIG_DIR"):   # first: where the hub writes it, in the student's own config folder
        places.insert(0, Path(env["JUPYTER_CONFIG_DIR"]))
    wanted = normalize_student_id(student)
    for folder in places:
        path = folder / VIEW_FILE
        try:
            view = check_view(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        if isinstance(view.get("id"), str) and normalize_student_id(view["id"]) == wanted:
            return view, path
    return None, None


# --------------------------------------------------------------------------------------
# The notebook's object
# --------------------------------------------------------------------------------------
class Practice:
    """The practice notebook's helper: one per notebook, made by its first code cell.

    Args:
        self_study: True for the website's notebook: the website's numbers, and every part's
            value checked here (a wrong value's message shows the expected one).
        student: an id to use instead of the one :func:`student_id` finds; its view is looked
            for as :func:`find_view` does.
        show: print which id is used (and record it for the grader).
        view: a view (dict or JSON text, as ``mwm_grader.views`` makes it) to use as it is.

    Raises:
        TypeError: ``student`` is not a string.
        ValueError: ``view`` (or ``MWM_PRACTICE_VIEW``) is not a view.
    """

    def __init__(self, *, self_study: bool = False, student: str | None = None, show: bool = True, view=None):
        if student is not None and not isinstance(student, str):
            raise TypeError(f"student should be a string (a student id), got {type(student).__name__}")
        self.self_study = bool(self_study)
        self.note = ""
        if self.self_study:
            view, self.source = website_view(), "self-study"
        elif view is not None:
            view, self.source = check_view(view), "the view argument"
        elif student is None and os.environ.get(VIEW_ENV) is not None:
            view, self.source = check_view(os.environ[VIEW_ENV]), VIEW_ENV
        else:
            wanted, self.source = (student.strip() or None, "the student argument") if student is not None else student_id()
            found, path = find_view(wanted) if wanted else (None, None)
            if found is not None:
                view, self.source = found, f"{self.source}; numbers from {path}"
            else:
                view = _first_parts_only(website_view())  # as a graded notebook checks: each first part
                if wanted:
                    self.note = (f"No numbers were made for the student id {wanted!r} here (no {VIEW_FILE} for it "
                                 f"beside your nbgrader config), so these are the website's numbers. Your teacher's "
                                 f"set-up gives you your own; work is graded on the numbers of the id you submit under.")
        self.view = view
        self.id = view.get("id") if isinstance(view.get("id"), str) else None
        self.checked = view.get("checked", "none")
        self._built = {int(k): _view_problem(v) for k, v in view["problems"].items()}
        if show:
            self._show_id()

    def _show_id(self) -> None:
        if self.self_study:
            line = ("Self-study: the numbers are the website's, and every answer's value is checked "
                    "right here.")
        elif self.note:
            line = self.note
        elif self.id is None:
            line = (f"No student id ({self.source}): the numbers are the website's. In a graded course the "
                    "numbers are those of the id you submit under.")
        else:
            line = (f"Your numbers are made for the student id {self.id!r} (from {self.source}). Your work is "
                    "graded on the numbers of the id you submit under.")
        _display({MIME_STUDENT: {"id": self.id, "source": self.source, "self_study": self.self_study},
                  "text/plain": line})

    def build(self, number: int) -> SimpleNamespace:
        """Problem ``number`` (1-16) of this notebook's view: number, title, markdown, given code, parts."""
        if isinstance(number, bool) or not isinstance(number, (int, np.integer)) or not 1 <= number <= 16:
            raise ValueError(f"number should be a problem number from 1 to 16, got {number!r}")
        if int(number) not in self._built:
            raise ValueError(f"problem {number} is not in this notebook's problems")
        return self._built[int(number)]

    def problem(self, number: int) -> SimpleNamespace:
        """Show problem ``number`` with this notebook's numbers and return them.

        Args:
            number: 1-16.

        Returns:
            SimpleNamespace: one attribute per given variable (``given.w``, ``given.xs``), as
            the problem's statement names them.

        Raises:
            ValueError: ``number`` is not a problem number.
        """
        problem = self.build(number)
        _display({"text/markdown": problem.markdown,
                  "text/plain": f"Problem {problem.number}. {problem.title} (run in Jupyter to see the statement)"})
        return SimpleNamespace(**given_values(problem.given))

    def _part(self, part_id: str):
        try:
            slug, letter = part_id.split("-")
            problem = self.build(int(slug[1:]))
            (part,) = [p for p in problem.parts if p.letter == letter]
        except (ValueError, AttributeError):
            raise ValueError(f"part_id should name a part such as 'p01-a', got {part_id!r}") from None
        return problem, part

    def hand_in(self, part_id: str, **answers) -> None:
        """Hand in one part's answers: record them for the grader, then check what can be checked here.

        Args:
            part_id: the part, ``"pNN-x"`` (problem NN, part x).
            **answers: every answer the part asks for, by its name (``h1=h1``).

        Returns:
            None; prints one line per answer.

        Raises:
            ValueError: ``part_id`` names no part, or an answer's name is missing or unknown.
            mwm_practice.checks.AnswerError: an answer has the wrong form (or, where checked here, value).
        """
        problem, part = self._part(part_id)
        wanted = [a.name for a in part.answers]
        if sorted(answers) != sorted(wanted):
            raise ValueError(f"hand_in({part_id!r}) takes {', '.join(wanted)}; got {', '.join(answers) or 'nothing'}")
        record = {"part": part_id, "student": self.id, "answers": {}}
        for a in part.answers:
            value = answers[a.name]
            if a.kind == "function":
                record["answers"][a.name] = {"calls": _calls(value, a.cases)}
            else:
                record["answers"][a.name] = encode(value)
        _display({MIME_ANSWER: record, "text/plain": f"[handed in: {', '.join(wanted)}]"})
        lines = []
        for a in part.answers:
            # a graded course's notebook says right or not right, never the value (self-study shows it:
            # the website shows the worked solutions anyway)
            try:
                check_answer(a, answers[a.name], with_value=a.checked, reveal=self.self_study,
                             all_cases=self.self_study)
            except checks.AnswerError as exc:
                hint = _mistake_hint(a, answers[a.name]) if a.checked else None
                if hint is None:
                    raise
                raise checks.AnswerError(f"{exc}. {hint}") from None
            lines.append(f"{a.name}: right" if a.checked
                         else f"{a.name}: {a.what}; its value is checked when your work is graded")
        print("\n".join(lines))


def _mistake_hint(answer, value) -> str | None:
    """The hint of the view's slip that a wrong answer in the student's kernel matches (:func:`named_slip`), or None."""
    if answer.kind == "function":
        try:   # on the cases whose results the view gives
            value = [value(*args) for args, want in answer.cases if want is not None]
        except Exception:  # noqa: BLE001 - the student's function failed: no slip to name
            return None
    try:
        slip = named_slip(answer, value, answer.slips)
    except Exception:  # noqa: BLE001 - a value no check can read names no slip
        return None
    return None if slip is None else slip.hint


def matches(answer, value, target) -> bool:
    """True when ``value`` passes ``answer``'s check (form, tolerance) with ``target`` as the expected value.

    Args:
        answer: an answer (its kind, precision and options are used), the teacher's or a view's.
        value: a value as handed in (decoded), or for a function answer the list of results of
            its calls on ``answer.cases``' arguments.
        target: the value to compare with (for a function: the list of results to compare with).
    """
    if answer.kind == "function":
        if not isinstance(value, list) or not isinstance(target, list) or len(value) != len(target):
            return False
        try:
            for got, want in zip(value, target):
                if answer.decimals is None and answer.sig is None:
                    checks.check_integer(answer.name, got, want, reveal=False)
                else:
                    checks.check_number(answer.name, got, want, decimals=answer.decimals, sig=answer.sig,
                                        reveal=False)
        except (checks.AnswerError, TypeError, ValueError):
            return False
        return True
    try:
        check_answer(answer, value, with_value=True, reveal=False, expected=target)
    except (checks.AnswerError, TypeError, ValueError):
        return False
    return True


def named_slip(answer, value, slips):
    """The first of ``slips`` whose value ``value`` matches, or None (no match, or ``value`` is right).

    Args:
        answer: the answer being checked (with its expected value, or its cases' results; a case
            whose result is None is not compared).
        value: the student's value, decoded (for a function answer: the list of its calls'
            results on the cases whose results are known).
        slips: objects with ``hint`` and ``value`` (a view's, or the teacher's mistakes catalogue's
            usable entries), in the order they are tried.
    """
    right = ([want for _args, want in answer.cases if want is not None] if answer.kind == "function"
             else answer.expected)
    if matches(answer, value, right):
        return None
    for slip in slips:
        if matches(answer, value, slip.value if hasattr(slip, "value") else slip[1]):
            return slip
    return None


def _calls(function, cases) -> list:
    """Call a student's function on each case's arguments; record results or errors (in the kernel)."""
    calls = []
    for args, _want in cases:
        entry = {"args": [encode(a) for a in args]}
        if not callable(function):
            entry["error"] = f"not a function: {checks._kind(function)}"
        else:
            try:
                entry["result"] = encode(function(*args))
            except Exception as exc:  # the student's code: report it
                entry["error"] = f"{type(exc).__name__}: {str(exc)[:MAX_TEXT]}"
        calls.append(entry)
    return calls


def check_answer(answer, value, *, with_value: bool, reveal: bool = True, all_cases: bool = True,
                 expected=None) -> None:
    """Check one answer's form (and, with ``with_value``, its value) with :mod:`mwm_practice.checks`.

    Args:
        answer: an answer (kind, expected value, precision, options, cases): a view's, or the
            teacher's ``mwm_grader.problems.Answer``.
        value: the student's value (for a function: the function itself).
        with_value: also compare with the expected value.
        reveal: let a wrong value's message show the expected value.
        all_cases: for a function, try every case whose result is known (else only the first
            of them).
        expected: compare with this instead of ``answer.expected`` (not for functions).

    Raises:
        mwm_practice.checks.AnswerError: one line saying what is wrong.
        ValueError: an answer kind this course does not have.
    """
    __tracebackhide__ = True
    a = answer
    exp = (a.expected if expected is None else expected) if with_value else None
    if a.kind == "number":
        checks.check_number(a.name, value, exp, decimals=a.decimals, sig=a.sig, reveal=reveal)
    elif a.kind == "vector":
        checks.check_vector(a.name, value, exp, shape=None if with_value else np.shape(a.expected),
                            decimals=a.decimals, sig=a.sig, reveal=reveal)
    elif a.kind == "integer":
        checks.check_integer(a.name, value, exp, reveal=reveal)
    elif a.kind == "choice":
        checks.check_choice(a.name, value, a.options, exp, reveal=reveal)
    elif a.kind == "bool":
        checks.check_bool(a.name, value, exp, reveal=reveal)
    elif a.kind == "function":
        known = [c for c in a.cases if c[1] is not None]   # a view may leave a case's result out
        cases = (known if all_cases else known[:1]) if with_value else ()
        checks.check_function(a.name, value, cases, decimals=a.decimals, sig=a.sig, n_args=a.n_args, reveal=reveal)
    else:
        raise ValueError(f"unknown answer kind {a.kind!r}")


def _display(bundle: dict) -> None:
    """Show a MIME bundle in the notebook; outside IPython print its text."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython is a dependency of ipywidgets
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        display(bundle, raw=True)
    else:
        print(bundle.get("text/plain", ""))
