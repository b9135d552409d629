"""Chapter 2: the visible loop ``h = np.tanh(W @ h + U @ x + b)`` is the library's cell; its letters table matches torch.

The chapter runs the one-line loop on "dog bites man" and prints whether it agrees with
``mwm.cell.rnn_forward``; here the very cell of the chapter is run again, its hidden states are
checked against the library, and the same loop is checked on random sizes. The chapter's letters
table (the course's one bridge to the Elman-network letters and to PyTorch's names) is checked
against ``torch.nn.RNN``: the cross-check the chapter used to run in a cell of its own.
"""
import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mwm
from mwm.cell import rnn_forward
from tests.chapter_cells import cells_with, chapter_path

CHAPTER = chapter_path(2)
LOOP_LINE = "h = np.tanh(W @ h + U @ x + b)"


def _loop_cell():
    found = cells_with(CHAPTER, LOOP_LINE)
    assert len(found) == 1, "chapter 2 shows the cell as one line inside a loop, in one code cell"
    return found[0]


def test_the_chapters_loop_matches_rnn_forward():
    cell = _loop_cell()
    space = {"np": np, **{name: getattr(mwm, name) for name in ("TOY_VECTORS", "turn_matrix", "rnn_forward")}}
    exec(compile("".join(cell["source"]).replace("print(", "(lambda *a, **k: None)("), "ch02", "exec"), space)
    notes, xs = np.array(space["states"]), space["xs"]
    assert notes.shape == (3, 2)
    weights = {"W": space["W"], "U": space["U"], "b": space["b"]}
    np.testing.assert_allclose(notes, rnn_forward(xs, weights)[0], rtol=0, atol=1e-12)
    # the first headline with the quarter turn: h_1 = tanh(dog) and the last note the chapter prints
    np.testing.assert_allclose(notes[0], np.tanh([1.0, 0.0]), rtol=0, atol=1e-15)
    assert notes.round(4).tolist() == [[0.7616, 0.0], [0.7616, 0.9427], [-0.7365, 0.9427]]


def test_the_chapter_prints_the_agreement():
    text = "".join("".join(o.get("text", "")) for o in _loop_cell()["outputs"])
    assert "same as mwm.cell.rnn_forward: True" in text
    assert "[[0.7616, 0.0], [0.7616, 0.9427], [-0.7365, 0.9427]]" in text


@settings(max_examples=40, deadline=None)
@given(H=st.integers(1, 6), d=st.integers(1, 5), T=st.integers(1, 8), seed=st.integers(0, 2**31 - 1))
def test_the_plain_loop_is_rnn_forward_for_any_size(H, d, T, seed):
    rng = np.random.default_rng(seed)
    W, U, b = rng.normal(0, 0.7, (H, H)), rng.normal(0, 0.7, (H, d)), rng.normal(0, 0.3, H)
    xs = rng.normal(size=(T, d))
    h, notes = np.zeros(H), []
    for x in xs:
        h = np.tanh(W @ h + U @ x + b)
        notes.append(h)
    np.testing.assert_allclose(notes, rnn_forward(xs, {"W": W, "U": U, "b": b})[0], rtol=0, atol=1e-12)


def test_changing_a_weight_in_the_loop_changes_the_notes():
    # the check in the chapter is not vacuous: a different W gives different notes
    xs = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    W, U, b = mwm.turn_matrix(90), np.eye(2), np.zeros(2)
    h = np.zeros(2)
    for x in xs:
        h = np.tanh(0.5 * W @ h + U @ x + b)
    assert not np.allclose(h, rnn_forward(xs, {"W": W, "U": U, "b": b})[0][-1])
    assert h == pytest.approx(rnn_forward(xs, {"W": 0.5 * W, "U": U, "b": b})[0][-1], abs=1e-12)


def _markdown():
    cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def _letters_table():
    """The rows of the chapter's letters table, as lists of cells (the header row first)."""
    table = [line for line in _markdown().splitlines() if line.startswith("|") and line.count("|") == 7]
    header = next(i for i, r in enumerate(table) if "one number" in r)
    body = []
    for r in table[header:]:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        if set("".join(cells)) <= set("-"):
            continue
        body.append(cells)
    return body


def test_the_letters_table_is_written_once_and_matches_torch():
    text = _markdown()
    assert text.count("weight_hh_l0") == 1, "chapter 2 holds the one letters table"
    table = _letters_table()
    head = table[0]
    col = {name: head.index(name) for name in ("one number", "this course", "Elman-network books", "PyTorch `nn.RNN`")}
    row = {r[0]: r for r in table[1:]}
    rec, inp = row["recurrent weights"], row["input weights"]
    assert (rec[col["one number"]], rec[col["this course"]], rec[col["Elman-network books"]]) == ("$w$", "$W$", "$U$")
    assert (inp[col["one number"]], inp[col["this course"]], inp[col["Elman-network books"]]) == ("$u$", "$U$", "$W$")
    assert rec[col["PyTorch `nn.RNN`"]] == "`weight_hh_l0`" and inp[col["PyTorch `nn.RNN`"]] == "`weight_ih_l0`"
    assert row["bias"][col["PyTorch `nn.RNN`"]] == "`bias_ih_l0` + `bias_hh_l0`"


def test_torch_rnn_with_the_tables_names_is_our_cell():
    """The chapter's former cross-check: a random state of 4 numbers, words of 3, six steps, float64."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    Wr, Ur, br = rng.normal(0, 0.5, (4, 4)), rng.normal(0, 0.5, (4, 3)), rng.normal(0, 0.5, 4)
    xs6 = rng.normal(size=(6, 3))
    torch.manual_seed(0)
    rnn = torch.nn.RNN(input_size=3, hidden_size=4, nonlinearity="tanh").double()
    with torch.no_grad():
        rnn.weight_hh_l0.copy_(torch.from_numpy(Wr))    # state to state: our W
        rnn.weight_ih_l0.copy_(torch.from_numpy(Ur))    # input to state: our U
        rnn.bias_ih_l0.copy_(torch.from_numpy(br / 2))  # two biases whose sum is our b
        rnn.bias_hh_l0.copy_(torch.from_numpy(br / 2))
        out, _ = rnn(torch.from_numpy(xs6))
    assert np.abs(out.numpy() - rnn_forward(xs6, dict(W=Wr, U=Ur, b=br))[0]).max() < 1e-12
    with torch.no_grad():                               # torch uses weight_hh as it is, not transposed
        rnn.weight_hh_l0.copy_(torch.from_numpy(Wr.T))
        out_swapped, _ = rnn(torch.from_numpy(xs6))
    assert np.abs(out_swapped.numpy() - rnn_forward(xs6, dict(W=Wr, U=Ur, b=br))[0]).max() > 1e-3


def test_question_4_in_the_elman_letters():
    """Elman letters W = 0.8 (input), U = 0.5 (recurrence) are our u = 0.8, w = 0.5: the chapter's numbers."""
    h1, h2 = mwm.scalar_rnn([1.0, -0.5], w=0.5, u=0.8)
    assert round(h1, 3) == 0.664 and round(0.5 * h1, 3) == 0.332
    assert round(0.5 * h1 + 0.8 * -0.5, 3) == -0.068 and round(h2, 4) == -0.0679
    assert round(mwm.scalar_rnn([1.0, -0.5], w=0.8, u=0.5)[1], 4) != -0.0679    # the letters not swapped
    assert re.search(r"\$w=0\.5\$ and \$u=0\.8\$", _markdown())
