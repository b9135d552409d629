"""Committed notebook outputs must read the same on every machine.

A difference between two ways of computing the same thing (numpy against torch, a
formula against nudging) lands near machine epsilon, and its exact size depends on the
CPU's instruction set, the BLAS kernel and the thread count: printed as ``1.1e-16`` it
makes nbval fail on another machine. Such a cell prints a bound the text can rely on
("agree to within 1e-12: True") instead.

This test reads every committed notebook nbval checks, applies the sanitizers nbval
applies (``tests/sanitize.cfg``), and fails on any float in scientific notation whose
size is below ``1e-10`` that is left over (a round power of ten written ``1e-12`` is a
bound the text states, not a measurement, and passes). A genuine small result (a product
of many slopes, say) is printed as the text writes it, "3.0 x 10^-74".
"""
import configparser
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
SANITIZE = ROOT / "tests" / "sanitize.cfg"
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb")) + [ROOT / "exercises" / "source" / "practice" / "practice.ipynb",
                                                          ROOT / "exercises" / "source" / "labs" / "labs.ipynb"]
#: Below this size a printed float is presumed to be rounding noise.
THRESHOLD = 1e-10
#: "2.5e-16", "-3E-074", "1e-9"; not part of a longer word or number.
SCI_FLOAT = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?[eE][-+]?\d+(?![\w.])")
#: A bound the text states: 1e-12, 1e-08 (a mantissa of exactly 1, no decimals).
ROUND_BOUND = re.compile(r"1[eE]-\d+")
#: Text output types nbval compares (images are compared by nbval as data, not here).
TEXT_TYPES = ("text/plain", "text/markdown", "text/latex", "text/html")

def load_sanitizers(path: Path = SANITIZE) -> list[tuple[re.Pattern, str]]:
    """The (regex, replacement) pairs of an nbval sanitize file, in file order."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(path, encoding="utf-8")
    return [(re.compile(parser[s]["regex"]), parser[s]["replace"]) for s in parser.sections()]


def output_texts(cell) -> list[str]:
    """Every text nbval compares in a code cell's outputs."""
    texts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            texts.append(out.get("text", ""))
        for kind in TEXT_TYPES:
            value = out.get("data", {}).get(kind)
            if value:
                texts.append(value if isinstance(value, str) else "".join(value))
    return texts


def tiny_floats(text: str, sanitizers) -> list[str]:
    """The floats in scientific notation below THRESHOLD in size (and not 0) left after sanitizing."""
    for regex, replace in sanitizers:
        text = regex.sub(replace, text)
    found = []
    for match in SCI_FLOAT.finditer(text):
        value = abs(float(match.group()))
        if ROUND_BOUND.fullmatch(match.group().lstrip("+-")):
            continue  # a stated bound such as "within 1e-12"
        if 0 < value < THRESHOLD:
            found.append(match.group().lstrip("+-"))
    return found


def uncovered(notebook: Path, sanitizers) -> list[str]:
    """'cell id: value' for each tiny float left in the notebook's outputs after sanitizing."""
    nb = nbformat.read(notebook, as_version=4)
    problems = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for text in output_texts(cell):
            problems += [f"cell {cell.get('id')}: {value}" for value in tiny_floats(text, sanitizers)]
    return problems


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_no_committed_output_prints_rounding_noise(notebook):
    problems = uncovered(notebook, load_sanitizers())
    assert not problems, f"print a bound (e.g. 'agree to within 1e-12: True') instead of these values: {problems}"


def test_the_scan_catches_noise_and_respects_sanitizers(tmp_path):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print(diff)")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout",
                                           text="largest difference: 1.7e-16, step 1e-05, size 2.5E+03, within 1e-12, 5e-17\n"),
                    nbformat.v4.new_output("execute_result", data={"text/plain": "array([0.e+00, 4.4e-16])"})]
    nb.cells = [cell]
    path = tmp_path / "noise.ipynb"
    nbformat.write(nb, path)
    problems = uncovered(path, [])
    assert problems == [f"cell {cell.id}: 1.7e-16", f"cell {cell.id}: 5e-17", f"cell {cell.id}: 4.4e-16"]
    sanitizer = [(re.compile(r"difference: \S+,"), "difference: NOISE,")]
    assert uncovered(path, sanitizer) == [f"cell {cell.id}: 5e-17", f"cell {cell.id}: 4.4e-16"]
    assert load_sanitizers(), "the project's sanitize file has sections"
