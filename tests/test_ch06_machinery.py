"""Chapter 6's machinery: the vector backward walk written as a loop, and gradient descent on the step machine's w.

The loop is taken from the chapter's own code cell, so the test checks what the learner reads.
"""
import numpy as np
import pytest

from mwm import last_note_loss, readout, readout_gradient, rnn_bptt, rnn_forward, scalar_bptt, scalar_rnn
from tests.chapter_cells import cell_with, chapter_function, chapter_path

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
    """The chapter's example run forward: xs, the notes hs, the blame dL/dh on each note, and P."""
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
    # and a wrong walk (no blame carried back) is caught
    assert not np.allclose(ours[0], rnn_bptt(xs, hs, dL_dh, P, k=1).dW)


def test_the_step_machine_as_a_1x1_matrix():
    bptt_loop = _chapter_function("bptt_loop")
    xs = np.array([1.0, 0.0, 0.0, 0.0])
    hs = scalar_rnn(xs, w=0.5, u=1)
    _, dL_dh = last_note_loss(hs, 1.0)
    dW, _, _ = bptt_loop(xs[:, None, None], hs[:, None, None], dL_dh[:, None, None], np.array([[0.5]]), np.array([[1.0]]))
    assert round(float(dW[0, 0]), 4) == -0.4655


def _descent(updates=8, eta=0.5):
    """The chapter's table: w, h_4, L and dL/dw after 0, 1, ..., ``updates`` updates."""
    xs = np.array([1.0, 0.0, 0.0, 0.0])
    w, rows = 0.5, []
    for _ in range(updates + 1):
        hs = scalar_rnn(xs, w=w, u=1)
        L, dL_dh = last_note_loss(hs, 1.0)
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
    assert np.all(dL_dw < 0) and np.all(np.diff(w) > 0), "every vote asks for a larger w"
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
    cut = rnn_bptt(xs, hs, dL_dh, P, k=1)
    off = {name: np.linalg.norm(c - numerical_gradient(loss, P[name], 1e-5)) / np.linalg.norm(f)
           for name, c, f in zip("WUb", (cut.dW, cut.dU, cut.db), (full.dW, full.dU, full.db))}
    assert {name: round(v, 2) for name, v in off.items()} == {"W": 0.28, "U": 0.21, "b": 0.24}
    for v in off.values():                                             # far from the rounding edges
        assert abs(v * 100 - np.floor(v * 100) - 0.5) > 0.05
