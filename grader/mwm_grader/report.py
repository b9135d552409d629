"""The class report: after grading, one offline HTML page for the teacher.

nbgrader's Formgrader shows each student's scores; this page shows the class. It gives the
score distribution, each part's share right, the most frequent named mistakes per part (with
the hint of the mistakes catalogue, :mod:`mwm_grader.mistakes`), the parts most often left
blank, and the students needing attention, as plots and sortable tables.

Two sources, both read in the teacher's process after ``nbgrader autograde``:

* the gradebook, through nbgrader's own :class:`nbgrader.api.Gradebook` and the course's
  ``db_url`` (SQLite or PostgreSQL): each student's score and each part's points;
* the judged records, the ``mwm_judged`` metadata (:data:`mwm_grader.judge.JUDGED`) that
  :class:`~mwm_grader.judge.JudgeAnswers` writes into each hand-in cell of the autograded
  notebook: whether an answer was handed in, whether its cells had been deleted, and which
  slips of the catalogue its wrong answers matched (a part also counts as left blank when its
  answer cell holds nothing the student wrote, :func:`untouched_parts`);
* and each student's grading notes, ``autograde-logs/<assignment>/<student>.notes.txt``.

:func:`gather` reads them into a :class:`ClassSummary` (plain dataclasses);
:func:`render_html` turns a summary into the page, :func:`write_report` does both and writes
the file. ``grader/mwm_grader/class_report.py`` (``make report``) is the command.

Student ids, names, notes and anything read from a notebook are hostile data: on the page
every value is escaped with :func:`html.escape`; the only script is the page's own, allowed by
its hash in a Content-Security-Policy, and it reads only the tables' text (to sort them); the
plots are PNG images in ``data:`` URIs; nothing is loaded from anywhere, so the page works
offline. A judged record is read only from a hand-in cell of its own part, and only its
booleans and the catalogue's keys for that part are taken from it.
"""
from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import re
import statistics
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

__all__ = ["PartStats", "StudentRow", "ClassSummary", "ATTENTION_BELOW", "ATTENTION_BLANK", "attention_rule",
           "read_judged", "untouched_parts", "read_notes", "slip_hints", "gather", "render_html", "write_report", "csp",
           "SORT_SCRIPT"]

#: A student whose score is below this share of the maximum needs attention.
ATTENTION_BELOW = 0.5
#: A student who left at least this share of the parts blank needs attention.
ATTENTION_BLANK = 0.25
#: Characters of a student's grading notes shown on the page (the rest is cut, said so).
NOTES_LIMIT = 2000

_PART = re.compile(r"p(\d\d)-([a-z])")
_ANSWER_CELL = re.compile(r"(p\d\d-[a-z])-answer")


@dataclass
class PartStats:
    """One graded part across the class.

    Attributes:
        part: its id, ``"p01-a"`` (the hand-in cell's grade id without ``-test``).
        label: ``"Problem 1 (a)"``.
        points: its points.
        graded: submissions graded on it.
        right: submissions with full points on it (from the gradebook).
        blank: submissions that left it blank (no answer handed in, or nothing written in its answer cell).
        restored: submissions whose cells for it had been deleted (and were put back).
        mistakes: slip key -> submissions whose answer matched that catalogue slip here.
    """

    part: str
    label: str
    points: float
    graded: int = 0
    right: int = 0
    blank: int = 0
    restored: int = 0
    mistakes: dict[str, int] = field(default_factory=dict)

    @property
    def share_right(self) -> float | None:
        """right / graded, or None when no submission was graded."""
        return self.right / self.graded if self.graded else None


@dataclass
class StudentRow:
    """One student of the gradebook.

    Attributes:
        student: the student id.
        name: "First Last" from the gradebook ("" when it holds none but the id).
        submitted: whether the gradebook holds a graded submission.
        score, max_score: points (score None without a submission).
        right: part ids with full points.
        blank: part ids left blank: no answer handed in (judged records), or an answer cell with
            nothing written in it (:func:`untouched_parts`).
        restored: part ids whose cells had been deleted.
        mistakes: part id -> {answer name: slip key} (judged records).
        judged: whether judged records were found in the autograded notebook.
        notes: the grading notes' lines (autograde-logs).
        attention: why the student needs attention (empty: they do not).
    """

    student: str
    name: str = ""
    submitted: bool = False
    score: float | None = None
    max_score: float = 0.0
    right: list[str] = field(default_factory=list)
    blank: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    mistakes: dict[str, dict[str, str]] = field(default_factory=dict)
    judged: bool = False
    notes: list[str] = field(default_factory=list)
    attention: list[str] = field(default_factory=list)


@dataclass
class ClassSummary:
    """Everything the page shows, computed from the gradebook and the judged records.

    Attributes:
        course_id, assignment: what was graded.
        max_score: the assignment's points.
        parts: part id -> :class:`PartStats`, in the assignment's order.
        students: one :class:`StudentRow` per student of the gradebook, by id.
        hints: (part id, slip key) -> the slip's hint, from the mistakes catalogue.
        below, blank_share: the attention thresholds used (:func:`attention_rule`).
    """

    course_id: str
    assignment: str
    max_score: float
    parts: dict[str, PartStats]
    students: list[StudentRow]
    hints: dict[tuple[str, str], str] = field(default_factory=dict)
    below: float = ATTENTION_BELOW
    blank_share: float = ATTENTION_BLANK

    @property
    def submitted(self) -> list[StudentRow]:
        """The students with a graded submission."""
        return [s for s in self.students if s.submitted]

    @property
    def attention(self) -> list[StudentRow]:
        """The students needing attention, lowest score first."""
        return sorted((s for s in self.students if s.attention),
                      key=lambda s: (s.score is not None, s.score or 0.0, s.student))

    def top_mistakes(self, n: int | None = None) -> list[tuple[str, str, int]]:
        """The named mistakes, most frequent first: (part id, slip key, submissions), at most ``n``."""
        found = [(p.part, key, count) for p in self.parts.values() for key, count in p.mistakes.items() if count]
        found.sort(key=lambda t: (-t[2], list(self.parts).index(t[0]), t[1]))
        return found[:n] if n is not None else found

    def most_blank(self, n: int | None = None) -> list[PartStats]:
        """The parts left blank by at least one submission, most often first, at most ``n``."""
        found = sorted((p for p in self.parts.values() if p.blank), key=lambda p: (-p.blank, list(self.parts).index(p.part)))
        return found[:n] if n is not None else found


def attention_rule(below: float = ATTENTION_BELOW, blank_share: float = ATTENTION_BLANK,
                   assignment: str = "practice") -> str:
    """The rule for "needing attention", in words (as the page states it).

    Args:
        below: a score below this share of the maximum counts.
        blank_share: leaving at least this share of the parts blank counts.
        assignment: the assignment's id (it names the notes files).

    Returns:
        str: one sentence.

    Raises:
        Nothing.
    """
    return (f"A student needs attention when their score is below {below:.0%} of the maximum, or they left "
            f"at least {blank_share:.0%} of the parts blank (nothing written in the answer cell, or no answer handed "
            "in), or grading left notes on "
            f"their notebook (autograde-logs/{assignment}/<id>.notes.txt: deleted cells, a notebook that could "
            "not be read), or the gradebook lists them without a graded submission.")


def _part_label(part: str) -> str:
    m = _PART.fullmatch(part)
    if m:
        return f"Problem {int(m.group(1))} ({m.group(2)})"
    if part.startswith("lab-"):   # a coding lab: its number and function, as its hand-in cell says
        from .labs import LABS, lab_label

        if part[len("lab-"):] in LABS:
            return lab_label(part[len("lab-"):])
    return part


def _part_order(grade_cell: str) -> tuple:
    """Problems by id, then the coding labs in their numbers' order (not their names')."""
    if grade_cell.startswith("lab-"):
        from .labs import LABS

        slug = grade_cell[len("lab-"):].removesuffix("-test")
        return (1, list(LABS).index(slug) if slug in LABS else len(LABS), grade_cell)
    return (0, 0, grade_cell)


def _short(part: str) -> str:
    m = _PART.fullmatch(part)
    return f"{int(m.group(1))}{m.group(2)}" if m else part


def _load(notebook: Path):
    return json.loads(Path(notebook).read_text(encoding="utf-8"))


def _code_cells(nb):
    """(grade id, cell) of every code cell of a parsed notebook that has a grade id (untrusted JSON)."""
    cells = nb.get("cells") if isinstance(nb, dict) else None
    for cell in cells if isinstance(cells, list) else []:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code" or not isinstance(cell.get("metadata"), dict):
            continue
        grading = cell["metadata"].get("nbgrader")
        gid = grading.get("grade_id") if isinstance(grading, dict) else None
        if isinstance(gid, str):
            yield gid, cell


def _judged(nb) -> dict[str, dict]:
    from .judge import JUDGED
    from .untrusted import judged_record

    found: dict[str, dict] = {}
    for gid, cell in _code_cells(nb):
        record = judged_record(cell["metadata"].get(JUDGED), gid)
        if record is not None and record["part"] not in found:
            found[record.pop("part")] = record
    return found


def _untouched(nb) -> set[str]:
    found = set()
    for gid, cell in _code_cells(nb):
        m = _ANSWER_CELL.fullmatch(gid)
        source = cell.get("source")
        source = "".join(source) if isinstance(source, list) and all(isinstance(x, str) for x in source) else source
        if not m or not isinstance(source, str):
            continue
        code = [ln.strip() for ln in source.splitlines() if ln.strip() and not ln.strip().startswith("#")]
        if code in ([], ["raise NotImplementedError()"]):
            found.add(m.group(1))
    return found


def read_judged(notebook: Path) -> dict[str, dict]:
    """The judged records of one autograded notebook: part id -> record.

    Only a code cell whose nbgrader grade id is ``pNN-x-test`` is read, only a record naming
    that same part is taken, and only its fields of the expected types
    (:func:`mwm_grader.untrusted.judged_record`, the form the grading keeps); the first record of a part wins.

    Args:
        notebook: path of the autograded ``.ipynb``.

    Returns:
        dict part id -> {"right": bool, "blank": bool, "restored": bool, "mistakes": {answer: key}};
        empty when the file holds no records.

    Raises:
        OSError: the file cannot be read.
        ValueError: it is not JSON (``json.JSONDecodeError``).
    """
    return _judged(_load(notebook))


def _read_notebook(path: Path) -> tuple[dict, set] | None:
    """(:func:`read_judged`, :func:`untouched_parts`) of one autograded notebook, parsed once, or None if it cannot be
    read (missing, not JSON, not a notebook, or nested deeper than Python's parser goes): one bad file is skipped."""
    try:
        nb = _load(path)
        return _judged(nb), _untouched(nb)
    except (OSError, ValueError, RecursionError):
        return None


def untouched_parts(notebook: Path) -> set[str]:
    """The parts whose answer cell (grade id ``pNN-x-answer``) holds nothing the student wrote.

    Such a cell holds only comments, blank lines and nbgrader's placeholder
    ``raise NotImplementedError()``: the cell as released, or emptied. Its part still hands in an
    answer record (the notebook sets every answer to ``None`` first), so the judge alone does not
    call it blank.

    Args:
        notebook: path of the autograded ``.ipynb``.

    Returns:
        set of part ids (``"p01-a"``).

    Raises:
        OSError: the file cannot be read.
        ValueError: it is not JSON (``json.JSONDecodeError``).
    """
    return _untouched(_load(notebook))


def read_notes(course: Path, assignment: str, student: str) -> list[str]:
    """A student's grading notes (``autograde-logs/<assignment>/<student>.notes.txt``), one line each.

    Args:
        course: the course folder.
        assignment: the assignment's id.
        student: the student id (an id that is not a plain file name gives no notes).

    Returns:
        list of str, empty when there is no notes file; at most :data:`NOTES_LIMIT` characters in all.

    Raises:
        Nothing: a notes file that cannot be read gives no notes.
    """
    from .judge import NOTES

    if not student or Path(student).name != student or student in (".", ".."):
        return []
    path = Path(course) / NOTES.format(assignment=assignment, student=student)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    if len(text) > NOTES_LIMIT:
        text = text[:NOTES_LIMIT] + " [cut]"
    return [line for line in text.splitlines() if line.strip()]


def slip_hints(student: str | None = None) -> dict[tuple[str, str], str]:
    """The hint of every catalogue slip: (part id, slip key) -> hint, with ``student``'s numbers.

    Args:
        student: a student id, or None for the website's numbers (a hint names the slip, never
            a number of the answer, so the numbers seldom matter; a slip that only some students'
            numbers admit is looked up with theirs).

    Returns:
        dict.

    Raises:
        RuntimeError: a problem of the course cannot be built (the library lacks it).
    """
    from . import mistakes, problems
    from .variants import numbers_for

    built, missing = problems.build_all(numbers_for(student))
    if missing:
        raise RuntimeError(f"problems missing from the library: {missing}")
    from .labs import WRONG

    hints = {(f"{p.slug}-{letter}", m.key): m.hint
             for p in built for letter, entries in mistakes.catalogue(p).items() for m in entries}
    hints.update({(f"lab-{slug}", w.key): w.hint for slug, wrongs in WRONG.items() for w in wrongs})
    return hints


def _autograded_notebooks(course: Path, autograded: str, student: str, assignment: str) -> list[Path]:
    if not student or Path(student).name != student or student in (".", ".."):
        return []
    folder = Path(course) / autograded / student / assignment
    return sorted(folder.glob("*.ipynb")) if folder.is_dir() else []


def gather(course: Path, db_url: str, course_id: str, assignment: str = "practice", *,
           autograded: str = "autograded", below: float = ATTENTION_BELOW,
           blank_share: float = ATTENTION_BLANK) -> ClassSummary:
    """Read the gradebook, the judged records and the grading notes into a :class:`ClassSummary`.

    Args:
        course: the course folder (``exercises/``): the autograded notebooks are in
            ``<course>/<autograded>/<student>/<assignment>/``, the notes in ``autograde-logs/``.
        db_url: the gradebook's SQLAlchemy URL (the course's ``CourseDirectory.db_url``).
        course_id: the course's id in the gradebook.
        assignment: the assignment's id.
        autograded: the autograded folder's name (``CourseDirectory.autograded_directory``).
        below, blank_share: the attention thresholds (:func:`attention_rule`).

    Returns:
        ClassSummary: the part statistics count submissions (a student without one is listed,
        and needs attention, but counts in no share).

    Raises:
        nbgrader.api.MissingEntry: the gradebook has no such assignment.
        sqlalchemy.exc.OperationalError: the gradebook cannot be reached.
        RuntimeError: a problem of the course cannot be built (for the catalogue's hints).
    """
    from nbgrader.api import Gradebook, MissingEntry

    parts: dict[str, PartStats] = {}
    students: list[StudentRow] = []
    with Gradebook(db_url, course_id) as gb:
        found = gb.find_assignment(assignment)
        max_score = float(found.max_score or 0)
        cells = [(gc.name, float(gc.max_score or 0)) for nb in found.notebooks for gc in nb.grade_cells]
        for name, points in sorted(cells, key=lambda c: _part_order(c[0])):
            part = name[:-len("-test")] if name.endswith("-test") else name
            parts[part] = PartStats(part, _part_label(part), points)
        for st in sorted(gb.students, key=lambda s: s.id):
            name = " ".join(x for x in (st.first_name, st.last_name) if x)
            row = StudentRow(st.id, "" if name == st.id else name, max_score=max_score)
            try:
                sub = gb.find_submission(assignment, st.id)
            except MissingEntry:
                students.append(row)
                continue
            row.submitted, row.score = True, float(sub.score or 0)
            for nb in sub.notebooks:
                for g in nb.grades:
                    part = g.name[:-len("-test")] if g.name.endswith("-test") else g.name
                    if part not in parts:
                        continue
                    parts[part].graded += 1
                    if g.max_score and (g.score or 0) >= g.max_score:
                        parts[part].right += 1
                        row.right.append(part)
            students.append(row)

    hints = slip_hints(None)
    for row in students:
        if not row.submitted:
            continue
        judged: dict[str, dict] = {}
        untouched: set[str] = set()
        for path in _autograded_notebooks(course, autograded, row.student, assignment):
            read = _read_notebook(path)
            if read is None:
                continue
            for part, record in read[0].items():
                judged.setdefault(part, record)
            untouched |= read[1]
        row.judged = bool(judged)
        own_hints = None
        for part, record in judged.items():
            if part not in parts:
                continue
            if record["blank"] or (part in untouched and not record["right"]):
                row.blank.append(part)
                parts[part].blank += 1
            if record["restored"]:
                row.restored.append(part)
                parts[part].restored += 1
            named = {}
            for answer, key in record["mistakes"].items():
                if (part, key) not in hints:  # a slip only this student's numbers admit
                    own_hints = own_hints if own_hints is not None else slip_hints(row.student)
                    if (part, key) not in own_hints:
                        continue  # not a slip of the catalogue: not counted
                    hints[(part, key)] = own_hints[(part, key)]
                named[answer] = key
            if named:
                row.mistakes[part] = named
                counts = parts[part].mistakes
                for key in dict.fromkeys(named.values()):  # a student counts once per slip and part
                    counts[key] = counts.get(key, 0) + 1
        for lst in (row.blank, row.restored):
            lst.sort(key=list(parts).index)
        row.notes = read_notes(course, assignment, row.student)

    named = {(p.part, key) for p in parts.values() for key in p.mistakes}
    summary = ClassSummary(course_id, assignment, max_score, parts, students,
                           {k: v for k, v in hints.items() if k in named}, below, blank_share)
    for row in students:
        row.attention = _reasons(row, len(parts), below, blank_share)
    return summary


def _reasons(row: StudentRow, n_parts: int, below: float, blank_share: float) -> list[str]:
    if not row.submitted:
        return ["no graded submission"]
    reasons = []
    if row.max_score and (row.score or 0) < below * row.max_score:
        reasons.append(f"score below {below:.0%} of the maximum")
    if n_parts and len(row.blank) >= blank_share * n_parts:
        reasons.append(f"{len(row.blank)} of {n_parts} parts left blank")
    if row.notes:
        reasons.append("grading notes")
    return reasons


# --------------------------------------------------------------------------------------
# The plots (matplotlib, drawn without pyplot, as PNG data URIs)
# --------------------------------------------------------------------------------------
RIGHT, WRONG, BLANK = "#1b7837", "#d95f02", "#b8b8b8"


def _png(fig) -> str:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=96, metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.add_subplot()


def _plot_scores(summary: ClassSummary) -> str | None:
    scores = [s.score for s in summary.submitted]
    if not scores:
        return None
    fig, ax = _figure(6.4, 2.8)
    top = summary.max_score or max(scores) or 1.0
    bins = min(25, max(5, int(top))) if top >= 5 else 5
    ax.hist(scores, bins=bins, range=(0, top), color="#4063a8", edgecolor="white")
    ax.axvline(summary.below * top, color=WRONG, linestyle="--", linewidth=1.5)
    ax.text(summary.below * top, ax.get_ylim()[1] * 0.95, f" {summary.below:.0%} of the maximum", color=WRONG,
            va="top", fontsize=8)
    ax.set_xlabel(f"score (out of {top:g})")
    ax.set_ylabel("students")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


def _plot_parts(summary: ClassSummary) -> str | None:
    parts = [p for p in summary.parts.values() if p.graded]
    if not parts:
        return None
    fig, ax = _figure(10, 3.0)
    x = range(len(parts))
    right = [p.right / p.graded for p in parts]
    blank = [p.blank / p.graded for p in parts]
    wrong = [max(0.0, 1 - r - b) for r, b in zip(right, blank)]
    ax.bar(x, right, color=RIGHT, label="right", width=0.8)
    ax.bar(x, wrong, bottom=right, color=WRONG, label="not right", width=0.8)
    ax.bar(x, blank, bottom=[r + w for r, w in zip(right, wrong)], color=BLANK, label="left blank", width=0.8)
    ax.set_xticks(list(x), [_short(p.part) for p in parts], rotation=90, fontsize=7)
    ax.set_xlim(-0.6, len(parts) - 0.4)
    ax.set_ylim(0, 1)
    ax.yaxis.set_major_formatter(lambda v, _pos: f"{v:.0%}")
    ax.set_ylabel("submissions")
    ax.legend(ncols=3, loc="lower left", bbox_to_anchor=(0, 1.0), frameon=False, fontsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


def _plot_bars(labels: list[str], values: list[int], color: str, xlabel: str) -> str | None:
    if not labels:
        return None
    fig, ax = _figure(6.4, 0.6 + 0.26 * len(labels))
    y = range(len(labels))
    ax.barh(list(y), values, color=color)
    ax.set_yticks(list(y), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


# --------------------------------------------------------------------------------------
# The page
# --------------------------------------------------------------------------------------
#: The page's one script: sorts a table by a column when its header's button is pressed. It reads
#: only the cells' text (``textContent``) and moves rows; it writes no markup.
SORT_SCRIPT = """
(function () {
  function value(row, col) {
    var text = row.cells[col] ? row.cells[col].textContent.trim() : "";
    var m = /^-?\\d+(\\.\\d+)?%?$/.exec(text);
    return m ? {num: parseFloat(text), text: text} : {num: null, text: text};
  }
  function compare(a, b) {
    if (a.num !== null && b.num !== null) return a.num - b.num;
    if (a.num !== null) return -1;
    if (b.num !== null) return 1;
    return a.text.localeCompare(b.text, undefined, {numeric: true});
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      var button = th.querySelector("button");
      if (!button) return;
      button.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r, s) {
          var c = compare(value(r, col), value(s, col));
          return ascending ? c : -c;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
})();
"""

STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d1d1f;
       max-width: 72rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.6rem; margin: 0.5rem 0 0.25rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 0.5rem; border-bottom: 1px solid #ddd; padding-bottom: 0.2rem; }
.meta { color: #555; margin: 0; }
.figures { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
img { max-width: 100%; height: auto; }
.key { display: flex; flex-wrap: wrap; gap: 0.5rem 2rem; margin: 0.75rem 0; padding: 0; list-style: none; }
.key li { background: #f3f5f9; border-radius: 6px; padding: 0.35rem 0.75rem; }
.key b { font-size: 1.25rem; }
.warn { background: #fff4e5; border-left: 4px solid #d95f02; padding: 0.5rem 0.75rem; }
.rule { color: #333; font-size: 0.95rem; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.9rem; margin: 0.5rem 0; }
caption { text-align: left; color: #555; padding-bottom: 0.25rem; }
th, td { border-bottom: 1px solid #e2e2e2; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
th, td:first-child, td code { white-space: nowrap; }
th button { font: inherit; font-weight: 600; border: 0; background: none; padding: 0; cursor: pointer; color: inherit; }
th button::after { content: " \\2195"; color: #999; }
th[aria-sort="ascending"] button::after { content: " \\2191"; color: #333; }
th[aria-sort="descending"] button::after { content: " \\2193"; color: #333; }
tbody tr:nth-child(even) { background: #fafafa; }
.attn { color: #a33b00; }
code { font-size: 0.88em; }
ul.notes { margin: 0; padding-left: 1.1rem; }
"""


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def csp() -> str:
    """The page's Content-Security-Policy: nothing but its own inline style and script (by hash) and ``data:`` images.

    Returns:
        str, the value of the ``<meta http-equiv="Content-Security-Policy">`` tag.

    Raises:
        Nothing.
    """
    return (f"default-src 'none'; script-src {_sha256(SORT_SCRIPT)}; style-src {_sha256(STYLE)}; img-src data:; "
            "base-uri 'none'; form-action 'none'")


def _e(value) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _num(value: float | None, digits: int = 1) -> str:
    if value is None:
        return ""
    return f"{value:.{digits}f}".rstrip("0").rstrip(".") if digits else f"{value:.0f}"


def _pct(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.0f}%"


_N = ' class="n"'


def _table(caption: str, heads: list[tuple[str, bool]], rows: list[list[tuple[str, bool]]], sortable=True) -> str:
    """A table; ``heads`` and cells are (already escaped HTML, numeric?) pairs."""
    th = "".join(f'<th scope="col"{_N if num else ""}>'
                 + (f'<button type="button">{text}</button>' if sortable else text) + "</th>" for text, num in heads)
    body = "".join("<tr>" + "".join(f'<td{_N if num else ""}>{text}</td>' for text, num in row) + "</tr>"
                   for row in rows)
    cls = ' class="sortable"' if sortable else ""
    return (f'<div class="scroll"><table{cls}><caption>{caption}</caption><thead><tr>{th}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


def _img(uri: str | None, alt: str) -> str:
    return f'<img src="{_e(uri)}" alt="{_e(alt)}">' if uri else ""


def render_html(summary: ClassSummary, *, when: datetime | None = None, top: int = 15) -> str:
    """The report as one HTML page (offline: plots inline, no external resource).

    Args:
        summary: what :func:`gather` returned (or one built by hand).
        when: the time the page says it was written (default: now).
        top: how many named mistakes and blank parts the plots show.

    Returns:
        str: the page. Every value from the gradebook, a notebook or a notes file is escaped
        with :func:`html.escape`; its only script is :data:`SORT_SCRIPT`, allowed by hash
        (:func:`csp`).

    Raises:
        Nothing for any summary :func:`gather` returns.
    """
    when = when or datetime.now(timezone.utc)
    subs = summary.submitted
    scores = [s.score for s in subs]
    n_parts = len(summary.parts)
    order = list(summary.parts)
    hint = summary.hints

    key = [("students in the gradebook", len(summary.students)), ("graded submissions", len(subs)),
           ("maximum", _num(summary.max_score))]
    if scores:
        key += [("mean score", _num(statistics.fmean(scores))), ("median", _num(statistics.median(scores))),
                ("full marks", sum(1 for s in scores if s >= summary.max_score > 0))]
    key.append(("needing attention", len(summary.attention)))
    out = [f'<ul class="key">{"".join(f"<li>{_e(k)}: <b>{_e(v)}</b></li>" for k, v in key)}</ul>']
    unjudged = [s.student for s in subs if not s.judged]
    if unjudged:
        out.append(f'<p class="warn">{len(unjudged)} graded submission(s) have no judged records in their autograded '
                   "notebook, so their blank parts and named mistakes are not counted: "
                   f"{_e(', '.join(unjudged[:20]))}{' …' if len(unjudged) > 20 else ''}. Grade them again "
                   "(<code>make grade FORCE=1</code>) to count them.</p>")

    # students needing attention
    out.append('<h2 id="attention">Students needing attention</h2>')
    out.append(f'<p class="rule">{_e(attention_rule(summary.below, summary.blank_share, summary.assignment))}</p>')
    rows = [[(_e(s.student), False), (_e(s.name), False),
             (_e(_num(s.score)), True), (_e(_pct(s.score / s.max_score if s.max_score and s.score is not None else None)), True),
             (_e(len(s.blank)) if s.submitted else "", True), (_e("; ".join(s.attention)), False),
             (_notes(s.notes), False)] for s in summary.attention]
    out.append(_table(f"{len(rows)} student(s), lowest score first", [
        ("Student", False), ("Name", False), ("Score", True), ("Share", True), ("Blank", True), ("Why", False),
        ("Grading notes", False)], rows) if rows else "<p>No student needs attention.</p>")

    # scores
    out.append('<h2 id="scores">Score distribution</h2>')
    out.append(_img(_plot_scores(summary), f"Histogram of the {len(subs)} graded scores out of {_num(summary.max_score)}; "
                    f"the dashed line marks {summary.below:.0%} of the maximum."))

    # named mistakes
    found = summary.top_mistakes()
    out.append('<h2 id="mistakes">Named mistakes</h2>')
    out.append('<p class="rule">A wrong answer is named when its value is what a common slip of the mistakes '
               "catalogue gives with the student's own numbers (the hint is what the student's feedback said).</p>")
    if found:
        out.append(_img(_plot_bars([f"{_short(p)}  {k}" for p, k, _c in found[:top]], [c for _p, _k, c in found[:top]],
                                   WRONG, "submissions"),
                        f"The {min(top, len(found))} most frequent named mistakes, by part and slip."))
        rows = [[(_e(summary.parts[p].label), False), (f"<code>{_e(k)}</code>", False), (_e(c), True),
                 (_e(_pct(c / len(subs) if subs else None)), True), (_e(hint.get((p, k), "")), False)]
                for p, k, c in found]
        out.append(_table(f"{len(found)} slips named, most frequent first", [
            ("Part", False), ("Slip", False), ("Submissions", True), ("Share", True), ("Hint", False)], rows))
    else:
        out.append("<p>No wrong answer matched a slip of the catalogue.</p>")

    # parts
    out.append('<h2 id="parts">Each part</h2>')
    out.append(_img(_plot_parts(summary), "For each part, the share of submissions right, not right and left blank."))
    rows = []
    for p in summary.parts.values():
        common = sorted(p.mistakes.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        rows.append([(_e(p.label), False), (_e(_num(p.points)), True), (_e(p.right), True),
                     (_e(_pct(p.share_right)), True), (_e(p.blank), True), (_e(p.restored), True),
                     (_e("; ".join(f"{k} ({c})" for k, c in common)), False)])
    out.append(_table(f"{n_parts} parts; shares are of the {len(subs)} graded submissions", [
        ("Part", False), ("Points", True), ("Right", True), ("Share right", True), ("Left blank", True),
        ("Cells deleted", True), ("Most frequent named mistakes", False)], rows))

    # blank parts
    blank = summary.most_blank()
    out.append('<h2 id="blank">Parts most often left blank</h2>')
    if blank:
        out.append(_img(_plot_bars([p.label for p in blank[:top]], [p.blank for p in blank[:top]], BLANK, "submissions"),
                        f"The {min(top, len(blank))} parts most often left blank."))
        rows = [[(_e(p.label), False), (_e(p.blank), True), (_e(_pct(p.blank / p.graded if p.graded else None)), True)]
                for p in blank]
        out.append(_table(f"{len(blank)} parts left blank at least once", [
            ("Part", False), ("Left blank", True), ("Share", True)], rows))
    else:
        out.append("<p>No part was left blank.</p>")

    # every student
    out.append('<h2 id="students">Every student</h2>')
    rows = []
    for s in summary.students:
        slips = "; ".join(f"{_short(p)} {k}" for p in order if p in s.mistakes for k in dict.fromkeys(s.mistakes[p].values()))
        rows.append([(_e(s.student), False), (_e(s.name), False), (_e(_num(s.score)), True),
                     (_e(_pct(s.score / s.max_score if s.max_score and s.score is not None else None)), True),
                     (_e(len(s.right)) if s.submitted else "", True), (_e(len(s.blank)) if s.submitted else "", True),
                     (_e(slips), False), (_notes(s.notes), False), (_e("yes" if s.attention else ""), False)])
    out.append(_table(f"{len(summary.students)} students; press a column's name to sort", [
        ("Student", False), ("Name", False), ("Score", True), ("Share", True), ("Parts right", True),
        ("Left blank", True), ("Named mistakes", False), ("Grading notes", False), ("Attention", False)], rows))

    title = f"Class report: {summary.assignment}"
    nav = " · ".join(f'<a href="#{a}">{t}</a>' for a, t in [
        ("attention", "attention"), ("scores", "scores"), ("mistakes", "named mistakes"), ("parts", "parts"),
        ("blank", "blank parts"), ("students", "every student")])
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{_e(csp())}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(title)}</title>\n<style>{STYLE}</style></head>\n<body>\n"
        f"<h1>{_e(title)}</h1>\n"
        f'<p class="meta">Course {_e(summary.course_id)}, written {_e(when.strftime("%Y-%m-%d %H:%M %Z").strip())} '
        f"from the gradebook and the judged notebooks. {nav}</p>\n"
        + "\n".join(out) + f"\n<script>{SORT_SCRIPT}</script>\n</body></html>\n")


def _notes(notes: list[str]) -> str:
    if not notes:
        return ""
    return '<ul class="notes">' + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul>"


def write_report(summary: ClassSummary, out: Path, **kwargs) -> Path:
    """Write :func:`render_html`'s page for ``summary`` to ``out`` (its folder is made).

    Args:
        summary: a :class:`ClassSummary`.
        out: the file to write.
        **kwargs: passed on to :func:`render_html`.

    Returns:
        Path: ``out``.

    Raises:
        OSError: the file cannot be written.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_html(summary, **kwargs), encoding="utf-8")
    return out
