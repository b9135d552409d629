"""Chapter 7's machinery: the whisper line by hand, the tanh Jacobian product dh_T/dh_(T-j) and the
trained character model's largest stretch of the blame.

The chapter multiplies the step Jacobians ``diag(1 - h_t^2) W`` back from the last step T and
takes the spectral norm after every step: ``||dh_T/dh_(T-j)||_2``, the most any loss's gradient
can be stretched on its way from h_T back to h_(T-j) (the chapter's "largest stretch"). These
tests run the same loop, check it against the Jacobian measured by nudging a note and re-running
:func:`mwm.cell.rnn_forward`, check the bound ``||dh_T/dh_(T-j)||_2 <= ||W||_2^j`` (Proof 2),
send a real loss's gradient back (guessing each full stop) and check it by nudging, and assert
every number the section "Measured: the course's character model" states.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mwm.cell import rnn_forward
from mwm.charlm import ALPHABET, encode, lm_forward, load_char_lm, load_corpus
from mwm.dynamics import spectral_radius, whisper_line
from mwm.readout import readout, readout_gradient
from tests.chapter_cells import chapter_path


def blame_norms(W, notes, T, steps):
    """The chapter's loop: ||dh_T/dh_(T-j)||_2 for j = 1..steps, with notes[t] = h_t."""
    jacobian, out = np.eye(len(W)), []
    for j in range(1, steps + 1):
        jacobian = jacobian @ (np.diag(1 - notes[T - j + 1] ** 2) @ W)
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
    notes = np.vstack([np.zeros(3), hs])          # notes[t] = h_t, h_0 = 0
    T = len(xs)
    norms = blame_norms(weights["W"], notes, T, T)
    for j in range(1, T + 1):
        measured = nudged_jacobian(weights, xs[T - j:], notes[T - j])
        assert norms[j - 1] == pytest.approx(np.linalg.norm(measured, 2), rel=1e-5, abs=1e-9)


def test_whisper_line_with_tanh_by_hand_is_mwm():
    # the chapter's five-line loop: h_t = tanh(w h_(t-1)), the blame picks up w (1 - h_t^2)
    w, note, factor = 1.5, 1.0, 1.0
    for _ in range(20):
        note = np.tanh(w * note)
        factor *= w * (1 - note ** 2)
    notes, blame = whisper_line(w, 20, h0=1.0, squash=True)
    assert np.allclose([note, factor], [notes[20], blame[20]], rtol=1e-12, atol=0)
    assert 0 < factor < 1e-6   # so the atol=0 above matters: the blame has faded to almost nothing


def test_proof2_random_products_stay_under_the_bound_and_near_it_when_slopes_near_1():
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
    notes, blame = whisper_line(1.5, 12, h0=0.01, squash=True)
    np.testing.assert_allclose(blame_norms(np.array([[1.5]]), notes[:, None], 12, 12),
                               np.abs(blame[12] / blame[11::-1]), rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.2, 3.0))
def test_blame_never_exceeds_the_spectral_norm_power(seed, scale):
    # Proof 2: ||dh_T/dh_(T-j)||_2 <= ||W||_2^j whatever the inputs, and rho(W) <= ||W||_2
    weights, xs = _small_cell(seed, H=4, T=10, scale=scale)
    notes = np.vstack([np.zeros(4), rnn_forward(xs, weights)[0]])
    stretch = np.linalg.norm(weights["W"], 2)
    assert np.all(blame_norms(weights["W"], notes, 10, 10) <= stretch ** np.arange(1, 11) * (1 + 1e-12))
    assert spectral_radius(weights["W"]) <= stretch * (1 + 1e-12)


def test_slopes_can_raise_the_spectral_radius_but_not_the_spectral_norm():
    N = np.array([[1.0, -1.0], [1.0, -1.0]])
    squeezed = np.diag([1.0, 0.5]) @ N
    assert spectral_radius(N) < 1e-7 and spectral_radius(squeezed) == pytest.approx(0.5, abs=1e-12)
    assert np.linalg.norm(squeezed, 2) <= np.linalg.norm(N, 2)


@pytest.fixture(scope="module")
def char_model_blame():
    model = load_char_lm()
    text = " ".join(load_corpus())
    notes = lm_forward(model, text)[1]
    ends = [i + 1 for i, ch in enumerate(text) if ch == "." and i >= 60]
    blame = np.array([blame_norms(model.W, notes, T, 60) for T in ends])
    return model, text, notes, ends, blame


def full_stop_gradients(model, notes, probs, T, steps):
    """The chapter's loss loop: ||dL/dh_(T-1-j)|| / ||dL/dh_(T-1)|| for L = -ln p('.') guessed from h_(T-1)."""
    g = model.V.T @ readout_gradient(probs[T - 1], ALPHABET.index("."))
    size, out = np.linalg.norm(g), []
    for j in range(1, steps + 1):
        g = model.W.T @ ((1 - notes[T - j] ** 2) * g)
        out.append(np.linalg.norm(g) / size)
    return np.array(out), g


def test_character_model_rho_and_spectral_norm(char_model_blame):
    model, *_ = char_model_blame
    rho, stretch = spectral_radius(model.W), np.linalg.norm(model.W, 2)
    assert round(rho, 2) == 2.06 and round(stretch, 2) == 4.54 and round(rho ** 40 / 1e12, 1) == 3.8
    assert rho > 2 and stretch > 1   # neither the eigenvalue rule nor the norm bound promises fading


def test_character_model_loop_matches_nudging_mwm_cell(char_model_blame):
    model, text, notes, ends, blame = char_model_blame
    T = ends[0]
    for j in (1, 10, 30):
        xs = np.eye(28)[encode(text)][T - j:T]
        measured = nudged_jacobian(model.cell, xs, notes[T - j])
        assert blame[0, j - 1] == pytest.approx(np.linalg.norm(measured, 2), rel=1e-6)


def test_character_model_blame_numbers(char_model_blame):
    model, text, notes, ends, blame = char_model_blame
    assert len(ends) == 301 and text[ends[0] - 53:ends[0]] == "my grandmother waits for the train on platform eight."
    median, below = np.median(blame, axis=0), np.mean(blame < 1, axis=0)
    # no explosion: within the spectral-norm bound, and nowhere near rho(W)^j
    assert round(blame.max(), 1) == 17.8 and np.all(blame <= np.linalg.norm(model.W, 2) ** np.arange(1, 61))
    assert round(median[9], 4) == 2.5948
    assert round(median[39], 4) == 0.1457 and round(below[39], 2) == 0.81
    assert round(median[59], 4) == 0.0095 and below[59] == 1.0
    assert [round(v, 4) for v in blame[0, [0, 9, 19, 39, 59]]] == [0.7651, 0.7267, 0.2214, 0.1223, 0.0016]


def test_character_model_fades_at_the_sentence_boundary(char_model_blame):
    model, text, notes, ends, blame = char_model_blame
    prev = [text.rfind(".", 0, T - 1) for T in ends]
    own = np.array([row[T - p - 3] for row, T, p in zip(blame, ends, prev)])     # back to the note after ". "
    past = np.array([row[T - p - 1] for row, T, p in zip(blame, ends, prev)])    # two characters further
    assert round(np.median(own), 2) == 0.46 and round(np.mean(own < 1), 2) == 0.71
    assert round(np.median(past), 4) == 0.0138 and np.all(past < 1)
    assert round(np.median(own / past)) == 32
    at_stop = np.array([text[i] == "." or text[i - 1:i + 1] == ". " for i in range(len(text))])
    slopes = 1 - notes[1:] ** 2
    assert round(slopes[at_stop].mean(), 2) == 0.07 and round(slopes[~at_stop].mean(), 2) == 0.38
    # the control: two steps that stay inside a sentence barely change the stretch
    inside = [row[j - 1] / row[j + 1] for row, T, p in zip(blame, ends, prev) for j in range(1, T - p - 4)]
    assert round(np.median(inside), 2) == 1.04 and round(np.percentile(inside, 90), 2) == 1.60
    assert np.median(own / past) > 10 * np.percentile(inside, 90)


def test_character_model_stretch_grows_first_then_fades(char_model_blame):
    model, text, notes, ends, blame = char_model_blame
    median, top = np.median(blame, axis=0), blame.max(axis=1)
    assert round(median.max(), 2) == 2.75 and median.argmax() + 1 == 13
    assert np.all(median[:32] > 1) and np.argmax(median < 1) + 1 == 33 and np.all(median[32:] < 1)
    assert round(np.mean(top > 1), 2) == 0.99 and round(np.mean(top > 10), 2) == 0.05
    assert blame.argmax(axis=None) % 60 + 1 <= 32   # the largest stretch (17.8) lies in the first ~thirty characters
    assert len(load_corpus()) == 302


def test_full_stop_loss_gradient_stays_under_the_stretch(char_model_blame):
    model, text, notes, ends, blame = char_model_blame
    probs = lm_forward(model, text)[0]
    grads = np.array([full_stop_gradients(model, notes, probs, T, 60)[0] for T in ends])
    assert [round(v, 4) for v in np.median(grads[:, [9, 19, 39, 59]], axis=0)] == [1.3558, 0.9685, 0.0378, 0.0036]
    assert round(grads.max(), 1) == 10.9
    # a real loss's gradient cannot be stretched more than the ceiling ||dh_(T-1)/dh_(T-1-j)||_2
    for T, row in zip(ends[:20], grads[:20]):
        assert np.all(row <= blame_norms(model.W, notes, T - 1, 60) * (1 + 1e-12))
    # check one entry by nudging h_(T-11) and re-running mwm's cell and read-out
    T, j, eps = ends[0], 10, 1e-4
    xs = np.eye(len(ALPHABET))[encode(text)][T - 1 - j:T - 1]
    dot = ALPHABET.index(".")

    def loss(h0):
        return -np.log(readout(rnn_forward(xs, model.cell, h0=h0)[0][-1], model.V, model.b_V)[dot])
    numeric = np.array([(loss(notes[T - 1 - j] + e) - loss(notes[T - 1 - j] - e)) / (2 * eps) for e in eps * np.eye(48)])
    _, g = full_stop_gradients(model, notes, probs, T, j)
    np.testing.assert_allclose(numeric, g, rtol=1e-4, atol=1e-4 * np.abs(g).max())


def test_the_model_was_trained_as_the_chapter_says():
    # strings of eight random sentences, the blame cut every 96 characters, W from 0.9 x orthogonal
    torch = pytest.importorskip("torch")
    from mwm_torch.charlm import CharRNN
    from scripts import train_char_lm
    assert train_char_lm.SENTENCES_PER_STRING == 8 and train_char_lm.BPTT == 96
    torch.manual_seed(0)
    W0 = CharRNN().rnn.weight_hh_l0.detach().double().numpy()
    assert np.allclose(np.abs(np.linalg.eigvals(W0)), 0.9) and round(spectral_radius(W0), 2) == 0.9


# --- the same measurements on more trained models (scripts/blame_across_seeds.py) ---

def test_blame_across_seeds_file_is_what_the_script_measures():
    """Every row of char_lm_blame_seeds.json is measure() on its committed weights; seed 5's is the chapter's model."""
    import json

    from mwm import load_char_lm, load_corpus
    from scripts import blame_across_seeds as across
    rows = json.loads(across.OUT.read_text(encoding="utf-8"))
    assert list(rows) == list(across.MODELS)
    text = " ".join(load_corpus())
    for name, path in across.MODELS.items():
        assert across.measure(load_char_lm(path), text) == rows[name], name
    five = rows["seed 5"]
    assert (round(five["rho"], 2), five["median_peak_at"], five["median_first_below_1_at"],
            round(five["boundary_ratio_median"]), round(five["inside_ratio_median"], 2)) == (2.06, 13, 33, 32, 1.04)


def test_chapter_7_says_what_is_general():
    import json

    from scripts import blame_across_seeds as across
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
