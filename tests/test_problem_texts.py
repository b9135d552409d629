"""The practice problems' words live in templates beside their builders (grader/mwm_grader/problems/pNN.md.j2).

A builder computes; its template says. These tests keep it so: no builder holds a sentence of the problem's
text, every template block a builder renders exists and reads only names it is given, and the renderer
refuses a missing block or name with an error that names it.
"""
import ast
import re
from pathlib import Path

import jinja2
import pytest

from mwm_grader import problems
from mwm_grader.problems.texts import Text

FOLDER = Path(problems.__file__).parent
BUILDERS = sorted(FOLDER.glob("p[0-9][0-9].py"))


def _strings_of_build(path: Path) -> list[str]:
    """The literal text of every string in ``build`` of ``path``: not docstrings, errors' messages, nor the short
    descriptions an Answer carries as data (``what``, ``signature``, ``formula``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    build = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "build")
    skip = set()
    for node in ast.walk(build):
        if isinstance(node, ast.FunctionDef) \
                and node.body and isinstance(node.body[0], ast.Expr):
            skip.add(id(node.body[0].value))
        if isinstance(node, (ast.Raise, ast.Assert)):
            skip |= {id(n) for n in ast.walk(node)}
        if isinstance(node, ast.keyword) and node.arg in ("what", "signature", "formula"):
            skip |= {id(n) for n in ast.walk(node.value)}
    found = []
    for node in ast.walk(build):
        if id(node) in skip:
            continue
        if isinstance(node, ast.JoinedStr):
            skip |= {id(n) for n in ast.walk(node)}
            found.append("".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(node.value)
    return found


def test_sixteen_builders_each_with_its_template():
    assert [p.stem for p in BUILDERS] == [f"p{k:02d}" for k in range(1, 17)]
    assert sorted(p.name for p in FOLDER.glob("*.md.j2")) == [f"p{k:02d}.md.j2" for k in range(1, 17)]


@pytest.mark.parametrize("path", BUILDERS, ids=lambda p: p.stem)
def test_a_builder_holds_no_sentence_of_its_problem(path):
    """Words of five or more in a row are a sentence: they belong in the template."""
    prose = [s for s in _strings_of_build(path) if len(re.findall(r"[A-Za-z]{2,}", s)) >= 5]
    assert not prose, f"{path.name} writes text that belongs in {path.stem}.md.j2: {prose[:3]}"


def test_a_missing_block_or_name_is_an_error_that_names_it():
    text = Text(1, w=0.5, u=1.0, b=0.0, h0=0.0, xs=[1.0], hs=[0.4621], sums=[0.5], ordinal=["first"])
    assert text("question", t=0) == "The hidden state after the first input, $h_1$. Store it in `h1`."
    with pytest.raises(KeyError, match="p01.md.j2 has no block 'statment'"):
        text("statment")
    with pytest.raises(jinja2.UndefinedError, match="'w' is undefined") as err:
        Text(1, u=1.0, b=0.0, h0=0.0, xs=[1.0])("statement")
    # the traceback names the template's line that reads it (where a contributor's typo is), not the block's end
    source = (FOLDER / "p01.md.j2").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(source, 1) if "{{ w|num }}" in text)
    assert any(str(entry.path).endswith("p01.md.j2") and entry.lineno + 1 == line for entry in err.traceback), \
        [(entry.path, entry.lineno + 1) for entry in err.traceback]


def test_a_template_writes_maths_with_single_backslashes():
    """The reason for templates: LaTeX as it is written, not doubled for Python strings."""
    for path in FOLDER.glob("*.md.j2"):
        source = path.read_text(encoding="utf-8")
        assert "\\\\tanh" not in source and "\\\\cdot" not in source and "\\\\times" not in source, path.name
    built = {p.number: p for p in problems.build_all()[0]}
    assert "\\tanh(w\\,h_{t-1}+u\\,x_t+b)" in built[1].statement
