"""Every number chapter 9 (the LSTM) states, computed by lib and asserted, with the checks kept off the page.

Besides the numbers the chapter prints, this file holds what an earlier version showed and the chapter now only
states or links to "How we checked": torch.nn.LSTM with our blocks computes the same step (PyTorch stacks them in
the order i, f, candidate, o and adds two biases), the memory lab's standard errors and exact integral, the noise
table, the gradient chart's T - 1 factors and the lab's ten-word comparison with the plain cell. The trained models'
numbers (starting gradients, the trained LSTM followed along one entry) are in tests/test_memory_task.py.
"""
import json
import re
from math import comb
from pathlib import Path

import numpy as np
import pytest

from mwm import LSTMState, init_lstm, lane_keep, lstm_backward, lstm_forward, lstm_step, sigmoid
from mwm.dynamics import scalar_chain
from mwm.memory_lab import lab_accuracy, lab_exact_accuracy, lab_gates, lab_run, lab_sentences
from mwm.lstm import tank_run


def test_tiny_step_and_full_step():
    levels, hs = tank_run(1.0, 0.9, 0.2, 0.5, 1.0)
    assert levels[1] == pytest.approx(1.0) and round(hs[0], 4) == 0.7616
    one = {}
    for j, u in {"f": 2.0, "i": 0.0, "o": 1.0, "c": 1.0}.items():      # "c": the candidate's blocks
        one[f"W_{j}"], one[f"U_{j}"], one[f"b_{j}"] = np.zeros((1, 1)), np.array([[u]]), np.zeros(1)
    (h, c), cache = lstm_step(LSTMState([0.0], [1.0]), [1.0], one)
    got = [round(float(cache[k][0]), 4) for k in ("f", "i", "o", "c_tilde")]
    assert got == [0.8808, 0.5, 0.7311, 0.7616]
    assert round(float(cache["i"][0] * cache["c_tilde"][0]), 4) == 0.3808
    assert round(float(c[0]), 4) == 1.2616 and c[0] > 1
    assert round(float(np.tanh(c[0])), 4) == 0.8515 and round(float(h[0]), 4) == 0.6225


def test_lane_gradient_numbers():
    def lane(f, steps):   # the gradient along a lane whose forget gate is held at f: f^steps
        return scalar_chain(f, steps)[1][steps]

    assert round(lane(0.9, 10), 3) == 0.349 and round(lane_keep(0.0, 10), 6) == 0.000977
    # against the lab's own plain cell (w = 0.9), median gradient at word 1 of 10: about 8 times less
    s = lab_sentences(40_000, 50, noise=0.5, seed=0)[:, :10]
    plain, lstm = (float(np.median(lab_run(cell, s, **kw)[1][:, 9])) for cell, kw in (("plain", dict(w=0.9)), ("LSTM", dict(f=0.9))))
    assert f"{plain:.3g}" == "0.0461" and f"{lstm:.3g}" == "0.387" and round(lstm / plain, 1) == 8.4
    # 50 words: 49 steps from the first word to the last (the lab panel's Jacobian to word 1)
    assert round(lane(0.9, 49), 5) == 0.00573 and round(lane(0.99, 49), 3) == 0.611 and round(lane(0.9, 9), 3) == 0.387
    assert round(float(sigmoid(1.0)), 2) == 0.73 and round(float(sigmoid(2.0)), 2) == 0.88
    assert round(lane_keep(2.0, 10), 3) == 0.281 and round(lane_keep(0.0, 10), 3) == 0.001
    assert f"{lane_keep(0.0, 19):.7f}" == "0.0000019"
    # the real backward pass of a fresh LSTM with b_f = 2
    w = init_lstm(hidden_size=4, input_size=2, seed=1, scale=1e-9, forget_bias=2.0)
    _, caches = lstm_forward(np.zeros((10, 2)), w)
    grad_c = np.zeros((10, 4))
    grad_c[-1] = 1.0                          # dL/dc_10 = 1, nothing else
    _, d0, _ = lstm_backward(LSTMState(np.zeros((10, 4)), grad_c), caches, w)
    assert np.allclose(d0.c, float(sigmoid(2.0)) ** 10, rtol=1e-6)


def test_plural_mark_on_the_lane_numbers():
    levels, _ = tank_run(1.0, 0.95, 0.05, -0.8, 1.0, steps=5)
    assert round(levels[1], 2) == 0.91
    assert round(tank_run(1.0, 0.95, 0.0, 0.0, 1.0, steps=5)[0][-1], 2) == 0.77   # the old level alone keeps 0.95^5
    assert round(levels[-1], 2) == 0.59 and levels[-1] > 0
    assert scalar_chain(1.0, 20)[1][20] == 1 and f"{scalar_chain(0.6, 20)[1][20]:.5f}" == "0.00004"


def test_pause_and_predict_answers():
    assert tank_run(2.0, 0.5, 1.0, -0.4, 1.0)[0][1] == pytest.approx(0.6)
    assert round(tank_run(1.0, 0.95, 0.0, 0.0, 1.0, steps=20)[0][-1], 3) == 0.358
    assert round(100 * lab_exact_accuracy("LSTM", 50, 0.5, f=0.9), 1) == 84.5
    assert round(scalar_chain(0.9, 49)[1][49], 4) == 0.0057


def test_memory_lab_numbers_the_chapter_quotes():
    gates = lab_gates(2)
    assert round(gates[0], 3) == 0.993 and round(gates[1], 4) == 0.0067
    worst = np.sqrt(0.25 / 40_000)
    assert round(100 * worst, 2) == 0.25 and round(196 * worst, 2) == 0.49
    lengths = [5, 10, 20, 30, 40, 50]
    honest, se = lab_accuracy("LSTM", lengths, 0.5, f=0.9, n_trials=40_000, seed=0)
    assert np.all(honest[:4] == 1.0) and round(100 * honest[-1], 1) == 84.6 and round(100 * se[-1], 1) == 0.2
    for cell, kw in (("LSTM", dict(f=0.99)), ("GRU", {})):
        assert np.all(lab_accuracy(cell, lengths, 0.5, n_trials=40_000, seed=0, **kw)[0] == 1.0)
    exact = lab_exact_accuracy("LSTM", 50, 0.5, f=0.9)
    assert round(100 * exact, 2) == 84.46
    assert round(100 * lab_exact_accuracy("LSTM", 49, 0.5, f=0.9), 1) == 87.0
    assert round(100 * lab_exact_accuracy("LSTM", 51, 0.5, f=0.9), 1) == 81.9
    assert round(100 * np.sqrt(exact * (1 - exact) / 200), 1) == 2.6
    assert round(100 * np.sqrt(exact * (1 - exact) / 1000), 1) == 1.1
    noisy = lab_accuracy("LSTM", [50], 1.0, f=0.9, n_trials=40_000, seed=0)[0][0]
    assert round(100 * noisy, 1) == 71.5


def test_proof_checks():
    """The numerical look at the two proofs (once a chapter cell): on the lab's LSTM with f = 0.9 over 12 words,
    lstm_backward's dc_12/dc_1 is the product of the forget gates, 0.9^11 = 0.313811 (Proof 1), and c_12 is the
    leaky sum of what was written, 0.232517 (Proof 2)."""
    s1 = lab_sentences(1, 12, noise=0.5, seed=5)[0]
    memory, grad = lab_run("LSTM", s1[None], f=0.9)
    assert grad[0, -1] == pytest.approx(0.9 ** 11)
    gates = lab_gates(12)
    leaky = sum(0.9 ** (12 - k) * gates[k - 1] * np.tanh(s1[k - 1]) for k in range(1, 13))
    assert memory[0, -1] == pytest.approx(leaky) and f"{leaky:.6f}" == "0.232517"
    # the same lab cell as a full LSTM (word and marker in, gates reading only the marker), run by lstm_forward
    # from c_1 and sent back by lstm_backward
    xs_lab = np.stack([s1, (np.arange(12) == 0).astype(float)], axis=1)
    zero = np.zeros((1, 1))
    lab_w = {"W_i": zero, "U_i": np.array([[0.0, 10.0]]), "b_i": np.array([-5.0]),
             "W_f": zero, "U_f": np.zeros((1, 2)), "b_f": np.array([np.log(0.9 / 0.1)]),
             "W_c": zero, "U_c": np.array([[1.0, 0.0]]), "b_c": np.zeros(1),     # the candidate: tanh(x_t)
             "W_o": zero, "U_o": np.zeros((1, 2)), "b_o": np.zeros(1)}
    (_, cs), caches = lstm_forward(xs_lab[1:], lab_w, LSTMState(None, memory[0, :1]))
    assert cs[-1, 0] == pytest.approx(memory[0, -1], rel=1e-12)
    grad_c12 = np.zeros((11, 1))
    grad_c12[-1] = 1.0
    _, back, _ = lstm_backward(LSTMState(None, grad_c12), caches, lab_w)
    assert back.c[0] == pytest.approx(0.9 ** 11, rel=1e-12) and f"{back.c[0]:.6f}" == "0.313811"


def test_a_latched_plain_cell_holds_the_word_but_passes_no_gradient():
    s = lab_sentences(40_000, 50, noise=0.5, seed=0)
    states, grad = lab_run("plain", s, w=1.5)
    assert round(100 * np.mean(np.sign(states[:, -1]) == s[:, 0]), 1) == 96.7
    assert f"{np.median(grad[:, -1]):.1e}" == "1.2e-18"
    states, grad = lab_run("plain", s, w=3.0)
    assert np.all(np.sign(states[:, -1]) == s[:, 0])
    assert round(float(np.abs(states[:, -1]).min()), 3) == 0.986
    assert f"{np.median(grad[:, -1]):.1e}" == "3.0e-74"
    # the same numbers through lab_accuracy (the panel's route)
    acc, _ = lab_accuracy("plain", [50], 0.5, w=1.5, n_trials=40_000, seed=0)
    assert round(100 * acc[0], 1) == 96.7


def test_small_runs_wobble():
    exact = lab_exact_accuracy("LSTM", 50, 0.5, f=0.9)
    se200 = np.sqrt(exact * (1 - exact) / 200)
    assert round(100 * se200, 1) == 2.6
    assert round(100 * (exact - 1.96 * se200)) == 79 and round(100 * (exact + 1.96 * se200)) == 89
    assert round(100 * exact, 1) == 84.5 and round(100 * exact, 2) == 84.46


def test_the_gradient_chart_shows_t_minus_1_factors():
    s = lab_sentences(10, 50, noise=0.5, seed=0)
    assert f"{lab_run('LSTM', s, f=0.9)[1][0, 9]:.3g}" == "0.387"
    assert f"{lab_run('LSTM', s, f=0.99)[1][0, 49]:.3g}" == "0.611"


def test_noise_table_on_the_slider_grid():
    honest = [lab_accuracy("LSTM", [50], A, f=0.9, n_trials=40_000, seed=0)[0][0] for A in (0.0, 0.2, 0.5, 0.8, 1.0)]
    assert [round(100 * a, 1) for a in honest] == [100.0, 99.4, 84.6, 74.9, 71.5]


def test_pause_and_predict_after_review():
    # 3: f = 0.95 is exactly 100% at 50 words, because the fillers can never outvote the first word
    # the chapter prints the exact share; the simulation over the lab's 40,000 sentences agrees (once shown beside it)
    assert lab_exact_accuracy("LSTM", 50, 0.5, f=0.95) == 1.0
    assert lab_accuracy("LSTM", [50], 0.5, f=0.95, n_trials=40_000, seed=0)[0][0] == 1.0
    g = lab_gates(50)
    first = lambda f: g[0] * np.tanh(1.0) * f ** 49            # noqa: E731
    worst = lambda f: g[1] * np.tanh(0.5) * sum(f ** k for k in range(49))   # noqa: E731
    assert round(first(0.95), 4) == 0.0613 and round(worst(0.95), 4) == 0.0568 and first(0.95) > worst(0.95)
    assert round(first(0.9), 4) == 0.0043 and round(worst(0.9), 4) == 0.0308
    # 4: b_f = 1 against b_f = 3 over 20 steps
    assert round(float(sigmoid(1.0)), 4) == 0.7311 and round(float(sigmoid(1.0)) ** 20, 4) == 0.0019
    assert round(float(sigmoid(3.0)), 4) == 0.9526 and round(float(sigmoid(3.0)) ** 20, 4) == 0.3784
    assert round(float(sigmoid(3.0) / sigmoid(1.0)) ** 20) == 199


def test_written_out_step_equals_lstm_step():
    """The chapter's numpy step (f, i, o, c~ from W, U, b) is mwm's lstm_step, to within 1e-12."""
    from tests.chapter_cells import chapter_function, chapter_path
    step = chapter_function(chapter_path(9), "step", {"np": np, "sigmoid": sigmoid})
    weights = init_lstm(hidden_size=3, input_size=2, seed=0)
    h_prev, c_prev, x = np.array([0.1, -0.2, 0.3]), np.array([0.5, -1.0, 0.2]), np.array([1.0, -0.5])
    h, c, (f, _, _, _) = step(h_prev, c_prev, x, weights)
    (h_lib, c_lib), cache = lstm_step(LSTMState(h_prev, c_prev), x, weights)
    assert np.max(np.abs(h - h_lib)) < 1e-12 and np.max(np.abs(c - c_lib)) < 1e-12
    assert np.allclose(f, cache["f"], rtol=0, atol=1e-15) and np.all(np.abs(f - 0.75) < 0.02)  # near sigma(1): b_f starts at 1


def test_chapter_writes_the_candidate_c_tilde():
    """Notation (intro's table): the candidate is c~ in the chapter's prose and maths, never g; the gates' inputs are
    pre-activations, never "scores"; the course's private words are gone."""
    nb = json.loads((Path(__file__).resolve().parents[1] / "chapters" / "09-the-lstm.ipynb").read_text(encoding="utf-8"))
    prose = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert r"\tilde{\boldsymbol c}_t" in prose and r"\tilde c_t" in prose
    # the maths never writes the candidate as g (the code may name mwm's key `W_g`, in backticks)
    for pattern in (r"\\boldsymbol g(?![a-zA-Z])", r"(?<![\w\\])g_[tk]\b", r"\$g\s*=", r"\$[WU]_g\b",
                    r"\bi(_[tk])?(\\,|\s)*g\b"):
        assert not re.search(pattern, prose), pattern
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    for word in (r"\bblame", r"\bscores?\b", r"\bnotes?\b", r"\bshift", r"\bwhisper"):
        assert not re.search(word, prose, re.I) and not re.search(word, code, re.I), word
    assert '"g"' not in code and "W_g" not in code
    # issue 26's learner review: no private words for the activation, the fixed gate or the hand-set weights, one
    # image for the cell state (the lane; the panel draws a tank), and b_V (not v0) for the read-out's bias
    for word in (r"squeez", r"\bhonest\b", r"hand-wired", r"hand wiring", r"\bdeaf\b", r"\bledger\b", r"\beraser\b"):
        assert not re.search(word, prose, re.I) and not re.search(word, code, re.I), word
    assert not re.search(r"\bv0\b", code) and "b_V" in code


def _wilson(k, n, z=1.96):
    """Wilson's 95% interval, as chapter 9 writes it."""
    centre, half = (k + z ** 2 / 2) / (n + z ** 2), z * np.sqrt(k * (n - k) / n + z ** 2 / 4) / (n + z ** 2)
    return np.clip([centre - half, centre + half], 0, 1)


def _fisher_p(k1, k2, n=20):
    split = np.array([comb(n, a) * comb(n, k1 + k2 - a) for a in range(k1 + k2 + 1)]) / comb(2 * n, k1 + k2)
    return split[split <= split[k1] * (1 + 1e-9)].sum()


def test_training_counts_intervals_and_fisher_chapter_9():
    """Chapter 9, "Does training find the lane?": Wilson intervals, Fisher's p, the narrow budget."""
    results = json.loads((Path(__file__).resolve().parents[1] / "lib" / "mwm" / "data"
                          / "memory_task_results.json").read_text(encoding="utf-8"))
    runs = results["runs"]
    learned = {m: sum(r["right"] >= 3800 for r in runs if r["model"] == m and r["length"] >= 20)
               for m in results["setup"]["models"]}
    assert learned == {"plain": 12, "GRU": 10, "GRU, lane open": 20, "LSTM": 0, "LSTM, lane open": 18}
    assert learned["GRU, lane open"] + learned["LSTM, lane open"] == 38
    got = {k: [round(float(v), 2) for v in _wilson(k, 20)] for k in (0, 10, 12)}
    assert got == {0: [0.0, 0.16], 10: [0.30, 0.70], 12: [0.39, 0.78]}
    # the interval agrees with the textbook form p +- ... around the shifted centre
    k, n, z = 12, 20, 1.96
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert np.allclose(_wilson(k, n), [centre - half, centre + half], rtol=0, atol=1e-12)
    # Fisher's exact test: 12/20 against 0/20 is not luck; the null distribution sums to 1
    assert f"{_fisher_p(12, 0):.1e}" == "4.5e-05" and _fisher_p(6, 6) == pytest.approx(1.0)
    assert comb(20, 12) * 2 / comb(40, 12) == pytest.approx(_fisher_p(12, 0), rel=1e-12)   # both tails, symmetric
    # every failed run sits at ln 2; four plain wins came late, between steps 1152 and 1408 (cap 1500)
    failed = [r["final_loss"] for r in runs if r["right"] < 0.52 * 4000]
    assert len(failed) == 39 and f"{min(failed):.3f}" == "0.693" and f"{max(failed):.3f}" == "0.694"
    assert round(float(np.log(2)), 3) == 0.693
    late = sorted(r["steps"] for r in runs if r["model"] == "plain" and r["length"] >= 20 and r["right"] >= 3800)[-4:]
    assert late == [1152, 1256, 1387, 1408] and results["setup"]["max_steps"] == 1500
    # at 50 words: three of five lane-open LSTM runs learned, none of five at the default start
    at50 = {m: sum(r["right"] >= 3800 for r in runs if r["model"] == m and r["length"] == 50) for m in ("LSTM", "LSTM, lane open")}
    assert at50 == {"LSTM": 0, "LSTM, lane open": 3}


def _torch_lstm_with_our_blocks(weights, H=3):
    """A float64 torch.nn.LSTM loaded block by block: PyTorch stacks i, f, candidate, o; its two biases add up to b."""
    import torch

    lstm = torch.nn.LSTM(input_size=2, hidden_size=H).double()
    with torch.no_grad():
        for k, block in enumerate("ifco"):                         # "c": our candidate's blocks, PyTorch's g
            rows = slice(H * k, H * (k + 1))
            lstm.weight_ih_l0[rows] = torch.from_numpy(weights[f"U_{block}"])     # the input matrix U
            lstm.weight_hh_l0[rows] = torch.from_numpy(weights[f"W_{block}"])     # the recurrent matrix W
            lstm.bias_ih_l0[rows] = torch.from_numpy(weights[f"b_{block}"])
            lstm.bias_hh_l0[rows] = 0.0
    return lstm


def test_torch_lstm_with_our_blocks_computes_the_chapters_step():
    """torch.nn.LSTM, loaded with chapter 9's weights block by block, gives the chapter's step to within 1e-12; so do
    lstm_weights_to_stacked / lstm_weights_from_stacked, which convert between the two layouts."""
    import torch

    from mwm import lstm_weights_from_stacked, lstm_weights_to_stacked
    from tests.chapter_cells import chapter_function, chapter_path
    step = chapter_function(chapter_path(9), "step", {"np": np, "sigmoid": sigmoid})
    weights = init_lstm(hidden_size=3, input_size=2, seed=0)
    h_prev, c_prev, x = np.array([0.1, -0.2, 0.3]), np.array([0.5, -1.0, 0.2]), np.array([1.0, -0.5])
    h, c, _ = step(h_prev, c_prev, x, weights)
    lstm = _torch_lstm_with_our_blocks(weights)
    with torch.no_grad():
        state = (torch.from_numpy(h_prev)[None, None], torch.from_numpy(c_prev)[None, None])
        _, (h_torch, c_torch) = lstm(torch.from_numpy(x)[None, None], state)
    np.testing.assert_allclose(h_torch.numpy().ravel(), h, rtol=0, atol=1e-12)
    np.testing.assert_allclose(c_torch.numpy().ravel(), c, rtol=0, atol=1e-12)
    stacked = lstm_weights_to_stacked(weights)
    np.testing.assert_array_equal(stacked[0], lstm.weight_ih_l0.detach().numpy())
    np.testing.assert_array_equal(stacked[1], lstm.weight_hh_l0.detach().numpy())
    back = lstm_weights_from_stacked(*stacked)
    assert all(np.array_equal(back[k], weights[k]) for k in weights)


def test_opening_the_lane_in_torch_gives_sigma_2():
    """The forget gate's bias in torch.nn.LSTM is entries H to 2H - 1 of bias_ih_l0 plus bias_hh_l0: set to 2 (and 0),
    a step shows f = sigma(2)."""
    import torch

    weights = init_lstm(hidden_size=3, input_size=2, seed=0)
    lstm = _torch_lstm_with_our_blocks(weights)
    with torch.no_grad():
        lstm.bias_ih_l0[3:6] = 2.0
        zero_x, zero_h = torch.zeros(1, 1, 2, dtype=torch.float64), torch.zeros(1, 1, 3, dtype=torch.float64)
        c = {c0: lstm(zero_x, (zero_h, zero_h + c0))[1][1].numpy().ravel() for c0 in (0.0, 1.0)}
    assert np.allclose(c[1.0] - c[0.0], float(sigmoid(2.0)), rtol=0, atol=1e-12)
    assert round(float(sigmoid(2.0)), 4) == 0.8808
