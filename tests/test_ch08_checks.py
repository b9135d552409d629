"""Chapter 8's checks kept off the page: PyTorch's clip and orthogonal start agree with mwm's, the 25 plateau starts.

The chapter says "PyTorch's clip_grad_norm_ computes the same" and that torch.nn.init.orthogonal_ draws its matrix
the same way; these tests hold both to it on the chapter's own arrays. They also keep the numbers behind the
chapter's sentence on the 25 starts along the plateau ("about half are flung off, and the gentle plateau gives no
warning which; with gamma = 1 all 25 reach the valley"), and the one-number tanh loop an earlier version showed.
"""
import numpy as np
import pytest

from mwm import clip_by_global_norm, descend, orthogonal, wall_crossing
from mwm.clipping import CLIFF_LR, CLIFF_START, on_map

torch = pytest.importorskip("torch")


def _chapter_gradients():
    """The chapter's made-up gradients for a cell with a hidden state of 4 numbers and inputs of 3."""
    rng = np.random.default_rng(8)
    return {"W": rng.normal(0, 6, (4, 4)), "U": rng.normal(0, 6, (4, 3)), "b": rng.normal(0, 6, 4)}


def test_torch_clip_grad_norm_is_clip_by_global_norm():
    """torch.nn.utils.clip_grad_norm_ on the same arrays: the same length before (37.2943), the same clip to 1e-6.

    PyTorch divides by the norm plus 1e-6 (so a zero gradient never divides by zero); that is the only difference.
    """
    grads = _chapter_gradients()
    clipped, norm = clip_by_global_norm(list(grads.values()), 5.0)
    assert round(norm, 4) == 37.2943 and round(5.0 / norm, 4) == 0.1341
    params = [torch.nn.Parameter(torch.zeros(g.shape, dtype=torch.float64)) for g in grads.values()]
    for param, g in zip(params, grads.values()):
        param.grad = torch.from_numpy(g.copy())
    total = torch.nn.utils.clip_grad_norm_(params, 5.0)
    assert float(total) == pytest.approx(norm, rel=1e-14)
    for param, ours, g in zip(params, clipped, grads.values()):
        np.testing.assert_allclose(param.grad.numpy(), ours, rtol=0, atol=1e-6)
        np.testing.assert_allclose(param.grad.numpy(), g * 5.0 / (norm + 1e-6), rtol=1e-12, atol=0)


def test_torch_orthogonal_start_has_every_eigenvalue_of_size_gain():
    """torch.nn.init.orthogonal_ with gain 0.9 gives every eigenvalue size 0.9000, as mwm's orthogonal(scale=0.9)."""
    torch.manual_seed(0)
    W = torch.empty(64, 64, dtype=torch.float64)
    torch.nn.init.orthogonal_(W, gain=0.9)
    sizes = np.abs(np.linalg.eigvals(W.numpy()))
    assert (round(sizes.min(), 4), round(sizes.max(), 4)) == (0.9, 0.9)
    ours = np.abs(np.linalg.eigvals(orthogonal(64, seed=0, scale=0.9)))
    np.testing.assert_allclose(ours, 0.9, rtol=0, atol=1e-12)


def test_the_25_plateau_starts():
    """12 of 25 starts (w_1 from -3.9 to -1.5) are flung off without clipping, all 25 reach the valley with gamma = 1.

    The fate is set by where the last step before the wall w_1 = 0 takes off, not by anything on the plateau: the
    13 survivors take off from -0.56 to -0.30 and clear the wall; 4 take off higher on the shoulder (-0.66 to -0.61),
    land on its face and are flung by the next step; 8 take off from the top of the face (-0.26 to -0.04, gradient
    8.70 to 14.97) and are flung at once. Along the plateau flung and surviving starts alternate.
    """
    starts = [(x0, 2.0) for x0 in np.round(np.arange(-3.9, -1.45, 0.1), 1)]
    assert len(starts) == 25 and starts[0][0] == -3.9 and starts[-1][0] == -1.5
    plain = [descend(s, steps=60) for s in starts]
    clipped = [descend(s, steps=60, max_norm=1.0) for s in starts]
    assert sum(r["left_map_at"] is not None for r in plain) == 12
    assert all(r["left_map_at"] is None for r in clipped)
    assert round(max(float(r["losses"][-1]) for r in clipped), 4) == 0.0009
    groups = {"survived": [], "hopped": [], "flung at once": []}
    for run in plain:
        cross = wall_crossing(run)
        fate = ("survived" if run["left_map_at"] is None else "hopped" if on_map(cross["landing"]) else "flung at once")
        groups[fate].append(cross)
    stated = {"survived": (13, (-0.56, -0.30), (2.17, 7.44), (0.52, 3.42)),
              "hopped": (4, (-0.66, -0.61), (1.38, 1.72), (0.03, 0.25)),
              "flung at once": (8, (-0.26, -0.04), (8.70, 14.97), (4.09, 7.44))}
    for fate, (n, take_off, slope, landing) in stated.items():
        rows = groups[fate]
        assert len(rows) == n, fate
        for key, (low, high) in (("take_off", take_off), ("landing", landing)):
            values = [c[key][0] for c in rows]
            assert (round(min(values), 2), round(max(values), 2)) == (low, high), (fate, key)
        values = [c["grad_norm"] for c in rows]
        assert (round(min(values), 2), round(max(values), 2)) == slope, fate
    # no warning on the plateau: flung and surviving starts alternate along it, their first gradients interleave
    flung = [r["left_map_at"] is not None for r in plain]
    assert sum(a != b for a, b in zip(flung, flung[1:])) >= 15
    first = np.array([r["grad_norms"][0] for r in plain])
    assert first[flung].min() < first[~np.array(flung)].max() and first[~np.array(flung)].min() < first[flung].max()
    assert first.max() < 0.63


def test_the_chapters_start_is_flung_at_step_15_and_saved_by_gamma_1():
    """The Try's numbers: flung at step 15 by a gradient of length 14.29 (also with gamma = 10); gamma = 1 ends at
    (1.927, 0.103) with loss 0.0009."""
    plain = descend(CLIFF_START, lr=CLIFF_LR, steps=60)
    assert plain["left_map_at"] == 15 and round(float(plain["grad_norms"][-1]), 2) == 14.29
    assert descend(CLIFF_START, lr=CLIFF_LR, steps=60, max_norm=10.0)["left_map_at"] == 15
    safe = descend(CLIFF_START, lr=CLIFF_LR, steps=60, max_norm=1.0)
    assert safe["left_map_at"] is None and safe["path"][-1].round(3).tolist() == [1.927, 0.103]
    assert round(float(safe["losses"][-1]), 4) == 0.0009


def test_the_tanh_loop_has_no_cliff_at_these_weights():
    """The one-number loop h_t = tanh(w h_(t-1)) from h_0 = 1: d h_50 / dw stays between 0.13 and 4.29 for w in
    0.9-1.2 (chain rule, equal to torch autograd), while without tanh it is 50 w^49, 0.2863 to 379,184.9229."""
    slopes = []
    for w in (0.9, 1.0, 1.1, 1.2):
        h, dh_dw = 1.0, 0.0
        for _ in range(50):
            h, dh_dw = np.tanh(w * h), (1 - np.tanh(w * h) ** 2) * (h + w * dh_dw)
        wt = torch.tensor(w, dtype=torch.float64, requires_grad=True)
        ht = torch.tensor(1.0, dtype=torch.float64)
        for _ in range(50):
            ht = torch.tanh(wt * ht)
        ht.backward()
        assert dh_dw == pytest.approx(wt.grad.item(), rel=1e-12)
        slopes.append(round(dh_dw, 2))
    assert slopes == [0.13, 4.29, 2.11, 1.16]
    assert round(50 * 0.9 ** 49, 4) == 0.2863 and round(50 * 1.2 ** 49, 4) == 379184.9229
