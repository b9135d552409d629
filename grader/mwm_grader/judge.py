"""The teacher's side of grading: every part decided outside the student's kernel.

Wired into ``exercises/nbgrader_config.py``:

* :class:`RecordWorkedId` (a sanitizing step, before nbgrader clears the outputs) notes the
  student id the submitted notebook was worked under, from its first cell's output, in the
  notebook's metadata. It is the student's data: it only ever changes a sentence of feedback.
* The notebook is executed in a sandbox (:class:`GradingExecute`), with ``MWM_STUDENT`` set
  to the id of the submission and that student's grading view (:func:`mwm_grader.views.grading_view`:
  statements, given numbers, no expected value) in ``MWM_PRACTICE_VIEW``, so every given cell
  sets that student's numbers. This package is not on the sandboxed kernel's path at all.
* :class:`JudgeAnswers` (right after execution, in the teacher's process) computes the
  expected values with ``mwm`` from the numbers of the submission's id
  (:func:`mwm_grader.variants.numbers_for`, :func:`mwm_grader.problems.build`), reads
  each hand-in cell's answer record (:data:`~mwm_practice.notebook.MIME_ANSWER`) and replaces
  the cell's outputs with the verdict: one line per answer, right or not right, never the
  expected value. A part that is not right gets an error output, so nbgrader's own
  ``SaveAutoGrades`` gives it 0 points, and a right one a plain output, full points.

Whatever the student's code prints, displays or patches, only the one answer record in a
hand-in cell's own outputs is judged; a cell with no record, or with more than one for its
part, scores 0 ("could not tell which answer to grade").
"""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor

from mwm_practice import checks

from . import mistakes as _mistakes
from mwm_practice.labs import LAB_VIEW_ENV, MIME_LAB
from mwm_practice.notebook import MIME_ANSWER, MIME_STUDENT, VIEW_ENV, Unreadable, check_answer, decode
from .sandbox import SandboxedExecute

__all__ = ["RecordWorkedId", "RestoreDeletedCells", "GradingExecute", "JudgeAnswers", "write_notes", "NOTES", "name_by_id", "judge_part", "expected_problems",
           "PART_CELL", "JUDGED"]

#: Grade ids of hand-in cells: ``pNN-x-test``.
PART_CELL = re.compile(r"(p(\d\d)-([a-z]))-test")
#: Grade ids of the coding labs' hand-in cells: ``lab-<slug>-test``.
LAB_CELL = re.compile(r"lab-([a-z-]+)-test")
#: The key of a judged hand-in cell's metadata, written by :class:`JudgeAnswers` for the class report:
#: ``{"part": "p01-a", "right": bool, "blank": no answer record, "restored": the cells had been deleted,
#: "mistakes": {answer name: key of the slip named}}``.
JUDGED = "mwm_judged"
#: The grade id of the notebook's first code cell (it makes the ``Practice`` object).
ID_CELL = "imports"


def _gid(cell) -> str:
    return (cell.get("metadata", {}).get("nbgrader") or {}).get("grade_id", "")


def expected_problems(student: str | None) -> dict[str, object]:
    """Every problem built with the numbers of ``student``: slug ("p01") -> Problem.

    Args:
        student: the submission's student id (None: the website's numbers).

    Returns:
        dict of :class:`~mwm_grader.problems.Problem`, answers computed by ``mwm``
        (:func:`mwm_grader.views.built_problems`).
    """
    from .views import built_problems

    return {p.slug: p for p in built_problems(student)}


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
            error = str(call["error"])[:200]
            if error.startswith("not a function: "):  # recorded before any call: nothing was raised
                return f"{answer.name} is {error}"
            return f"{shown} raised {error}"
        got = decode(call.get("result"))
        try:
            if answer.decimals is None and answer.sig is None:
                checks.check_integer(shown, got, want, reveal=False)
            else:
                checks.check_number(shown, got, want, decimals=answer.decimals, sig=answer.sig, reveal=False)
        except checks.AnswerError as exc:
            return str(exc)
    return None


def _call_results(entry) -> list | None:
    """The results a recorded function gave on its cases, decoded (None where a call raised or none was recorded)."""
    calls = entry.get("calls") if isinstance(entry, dict) else None
    if not isinstance(calls, list) or not all(isinstance(c, dict) and "result" in c for c in calls):
        return None
    return [decode(c["result"]) for c in calls]


def judge_part(problem, part, records: list[dict], named: dict | None = None) -> tuple[bool, list[str]]:
    """Decide one part from the answer records found in its hand-in cell.

    A wrong answer whose value matches a slip of the mistakes catalogue
    (:func:`mwm_grader.mistakes.named_mistake`, with the submission's numbers) gets that
    slip's hint after the verdict.

    Args:
        problem: the :class:`~mwm_grader.problems.Problem`, built with the submission's numbers.
        part: the :class:`~mwm_grader.problems.Part` to decide.
        records: the :data:`MIME_ANSWER` data found in the cell's outputs (untrusted).
        named: if given, a dict that receives answer name -> the key of the slip named for it.

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
            value = _call_results(answers[a.name]) if why else None
        else:
            value = decode(answers[a.name])
            why = None
            try:
                if isinstance(value, Unreadable):
                    raise checks.AnswerError(f"{a.name} should be {a.what}, got {value!r}")
                check_answer(a, value, with_value=True, reveal=False)
            except checks.AnswerError as exc:
                why = str(exc)
        if why is not None and value is not None and not isinstance(value, Unreadable):
            slip = _mistakes.named_mistake(problem, part, a, value)
            if slip is not None:
                why = f"{why}. {slip.hint}"
                if named is not None:
                    named[a.name] = slip.key
        if why is None:
            lines.append(f"{a.name}: right")
        else:
            right = False
            lines.append(why)
    return right, lines


class GradingExecute(SandboxedExecute):
    """nbgrader's execution step for the practice notebook: the sandbox, with no answer inside it.

    As :class:`~mwm_grader.sandbox.SandboxedExecute` (``MWM_STUDENT`` = the submission's id),
    and besides: the kernel gets that student's grading view (:func:`mwm_grader.views.grading_view`:
    each problem's statement, given numbers and the form of each answer, no expected value) in
    ``MWM_PRACTICE_VIEW``. The code that computes answers (this package) is not on the
    sandboxed kernel's path, so no expected value can be computed or read by the student's
    code while it is graded.
    """

    def create_kernel_manager(self):
        """The sandboxed kernel manager, with the student's grading view."""
        import json

        from .views import grading_view

        from .labs import labs_view

        km = super().create_kernel_manager()
        info = (getattr(self, "resources", None) or {}).get("nbgrader") or {}
        student = info.get("student")
        if hasattr(km, "sandbox_env"):
            if info.get("assignment") == "labs":   # the labs' inputs made for this student, no result
                draw = lab_draw(self.config, getattr(self, "nb", None),
                                (getattr(self, "resources", None) or {}).get("metadata", {}).get("path"))
                if isinstance(getattr(self, "resources", None), dict):   # the judge draws with the same key
                    self.resources[LAB_DRAW] = draw
                views = {LAB_VIEW_ENV: labs_view(student, with_results=False, draw=draw)}
                if hasattr(km, "hidden_folders"):   # the course library holds the labs' answers: not readable
                    km.hidden_folders = [*km.hidden_folders, *library_folders()]
            else:
                views = {VIEW_ENV: grading_view(student, list(expected_problems(student).values()))}
            km.sandbox_env = {**km.sandbox_env, **{k: json.dumps(v, separators=(",", ":")) for k, v in views.items()}}
        return km


#: Where the grading's resources carry the key the labs' inputs were drawn with, from the kernel's
#: start to the judge.
LAB_DRAW = "mwm_lab_draw"


def lab_draw(config, nb, folder) -> str:
    """The key a student's lab inputs are drawn with (:func:`mwm_grader.labs.cases_for`), at the graded kernel's start.

    sha256 of the course's secret (:func:`mwm_grader.labs.course_secret`; the course folder is
    ``CourseDirectory.root``, which the course's nbgrader_config.py sets, else the folder nbgrader
    runs in, as nbgrader's own default) and of everything the kernel can read of the
    submission: the notebook ``nb`` as it is about to run, and every file's name, mode bits and
    bytes in ``folder``, the kernel's folder (a link by its target's name). Times and owners are
    left out: nbgrader's copy into the folder does not keep them, so they carry nothing in. A table of answers handed in
    changes this key and so the inputs; the same submission regraded draws the same ones.

    Args:
        config: nbgrader's traitlets config; nb: the notebook node run (or None); folder: the
            kernel's working folder (or None).
    Returns:
        64 hex digits.
    """
    import hashlib

    import nbformat

    from .labs import course_secret

    digest = hashlib.sha256(course_secret(config.CourseDirectory.get("root") or os.getcwd()).encode() + b"\0")
    digest.update(nbformat.writes(nb).encode("utf-8") if nb is not None else b"")
    if folder and os.path.isdir(folder):
        for path in sorted(Path(folder).rglob("*")):
            # a file's mode bits too: collect and nbgrader's copy keep them, and a kernel can read them
            mode = stat.S_IMODE(path.lstat().st_mode)
            digest.update(b"\0" + os.fsencode(path.relative_to(folder)) + b"\0" + str(mode).encode() + b"\0")
            if path.is_symlink():
                digest.update(b"link:" + os.fsencode(os.readlink(path)))
            elif path.is_file():
                digest.update(path.read_bytes())
    return digest.hexdigest()


def library_folders() -> list[str]:
    """The folders of ``mwm``, ``mwm_torch`` and ``sacrebleu``, as this process imports them.

    The coding labs' grading hides them from the sandboxed kernel: their functions (``mwm.decoding``,
    ``mwm.bleu``, ``mwm_torch.translator``, sacrebleu's BLEU, which the course checks ``mwm.bleu``
    against) are the labs' answers, and a source check cannot see an import whose name is built at
    run time. The labs' kernel side (``mwm_practice.labs``) needs none of them while it is graded.
    """
    import importlib.util

    folders = []
    for name in ("mwm", "mwm_torch", "sacrebleu"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            folders.append(os.path.dirname(os.path.abspath(spec.origin)))
    return folders


class RecordWorkedId(NbGraderPreprocessor):
    """Sanitizing step: note the id a submission was worked under (its first cell's output) in its metadata.

    It also removes any verdict record (:data:`JUDGED`) the submission carries, so none is in the
    notebook nbgrader writes between its sanitizing and grading passes (the class report reads
    that folder). Put it before nbgrader's ``ClearOutput``. The id is the student's own data and only
    changes a sentence of feedback (:class:`JudgeAnswers`).
    """

    def preprocess(self, nb, resources):
        """Read the id record of the ``imports`` cell; store ``nb.metadata["mwm"]["worked_as"]``."""
        nb.metadata.pop("mwm", None)
        for cell in nb.cells:   # a verdict record is the judge's alone: none the submission carries gets past here
            if isinstance(cell.get("metadata"), dict):
                cell["metadata"].pop(JUDGED, None)
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


def _course_root(resources) -> Path | None:
    """The course folder of the notebook being graded (its folder is ``<root>/<kind>/<student>/<assignment>``)."""
    path = (resources.get("metadata") or {}).get("path")
    if not path:
        return None
    parents = Path(path).resolve().parents
    return parents[2] if len(parents) > 2 else None


def _student_version(resources, notebook: str):
    """The released (student) version of ``notebook``, or None where the course has none."""
    import nbformat

    root, assignment = _course_root(resources), (resources.get("nbgrader") or {}).get("assignment")
    if root is None or not assignment:
        return None
    path = root / "release" / assignment / f"{notebook}.ipynb"
    return nbformat.read(path, as_version=4) if path.is_file() else None


def _part_label(grade_id: str) -> str:
    m = re.fullmatch(r"p(\d\d)-([a-z])-(answer|test)", grade_id)
    return f"Problem {int(m.group(1))} ({m.group(2)})" if m else grade_id


class RestoreDeletedCells(NbGraderPreprocessor):
    """Sanitizing step, before nbgrader's ``OverwriteCells``: every cell the student deleted is put back.

    nbgrader restores a deleted hand-in (grade) cell after the cell before it, and stops the
    student's whole grading with ``KeyError`` when that cell was deleted too (an answer and its
    hand-in cell both gone, or every cell). Here each missing cell of the released notebook
    comes back at its place, as released (an answer cell empty), so the rest is graded and a
    deleted part costs that part only. The restored parts are noted in the notebook's metadata
    (``mwm.restored``): :class:`JudgeAnswers` names them in the feedback and in the teacher's
    list of grading notes.
    """

    def preprocess(self, nb, resources):
        """Insert the released cells whose grade ids ``nb`` lacks, each after the cell that precedes it there."""
        released = _student_version(resources, (resources.get("nbgrader") or {}).get("notebook") or "")
        if released is None:
            return nb, resources
        have = {_gid(c) for c in nb.cells if _gid(c)}
        restored = []
        inserted_after = -1  # where the last released cell sits in nb
        for c in released.cells:
            g = _gid(c)
            if not g:
                continue
            if g in have:
                inserted_after = next(i for i, x in enumerate(nb.cells) if _gid(x) == g)
                continue
            copy_ = NotebookNode({k: v for k, v in c.items() if k != "id"})
            copy_["id"] = f"restored-{g}"
            copy_.setdefault("metadata", NotebookNode())
            if copy_.get("cell_type") == "code":
                copy_["outputs"], copy_["execution_count"] = [], None
            nb.cells.insert(inserted_after + 1, copy_)
            inserted_after += 1
            have.add(g)
            restored.append(g)
        if restored:
            self.log.warning("%s: cells deleted from the notebook were put back as released: %s",
                             (resources.get("nbgrader") or {}).get("student"), ", ".join(restored))
            nb.metadata.setdefault("mwm", {})["restored"] = restored
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
        restored = list((nb.metadata.get("mwm") or {}).get("restored") or [])
        unreadable = (nb.metadata.get("mwm_collect") or {}).get("unreadable")
        notes = []  # what could not be graded, one line each, for the teacher
        if unreadable:
            notes.append(f"the notebook handed in could not be read ({unreadable}); it was graded as the "
                         "empty assignment (the file handed in is kept beside it, as .unreadable)")
        draw = resources.get(LAB_DRAW)   # the key the kernel's lab inputs were drawn with (GradingExecute)
        parts_restored = list(dict.fromkeys(_part_label(g) for g in restored
                                            if re.fullmatch(r"p\d\d-[a-z]-(answer|test)", g)))
        n_parts = sum(len(p.parts) for p in problems.values())
        if len(parts_restored) == n_parts:
            notes.append("every cell had been deleted from the notebook: they were put back empty, so no part "
                         "had an answer")
        elif parts_restored:
            notes.append("cells deleted from the notebook were put back empty, so these parts had no answer: "
                         + ", ".join(parts_restored))
        for cell in nb.cells:
            gid = _gid(cell)
            (cell.get("metadata") or {}).pop(JUDGED, None)  # only this step writes a verdict
            if gid == ID_CELL:
                note = "\n".join(n for n in [self._id_note(student, worked),
                                              *(f"Grading note: {n}." for n in notes)] if n)
                if note:
                    cell.outputs.append(NotebookNode(output_type="stream", name="stdout", text=note + "\n"))
                continue
            lab = LAB_CELL.fullmatch(gid)
            if lab and cell.get("cell_type") == "code":
                self._judge_lab(cell, lab.group(1), student, draw)
                continue
            m = PART_CELL.fullmatch(gid)
            if not m or cell.get("cell_type") != "code":
                continue
            problem = problems.get(f"p{m.group(2)}")
            parts = [p for p in problem.parts if p.letter == m.group(3)] if problem else []
            if not parts:
                cell.outputs = [_error(f"{gid}: no such part in the problems")]
                continue
            label = f"Problem {problem.number} ({parts[0].letter})"
            named = {}
            records = _records(cell, m.group(1))
            try:
                right, lines = judge_part(problem, parts[0], records, named)
            except Exception as exc:  # an answer record no check could read: the part is not right
                right, lines = False, [f"Problem {problem.number} ({parts[0].letter}): unreadable answer "
                                       f"record ({type(exc).__name__})."]
            # the verdict for the class report (mwm_grader.report), written by the teacher's process
            # over whatever the submitted cell carried
            cell.setdefault("metadata", NotebookNode())[JUDGED] = {
                "part": m.group(1), "right": bool(right), "blank": not records and label not in parts_restored,
                "restored": label in parts_restored, "mistakes": named}
            if label in parts_restored and not right:
                lines = [f"{label}: its answer cell or hand-in cell was deleted from the notebook, so nothing "
                         "was handed in (the cells are back, empty, in the graded notebook)."]
            if len(lines) == 1 and lines[0].startswith(label):  # nothing (or too much) handed in
                text = lines[0]
            else:
                text = "\n".join([f"{label}: {'right' if right else 'not right'}", *(f"  {ln}" for ln in lines)])
            cell.outputs = [NotebookNode(output_type="stream", name="stdout", text=text + "\n")] if right \
                else [_error(text)]
        nb.metadata.pop("mwm", None)
        nb.metadata.pop("mwm_collect", None)
        write_notes(resources, notes)
        name_by_id(resources, self.config.CourseDirectory.get("course_id", "default_course"))
        return nb, resources

    @staticmethod
    def _judge_lab(cell, slug: str, student, draw: str | None) -> None:
        """Replace a lab's hand-in cell's outputs with the verdict on its one record of calls (mwm_grader.labs.judge).

        The course library, whose functions are the labs' answers, is hidden from the kernel while
        the labs are graded (:func:`library_folders`), so no record can come from it.
        """
        from .labs import LABS, lab_label, verdict

        if slug not in LABS:
            cell.outputs = [_error(f"lab-{slug}-test: no such lab")]
            return
        label = lab_label(slug)
        mistakes = {}
        records = [out["data"][MIME_LAB] for out in cell.get("outputs", [])
                   if out.get("output_type") in ("display_data", "execute_result") and isinstance(out.get("data"), dict)
                   and MIME_LAB in out["data"]]
        mine = [r for r in records if isinstance(r, dict) and r.get("lab") == slug]
        if not records:
            right, lines = False, [f"{label}: nothing was handed in (the cell did not run, or stopped before)."]
        elif len(records) > 1:
            right, lines = False, [f"{label}: {len(records)} records in one hand-in cell; cannot tell which to grade."]
        elif len(mine) != 1:
            right, lines = False, [f"{label}: the record handed in is not this lab's."]
        elif draw is None:   # no sandboxed kernel drew this notebook's inputs: nothing to judge them by
            right, lines = False, [f"{label}: not graded: its inputs were not drawn by the grading's sandboxed run."]
        else:
            try:
                right, lines, slip = verdict(slug, student, mine[0].get("calls"), draw)
            except Exception as exc:  # a record no check could read: the lab is not right
                right, lines, slip = False, [f"{label}: unreadable record ({type(exc).__name__})."], None
            if slip is not None:   # for the class report: which catalogued mistake, by its key
                mistakes = {LABS[slug].function: slip.key}
        calls = mine[0].get("calls") if len(mine) == 1 else None
        unwritten = isinstance(calls, list) and bool(calls) and all(
            isinstance(c, dict) and str(c.get("error", "")).startswith("NotImplementedError") for c in calls)
        cell.setdefault("metadata", NotebookNode())[JUDGED] = {"part": f"lab-{slug}", "right": bool(right),
                                                               "blank": not records or unwritten, "restored": False,
                                                               "mistakes": mistakes}
        text = lines[0] if len(lines) == 1 and lines[0].startswith(label) else \
            "\n".join([f"{label}: {'right' if right else 'not right'}", *(f"  {ln}" for ln in lines)])
        cell.outputs = [NotebookNode(output_type="stream", name="stdout", text=text + "\n")] if right else [_error(text)]

    @staticmethod
    def _id_note(student, worked) -> str:
        if not worked:
            return ""
        if worked.get("self_study"):
            return (f"This notebook was worked in self-study (the website's numbers); it was graded on the "
                    f"numbers of {student!r}, the id it was submitted under.")
        if worked.get("id") is None:
            return (f"This notebook was worked on the website's numbers (no numbers of your own were found when it "
                    f"ran); it was graded on the numbers of {student!r}, the id it was submitted under.")
        if worked.get("id") != student:
            return (f"This notebook was worked under the id {worked.get('id')!r} but submitted by {student!r}: "
                    f"it was graded on the numbers of {student!r}.")
        return ""


#: Where the grading notes of a student are written, in the course folder: one line per note.
NOTES = "autograde-logs/{assignment}/{student}.notes.txt"


def write_notes(resources, notes: list[str]) -> None:
    """Write (or, with no notes, remove) the student's grading notes file (:data:`NOTES`) in the course folder."""
    root = _course_root(resources)
    info = resources.get("nbgrader") or {}
    if root is None or not info.get("student") or not info.get("assignment"):
        return
    path = root / NOTES.format(assignment=info["assignment"], student=info["student"])
    if notes:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"{n}\n" for n in notes), encoding="utf-8")
    elif path.exists():
        path.unlink()


def name_by_id(resources, course_id: str) -> None:
    """A student the gradebook knows by no name (no roster imported; a hub user) is named by their id.

    nbgrader's Formgrader lists such a student as "None, None", and ``nbgrader export`` with
    empty names. ``make roster`` puts a roster's names in; they are never overwritten here.
    """
    from nbgrader.api import Gradebook, MissingEntry

    info = resources.get("nbgrader") or {}
    if not info.get("db_url") or not info.get("student"):
        return
    with Gradebook(info["db_url"], course_id) as gb:
        try:
            student = gb.find_student(info["student"])
        except MissingEntry:
            return
        if student.first_name is None and student.last_name is None:
            gb.update_or_create_student(info["student"], last_name=info["student"], first_name="")


def _error(text: str) -> NotebookNode:
    first, *rest = text.split("\n", 1)
    return NotebookNode(output_type="error", ename="NotRight", evalue=first,
                        traceback=[f"NotRight: {text}"])
