"""What the practice notebook runs in the student's kernel: the id, the problems, the hand-in.

The notebook's first code cell makes one :class:`Practice`; it finds the student id the
numbers are made for (:func:`student_id`) and says which. Each problem's first code cell,
``given = practice.problem(N)``, shows the problem with that id's numbers and returns them.
Each part ends with a locked cell, ``practice.hand_in("pNN-x", name=value, ...)``, which

* hands the answers out of the kernel as data: one display output of the MIME type
  :data:`MIME_ANSWER` holding the part and every answer, encoded as plain JSON
  (:func:`encode`). When the work is graded, the teacher's process reads that output and
  decides the part (:mod:`mwm.practice.judge`); nothing in the kernel awards points;
* checks the form of every answer at once (a number, two numbers, one of the listed
  words) and, for each problem's first part, its value, and says so in one line per answer:
  ``h1: right``, ``h2: a number; its value is checked when your work is graded``.

In self-study (``Practice(self_study=True)``, the notebook offered on the website) the
numbers are the website's and every part's value is checked here, with the expected value
shown when an answer is off: the website's worked solutions show it anyway.

While a notebook is graded, the grader gives the kernel each problem's statement, given
numbers and the form of its answers (:func:`public_view`, in ``MWM_PRACTICE_VIEW``) and
covers the code that computes answers (:mod:`mwm.practice.problems`) in the sandbox: then no
expected value exists in the kernel, and the hand-in cells check only the form.
"""
from __future__ import annotations

import getpass
import json
import math
import os
import re
from types import SimpleNamespace

import numpy as np

from mwm import grading

__all__ = ["MIME_ANSWER", "MIME_STUDENT", "VIEW_ENV", "Practice", "student_id", "encode", "decode", "given_names",
           "public_view"]

#: The environment variable through which the grader hands the kernel the problems' public view.
VIEW_ENV = "MWM_PRACTICE_VIEW"

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
        :mod:`mwm.grading` accept.
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
    """The variables a problem's ``given`` code sets, in the order it sets them.

    Args:
        given_code: Python source (assignments only), as :class:`~mwm.practice.problems.Problem` holds it.

    Returns:
        list of names.
    """
    import ast

    names = []
    for node in ast.parse(given_code).body:
        if not isinstance(node, ast.Assign):
            raise ValueError(f"given code should only assign numbers, found {type(node).__name__}")
        for target in node.targets:
            for t in (target.elts if isinstance(target, ast.Tuple) else [target]):
                if isinstance(t, ast.Name) and t.id not in names:
                    names.append(t.id)
    return names


def problem_markdown(problem) -> str:
    """A problem as the notebook shows it: what it trains, the statement, the parts with their points."""
    parts = "\n".join(f"**({p.letter})** {p.question} *[{p.points} point{'s' if p.points != 1 else ''}]*\n"
                      for p in problem.parts)
    return f"*{problem.level.capitalize()}: {problem.practises}.*\n\n{problem.statement}\n\n{parts}"


def public_view(problem) -> dict:
    """What a student's kernel may know of a built problem while it is graded: no expected value.

    Args:
        problem: a :class:`~mwm.practice.problems.Problem` built with the student's numbers.

    Returns:
        dict (JSON-serialisable): number, title, the statement as Markdown, the given code, and
        per part its letter, points and answers (name, kind, the form asked for, precision,
        options, the shape of a list, and for a function its argument count and the arguments
        it is tried on).
    """
    parts = []
    for part in problem.parts:
        answers = []
        for a in part.answers:
            answers.append({"name": a.name, "kind": a.kind, "what": a.what, "decimals": a.decimals, "sig": a.sig,
                            "options": list(a.options), "n_args": a.n_args,
                            "shape": list(np.shape(a.expected)) if a.kind == "vector" else None,
                            "case_args": [list(args) for args, _want in a.cases] if a.kind == "function" else []})
        parts.append({"letter": part.letter, "points": part.points, "answers": answers})
    return {"number": problem.number, "slug": problem.slug, "title": problem.title,
            "markdown": problem_markdown(problem), "given": problem.given, "parts": parts}


def _view_answer(data: dict) -> SimpleNamespace:
    """An answer of a public view, shaped like :class:`~mwm.practice.problems.Answer` for the form checks."""
    shape = data.get("shape")
    return SimpleNamespace(
        name=data["name"], kind=data["kind"], what=data.get("what", ""), decimals=data.get("decimals"),
        sig=data.get("sig"), options=tuple(data.get("options") or ()), n_args=data.get("n_args"),
        expected=np.zeros(shape) if shape is not None else None,
        cases=tuple((tuple(args), None) for args in data.get("case_args") or ()))


def _view_problem(data: dict) -> SimpleNamespace:
    parts = [SimpleNamespace(letter=p["letter"], points=p["points"], answers=[_view_answer(a) for a in p["answers"]])
             for p in data["parts"]]
    return SimpleNamespace(number=data["number"], slug=data["slug"], title=data["title"], markdown=data["markdown"],
                           given=data["given"], parts=parts)


# --------------------------------------------------------------------------------------
# The notebook's object
# --------------------------------------------------------------------------------------
class Practice:
    """The practice notebook's helper: one per notebook, made by its first code cell.

    Args:
        self_study: True for the website's notebook: the website's numbers, and every part's
            value checked here. False (nbgrader's release): the numbers of the student id
            (:func:`student_id`), and only each problem's first part checked here.
        student: an id to use instead of the one :func:`student_id` finds (for teachers
            trying a student's numbers).
        show: print which id is used (and record it for the grader).

    Raises:
        TypeError: ``student`` is not a string.
    """

    def __init__(self, *, self_study: bool = False, student: str | None = None, show: bool = True):
        if student is not None and not isinstance(student, str):
            raise TypeError(f"student should be a string (a student id), got {type(student).__name__}")
        self.self_study = bool(self_study)
        if self.self_study:
            self.id, self.source = None, "self-study"
        elif student is not None:
            self.id, self.source = (student.strip() or None), "the student argument"
        else:
            self.id, self.source = student_id()
        self._built: dict[int, object] = {}
        view = os.environ.get(VIEW_ENV) if not self.self_study and student is None else None
        self.grading = view is not None
        if self.grading:  # being graded: the grader's view of the problems, no expected value
            self.numbers = None
            self._built = {int(k): _view_problem(v) for k, v in json.loads(view).items()}
        else:
            from .variants import numbers_for

            self.numbers = numbers_for(self.id)
        if show:
            self._show_id()

    def _show_id(self) -> None:
        if self.self_study:
            line = ("Self-study: the numbers are the website's, and every answer's value is checked "
                    "right here.")
        elif self.id is None:
            line = (f"No student id ({self.source}): the numbers are the website's. In a graded course the "
                    "numbers are those of the id you submit under.")
        else:
            line = (f"Your numbers are made for the student id {self.id!r} (from {self.source}). Your work is "
                    "graded on the numbers of the id you submit under.")
        _display({MIME_STUDENT: {"id": self.id, "source": self.source, "self_study": self.self_study},
                  "text/plain": line})

    def build(self, number: int):
        """Problem ``number`` (1-16) built with this notebook's numbers (a :class:`~mwm.practice.problems.Problem`)."""
        if isinstance(number, bool) or not isinstance(number, (int, np.integer)) or not 1 <= number <= 16:
            raise ValueError(f"number should be a problem number from 1 to 16, got {number!r}")
        number = int(number)
        if number not in self._built:
            if self.grading:
                raise ValueError(f"problem {number} is not in this notebook's problems")
            from . import problems

            self._built[number] = problems.build(number, self.numbers)
        return self._built[number]

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
        markdown = problem.markdown if self.grading else problem_markdown(problem)
        _display({"text/markdown": markdown,
                  "text/plain": f"Problem {problem.number}. {problem.title} (run in Jupyter to see the statement)"})
        namespace = {"np": np}
        exec(problem.given, namespace)  # the given numbers: assignments written by problems.py
        return SimpleNamespace(**{name: namespace[name] for name in given_names(problem.given)})

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
            mwm.grading.AnswerError: an answer has the wrong form (or, where checked here, value).
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
        value_here = not self.grading and (self.self_study or part is problem.parts[0])
        lines = []
        for a in part.answers:
            # a graded course's notebook says right or not right, never the value (self-study shows it:
            # the website shows the worked solutions anyway)
            try:
                check_answer(a, answers[a.name], with_value=value_here, reveal=self.self_study,
                             all_cases=self.self_study)
            except grading.AnswerError as exc:
                hint = _mistake_hint(problem, part, a, answers[a.name]) if value_here else None
                if hint is None:
                    raise
                raise grading.AnswerError(f"{exc}. {hint}") from None
            lines.append(f"{a.name}: right" if value_here
                         else f"{a.name}: {a.what}; its value is checked when your work is graded")
        print("\n".join(lines))


def _mistake_hint(problem, part, answer, value) -> str | None:
    """The hint of the mistakes catalogue's slip that a wrong answer matches (:mod:`mwm.practice.mistakes`), or None."""
    from . import mistakes

    if answer.kind == "function":
        try:
            value = [value(*args) for args, _want in answer.cases]
        except Exception:  # noqa: BLE001 - the student's function failed: no slip to name
            return None
    try:
        slip = mistakes.named_mistake(problem, part, answer, value)
    except Exception:  # noqa: BLE001 - a value no check can read names no slip
        return None
    return None if slip is None else slip.hint


def _calls(function, cases) -> list:
    """Call a student's function on each case's arguments; record results or errors (in the kernel)."""
    calls = []
    for args, _want in cases:
        entry = {"args": [encode(a) for a in args]}
        if not callable(function):
            entry["error"] = f"not a function: {grading._kind(function)}"
        else:
            try:
                entry["result"] = encode(function(*args))
            except Exception as exc:  # the student's code: report it
                entry["error"] = f"{type(exc).__name__}: {str(exc)[:MAX_TEXT]}"
        calls.append(entry)
    return calls


def check_answer(answer, value, *, with_value: bool, reveal: bool = True, all_cases: bool = True) -> None:
    """Check one answer's form (and, with ``with_value``, its value) with :mod:`mwm.grading`.

    Args:
        answer: the :class:`~mwm.practice.problems.Answer` (kind, expected, precision).
        value: the student's value (for a function: the function itself).
        with_value: also compare with ``answer.expected``.
        reveal: let a wrong value's message show the expected value.
        all_cases: for a function, try every case (else only the first, the one the
            student's notebook shows).

    Raises:
        mwm.grading.AnswerError: one line saying what is wrong.
    """
    __tracebackhide__ = True
    a = answer
    exp = a.expected if with_value else None
    if a.kind == "number":
        grading.check_number(a.name, value, exp, decimals=a.decimals, sig=a.sig, reveal=reveal)
    elif a.kind == "vector":
        grading.check_vector(a.name, value, exp, shape=None if with_value else np.shape(a.expected),
                             decimals=a.decimals, sig=a.sig, reveal=reveal)
    elif a.kind == "integer":
        grading.check_integer(a.name, value, exp, reveal=reveal)
    elif a.kind == "choice":
        grading.check_choice(a.name, value, a.options, exp, reveal=reveal)
    elif a.kind == "bool":
        grading.check_bool(a.name, value, exp, reveal=reveal)
    elif a.kind == "function":
        cases = (a.cases if all_cases else a.cases[:1]) if with_value else ()
        grading.check_function(a.name, value, cases, decimals=a.decimals, sig=a.sig, n_args=a.n_args, reveal=reveal)
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
