"""Regenerate the practice problems from their numbers: one command for teachers.

Usage (from the project root; ``make exercises`` runs the first form):

    mwm-exercises            # rebuild everything
    mwm-exercises --check    # rebuild in a temporary folder and
                                                          # compare with the committed files

Everything is rebuilt from ``grader/mwm_grader/problems/`` (the numbers live in its
``NUMBERS``, the words in its templates; every expected value is computed by ``mwm``):

0. ``lib/mwm_practice/website_view.json``: the website's view of the problems
   (:func:`mwm_grader.views.website_view`), which ``Practice(self_study=True)`` and a notebook
   without a student's view read.
1. ``exercises/source/practice/practice.ipynb``: the instructor version. Each problem
   has a statement, a cell giving its numbers, and per part an answer cell (the worked
   solution between ``### BEGIN SOLUTION`` / ``### END SOLUTION``) and a locked hand-in cell
   (``practice.hand_in``: the answers handed to the grader as data, their form checked in the
   kernel, and the first part's value), with nbgrader metadata: unique grade ids, points per
   part. It is executed, so the solutions' outputs are stored.
2. nbgrader's own ``generate_assignment`` writes the student version to
   ``exercises/release/practice/`` (and records the assignment in ``exercises/gradebook.db``).
3. nbgrader's own ``generate_solution`` writes ``exercises/solution/practice/practice.ipynb``;
   the worked solutions, step by step (with the website's numbers), are then added under each
   problem. Its code computes from the given values of the notebook it runs in, so the one
   notebook scores full marks under every student id (tests/test_solutions_every_id.py).
4. ``exercises/solution/answer-key.html``: every answer and every worked solution on one page;
   ``exercises/mistakes.md``: the mistakes catalogue (:mod:`mwm_grader.mistakes`), each part's
   common slips, how their values are computed and the hint the feedback gives.
5. The website's practice pages, ``practice/*.md``, and the student notebook they offer
   for download, ``practice/downloads/practice.ipynb``.

release/, solution/ and gradebook.db are build outputs (git ignores them); the website's view,
source/, mistakes.md and practice/ are committed, and ``--check`` (run by the tests) fails if they are stale.
"""
from __future__ import annotations

import argparse
import filecmp
import html
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from . import COURSE_ROOT  # noqa: E402

ROOT = COURSE_ROOT
COURSE = ROOT / "exercises"
SITE = ROOT / "practice"
#: The website's view of the problems, shipped inside the student's package (``mwm_practice``).
WEBSITE_VIEW = ROOT / "lib" / "mwm_practice" / "website_view.json"
KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}


# --------------------------------------------------------------------------------------
# Loading the problems
# --------------------------------------------------------------------------------------
def load_problems_module():
    """The problems' module, :mod:`mwm_grader.problems`."""
    from mwm_grader import problems

    return problems


# --------------------------------------------------------------------------------------
# Cells
# --------------------------------------------------------------------------------------
def _meta(grade_id: str, *, grade=False, solution=False, locked=False, points=None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
            "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    return {"nbgrader": meta}


def _markdown(grade_id, text, **kw):
    cell = nbformat.v4.new_markdown_cell(text, metadata=_meta(grade_id, **kw))
    cell.id = grade_id
    return cell


def _code(grade_id, source, **kw):
    cell = nbformat.v4.new_code_cell(source, metadata=_meta(grade_id, **kw))
    cell.id = grade_id
    return cell


def test_source(problem, part, first: bool) -> str:
    """The hand-in cell of a part: it hands the answers to the grader and checks their form here."""
    pts = f"{part.points} point{'s' if part.points != 1 else ''}"
    if first:
        head = f"# Problem {problem.number} ({part.letter}): hand in your answer ({pts}); its value is checked here"
    else:
        head = (f"# Problem {problem.number} ({part.letter}): hand in your answer ({pts}); its form is checked "
                "here, its value when your work is graded")
    args = ", ".join(f"{a.name}={a.name}" for a in part.answers)
    return f"{head}\npractice.hand_in({problem.slug + '-' + part.letter!r}, {args})"


def _answers_line(part) -> str:
    return "set " + ", ".join(f"{a.name} ({a.what})" for a in part.answers)


def statement_markdown(problem, heading="##") -> str:
    """A problem's statement with its numbers (the website's pages and the answer key)."""
    from .views import problem_markdown

    return f"{heading} Problem {problem.number}. {problem.title}\n\n{problem_markdown(problem)}"


def problem_cells(problem) -> list:
    """The instructor cells of one problem: its title, the cell that shows it with the student's
    numbers, and per part an answer cell and a hand-in cell."""
    from mwm_practice.notebook import given_names

    s = problem.slug
    names = [a.name for a in problem.answers if a.kind != "function"]
    funcs = [a.name for a in problem.answers if a.kind == "function"]
    given = given_names(problem.given)
    reset = ""
    if names:
        reset += "\n" + " = ".join(names) + " = None  # your answers: set them in the cells below"
    if funcs:
        reset += "\n" + " = ".join(funcs) + " = None  # your function: define it below"
    unpack = ", ".join(given) + " = " + ", ".join(f"given.{n}" for n in given)
    cells = [
        _markdown(f"{s}-statement", f"## Problem {problem.number}. {problem.title}\n\n"
                                    "Run the next cell: it shows the problem with your numbers.", locked=True),
        _code(f"{s}-given", f"# Problem {problem.number}: the problem with your numbers (run this cell first)\n"
                            f"given = practice.problem({problem.number})\n{unpack}{reset}", locked=True),
    ]
    for i, part in enumerate(problem.parts):
        cells.append(_code(
            f"{s}-{part.letter}-answer",
            f"# Problem {problem.number} ({part.letter}): {_answers_line(part)}\n"
            f"### BEGIN SOLUTION\n{part.solution}\n### END SOLUTION",
            solution=True))
        cells.append(_code(f"{s}-{part.letter}-test", test_source(problem, part, i == 0),
                           grade=True, locked=True, points=part.points))
    return cells


HEADER = """# Practice problems: Machines with Memory

{intro}

**Your own numbers.** Every student gets the same problems with numbers of their own, made
from their student id: run the first code cell, and it says which id it found. Each problem
then starts with a cell that shows the problem with your numbers and sets them; run it.

**How to work.** Take the problems in order. In each answer cell, replace the two lines
`# YOUR CODE HERE` and `raise NotImplementedError()` with your working, ending with the variables
named in the cell's first line, then run the hand-in cell below it. {checks} Work from the given
variables rather than typing numbers in: your answers then follow your numbers. Give numbers at
the precision the question asks for, or better; more digits never hurt.

{before}

{contents}
"""


CHECKS = ("It checks at once that every\nanswer has the right form (a number, a list of two numbers, a whole number, "
          "one of the listed\nwords) and checks the value of each problem's first part; the other values are "
          "judged when\nyour work is graded, part by part: a slip costs the parts that use it, not the whole "
          "problem.")
BEFORE = ("Before you submit, restart the kernel and run every cell (or press *Validate*), so that your\n"
          "answers do not depend on cells run out of order.")
CHECKS_SELF_STUDY = ("It checks at once that every\nanswer has the right form and the right value, and "
                     "says what is wrong\nif not.")
BEFORE_SELF_STUDY = ("Restart the kernel and run every cell now and then, so that your answers do not depend on\n"
                     "cells run out of order.")


def header_markdown(problems, intro: str) -> str:
    contents = "\n".join(f"{p.number}. {p.title} ({p.level}, {p.points} points)" for p in problems)
    total = sum(p.points for p in problems)
    return HEADER.format(intro=intro, contents=f"**The problems** ({total} points in all):\n\n{contents}",
                         checks=CHECKS, before=BEFORE)


def new_notebook(cells) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": dict(KERNEL), "language_info": {"name": "python"}}
    nb.cells = cells
    return nb


IMPORTS = ("import numpy as np\nfrom mwm_practice.notebook import Practice\n\n"
           "practice = Practice()  # finds your student id: your numbers are made for it")
#: The first code cell of the website's self-study notebook.
IMPORTS_SELF_STUDY = IMPORTS.replace(
    "practice = Practice()  # finds your student id: your numbers are made for it",
    "practice = Practice(self_study=True)  # the website's numbers; every value checked here")


def source_notebooks(problems, layout: str = "single") -> dict[str, nbformat.NotebookNode]:
    """The instructor notebooks: ``layout="single"`` puts every problem in ``practice.ipynb``;
    ``"per-problem"`` writes one notebook per problem (``p01.ipynb`` ...), for the benchmark."""
    intro_all = ("Sixteen problems that cover the whole course, the easier ones first: the cell's step "
                 "worked by hand, with one number and then with matrices; counts of parameters; softmax, "
                 "loss and temperature; the gradient carried back through time, cut into chunks, vanishing or "
                 "exploding; eigenvalues and clipping; single steps of an LSTM and of a GRU; logged "
                 "training runs to diagnose; reading in both directions; greedy decoding against beam "
                 "search; and BLEU.")
    if layout == "single":
        cells = [_markdown("header", header_markdown(problems, intro_all), locked=True),
                 _code("imports", IMPORTS, locked=True)]
        for p in problems:
            cells += problem_cells(p)
        return {"practice": new_notebook(cells)}
    if layout == "per-problem":
        out = {}
        for p in problems:
            cells = [_markdown(f"{p.slug}-header", header_markdown([p], f"Problem {p.number} of the practice set."),
                               locked=True),
                     _code(f"{p.slug}-imports", IMPORTS, locked=True)] + problem_cells(p)
            out[p.slug] = new_notebook(cells)
        return out
    raise ValueError(f"layout must be 'single' or 'per-problem', got {layout!r}")


def execute(nb, cwd: Path, timeout: int = 120) -> nbformat.NotebookNode:
    """Run a notebook top to bottom in a fresh kernel and keep only deterministic metadata."""
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                            store_widget_state=False, resources={"metadata": {"path": str(cwd)}})
    # the instructor notebook shows the website's numbers, whoever runs it (no student id)
    saved = {k: os.environ.get(k) for k in ("MWM_STUDENT", "MWM_PRACTICE_VIEW")}
    os.environ["MWM_STUDENT"] = ""
    os.environ.pop("MWM_PRACTICE_VIEW", None)
    try:
        client.execute()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = _coalesce(cell.outputs)
    nb.metadata = {"kernelspec": dict(KERNEL), "language_info": {"name": "python"}}
    return nb


def _coalesce(outputs):
    """Join consecutive pieces of the same stream: how a print is split depends on timing."""
    merged = []
    for out in outputs:
        if merged and out.output_type == "stream" and merged[-1].output_type == "stream" \
                and merged[-1].name == out.name:
            merged[-1].text += out.text
        else:
            merged.append(out)
    return merged


def write_notebook(nb, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def write_source(course: Path, problems, layout="single", run=True, assignment="practice") -> list[Path]:
    """Write (and execute) the instructor notebooks into ``course/source/<assignment>/``."""
    folder = course / "source" / assignment
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    paths = []
    for name, nb in source_notebooks(problems, layout).items():
        if run:
            execute(nb, folder)
        path = folder / f"{name}.ipynb"
        write_notebook(nb, path)
        paths.append(path)
    return paths


# --------------------------------------------------------------------------------------
# nbgrader, in this process
# --------------------------------------------------------------------------------------
def course_config(course: Path, **overrides):
    """The course's ``nbgrader_config.py`` with ``overrides`` ({"Exchange.root": ...}) on top."""
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    config.CourseDirectory.root = str(course)
    extra = Config()
    for key, value in overrides.items():
        section, name = key.rsplit(".", 1)
        extra[section][name] = value
    config.merge(extra)
    return config


def venv_on_path() -> None:
    """Put the running interpreter's folder first on ``PATH``."""
    # nbgrader runs the `alembic` command when it creates a gradebook; it sits beside python.
    bindir = str(Path(sys.executable).parent)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")


def nbgrader_head() -> str:
    """The newest revision of nbgrader's gradebook schema (its alembic migrations), read in this process.

    nbgrader asks the ``alembic`` command for it, a process of its own that imports nbgrader
    again (about 2.5 s); alembic's ``ScriptDirectory`` reads the same migration files in 0.1 s.
    """
    import nbgrader
    from alembic.script import ScriptDirectory

    return ScriptDirectory(os.path.join(os.path.dirname(nbgrader.__file__), "alembic")).get_current_head()


def migrate_gradebook(db_url: str) -> bool:
    """Make the gradebook at ``db_url`` hold nbgrader's tables at nbgrader's newest revision, where that is quick.

    A database without tables gets nbgrader's tables and the newest revision (what nbgrader's
    ``Gradebook`` does when it creates a gradebook); one already at the newest revision is left
    as it is. Returns True when neither applies (an older gradebook, or one without a revision):
    the caller then migrates it with ``nbgrader.dbutil.upgrade``, what ``nbgrader db upgrade`` runs.

    Raises:
        sqlalchemy.exc.OperationalError: the database cannot be reached.
    """
    import sqlalchemy as sa
    from nbgrader.api import Base

    head = nbgrader_head()
    engine = sa.create_engine(db_url, poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as conn:
            tables = sa.inspect(conn).get_table_names()
            if not tables:
                Base.metadata.create_all(conn)
                conn.execute(sa.text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)"))
                conn.execute(sa.text("INSERT INTO alembic_version (version_num) VALUES (:head)"), {"head": head})
                return False
            if "alembic_version" in tables:
                versions = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalars().all()
                if versions == [head]:
                    return False
    finally:
        engine.dispose()
    return True


def course_api(course: Path, **overrides):
    """An ``NbGraderAPI`` for the course folder ``course``, configured by its nbgrader_config.py."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    venv_on_path()
    config = course_config(course, **overrides)
    return NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)


def nbgrader_ok(result: dict, what: str) -> dict:
    """``result`` of one of nbgrader's API calls, or RuntimeError with its log if it failed."""
    if not result.get("success"):
        raise RuntimeError(f"nbgrader {what} failed:\n{result.get('error', '')}\n{result.get('log', '')[-3000:]}")
    return result


def new_sqlite_gradebook(api) -> None:
    """Make the course's gradebook, when it is SQLite, with :func:`migrate_gradebook` before nbgrader opens it.

    nbgrader would make a new one itself, but asks the ``alembic`` command for its revision
    first (2.5 s); a server's gradebook (another URL) is left to nbgrader and its messages.
    """
    url = api.coursedir.db_url
    if url.startswith("sqlite:///"):
        migrate_gradebook(url)


def generate_assignment(course: Path, assignment="practice") -> None:
    """nbgrader's generate_assignment in the course folder ``course`` (its config, its gradebook).

    Raises:
        RuntimeError: nbgrader reports a failure (its log is in the message).
    """
    api = course_api(course)
    new_sqlite_gradebook(api)
    nbgrader_ok(api.generate_assignment(assignment, force=True), "generate_assignment")


def generate_solution(course: Path, assignment="practice") -> None:
    from nbgrader.converters import GenerateSolution
    from nbgrader.utils import capture_log

    api = course_api(course)
    api.coursedir.assignment_id = assignment
    app = GenerateSolution(coursedir=api.coursedir, parent=api)
    app.force = True
    nbgrader_ok(capture_log(app), "generate_solution")


# --------------------------------------------------------------------------------------
# Worked solutions, answer key, website pages
# --------------------------------------------------------------------------------------
def answers_markdown(problem) -> str:
    lines = []
    for part in problem.parts:
        shown = "; ".join(f"`{a.signature or a.name}` = {_math(a)}" for a in part.answers)
        lines.append(f"({part.letter}) {shown}")
    return "**Answers.** " + ". ".join(lines) + "."


def _math(a) -> str:
    s = a.shown()
    if a.kind in ("number", "vector", "integer"):
        return f"${s}$"
    if a.kind == "function" and a.formula:
        return f"${a.formula}$ (e.g. {s})"
    return s


#: At the head of each worked solution in the solution notebook: its steps and answers use the website's numbers, its code does not.
WEBSITE_NUMBERS_NOTE = ("*These steps are worked with the website's numbers. The code in the cells above works on "
                        "the numbers of the notebook it runs in: run it to see your own.*")


def solution_markdown(problem, heading="###") -> str:
    steps = "\n\n".join(problem.steps)
    return (f"{heading} Worked solution of problem {problem.number}\n\n{WEBSITE_NUMBERS_NOTE}\n\n{steps}\n\n"
            f"{answers_markdown(problem)}\n\n**Remember.** {problem.remember}")


def add_worked_solutions(path: Path, problems) -> None:
    """Insert a Markdown cell with the worked solution after each problem's last test cell."""
    nb = nbformat.read(path, as_version=4)
    by_slug = {p.slug: p for p in problems}
    cells = []
    for cell in nb.cells:
        cells.append(cell)
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        m = re.fullmatch(r"(p\d\d)-([a-z])-test", gid)
        if m and m.group(2) == by_slug[m.group(1)].parts[-1].letter:
            md = nbformat.v4.new_markdown_cell(solution_markdown(by_slug[m.group(1)]))
            md.id = f"{m.group(1)}-worked"
            cells.append(md)
    nb.cells = cells
    nbformat.write(nb, path)


KEY_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem;
       line-height: 1.5; color: #222; }
h1 { font-size: 1.8rem; } h2 { margin-top: 2.5rem; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 1rem 0; }
td, th { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
code { background: #f3f3f3; padding: 0 0.2rem; }
.level { color: #555; font-style: italic; }
.steps { background: #f8f8f4; padding: 0.5rem 1rem; border-left: 3px solid #c9b458; }
"""


def _md_to_html(text: str) -> str:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    md = MarkdownIt("commonmark").enable("table").use(
        dollarmath_plugin, renderer=lambda content, opts: (
            f"\\[{html.escape(content)}\\]" if opts.get("display_mode") else f"\\({html.escape(content)}\\)"))
    return md.render(text)


MATHJAX_CDN = "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-svg-full.js"


def copy_mathjax(folder: Path) -> str:
    """Put MathJax (the copy the website build uses) beside the answer key; return the script's address.

    Falls back to MathJax's CDN address when that package is not installed.
    """
    from importlib import metadata

    try:
        dist = metadata.distribution("sphinx-mathjax-offline")
        source = Path(dist.locate_file("sphinx-mathjax-offline/static/mathjax/tex-svg-full.js"))
    except metadata.PackageNotFoundError:
        return MATHJAX_CDN
    if not source.is_file():
        return MATHJAX_CDN
    (folder / "mathjax").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, folder / "mathjax" / "tex-svg-full.js")
    return "mathjax/tex-svg-full.js"


def answer_key_html(problems, missing: dict, mathjax: str = MATHJAX_CDN) -> str:
    """One page with every answer (a table) and every problem's worked solution."""
    rows = []
    for p in problems:
        for part in p.parts:
            for a in part.answers:
                rows.append(f"<tr><td>{p.number}</td><td>({part.letter})</td><td><code>{a.name}</code></td>"
                            f"<td>{_md_to_html(_math(a))}</td><td>{part.points if a is part.answers[0] else ''}</td></tr>")
    body = ["<h1>Practice problems: answer key</h1>",
            f"<p>{len(problems)} problems, {sum(p.points for p in problems)} points. Generated by "
            "<code>make exercises</code> from <code>mwm_grader/problems/</code>; every value is computed by "
            "the course library <code>mwm</code>. Tolerances follow the printed precision (four decimals: "
            "&plusmn;0.0005).</p>"]
    if missing:
        body.append("<p><strong>Not yet generated:</strong> " + "; ".join(
            f"problem {k}: {html.escape(v)}" for k, v in sorted(missing.items())) + "</p>")
    body.append("<h2>All answers</h2><table><tr><th>problem</th><th>part</th><th>variable</th>"
                "<th>answer</th><th>points</th></tr>" + "".join(rows) + "</table>")
    for p in problems:
        body.append(f'<h2 id="{p.slug}">Problem {p.number}. {html.escape(p.title)}</h2>')
        body.append(f'<p class="level">{p.level.capitalize()}: {_md_to_html(p.practises)[3:-5]}</p>')
        body.append(_md_to_html(p.statement))
        body.append(_md_to_html("\n\n".join(f"**({q.letter})** {q.question}" for q in p.parts)))
        body.append('<div class="steps">' + _md_to_html("\n\n".join(p.steps)) + "</div>")
        body.append(_md_to_html(answers_markdown(p)))
        body.append(_md_to_html(f"**Remember.** {p.remember}"))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>Practice problems: answer key</title>"
            f"<style>{KEY_STYLE}</style>"
            "<script>MathJax = {tex: {inlineMath: [['\\\\(', '\\\\)']]}};</script>"
            f"<script async src=\"{mathjax}\"></script>"
            "</head><body>\n" + "\n".join(body) + "\n</body></html>\n")


DOWNLOAD = "downloads/practice.ipynb"

SELF_STUDY_NOTE = """**Self-study.** This copy of the notebook uses the numbers printed on the website, and every
hand-in cell checks every value right here, showing the expected value when an answer is off.
In a graded course, fetch the notebook from your course instead: there every student has numbers
of their own."""


def self_study_notebook(release: Path) -> nbformat.NotebookNode:
    """The website's download: the student version with the website's numbers, every value checked
    in the notebook, and no nbgrader metadata (it is not graded)."""
    nb = nbformat.read(release, as_version=4)
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if gid == "imports":
            cell.source = IMPORTS_SELF_STUDY
        elif gid == "header":
            start = cell.source.index("**Your own numbers.**")
            end = cell.source.index("**How to work.**")
            cell.source = (cell.source[:start] + SELF_STUDY_NOTE + "\n\n" + cell.source[end:]).replace(
                CHECKS, CHECKS_SELF_STUDY).replace(BEFORE, BEFORE_SELF_STUDY)
        elif gid.endswith("-test"):
            cell.source = cell.source.replace(
                "its form is checked here, its value when your work is graded", "its value is checked here")
        cell.metadata.pop("nbgrader", None)
    return nb


def page_name(problem) -> str:
    return f"problem-{problem.number:02d}"


def labs_section() -> str:
    """The practice index's paragraph on the coding labs, with their list."""
    from . import labs as L
    from .make_labs import DOWNLOAD as LABS_DOWNLOAD

    listing = "\n".join(f"{i}. [{lab.title}](lab-{i:02d}.md) (`{lab.function}`)" for i, lab in enumerate(L.LABS.values(), 1))
    count = {9: "Nine", 10: "Ten", 11: "Eleven", 12: "Twelve"}.get(len(L.LABS), str(len(L.LABS)))
    torch_labs = [str(n) for n, lab in enumerate(L.LABS.values(), 1) if lab.framework == "torch"]
    where = "in numpy" + (f" (labs {', '.join(torch_labs[:-1])} and {torch_labs[-1]} in torch)"
                          if len(torch_labs) > 1 else f" (lab {torch_labs[0]} in torch)" if torch_labs else "")
    return f"""
## Coding labs

{count} functions of the course's machinery to write, {where}. The notebook
{{download}}`labs.ipynb <{LABS_DOWNLOAD}>` gives each function's first line and docstring and checks
your body on small cases; open it in JupyterLab from the course folder. In a course that grades
them, the grader runs your function on inputs of your own.

{listing}
"""


def site_pages(problems, missing: dict) -> dict[str, str]:
    """The website's practice pages (MyST Markdown), by file name under ``practice/``."""
    total = sum(p.points for p in problems)
    listing = "\n".join(f"{p.number}. [{p.title}]({page_name(p)}.md) ({p.level})" for p in problems)
    waiting = ""
    if missing:
        waiting = ("\n\nStill to come: " + ", ".join(f"problem {k}" for k in sorted(missing))
                   + " (their answers need library code that is not in the course yet).\n")
    pages = {"index.md": f"""# Practice problems

Sixteen problems that go over the whole course, from one step of
$h_t=\\tanh(w\\,h_{{t-1}}+u\\,x_t+b)$ worked by hand to the BLEU score of a translation. Each
page below states one problem and keeps its worked solution folded away: try the problem
first, then open the solution.

To work the problems with your answers checked, download the self-study notebook,
{{download}}`practice.ipynb <{DOWNLOAD}>` ({total} points in all): it has every problem with the
numbers printed here, a cell for each answer, and below it a cell that checks the answer's
value. Open it in JupyterLab from the course folder (so that `mwm` can be imported) and answer
in the cells marked `# YOUR CODE HERE`. In a course that grades them, fetch the notebook from
the course instead: there every student works on numbers of their own.

{listing}{waiting}
{labs_section()}"""}
    for p in problems:
        parts = "\n".join(f"**({q.letter})** {q.question}\n" for q in p.parts)
        steps = "\n\n".join(p.steps)
        pages[f"{page_name(p)}.md"] = f"""# Problem {p.number}. {p.title}

*{p.level.capitalize()}: {p.practises}.* Work it in the
{{download}}`self-study notebook <{DOWNLOAD}>`, where your answers are checked.

{p.statement}

{parts}
::::{{dropdown}} Worked solution
{steps}

{answers_markdown(p)}
::::

```{{admonition}} Remember
{p.remember}
```
"""
    return pages


# --------------------------------------------------------------------------------------
# The whole build
# --------------------------------------------------------------------------------------
def build(course: Path = COURSE, site: Path = SITE, numbers=None, *, quiet=False, view: Path = WEBSITE_VIEW) -> dict:
    """Rebuild the website's view, source, release, solution, answer key and website pages; return a summary."""
    from .views import view_json, website_view

    mod = load_problems_module()
    problems, missing = mod.build_all(numbers)
    say = (lambda *a: None) if quiet else print
    say(f"{len(problems)} problems built with mwm" + (f"; waiting: {sorted(missing)}" if missing else ""))
    if numbers is None:
        view.parent.mkdir(parents=True, exist_ok=True)
        view.write_text(view_json(website_view()), encoding="utf-8")
        say(f"the website's view (self-study): {view}")
    write_source(course, problems)
    say(f"instructor version: {course / 'source' / 'practice' / 'practice.ipynb'}")
    generate_assignment(course)
    release = course / "release" / "practice" / "practice.ipynb"
    say(f"student version (nbgrader generate_assignment): {release}")
    generate_solution(course)
    solution = course / "solution" / "practice" / "practice.ipynb"
    add_worked_solutions(solution, problems)
    say(f"solution notebook (nbgrader generate_solution): {solution}")
    key = course / "solution" / "answer-key.html"
    key.write_text(answer_key_html(problems, missing, copy_mathjax(key.parent)), encoding="utf-8")
    say(f"answer key: {key}")
    from mwm_grader.mistakes import catalogue_markdown

    catalogue = course / "mistakes.md"
    catalogue.write_text(catalogue_markdown(problems), encoding="utf-8")
    say(f"mistakes catalogue: {catalogue}")
    if site.exists():
        for old in site.glob("*.md"):
            old.unlink()
    (site / "downloads").mkdir(parents=True, exist_ok=True)
    for name, text in site_pages(problems, missing).items():
        (site / name).write_text(text, encoding="utf-8")
    write_notebook(self_study_notebook(release), site / DOWNLOAD)
    say(f"website pages: {site}/ ({len(problems) + 1} pages and the student notebook)")
    if numbers is None:
        from . import make_labs

        make_labs.build(course, site, view.parent / "labs_view.json", say)
    for _k, why in sorted(missing.items()):
        say(f"  not generated: {why}")
    return {"problems": problems, "missing": missing, "release": release, "solution": solution, "key": key}


COMMITTED = ["lib/mwm_practice/website_view.json", "lib/mwm_practice/labs_view.json", "exercises/source",
             "exercises/mistakes.md", "practice"]


def check(quiet=False) -> list[str]:
    """Rebuild into a temporary copy and list committed files that differ from what the build makes."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        course = tmp / "exercises"
        course.mkdir()
        shutil.copy(COURSE / "nbgrader_config.py", course)
        build(course, tmp / "practice", quiet=quiet, view=tmp / "lib" / "mwm_practice" / "website_view.json")
        stale = []
        for rel in COMMITTED:
            ours, fresh = ROOT / rel, tmp / rel
            if ours.is_file() or fresh.is_file():   # one file
                if not (ours.is_file() and fresh.is_file() and filecmp.cmp(ours, fresh, shallow=False)):
                    stale.append(rel)
                continue
            names = {p.relative_to(ours) for p in ours.rglob("*") if p.is_file()} | \
                    {p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file()}
            for name in sorted(names):
                if name.name == ".gitkeep":
                    continue
                a, b = ours / name, fresh / name
                if not (a.is_file() and b.is_file() and filecmp.cmp(a, b, shallow=False)):
                    stale.append(str(Path(rel) / name))
        return stale


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="rebuild in a temporary folder and report committed files that are stale")
    args = ap.parse_args(argv)
    if args.check:
        stale = check()
        if stale:
            print("stale (run `make exercises` and commit):\n  " + "\n  ".join(stale))
            return 1
        print("the website's views, exercises/source, exercises/mistakes.md and practice/ are up to date")
        return 0
    build()
    return 0


if __name__ == "__main__":
    sys.exit(main())
