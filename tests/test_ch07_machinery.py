"""Chapter 7: the scalar chain, the character model's Jacobian norms (with the chapter's index bookkeeping), the proofs' numbers.

The scalar chain by hand, the tanh Jacobian product dh_t/dh_k and the trained character model's
Jacobian norms, with the checks the chapter used to print.

The chapter multiplies the step Jacobians ``diag(1 - h_s^2) W`` back from a full stop at step t
and takes the spectral norm after every step: ``||dh_t/dh_k||_2`` for k = t-1, ..., t-60, the
most any loss's gradient can be lengthened on its way from h_t back to h_k. These tests run the
chapter's own cells (its index bookkeeping: ``states[t]`` has read t characters, column t - k,
the sentence's start k two characters after the previous full stop) against an independent loop
indexed by j = t - k, check that loop against the Jacobian measured by nudging a state and
re-running :func:`mwm.cell.rnn_forward`, check the bound ``||dh_t/dh_k||_2 <= ||W||_2^(t-k)``
(Proof 2), send a real loss's gradient back (predicting each full stop) and check it by nudging,
and assert every number the section "Measured: the course's character model" states.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mwm.cell import rnn_forward
from mwm.charlm import ALPHABET, encode, lm_forward, load_char_lm, load_corpus
from mwm.dynamics import matrix_powers, scalar_chain, spectral_radius
from mwm.readout import readout, readout_gradient
from tests.chapter_cells import cell_with, chapter_path, source_of


def jacobian_norms(W, states, T, steps):
    """||dh_T/dh_(T-j)||_2 for j = 1..steps, with states[t] = h_t (indexed by j = T - k, unlike the chapter's loop)."""
    jacobian, out = np.eye(len(W)), []
    for j in range(1, steps + 1):
        jacobian = jacobian @ (np.diag(1 - states[T - j + 1] ** 2) @ W)
        out.append(np.linalg.norm(jacobian, 2))
    return np.array(out)


def nudged_jacobian(weights, xs, h_k, eps=1e-6):
    """dh_T/dh_k measured: nudge each entry of h_k and re-run the cell over the inputs xs of steps k+1..T."""
    def run(h0):
        return rnn_forward(xs, weights, h0=h0)[0][-1]
    return np.array([(run(h_k + e) - run(h_k - e)) / (2 * eps) for e in eps * np.eye(len(h_k))]).T


def _small_cell(seed=0, H=3, d=2, T=8, scale=1.5):
    rng = np.random.default_rng(seed)
    weights = {"W": rng.normal(scale=scale, size=(H, H)), "U": rng.normal(size=(H, d)), "b": rng.normal(size=H)}
    return weights, rng.normal(size=(T, d))


def test_the_loop_is_the_norm_of_the_measured_jacobian():
    weights, xs = _small_cell()
    hs, _ = rnn_forward(xs, weights)
    states = np.vstack([np.zeros(3), hs])          # states[t] = h_t, h_0 = 0
    T = len(xs)
    norms = jacobian_norms(weights["W"], states, T, T)
    for j in range(1, T + 1):
        measured = nudged_jacobian(weights, xs[T - j:], states[T - j])
        assert norms[j - 1] == pytest.approx(np.linalg.norm(measured, 2), rel=1e-5, abs=1e-9)


def test_scalar_chain_with_tanh_by_hand_is_mwm():
    # the chapter's loop by hand (h_t = tanh(w h_(t-1)); dh_t/dh_0 picks up w (1 - h_t^2)), run from its
    # cell, is mwm's scalar_chain: the chapter used to print "same as mwm.dynamics.scalar_chain: True"
    from mwm.dynamics import tanh_fixed_point
    ns = _run_cell("dh_dh0 *= w * (1 - h ** 2)", {"np": np, "scalar_chain": scalar_chain,
                                                   "tanh_fixed_point": tanh_fixed_point})
    states, norms = scalar_chain(1.5, 10, h0=1.0, squash=True)
    assert np.allclose([ns["h"], ns["dh_dh0"]], [states[10], norms[10]], rtol=1e-12, atol=0)
    np.testing.assert_array_equal(ns["states_sq"], states)
    assert 0 < ns["dh_dh0"] < 1e-4   # so the atol=0 above matters: the derivative has vanished almost entirely
    assert f"{ns['dh_dh0']:.3g}" == "5.14e-05" and round(1.5 * (1 - ns["h_star"] ** 2), 4) == 0.3943


def test_proof2_random_products_stay_under_the_bound_and_near_it_when_derivatives_near_1():
    # the chapter's Proofs check: ||D4 W ... D1 W||_2 / ||W||_2^4 over 200 random 4x4 W per slope range
    rng = np.random.default_rng(1)
    worst = {}
    for low in (0.0, 0.9):
        ratios = []
        for _ in range(200):
            W_rand, slopes = rng.normal(size=(4, 4)), rng.uniform(low, 1, (4, 4))
            product = np.linalg.multi_dot([np.diag(s) @ W_rand for s in slopes])
            ratios.append(np.linalg.norm(product, 2) / np.linalg.norm(W_rand, 2) ** 4)
            assert spectral_radius(W_rand) <= np.linalg.norm(W_rand, 2) * (1 + 1e-12)
        worst[low] = max(ratios)
    assert round(worst[0.0], 4) == 0.2273 and round(worst[0.9], 4) == 0.8232
    assert worst[0.0] < worst[0.9] <= 1


def test_one_number_loop_is_the_product_of_the_factors():
    states, norms = scalar_chain(1.5, 12, h0=0.01, squash=True)
    np.testing.assert_allclose(jacobian_norms(np.array([[1.5]]), states[:, None], 12, 12),
                               np.abs(norms[12] / norms[11::-1]), rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.2, 3.0))
def test_jacobian_never_exceeds_the_spectral_norm_power(seed, scale):
    # Proof 2: ||dh_T/dh_(T-j)||_2 <= ||W||_2^j whatever the inputs, and rho(W) <= ||W||_2
    weights, xs = _small_cell(seed, H=4, T=10, scale=scale)
    states = np.vstack([np.zeros(4), rnn_forward(xs, weights)[0]])
    norm_W = np.linalg.norm(weights["W"], 2)
    assert np.all(jacobian_norms(weights["W"], states, 10, 10) <= norm_W ** np.arange(1, 11) * (1 + 1e-12))
    assert spectral_radius(weights["W"]) <= norm_W * (1 + 1e-12)


def test_tanh_derivatives_can_raise_the_spectral_radius_but_not_the_spectral_norm():
    N = np.array([[1.0, -1.0], [1.0, -1.0]])
    squeezed = np.diag([1.0, 0.5]) @ N
    assert spectral_radius(N) < 1e-7 and spectral_radius(squeezed) == pytest.approx(0.5, abs=1e-12)
    assert np.linalg.norm(squeezed, 2) <= np.linalg.norm(N, 2)
    assert round(np.linalg.norm(N, 2), 4) == 2.0 and round(np.linalg.norm(squeezed, 2), 4) == 1.5811


def test_shear_has_eigenvalues_1_and_grows_by_1_per_step():
    # the fold "When the eigenvectors do not span the space": [[1, 1], [0, 1]] from (0, 1) gives (t, 1)
    shear = np.array([[1.0, 1.0], [0.0, 1.0]])
    np.testing.assert_array_equal(np.linalg.eigvals(shear), [1.0, 1.0])
    path = matrix_powers(shear, [0, 1], 10)
    np.testing.assert_array_equal(path, np.column_stack([np.arange(11), np.ones(11)]))


@pytest.fixture(scope="module")
def char_model_norms():
    model = load_char_lm()
    text = " ".join(load_corpus())
    states = lm_forward(model, text)[1]
    ends = [i + 1 for i, ch in enumerate(text) if ch == "." and i >= 60]
    norms = np.array([jacobian_norms(model.W, states, T, 60) for T in ends])
    return model, text, states, ends, norms


def full_stop_gradients(model, states, probs, T, steps):
    """The chapter's loss loop: ||dL/dh_(T-1-j)|| / ||dL/dh_(T-1)|| for L = -ln p('.') guessed from h_(T-1)."""
    g = model.V.T @ readout_gradient(probs[T - 1], ALPHABET.index("."))
    size, out = np.linalg.norm(g), []
    for j in range(1, steps + 1):
        g = model.W.T @ ((1 - states[T - j] ** 2) * g)
        out.append(np.linalg.norm(g) / size)
    return np.array(out), g


def test_character_model_rho_and_spectral_norm(char_model_norms):
    model, *_ = char_model_norms
    rho, norm_W = spectral_radius(model.W), np.linalg.norm(model.W, 2)
    assert round(rho, 2) == 2.06 and round(norm_W, 2) == 4.54 and round(rho ** 40 / 1e12, 1) == 3.8
    assert rho > 2 and norm_W > 1   # neither the eigenvalue rule nor the norm bound promises fading


def test_character_model_loop_matches_nudging_mwm_cell(char_model_norms):
    model, text, states, ends, norms = char_model_norms
    T = ends[0]
    for j in (1, 10, 30):
        xs = np.eye(28)[encode(text)][T - j:T]
        measured = nudged_jacobian(model.cell, xs, states[T - j])
        assert norms[0, j - 1] == pytest.approx(np.linalg.norm(measured, 2), rel=1e-6)


def test_character_model_norm_numbers(char_model_norms):
    model, text, states, ends, norms = char_model_norms
    assert len(ends) == 301 and text[ends[0] - 53:ends[0]] == "my grandmother waits for the train on platform eight."
    median, below = np.median(norms, axis=0), np.mean(norms < 1, axis=0)
    # no explosion: within the spectral-norm bound, and nowhere near rho(W)^j
    assert round(norms.max(), 1) == 17.8 and np.all(norms <= np.linalg.norm(model.W, 2) ** np.arange(1, 61))
    assert round(median[9], 4) == 2.5948
    assert round(median[39], 4) == 0.1457 and round(below[39], 2) == 0.81
    assert round(median[59], 4) == 0.0095 and below[59] == 1.0
    assert [round(v, 4) for v in norms[0, [0, 9, 19, 39, 59]]] == [0.7651, 0.7267, 0.2214, 0.1223, 0.0016]


def test_character_model_fades_at_the_sentence_boundary(char_model_norms):
    model, text, states, ends, norms = char_model_norms
    prev = [text.rfind(".", 0, T - 1) for T in ends]
    own = np.array([row[T - p - 3] for row, T, p in zip(norms, ends, prev)])     # back to the state after ". "
    past = np.array([row[T - p - 1] for row, T, p in zip(norms, ends, prev)])    # two characters further
    assert round(np.median(own), 2) == 0.46 and round(np.mean(own < 1), 2) == 0.71
    assert round(np.median(past), 4) == 0.0138 and np.all(past < 1)
    assert round(np.median(own / past)) == 32
    at_stop = np.array([text[i] == "." or text[i - 1:i + 1] == ". " for i in range(len(text))])
    slopes = 1 - states[1:] ** 2
    assert round(slopes[at_stop].mean(), 2) == 0.07 and round(slopes[~at_stop].mean(), 2) == 0.38
    # the control: two steps that stay inside a sentence barely change the norm
    inside = [row[j - 1] / row[j + 1] for row, T, p in zip(norms, ends, prev) for j in range(1, T - p - 4)]
    assert round(np.median(inside), 2) == 1.04 and round(np.percentile(inside, 90), 2) == 1.60
    assert np.median(own / past) > 10 * np.percentile(inside, 90)
    # why there: every ". " brings the state back to nearly one start state
    starts = [p + 2 for p, ch in enumerate(text[:-1]) if ch == "."]
    others = sorted(set(range(1, len(states))) - set(starts))
    spread = [np.median(np.linalg.norm(g - g.mean(axis=0), axis=1)) for g in (states[starts], states[others])]
    assert [round(v, 2) for v in spread] == [0.06, 5.21] and spread[1] > 50 * spread[0]


def test_character_model_norm_grows_first_then_fades(char_model_norms):
    model, text, states, ends, norms = char_model_norms
    median, top = np.median(norms, axis=0), norms.max(axis=1)
    assert round(median.max(), 2) == 2.75 and median.argmax() + 1 == 13
    assert np.all(median[:32] > 1) and np.argmax(median < 1) + 1 == 33 and np.all(median[32:] < 1)
    assert round(np.mean(top > 1), 2) == 0.99 and round(np.mean(top > 10), 2) == 0.05
    assert norms.argmax(axis=None) % 60 + 1 <= 32   # the largest norm (17.8) lies in the first ~thirty characters
    assert len(load_corpus()) == 302


def test_full_stop_loss_gradient_stays_under_the_jacobian_norm(char_model_norms):
    model, text, states, ends, norms = char_model_norms
    probs = lm_forward(model, text)[0]
    grads = np.array([full_stop_gradients(model, states, probs, T, 60)[0] for T in ends])
    assert [round(v, 4) for v in np.median(grads[:, [9, 19, 39, 59]], axis=0)] == [1.3558, 0.9685, 0.0378, 0.0036]
    assert round(grads.max(), 1) == 10.9
    # a real loss's gradient cannot be lengthened more than the ceiling ||dh_(T-1)/dh_(T-1-j)||_2
    for T, row in zip(ends[:20], grads[:20]):
        assert np.all(row <= jacobian_norms(model.W, states, T - 1, 60) * (1 + 1e-12))
    # check one entry by nudging h_(T-11) and re-running mwm's cell and read-out
    T, j, eps = ends[0], 10, 1e-4
    xs = np.eye(len(ALPHABET))[encode(text)][T - 1 - j:T - 1]
    dot = ALPHABET.index(".")

    def loss(h0):
        return -np.log(readout(rnn_forward(xs, model.cell, h0=h0)[0][-1], model.V, model.b_V)[dot])
    numeric = np.array([(loss(states[T - 1 - j] + e) - loss(states[T - 1 - j] - e)) / (2 * eps) for e in eps * np.eye(48)])
    _, g = full_stop_gradients(model, states, probs, T, j)
    np.testing.assert_allclose(numeric, g, rtol=1e-4, atol=1e-4 * np.abs(g).max())


def test_the_model_was_trained_as_the_chapter_says():
    # strings of eight random sentences, the norms cut every 96 characters, W from 0.9 x orthogonal
    torch = pytest.importorskip("torch")
    from mwm_torch.charlm import CharRNN
    from scripts import train_char_lm
    assert train_char_lm.SENTENCES_PER_STRING == 8 and train_char_lm.BPTT == 96
    torch.manual_seed(0)
    W0 = CharRNN().rnn.weight_hh_l0.detach().double().numpy()
    assert np.allclose(np.abs(np.linalg.eigvals(W0)), 0.9) and round(spectral_radius(W0), 2) == 0.9


# --- the same measurements on more trained models (scripts/jacobian_norms_across_seeds.py) ---

def test_jacobian_norms_across_seeds_file_is_what_the_script_measures():
    """Every row of char_lm_jacobian_seeds.json is measure() on its committed weights; seed 5's is the chapter's model."""
    import json

    from tests.across_machines import same

    from mwm import load_char_lm, load_corpus
    from scripts import jacobian_norms_across_seeds as across
    rows = json.loads(across.OUT.read_text(encoding="utf-8"))
    assert list(rows) == list(across.MODELS)
    text = " ".join(load_corpus())
    for name, path in across.MODELS.items():
        assert same(across.measure(load_char_lm(path), text), rows[name]), name   # to 1e-12 on any processor
    five = rows["seed 5"]
    assert (round(five["rho"], 2), five["median_peak_at"], five["median_first_below_1_at"],
            round(five["boundary_ratio_median"]), round(five["inside_ratio_median"], 2)) == (2.06, 13, 33, 32, 1.04)


def test_chapter_7_says_what_is_general():
    import json

    from scripts import jacobian_norms_across_seeds as across
    rows = json.loads(across.OUT.read_text(encoding="utf-8"))
    full = [rows[name] for name in ("seed 5", "seed 6", "seed 7")]
    short = rows["seed 5, 500 steps"]
    assert {r["median_first_below_1_at"] for r in full} == {33}
    assert (round(min(r["boundary_ratio_median"] for r in full)), round(max(r["boundary_ratio_median"] for r in full))) == (24, 35)
    assert all(r["slope_at_stop"] < 0.1 < r["slope_elsewhere"] for r in full)                      # saturated at ". "
    assert round(short["boundary_ratio_median"], 1) == 2.5 and short["slope_at_stop"] > 0.3          # unsaturated there
    chapter = json.loads(chapter_path(7).read_text(encoding="utf-8"))
    text = " ".join("".join(c["source"]) for c in chapter["cells"] if c["cell_type"] == "markdown")
    for phrase in ("first drops below 1 at 33 characters", "shrinks it 24 to 35 times", "only a factor of 2.5"):
        assert phrase in text, phrase


# --- the chapter's own cells, run here: their index bookkeeping against the loops above ---

def _run_cell(marker, namespace):
    """Execute the chapter's code cell containing ``marker`` in ``namespace`` (its prints are discarded)."""
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()):
        exec(source_of(cell_with(chapter_path(7), marker)), namespace)
    return namespace


@pytest.fixture(scope="module")
def chapter_cells_run():
    from mwm import ALPHABET as alphabet, load_char_lm as load, load_corpus as corpus, lm_forward as forward
    namespace = {"np": np, "load_char_lm": load, "spectral_radius": spectral_radius, "load_corpus": corpus,
                 "lm_forward": forward, "ALPHABET": alphabet, "readout_gradient": readout_gradient}
    for marker in ("jac_norm = np.ones", "grad_ratio = np.ones", "own, past, inside = "):
        _run_cell(marker, namespace)
    return namespace


def test_chapter_states_and_ends_are_indexed_as_it_says(chapter_cells_run):
    ns = chapter_cells_run
    text, states, ends, model = ns["text"], ns["states"], ns["ends"], ns["model"]
    assert len(states) == len(text) + 1
    assert all(text[t - 1] == "." for t in ends) and ends[0] >= 61
    for t in ends[:3]:                        # states[t] is the state after reading the first t characters
        np.testing.assert_allclose(lm_forward(model, text[:t])[1][-1], states[t], rtol=0, atol=1e-12)


def test_chapter_jacobian_loop_is_the_independent_loop(chapter_cells_run, char_model_norms):
    _, _, _, ends, norms = char_model_norms
    ns = chapter_cells_run
    assert ns["ends"] == ends and ns["jac_norm"].shape == (301, 61)
    assert np.all(ns["jac_norm"][:, 0] == 1.0)                  # column t - k = 0: dh_t/dh_t = I
    np.testing.assert_allclose(ns["jac_norm"][:, 1:], norms, rtol=1e-12, atol=0)


def test_chapter_loss_gradient_loop_is_the_independent_loop(chapter_cells_run, char_model_norms):
    model, text, states, ends, _ = char_model_norms
    probs = lm_forward(model, text)[0]
    ns = chapter_cells_run
    for n in (0, 100, 300):
        np.testing.assert_allclose(ns["grad_ratio"][n, 1:], full_stop_gradients(model, states, probs, ends[n], 60)[0],
                                   rtol=1e-12, atol=0)


def test_chapter_sentence_start_is_two_characters_after_the_full_stop(chapter_cells_run, char_model_norms):
    model, text, states, ends, norms = char_model_norms
    ns = chapter_cells_run
    for t in ends:
        k = text.rfind(".", 0, t - 1) + 2     # the chapter's sentence start
        assert text[k - 2:k] == ". " and "." not in text[k:t - 1]
    prev = [text.rfind(".", 0, T - 1) for T in ends]
    np.testing.assert_array_equal(ns["own"], [row[T - p - 3] for row, T, p in zip(norms, ends, prev)])
    np.testing.assert_array_equal(ns["past"], [row[T - p - 1] for row, T, p in zip(norms, ends, prev)])
    # the control, in the chapter's order: k = start + 3, ..., t - 1 (column j - 1 of norms is t - k = j)
    inside = [row[j - 1] / row[j + 1] for row, T, p in zip(norms, ends, prev) for j in range(T - p - 5, 0, -1)]
    np.testing.assert_array_equal(ns["inside"], inside)


# --- the proofs' numbers (the chapter used to print these checks) ---

def test_proof1_the_split_formula_and_the_eigenvectors():
    W = np.array([[0.9, 0.4], [0.1, 0.6]])
    t = np.arange(8)[:, None]
    formula = 0.2 * np.array([4, 1]) + 0.2 * 0.5 ** t * np.array([1, -1])
    assert np.abs(matrix_powers(W, [1, 0], 7) - formula).max() < 1e-14
    assert np.trace(W) == pytest.approx(1.5, abs=1e-15) and np.linalg.det(W) == pytest.approx(0.5, abs=1e-12)
    np.testing.assert_allclose(W @ [4, 1], [4, 1], atol=1e-15)
    np.testing.assert_allclose(W @ [1, -1], [0.5, -0.5], atol=1e-15)
    assert np.linalg.norm(matrix_powers(W, [1, 0], 30)[30]) == pytest.approx(np.hypot(0.8, 0.2), abs=1e-4)


def test_proof3_rotate_keeps_the_length_and_turns_36_87_degrees():
    from mwm.dynamics import turn_angle
    from mwm.widgets.ch07_fade import PRESETS
    R = PRESETS["rotate"]
    v = np.random.default_rng(1).normal(size=(20, 2))
    np.testing.assert_allclose(np.linalg.norm(v @ R.T, axis=1), np.linalg.norm(v, axis=1), rtol=1e-12)
    assert round(float(np.degrees(np.arccos(0.8))), 2) == 36.87 == round(turn_angle(R), 2)
    lengths = np.linalg.norm(matrix_powers(0.9 * R, [1, 0], 30), axis=1)
    assert [round(lengths[k], 4) for k in (1, 10, 30)] == [0.9, 0.3487, 0.0424]
