"""Chapter 6: its two backward-pass loops against mwm, gradient descent on w, its gradients against autograd and nudging.

The chapter's two loops (``backward_walk`` for the one-number cell, ``bptt_loop`` for a batch of
vector states) are taken from its own code cells, so the tests check what the learner reads.
The checks the chapter no longer shows live here: the step machine's dL/dw against autograd and
a central difference, the step Jacobian against nudging, full and truncated BPTT against PyTorch
autograd (``h = h.detach()`` at each chunk border), and the numbers its proofs quote.
"""
import numpy as np
import pytest

from mwm import chunk_count, chunk_of, last_state_loss, readout, readout_gradient, rnn_bptt, rnn_forward, scalar_bptt, scalar_rnn
from tests.chapter_cells import cell_with, chapter_function, chapter_path, source_of

CHAPTER = chapter_path(6)


def _chapter_function(name):
    """Run the chapter's code cell that defines ``name`` (the def, without the check below it) and return the function."""
    return chapter_function(CHAPTER, name, {"np": np})


def _chapter_setup():
    """The chapter's vector example: 4 sequences of 12 words (H=6, d=3), a read-out of K=5 classes at every word.

    Returns xs (12, 4, 3), the weights P, the read-out V (5, 6) and b_V (5,), and the targets (48,).
    """
    rng = np.random.default_rng(0)
    T, n_seq, H, d, K = 12, 4, 6, 3, 5
    P = {"W": rng.normal(0, 0.5, (H, H)), "U": rng.normal(0, 0.7, (H, d)), "b": rng.normal(0, 0.2, H)}
    xs = rng.normal(size=(T, n_seq, d))
    V, b_V = rng.normal(size=(K, H)), np.zeros(K)
    targets = rng.integers(0, K, size=T * n_seq)
    return xs, P, V, b_V, targets


def _chapter_example():
    """The chapter's example run forward: xs, the hidden states hs, the gradient dL/dh on each state, and P."""
    xs, P, V, b_V, targets = _chapter_setup()
    hs = rnn_forward(xs, P)[0]
    dL_dh = (readout_gradient(readout(hs, V, b_V).reshape(-1, len(b_V)), targets) @ V).reshape(hs.shape)
    return xs, hs, dL_dh, P


def test_the_chapter_loop_is_rnn_bptt_on_the_chapter_example():
    bptt_loop = _chapter_function("bptt_loop")
    xs, hs, dL_dh, P = _chapter_example()
    ours = bptt_loop(xs, hs, dL_dh, P["W"], P["U"])
    ref = rnn_bptt(xs, hs, dL_dh, P)
    for a, r in zip(ours, (ref.dW, ref.dU, ref.db)):
        np.testing.assert_allclose(a, r, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_chapter_loop_is_rnn_bptt_on_random_cells(seed):
    bptt_loop = _chapter_function("bptt_loop")
    rng = np.random.default_rng(seed)
    P = {"W": rng.normal(0, 0.8, (5, 5)), "U": rng.normal(size=(5, 2)), "b": rng.normal(size=5)}
    xs = rng.normal(size=(9, 3, 2))
    hs = rnn_forward(xs, P)[0]
    dL_dh = rng.normal(size=hs.shape)
    ours = bptt_loop(xs, hs, dL_dh, P["W"], P["U"])
    ref = rnn_bptt(xs, hs, dL_dh, P)
    for a, r in zip(ours, (ref.dW, ref.dU, ref.db)):
        np.testing.assert_allclose(a, r, rtol=1e-12, atol=1e-14)
    # and a wrong walk (no gradient carried back) is caught
    assert not np.allclose(ours[0], rnn_bptt(xs, hs, dL_dh, P, tau=1).dW)


def test_the_step_machine_as_a_1x1_matrix():
    bptt_loop = _chapter_function("bptt_loop")
    xs = np.array([1.0, 0.0, 0.0, 0.0])
    hs = scalar_rnn(xs, w=0.5, u=1)
    _, dL_dh = last_state_loss(hs, 1.0)
    dW, _, _ = bptt_loop(xs[:, None, None], hs[:, None, None], dL_dh[:, None, None], np.array([[0.5]]), np.array([[1.0]]))
    assert round(float(dW[0, 0]), 4) == -0.4655


def _descent(updates=8, eta=0.5):
    """The chapter's table: w, h_4, L and dL/dw after 0, 1, ..., ``updates`` updates."""
    xs = np.array([1.0, 0.0, 0.0, 0.0])
    w, rows = 0.5, []
    for _ in range(updates + 1):
        hs = scalar_rnn(xs, w=w, u=1)
        L, dL_dh = last_state_loss(hs, 1.0)
        dL_dw = scalar_bptt(xs, hs, dL_dh, w=w, u=1).dw
        rows.append((w, hs[-1], L, dL_dw))
        w = w - eta * dL_dw
    return rows


def test_eight_gradient_steps_on_the_step_machine():
    rows = _descent()
    assert len(rows) == 9, "the state before any update and after each of the eight"
    w, h4, L, dL_dw = (np.array(col) for col in zip(*rows))
    assert round(L[0], 4) == 0.4144 and round(dL_dw[0], 4) == -0.4655
    # after eight updates (the chapter's last line and its prose)
    assert round(L[-1], 4) == 0.0101
    assert round(w[-1], 4) == 1.5184 and round(h4[-1], 4) == 0.8580
    assert np.all(np.diff(L) < 0), "every update lowers the loss"
    assert np.all(dL_dw < 0) and np.all(np.diff(w) > 0), "every gradient asks for a larger w"
    assert [round(x, 4) for x in L] == [0.4144, 0.2779, 0.092, 0.0373, 0.0237, 0.0176, 0.014, 0.0117, 0.0101]


def test_the_chapter_runs_exactly_eight_updates():
    """The chapter's loop prints the state after 0 to 8 updates."""
    loop = cell_with(CHAPTER, "for updates in range(9)")
    lines = "".join(loop["outputs"][0]["text"]).splitlines()
    assert len(lines) == 9 and lines[-1].startswith("after 8 updates: w = 1.5184  h_4 = 0.8580  L = 0.0101")


def test_the_gradient_check_and_the_one_word_chunks():
    """Full BPTT agrees with central differences entry by entry; chunks of one word are off by 0.21 to 0.28."""
    from mwm import gradient_check, numerical_gradient, sequence_loss

    _, P, V, b_V, targets = _chapter_setup()
    xs, hs, dL_dh, P = _chapter_example()

    def loss():
        return sequence_loss(readout(rnn_forward(xs, P)[0], V, b_V).reshape(-1, len(b_V)), targets)

    full = rnn_bptt(xs, hs, dL_dh, P)
    errors = gradient_check(loss, P, {"W": full.dW, "U": full.dU, "b": full.db})
    assert max(errors.values()) < 1e-7 / 5, errors                     # the printed bound, with room to spare
    cut = rnn_bptt(xs, hs, dL_dh, P, tau=1)
    off = {name: np.linalg.norm(c - numerical_gradient(loss, P[name], 1e-5)) / np.linalg.norm(f)
           for name, c, f in zip("WUb", (cut.dW, cut.dU, cut.db), (full.dW, full.dU, full.db))}
    assert {name: round(v, 2) for name, v in off.items()} == {"W": 0.28, "U": 0.21, "b": 0.24}
    for v in off.values():                                             # far from the rounding edges
        assert abs(v * 100 - np.floor(v * 100) - 0.5) > 0.05


# --- the one-number cell: the chapter's backward_walk, and the checks the chapter used to print ---

def _step_machine():
    xs = np.array([1.0, 0.0, 0.0, 0.0])
    hs = scalar_rnn(xs, w=0.5, u=1)
    L, dL_dh = last_state_loss(hs, 1.0)
    return xs, hs, L, dL_dh


def test_the_chapter_backward_walk_is_scalar_bptt():
    backward_walk = _chapter_function("backward_walk")
    xs, hs, _, dL_dh = _step_machine()
    g = scalar_bptt(xs, hs, dL_dh, w=0.5, u=1)
    np.testing.assert_allclose(backward_walk(xs, hs, dL_dh, w=0.5), g.dw_steps, rtol=1e-14, atol=0)
    assert [round(v, 4) for v in g.dw_steps] == [0.0, -0.1444, -0.1588, -0.1623] and round(g.dw, 4) == -0.4655
    assert [round(v, 4) for v in g.dh] == [-0.0948, -0.2185, -0.4515, -0.9104]
    rng = np.random.default_rng(4)
    for _ in range(5):
        xs, w, u = rng.normal(size=7), rng.normal(), rng.normal()
        hs, dL_dh = scalar_rnn(xs, w=w, u=u), rng.normal(size=7)
        np.testing.assert_allclose(backward_walk(xs, hs, dL_dh, w=w), scalar_bptt(xs, hs, dL_dh, w=w, u=u).dw_steps,
                                   rtol=1e-12, atol=1e-15)


def test_the_chapter_try_comment_gives_truncation_with_tau_2():
    """The code cell's suggestion (reset from_later at every even step) is truncated BPTT with tau = 2."""
    source = source_of(cell_with(CHAPTER, "def backward_walk(")).split("\n\n")[0]
    loop = "    for t in reversed(range(len(xs))):           # last step first\n"
    assert loop in source
    namespace = {"np": np}
    exec(source.replace(loop, loop + "        if (t + 1) % 2 == 0: from_later = 0.0\n"), namespace)
    xs, hs, _, dL_dh = _step_machine()
    cut = scalar_bptt(xs, hs, dL_dh, w=0.5, u=1, tau=2)
    np.testing.assert_allclose(namespace["backward_walk"](xs, hs, dL_dh, w=0.5), cut.dw_steps, rtol=1e-14, atol=0)
    assert round(cut.dw, 4) == -0.3211


def test_step_machine_gradient_is_autograd_and_central_difference():
    """The chapter's dL/dw = -0.4655 is the slope of L in w: autograd and a central difference give -0.46550643."""
    torch = pytest.importorskip("torch")
    xs, hs, _, dL_dh = _step_machine()
    ours = scalar_bptt(xs, hs, dL_dh, w=0.5, u=1).dw
    w_t = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    h = torch.tensor(0.0, dtype=torch.float64)
    for x in xs:
        h = torch.tanh(w_t * h + 1.0 * float(x))
    (0.5 * (h - 1.0) ** 2).backward()

    def loss_at(w):
        return last_state_loss(scalar_rnn(xs, w=w, u=1), 1.0)[0]

    eps = 1e-6
    central = (loss_at(0.5 + eps) - loss_at(0.5 - eps)) / (2 * eps)
    assert f"{w_t.grad.item():.8f}" == f"{central:.8f}" == f"{ours:.8f}" == "-0.46550643"


def test_one_factor_per_step():
    """Proof 1's numbers: dh3/dh1 = 0.4838 x 0.4340 = 0.2100, and nudging h1 by 0.001 moves h3 by 0.0002099."""
    from mwm import step_factors
    hs3 = scalar_rnn([1, 0, 0], w=0.5, u=1)
    f = step_factors(hs3, w=0.5)
    assert (round(f[2], 4), round(f[1], 4), round(f[1] * f[2], 4)) == (0.4838, 0.4340, 0.2100)
    nudged = scalar_rnn([0, 0], w=0.5, u=1, h0=hs3[0] + 0.001)[-1]
    assert f"{nudged - hs3[2]:.7f}" == "0.0002099"
    assert (nudged - hs3[2]) / 0.001 == pytest.approx(f[1] * f[2], rel=1e-3)


def test_the_step_jacobian_is_the_formula():
    """Proof 3 on the chapter's state of three numbers: diag(1 - h_t^2) W equals the Jacobian measured by nudging,
    and rnn_step_backward sends back W^T diag(1 - h_t^2) dL/dh_t."""
    from mwm import rnn_step, rnn_step_backward
    rng = np.random.default_rng(6)
    cell3 = dict(W=rng.normal(0, 0.6, (3, 3)), U=rng.normal(size=(3, 2)), b=rng.normal(size=3))
    h_before, x = np.tanh(rng.normal(size=3)), rng.normal(size=2)
    h_after, cache = rnn_step(h_before, x, cell3)
    J = np.diag(1 - h_after ** 2) @ cell3["W"]
    measured = np.column_stack([(rnn_step(h_before + 1e-6 * e, x, cell3)[0]
                                 - rnn_step(h_before - 1e-6 * e, x, cell3)[0]) / 2e-6 for e in np.eye(3)])
    assert np.abs(J - measured).max() < 1e-8
    dL_dh = np.array([1.0, -2.0, 0.5])
    sent = rnn_step_backward(dL_dh, cache, cell3)[1]
    np.testing.assert_allclose(sent, J.T @ dL_dh, rtol=1e-13, atol=1e-15)
    assert sent.round(4).tolist() == [0.0302, -0.0372, -0.1179]


def test_full_and_truncated_bptt_agree_with_autograd():
    """The chapter's PyTorch check: 60 steps, a batch of 8, H = 16; full BPTT, and tau = 20 with h.detach()."""
    torch = pytest.importorskip("torch")

    def torch_grads(xs, G, W, U, b, tau=None):
        Wt, Ut, bt = (torch.tensor(a, requires_grad=True) for a in (W, U, b))
        h, loss = torch.zeros(xs.shape[1], W.shape[0], dtype=torch.float64), 0.0
        for t in range(xs.shape[0]):
            if tau is not None and t > 0 and t % tau == 0:
                h = h.detach()
            h = torch.tanh(h @ Wt.T + torch.from_numpy(xs[t]) @ Ut.T + bt)
            loss = loss + (h * torch.from_numpy(G[t])).sum()
        loss.backward()
        return Wt.grad.numpy(), Ut.grad.numpy(), bt.grad.numpy()

    rng = np.random.default_rng(1)
    Wr, Ur, br = rng.normal(0, 0.2, (16, 16)), rng.normal(0, 0.8, (16, 5)), rng.normal(0, 0.3, 16)
    xs, G = rng.normal(size=(60, 8, 5)), rng.normal(size=(60, 8, 16))
    weights = dict(W=Wr, U=Ur, b=br)
    hs = rnn_forward(xs, weights)[0]
    for tau in (None, 20):
        ours = rnn_bptt(xs, hs, G, weights, tau=tau)
        theirs = torch_grads(xs, G, Wr, Ur, br, tau=tau)
        assert max(np.abs(a - r).max() for a, r in zip((ours.dW, ours.dU, ours.db), theirs)) < 1e-12, tau
    # and the cut matters here, so agreement with tau = 20 is not agreement with full BPTT
    assert np.abs(rnn_bptt(xs, hs, G, weights, tau=20).dW - rnn_bptt(xs, hs, G, weights).dW).max() > 1e-6


def test_the_trap_and_the_chunks():
    """The trap: with w = 1 the state at word 45 still depends on word 5 (0.1867 / -0.1867), but with tau = 20
    no gradient reaches word 5 (full BPTT: 0.0139). Proof 4: 50 chunks; word 45 in chunk 3 (words 41-60)."""
    x45 = np.zeros(45); x45[4] = 1.0
    h45 = scalar_rnn(x45, w=1.0, u=1)
    flipped = x45.copy(); flipped[4] = -1.0
    assert round(h45[-1], 4) == 0.1867 and round(scalar_rnn(flipped, w=1.0, u=1)[-1], 4) == -0.1867
    dL_dh = np.zeros(45); dL_dh[-1] = 1.0
    assert round(scalar_bptt(x45, h45, dL_dh, w=1.0, u=1).dh[4], 4) == 0.0139
    assert scalar_bptt(x45, h45, dL_dh, w=1.0, u=1, tau=20).dh[4] == 0.0
    assert chunk_count(1000, 20) == 50 and chunk_of(45, 20) == (3, 41, 60) and chunk_of(5, 20) == (1, 1, 20)
