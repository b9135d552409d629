"""Chapter 2's visible cell: the loop ``h = np.tanh(W @ h + U @ x + b)`` is the library's cell.

The chapter runs the one-line loop on "dog bites man" and prints whether it agrees with
``mwm.cell.rnn_forward``; here the very cell of the chapter is run again, its notes are
checked against the library, and the same loop is checked on random sizes.
"""
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
    notes, xs = np.array(space["notes"]), space["xs"]
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
