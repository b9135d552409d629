"""Chapter 10's checks, moved out of the chapter's path (issue 26): the course's GRU against torch.nn.GRU.

The chapter says, and links here, that torch turns the update gate the other way (a sign flip of
the update block matches it exactly), that torch applies the reset gate after the recurrent
matrix (so the two cells agree with one unit, a diagonal W or a reset gate equal in every unit,
and otherwise drift apart after the first step), and that torch stores one more bias per block.
Every number below is the one the chapter used to print; each is computed here by mwm and torch.
"""
import numpy as np
import pytest
import torch

from mwm import cell_param_count, gru_forward, gru_weights_to_torch, init_gru, reset_placement_gap, sigmoid

XS = np.random.default_rng(4).normal(size=(8, 3))          # eight inputs of three numbers


def _torch_gru(w, flip=True):
    """A float64 torch.nn.GRU carrying the course's weights ``w`` (flip=False: forget to negate z)."""
    hidden, inputs = w["U_z"].shape
    gru = torch.nn.GRU(inputs, hidden).double()
    with torch.no_grad():
        for name, value in zip(["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"], gru_weights_to_torch(w)):
            getattr(gru, name).copy_(torch.from_numpy(value))
        if not flip:
            for name in ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0"]:
                getattr(gru, name)[hidden:2 * hidden] *= -1      # undo the negation of the update block
    return gru


def _torch_states(gru, xs):
    with torch.no_grad():
        return gru(torch.from_numpy(xs))[0].numpy()


def test_one_unit_agrees_with_torch_and_the_forgotten_flip_does_not():
    w1 = init_gru(1, 3, seed=1, scale=1.0)
    ours = gru_forward(XS, w1)[0]
    assert np.abs(ours - _torch_states(_torch_gru(w1), XS)).max() < 1e-14
    forgotten = np.abs(ours - _torch_states(_torch_gru(w1, flip=False), XS)).max()
    assert round(float(forgotten), 4) == 1.0197                        # "a different cell altogether"


def test_four_units_agree_on_the_first_step_and_drift_apart_after_it():
    w4 = init_gru(4, 3, seed=3, scale=1.0)
    gap = np.abs(gru_forward(XS, w4)[0] - _torch_states(_torch_gru(w4), XS)).max(axis=1)
    assert gap[0] < 1e-14                                              # the first step starts from a zero state
    assert gap.round(4).tolist() == [0.0, 0.0943, 0.0521, 0.059, 0.0133, 0.1498, 0.0538, 0.0164]
    assert round(float(gap.max()), 4) == 0.1498


@pytest.mark.parametrize("case", ["r the same in every unit", "W diagonal"])
def test_the_special_cases_of_proof_3_agree_with_torch(case):
    w4 = init_gru(4, 3, seed=3, scale=1.0)
    if case == "W diagonal":
        w = dict(w4, W_h=np.diag(np.diag(w4["W_h"])))
    else:
        w = {k: v.copy() for k, v in w4.items()}
        for k in ("W_r", "U_r", "b_r"):
            w[k][:] = w[k][0]                                          # every unit gets unit 1's reset weights
    assert np.abs(gru_forward(XS, w)[0] - _torch_states(_torch_gru(w), XS)).max() < 1e-14


def test_the_reset_placements_differ_unless_w_commutes_with_diag_r():
    rng = np.random.default_rng(2)
    W, h_old = rng.normal(size=(4, 4)), rng.normal(size=4)
    gap = reset_placement_gap(W, np.array([0.9, 0.2, 0.5, 0.7]), h_old)
    assert gap.round(4).tolist() == [0.6369, -0.3293, -0.0159, 0.2879]
    block = W * np.kron(np.eye(2), np.ones((2, 2)))                    # W zero between units {1, 2} and {3, 4}
    assert np.abs(reset_placement_gap(block, np.array([0.9, 0.9, 0.2, 0.2]), h_old)).max() < 1e-14


def test_the_update_gate_flip_is_exact():
    a = np.linspace(-5, 5, 41)
    np.testing.assert_allclose(1 - sigmoid(a), sigmoid(-a), rtol=0, atol=1e-15)
    assert round(float(1 - sigmoid(0.7)), 6) == round(float(sigmoid(-0.7)), 6) == 0.331812


def test_counts_and_torchs_extra_bias_per_block():
    assert [cell_param_count(128, 64, c) for c in ("rnn", "gru", "lstm")] == [24_704, 74_112, 98_816]
    assert cell_param_count(10, 5, "lstm") == 640 and cell_param_count(10, 5, "gru") == 480
    torch_count = sum(p.numel() for p in torch.nn.GRU(64, 128).parameters())
    assert torch_count == 74_496 == cell_param_count(128, 64, "gru") + 3 * 128
