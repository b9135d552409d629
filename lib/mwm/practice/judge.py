"""The teacher's side of grading: every part decided outside the student's kernel.

Wired into ``exercises/nbgrader_config.py``:

* :class:`RecordWorkedId` (a sanitizing step, before nbgrader clears the outputs) notes the
  student id the submitted notebook was worked under, from its first cell's output, in the
  notebook's metadata. It is the student's data: it only ever changes a sentence of feedback.
* The notebook is executed in a sandbox (:class:`mwm.practice.sandbox.SandboxedExecute`),
  with ``MWM_STUDENT`` set to the id of the submission, so every given cell sets that
  student's numbers.
* :class:`JudgeAnswers` (right after execution, in the teacher's process) computes the
  expected values with ``mwm`` from the numbers of the submission's id
  (:func:`mwm.practice.variants.numbers_for`, :func:`mwm.practice.problems.build`), reads
  each hand-in cell's answer record (:data:`~mwm.practice.notebook.MIME_ANSWER`) and replaces
  the cell's outputs with the verdict: one line per answer, right or not right, never the
  expected value. A part that is not right gets an error output, so nbgrader's own
  ``SaveAutoGrades`` gives it 0 points, and a right one a plain output, full points.

Whatever the student's code prints, displays or patches, only the one answer record in a
hand-in cell's own outputs is judged; a cell with no record, or with more than one for its
part, scores 0 ("could not tell which answer to grade").
"""
from __future__ import annotations

import re

from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor

from mwm import grading

from . import problems as _problems
from .notebook import MIME_ANSWER, MIME_STUDENT, VIEW_ENV, Unreadable, check_answer, decode, public_view
from .sandbox import SandboxedExecute
from .variants import numbers_for

__all__ = ["RecordWorkedId", "GradingExecute", "JudgeAnswers", "judge_part", "expected_problems", "answer_code_files",
           "PART_CELL"]

#: Grade ids of hand-in cells: ``pNN-x-test``.
PART_CELL = re.compile(r"(p(\d\d)-([a-z]))-test")
#: The grade id of the notebook's first code cell (it makes the ``Practice`` object).
ID_CELL = "imports"


def _gid(cell) -> str:
    return (cell.get("metadata", {}).get("nbgrader") or {}).get("grade_id", "")


def expected_problems(student: str | None) -> dict[str, object]:
    """Every problem built with the numbers of ``student``: slug ("p01") -> Problem.

    Args:
        student: the submission's student id (None: the website's numbers).

    Returns:
        dict of :class:`~mwm.practice.problems.Problem`, answers computed by ``mwm``.
    """
    built, missing = _problems.build_all(numbers_for(student))
    if missing:
        raise RuntimeError(f"problems missing from the library: {missing}")
    return {p.slug: p for p in built}


def _records(cell, part_id: str) -> list[dict]:
    found = []
    for out in cell.get("outputs", []):
        if out.get("output_type") in ("display_data", "execute_result"):
            data = out.get("data", {}).get(MIME_ANSWER)
            if data is not None:
                found.append(data)
    return found


def _judge_function(answer, entry) -> str | None:
    """None if a recorded function's calls all give the expected results, else one line."""
    calls = entry.get("calls") if isinstance(entry, dict) else None
    if not isinstance(calls, list) or len(calls) != len(answer.cases):
        return f"{answer.name}: no calls of the function were recorded"
    for call, (args, want) in zip(calls, answer.cases):
        if not isinstance(call, dict):
            return f"{answer.name}: unreadable record"
        shown = f"{answer.name}({', '.join(map(repr, args))})"
        got_args = decode({"list": call.get("args")}) if isinstance(call.get("args"), list) else None
        if got_args != [float(a) if isinstance(a, (int, float)) else a for a in args]:
            return f"{answer.name}: the function was tried on other numbers than this submission's"
        if "error" in call:
            return f"{shown} raised {str(call['error'])[:200]}"
        got = decode(call.get("result"))
        try:
            if answer.decimals is None and answer.sig is None:
                grading.check_integer(shown, got, want, reveal=False)
            else:
                grading.check_number(shown, got, want, decimals=answer.decimals, sig=answer.sig, reveal=False)
        except grading.AnswerError as exc:
            return str(exc)
    return None


def judge_part(problem, part, records: list[dict]) -> tuple[bool, list[str]]:
    """Decide one part from the answer records found in its hand-in cell.

    Args:
        problem: the :class:`~mwm.practice.problems.Problem`, built with the submission's numbers.
        part: the :class:`~mwm.practice.problems.Part` to decide.
        records: the :data:`MIME_ANSWER` data found in the cell's outputs (untrusted).

    Returns:
        (right, lines): whether every answer of the part is right, and one line per answer
        (never the expected value).
    """
    label = f"Problem {problem.number} ({part.letter})"
    part_id = f"{problem.slug}-{part.letter}"
    mine = [r for r in records if isinstance(r, dict) and r.get("part") == part_id]
    if not mine:
        return False, [f"{label}: no answer was handed in (the cell did not run, or stopped before)."]
    if len(mine) > 1 or len(records) > 1:
        return False, [f"{label}: {len(records)} answer records in one hand-in cell; "
                       "cannot tell which to grade."]
    answers = mine[0].get("answers")
    if not isinstance(answers, dict):
        return False, [f"{label}: unreadable answer record."]
    lines, right = [], True
    for a in part.answers:
        if a.name not in answers:
            right = False
            lines.append(f"{a.name}: not handed in")
            continue
        if a.kind == "function":
            why = _judge_function(a, answers[a.name])
        else:
            value = decode(answers[a.name])
            why = None
            try:
                if isinstance(value, Unreadable):
                    raise grading.AnswerError(f"{a.name} should be {a.what}, got {value!r}")
                check_answer(a, value, with_value=True, reveal=False)
            except grading.AnswerError as exc:
                why = str(exc)
        if why is None:
            lines.append(f"{a.name}: right")
        else:
            right = False
            lines.append(why)
    return right, lines


def answer_code_files() -> list[str]:
    """The files whose code computes the answers (:mod:`mwm.practice.problems` and its cached
    bytecode): a graded kernel sees them empty."""
    from pathlib import Path

    source = Path(_problems.__file__)
    cached = sorted(str(p) for p in (source.parent / "__pycache__").glob(f"{source.stem}.*.pyc"))
    return [str(source), *cached]


class GradingExecute(SandboxedExecute):
    """nbgrader's execution step for the practice notebook: the sandbox, with no answer inside it.

    As :class:`~mwm.practice.sandbox.SandboxedExecute` (``MWM_STUDENT`` = the submission's id),
    and besides: the kernel gets each problem's public view for that student's numbers
    (statement, given numbers, the form of each answer; :func:`~mwm.practice.notebook.public_view`)
    in ``MWM_PRACTICE_VIEW``, and sees :func:`answer_code_files` empty, so no expected value
    can be computed or read by the student's code while it is graded.
    """

    def create_kernel_manager(self):
        """The sandboxed kernel manager, with the student's public view and the answer code hidden."""
        import json

        km = super().create_kernel_manager()
        student = ((getattr(self, "resources", None) or {}).get("nbgrader") or {}).get("student")
        views = {p.number: public_view(p) for p in expected_problems(student).values()}
        if hasattr(km, "sandbox_env"):
            km.sandbox_env = {**km.sandbox_env, VIEW_ENV: json.dumps(views, separators=(",", ":"))}
            km.hidden_files = [*km.hidden_files, *answer_code_files()]
        return km


class RecordWorkedId(NbGraderPreprocessor):
    """Sanitizing step: note the id a submission was worked under (its first cell's output) in its metadata.

    Put it before nbgrader's ``ClearOutput``. The id is the student's own data and only
    changes a sentence of feedback (:class:`JudgeAnswers`).
    """

    def preprocess(self, nb, resources):
        """Read the id record of the ``imports`` cell; store ``nb.metadata["mwm"]["worked_as"]``."""
        nb.metadata.pop("mwm", None)
        worked = None
        for cell in nb.cells:
            if _gid(cell) == ID_CELL:
                for out in cell.get("outputs", []):
                    data = out.get("data", {}).get(MIME_STUDENT)
                    if isinstance(data, dict):
                        worked = {"id": data.get("id") if isinstance(data.get("id"), str) else None,
                                  "self_study": bool(data.get("self_study"))}
        nb.metadata["mwm"] = {"worked_as": worked}
        return nb, resources


class JudgeAnswers(NbGraderPreprocessor):
    """Grading step, right after execution: decide every hand-in cell in the teacher's process.

    Each ``pNN-x-test`` cell's outputs are replaced by the verdict: a right part gets one
    plain output (nbgrader gives full points), any other an error output (0 points). The
    expected values come from the numbers of the submission's student id
    (``resources["nbgrader"]["student"]``).
    """

    def preprocess(self, nb, resources):
        """Judge every hand-in cell of ``nb`` (a notebook executed in the sandbox)."""
        student = (resources.get("nbgrader") or {}).get("student")
        problems = expected_problems(student)
        worked = (nb.metadata.get("mwm") or {}).get("worked_as")
        for cell in nb.cells:
            gid = _gid(cell)
            if gid == ID_CELL:
                note = self._id_note(student, worked)
                if note:
                    cell.outputs.append(NotebookNode(output_type="stream", name="stdout", text=note + "\n"))
                continue
            m = PART_CELL.fullmatch(gid)
            if not m or cell.get("cell_type") != "code":
                continue
            problem = problems.get(f"p{m.group(2)}")
            parts = [p for p in problem.parts if p.letter == m.group(3)] if problem else []
            if not parts:
                cell.outputs = [_error(f"{gid}: no such part in the problems")]
                continue
            try:
                right, lines = judge_part(problem, parts[0], _records(cell, m.group(1)))
            except Exception as exc:  # an answer record no check could read: the part is not right
                right, lines = False, [f"Problem {problem.number} ({parts[0].letter}): unreadable answer "
                                       f"record ({type(exc).__name__})."]
            label = f"Problem {problem.number} ({parts[0].letter})"
            if len(lines) == 1 and lines[0].startswith(label):  # nothing (or too much) handed in
                text = lines[0]
            else:
                text = "\n".join([f"{label}: {'right' if right else 'not right'}", *(f"  {ln}" for ln in lines)])
            cell.outputs = [NotebookNode(output_type="stream", name="stdout", text=text + "\n")] if right \
                else [_error(text)]
        nb.metadata.pop("mwm", None)
        return nb, resources

    @staticmethod
    def _id_note(student, worked) -> str:
        if not worked:
            return ""
        if worked.get("self_study"):
            return (f"This notebook was worked in self-study (the website's numbers); it was graded on the "
                    f"numbers of {student!r}, the id it was submitted under.")
        if worked.get("id") != student:
            return (f"This notebook was worked under the id {worked.get('id')!r} but submitted by {student!r}: "
                    f"it was graded on the numbers of {student!r}.")
        return ""


def _error(text: str) -> NotebookNode:
    first, *rest = text.split("\n", 1)
    return NotebookNode(output_type="error", ename="NotRight", evalue=first,
                        traceback=[f"NotRight: {text}"])
