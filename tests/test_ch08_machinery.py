"""Chapter 8's machinery: norm clipping as one line inside a small recurrent network's training loop.

The data, ``gradient`` and ``train`` are taken from the chapter's own code cells, so the test checks
what the learner reads: the clip line equals mwm's clip_by_global_norm, and the two training runs
(plain and clipped at gamma = 2, same start, same data) give the numbers the chapter states.
"""
import json
from pathlib import Path

import numpy as np
import pytest

import mwm
from mwm import clip_by_global_norm

CHAPTER = Path(__file__).resolve().parents[1] / "chapters" / "08-clipping-and-a-good-start.ipynb"


@pytest.fixture(scope="module")
def loop():
    """The namespace left by the chapter's cells that build the data, ``gradient`` and ``train``."""
    cells = ["".join(c["source"]) for c in json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
             if c["cell_type"] == "code"]
    data = next(c for c in cells if "def gradient(" in c)
    train = next(c for c in cells if "def train(" in c)
    train = train[:train.index("\n\n", train.index("def train("))]     # the def, without the check below it
    namespace = {"np": np, **{name: getattr(mwm, name) for name in mwm.__all__}}
    exec(data, namespace)
    exec(train, namespace)
    return namespace


@pytest.fixture(scope="module")
def runs(loop):
    plain_L, plain_norms = loop["train"]()
    clipped_L, clipped_norms = loop["train"](gamma=2.0)
    return plain_L, plain_norms, clipped_L, clipped_norms


@pytest.mark.parametrize("gamma", [0.5, 2.0, 10.0, 1e3])
def test_the_clip_line_is_clip_by_global_norm(loop, gamma):
    H, d = loop["H"], loop["d"]
    _, g = loop["gradient"](loop["start"])
    norm = np.linalg.norm(g)
    line = g.copy()
    if norm > gamma:
        line *= gamma / norm                                           # the chapter's line
    by_mwm, norm_mwm = clip_by_global_norm(np.split(g, [H * H, H * H + H * d]), gamma)
    assert norm == pytest.approx(norm_mwm, rel=1e-14)
    np.testing.assert_allclose(line, np.concatenate(by_mwm), rtol=1e-14, atol=0)
    assert np.linalg.norm(line) <= gamma * (1 + 1e-14)


def test_the_gradient_is_chapter_6s_bptt(loop):
    """The flat gradient the loop clips is d(loss)/d(W, U, b), checked by central differences."""
    v = loop["start"].copy()
    _, g = loop["gradient"](v)
    eps = 1e-6
    for i in (0, 17, 63, 64, 70, 72, 79):                              # entries of W, U and b
        e = np.zeros_like(v)
        e[i] = eps
        numeric = (loop["gradient"](v + e)[0] - loop["gradient"](v - e)[0]) / (2 * eps)
        assert g[i] == pytest.approx(numeric, rel=1e-6, abs=1e-9)


def test_without_clipping_the_loss_spikes_and_with_it_it_does_not(runs):
    plain_L, plain_norms, clipped_L, clipped_norms = runs
    assert len(plain_L) == len(clipped_L) == 100
    assert plain_L[0] == clipped_L[0] and round(plain_L[0], 2) == 1.37            # same start, same data
    rise, rise_clipped = np.diff(plain_L), np.diff(clipped_L)
    assert round(rise.max(), 2) == 1.10 and round(rise_clipped.max(), 2) == 0.09
    jumps = np.flatnonzero(rise > 0.5)
    assert jumps.tolist() == [7, 23, 38, 67, 70]
    assert [(round(plain_L[i], 2), round(plain_L[i + 1], 2)) for i in jumps] == [
        (1.04, 2.07), (0.93, 1.91), (0.60, 1.62), (0.69, 1.79), (0.57, 1.36)]
    assert plain_norms[jumps].round(1).tolist() == [17.3, 16.7, 8.2, 16.1, 13.6]
    assert round(float(np.median(plain_norms)), 2) == 1.81
    assert plain_L[8] > plain_L[0], "the first jump ends above the starting loss"
    assert not np.any(rise_clipped > 0.5)
    assert round(plain_L[-1], 3) == 0.107 and round(clipped_L[-1], 3) == 0.090


def test_the_printed_numbers_are_far_from_rounding_edges(runs):
    """The stated numbers sit well inside their rounding intervals, so they read the same on every CPU."""
    plain_L, plain_norms, clipped_L, _ = runs
    rise = np.diff(plain_L)
    jumps = np.flatnonzero(rise > 0.5)
    values = [(rise.max(), 2), (np.diff(clipped_L).max(), 2), (np.median(plain_norms), 2), (plain_L[0], 2),
              (plain_L[-1], 3), (clipped_L[-1], 3), *((plain_norms[i], 1) for i in jumps),
              *((plain_L[i], 2) for i in jumps), *((plain_L[i + 1], 2) for i in jumps)]
    for value, decimals in values:
        scaled = value * 10 ** decimals
        assert abs(scaled - np.floor(scaled) - 0.5) > 0.02, (value, decimals)
