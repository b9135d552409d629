"""Chapter 10's machinery: the GRU step written out in numpy, checked against mwm and torch.nn.GRU.

The step is taken from the chapter's own code cell, so the test checks what the learner reads.
"""
import numpy as np
import pytest
import torch

from mwm import gru_step, gru_weights_from_torch, init_gru, sigmoid
from tests.chapter_cells import chapter_function, chapter_path

CHAPTER = chapter_path(10)


def _chapter_function(name):
    """Run the chapter's code cell that defines ``name`` (the def alone) and return the function."""
    return chapter_function(CHAPTER, name, {"np": np, "sigmoid": sigmoid})


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("H, d", [(1, 1), (4, 3), (7, 2)])
def test_the_chapter_step_is_mwm_gru_step(seed, H, d):
    step = _chapter_function("gru_step_by_hand")
    rng = np.random.default_rng(seed)
    w = init_gru(H, d, seed=seed, scale=1.5, update_bias=rng.normal())
    h_prev, x = rng.uniform(-1, 1, size=H), rng.normal(size=d)
    np.testing.assert_allclose(step(h_prev, x, w), gru_step(h_prev, x, w)[0], rtol=0, atol=1e-12)


def test_the_chapter_step_puts_z_on_the_candidate():
    """With the update gate shut (z = 0) the hidden state is copied; wide open (z = 1) it becomes the candidate."""
    step = _chapter_function("gru_step_by_hand")
    w = init_gru(3, 2, seed=1, scale=1.0)
    h_prev, x = np.array([0.3, -0.5, 0.9]), np.array([1.0, -2.0])
    np.testing.assert_array_equal(step(h_prev, x, dict(w, b_z=np.full(3, -800.0))), h_prev)
    candidate = gru_step(h_prev, x, w)[1]["candidate"]
    np.testing.assert_allclose(step(h_prev, x, dict(w, b_z=np.full(3, 800.0))), candidate, rtol=0, atol=1e-15)


def test_the_chapter_step_gives_the_worked_example():
    """Old state 0.5, input 1, pre-activations 0 (update) and 2 (reset), candidate weights 1 and 1: h = 0.6969."""
    step = _chapter_function("gru_step_by_hand")
    one = {key: np.zeros((1, 1)) for key in ("W_z", "U_z", "W_r", "U_r")}
    one.update(b_z=np.array([0.0]), b_r=np.array([2.0]), W_h=np.array([[1.0]]), U_h=np.array([[1.0]]), b_h=np.array([0.0]))
    h = step(np.array([0.5]), np.array([1.0]), one)
    assert round(float(h[0]), 4) == 0.6969
    np.testing.assert_allclose(h, gru_step(np.array([0.5]), np.array([1.0]), one)[0], rtol=0, atol=1e-15)


def test_the_chapter_cell_values_agree():
    """The example the chapter used to print (seed 10, H = 4, d = 3) and its one-unit torch.nn.GRU check."""
    step = _chapter_function("gru_step_by_hand")
    rng = np.random.default_rng(10)
    w = init_gru(4, 3, seed=10, scale=1.0)
    h_prev, x = rng.uniform(-1, 1, size=4), rng.normal(size=3)
    assert np.allclose(step(h_prev, x, w), gru_step(h_prev, x, w)[0], rtol=0, atol=1e-12)
    torch.manual_seed(0)
    cell = torch.nn.GRU(3, 1).double()
    with torch.no_grad():
        cell.bias_hh_l0[2:] = 0.0
        h_torch = cell(torch.from_numpy(x[None]), torch.from_numpy(h_prev[None, :1]))[0][0].numpy()
    w_torch = gru_weights_from_torch(*(p.detach().numpy() for p in cell.parameters()))
    np.testing.assert_allclose(step(h_prev[:1], x, w_torch), h_torch, rtol=0, atol=1e-12)
    # torch's z' multiplies the old state: without the negation in gru_weights_from_torch the steps differ
    unflipped = dict(w_torch, W_z=-w_torch["W_z"], U_z=-w_torch["U_z"], b_z=-w_torch["b_z"])
    assert abs(step(h_prev[:1], x, unflipped) - h_torch).max() > 1e-3
