"""Chapter 3: every box of the 3000-step run is the one shared ``rnn_step``; the parameter table matches ``mwm``.

Moved out of the reader's path (issue 26): the chapter used to redo every box of its
three-thousand-step run by hand, one ``rnn_step`` call per box, and print that all 3000 agree
with ``rnn_forward``; that check runs here, on the chapter's own weights and inputs (its cells are executed, not copied). The chapter's table of
parameter counts (shared cell against one cell per word) is checked against ``mwm.params``.
"""
import json
import re

import numpy as np

from mwm import cell_param_count, rnn_forward, rnn_step, unshared_param_count
from tests.chapter_cells import chapter_path, code_cells

CHAPTER = chapter_path(3)


def _chapter_run():
    """Execute the chapter's code cells up to the one that builds ``runs``; return the namespace."""
    space = {"print": lambda *a, **k: None}
    for source in code_cells(CHAPTER):
        exec(compile(source, "ch03", "exec"), space)
        if "runs = " in source:
            return space
    raise LookupError("chapter 3 has no cell that builds `runs`")


def test_every_box_of_the_long_run_is_the_one_shared_step():
    space = _chapter_run()
    W, U, b, xs = space["W"], space["U"], space["b"], space["runs"][3000]
    weights = dict(W=W, U=U, b=b)
    states = rnn_forward(xs, weights)[0]
    before = np.vstack([np.zeros(4), states[:-1]])          # the hidden state arriving at each box
    by_hand = np.array([rnn_step(p, x, weights)[0] for p, x in zip(before, xs)])
    assert len(by_hand) == 3000 and states.shape == (3000, 4)
    np.testing.assert_allclose(by_hand, states, rtol=0, atol=1e-12)
    # not vacuous: a box run with another W disagrees with rnn_forward
    other = rnn_step(before[1500], xs[1500], dict(W=0.9 * W, U=U, b=b))[0]
    assert np.abs(other - states[1500]).max() > 1e-6


def test_the_parameter_table_matches_the_library():
    cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    rows = re.findall(r"^\| (\d+) words \| (\d+) \| (\d+) \|$", text, re.M)
    assert [int(r[0]) for r in rows] == [3, 8, 3000]
    for words, shared, untied in rows:
        assert int(shared) == cell_param_count(4, 3) == 32
        assert int(untied) == unshared_param_count(4, 3, int(words))
