"""Rooms by audience: what a learner reads, what a student's kernel runs, what only a teacher runs.

* ``mwm`` (the reference a learner reads) imports neither ``mwm_practice`` nor ``mwm_grader``;
  ``mwm_practice`` (a student's kernel) never imports ``mwm_grader`` (the teacher's side), read
  from every module's import statements, and checked again by importing every submodule in a
  fresh interpreter.
* A student's kernel works with the teacher's package impossible to import (as in a hub's
  student image, which installs only ``lib/``): the self-study notebook's problems, checks and
  hints, from data alone.
* Every teacher command is a console script with ``--help``; no module of ``lib/``, ``grader/``,
  ``hub/``, ``scripts/`` or ``benchmarks/`` edits ``sys.path``; ``make help`` lists every target with one line.
"""
import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIB, GRADER = ROOT / "lib", ROOT / "grader"


def _imports(path: Path) -> set[str]:
    """Every module name ``path`` imports (absolute; relative imports resolved against its package)."""
    base = LIB if LIB in path.parents else GRADER
    package = ".".join(path.relative_to(base).parts[:-1])   # the module's own package, e.g. mwm.widgets
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                names.add(".".join(base + ([node.module] if node.module else [])))
            else:
                names.add(node.module)
    return names


def _modules(package: str) -> list[Path]:
    folder = (GRADER if package == "mwm_grader" else LIB) / package
    return sorted(folder.rglob("*.py"))


@pytest.mark.parametrize("package, forbidden", [
    ("mwm", ("mwm_practice", "mwm_grader", "nbgrader", "mwm_torch")),
    ("mwm_practice", ("mwm_grader", "nbgrader", "jupyter_client", "zmq", "mwm_torch")),
])
def test_imports_go_one_way(package, forbidden):
    found = {str(p.relative_to(ROOT)): sorted(n for n in _imports(p) if n.split(".")[0] in forbidden)
             for p in _modules(package)}
    found = {k: v for k, v in found.items() if v}
    assert not found, f"{package} imports what it must not: {found}"


def test_the_reader_of_imports_sees_them():
    """The check above reads imports: shown on the teacher's package, which does import the student's."""
    judge = _imports(GRADER / "mwm_grader" / "judge.py")
    assert {"mwm_practice.notebook", "mwm_grader.sandbox", "nbgrader.preprocessors"} <= judge, judge


NO_TEACHER = r"""
import builtins, contextlib, importlib, io, pkgutil, sys
real_import = builtins.__import__
def guarded(name, *args, **kwargs):
    if name.split(".")[0] in ("mwm_grader", "nbgrader"):
        raise ModuleNotFoundError(f"No module named {name!r} (a student's environment)")
    return real_import(name, *args, **kwargs)
builtins.__import__ = guarded
import mwm_practice
for m in pkgutil.walk_packages(mwm_practice.__path__, "mwm_practice."):
    importlib.import_module(m.name)
from mwm_practice import checks
from mwm_practice.notebook import Practice
practice = Practice(self_study=True, show=False)
given = practice.problem(1)
right = practice.build(1).parts[0].answers[0].expected
with contextlib.redirect_stdout(io.StringIO()) as out:
    practice.hand_in("p01-a", h1=right)
assert "h1: right" in out.getvalue(), out.getvalue()
slip = practice.build(1).parts[1].answers[0].slips[0]
try:
    practice.hand_in("p01-b", h2=slip.value)
except checks.AnswerError as e:
    assert str(e).endswith(slip.hint), e
else:
    raise AssertionError("a slip's value passed")
assert not [m for m in sys.modules if m.split(".")[0] in ("mwm_grader", "nbgrader")]
print("ok")
"""


def test_a_students_kernel_needs_nothing_of_the_teachers_package():
    out = subprocess.run([sys.executable, "-c", NO_TEACHER], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]


def _console_scripts() -> dict[str, str]:
    import tomllib

    return tomllib.loads((GRADER / "pyproject.toml").read_text())["project"]["scripts"]


@pytest.mark.parametrize("name", sorted(_console_scripts()))
def test_every_teacher_command_is_a_console_script_with_help(name, capsys):
    import importlib

    module, function = _console_scripts()[name].split(":")
    assert (Path(sys.executable).parent / name).is_file(), f"{name} is not installed beside python (make setup)"
    with pytest.raises(SystemExit) as done:
        getattr(importlib.import_module(module), function)(["--help"])
    assert done.value.code == 0
    assert "usage:" in capsys.readouterr().out


def test_no_module_edits_sys_path():
    places = [*GRADER.rglob("*.py"), *(ROOT / "hub").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py"),
              *LIB.rglob("*.py"), *(ROOT / "scripts").rglob("*.py")]
    editing = [str(p.relative_to(ROOT)) for p in places if "sys.path.insert" in p.read_text(encoding="utf-8")]
    assert not editing, editing


def test_make_help_lists_every_target():
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = re.findall(r"^([a-z][a-z-]*):(?!=)", text, re.M)
    unlisted = [t for t in targets if not re.search(rf"^{re.escape(t)}:.*## \S", text, re.M)]
    assert targets and not unlisted, f"targets without a `## one line` for make help: {unlisted}"
    out = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "help"], capture_output=True, text=True)
    listed = re.findall(r"^  make (\S+)", out.stdout, re.M)
    assert listed == targets, (listed, targets)
