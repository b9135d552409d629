"""Chapter 12's machinery: the torch encoder-decoder, its teacher-forced loss and training step, and the numpy greedy loop, checked against mwm.

The code is taken from the chapter's own cells, so the test checks what the learner reads. The checks
the chapter used to show in its cells live here: the trained weights loaded into the chapter's
``EncoderDecoder`` (torch's weight layout mapped from the weight file) give the numpy translator's
next-word log-probabilities; the chapter's greedy loop gives ``mwm.decoding.greedy_decode``'s words on 50
of 50 test sentences; and Proof 2's sum of cross-entropies is PyTorch's mean loss times the steps (0.0996).
"""
import contextlib
import io
import re

import numpy as np
import pytest
import torch
from torch import nn

from mwm.decoding import greedy_decode
from mwm.seq2seq import leaky_summary, load_translator
from mwm.translation_corpus import load_pairs
from tests.chapter_cells import cell_with, chapter_path

CHAPTER = chapter_path(12)
EXAMPLE_SHORT = 61   # the chapter's 6-word test sentence


def _cell(marker):
    """The code cell of the chapter whose source contains ``marker``."""
    return cell_with(CHAPTER, marker)


def _torch_weights(model):
    """The weight file's arrays under the names of the chapter's ``EncoderDecoder`` (torch's layout).

    PyTorch's LSTM keeps two bias vectors per layer (``bias_ih`` and ``bias_hh``); the weight file
    stores their sum, so ``bias_hh`` is zero here.
    """
    p = {k: torch.from_numpy(v) for k, v in model.params.items()}
    H = model.hidden_size
    weights = {"src_embedding.weight": p["src_embedding"], "tgt_embedding.weight": p["tgt_embedding"],
               "out.weight": p["out_W"], "out.bias": p["out_b"]}
    for mine, stored in (("encoder", "enc"), ("decoder", "dec")):
        weights.update({f"{mine}.weight_ih_l0": p[f"{stored}_W_ih"], f"{mine}.weight_hh_l0": p[f"{stored}_W_hh"],
                        f"{mine}.bias_ih_l0": p[f"{stored}_b"], f"{mine}.bias_hh_l0": torch.zeros(4 * H, dtype=torch.float64)})
    return weights


@pytest.fixture(scope="module")
def chapter():
    """The chapter's definitions (module, loss, greedy loop) and the trained model loaded into its module."""
    model = load_translator("plain")
    ns = {"np": np, "torch": torch, "nn": nn, "model": model, "train": load_pairs("train"),
          "E": model.params["src_embedding"].shape[1], "H": model.hidden_size}
    for marker in ("class EncoderDecoder(", "def as_tensors(", "def greedy("):
        with contextlib.redirect_stdout(io.StringIO()):
            exec("".join(_cell(marker)["source"]), ns)
    trained = ns["EncoderDecoder"](len(model.source_vocab), len(model.target_vocab), ns["E"], ns["H"]).double()
    trained.load_state_dict(_torch_weights(model))
    ns["trained"] = trained
    return ns


def _numpy_log_probs(model, english, hindi):
    state, out = model.decoder_start(english), []
    for prev in [model.bos_id] + model.target_vocab.ids_of(hindi):
        log_p, state = model.step(state, prev)
        out.append(log_p)
    return np.array(out)


def test_the_chapter_module_with_the_trained_weights_gives_the_numpy_translators_logits(chapter):
    """Same next-word log-probabilities (so the same logits up to a shift) within 1e-9, in torch and in numpy."""
    model, trained = chapter["model"], chapter["trained"]
    english = "the train to delhi is late".split()
    pairs = [(english, model.translate(english))] + load_pairs("test")[:8]
    for english, hindi in pairs:
        with torch.no_grad():
            ours = torch.log_softmax(trained(*chapter["as_tensors"]([(english, hindi)])[:2])[0], dim=-1).numpy()
        np.testing.assert_allclose(ours, _numpy_log_probs(model, english, hindi), rtol=0, atol=1e-9)


def test_the_chapter_loss_is_the_mean_teacher_forced_cross_entropy(chapter):
    model, trained = chapter["model"], chapter["trained"]
    english, hindi = load_pairs("test")[5]
    with torch.no_grad():
        loss = chapter["teacher_forced_loss"](trained, [(english, hindi)]).item()
    assert loss == pytest.approx(-model.teacher_forced(english, hindi)[1].mean(), abs=1e-9)


def test_proof_2_the_sum_of_cross_entropies_is_the_mean_loss_times_the_steps(chapter):
    """Proof 2 on the chapter's short example: 0.0996 nats both ways."""
    model, trained = chapter["model"], chapter["trained"]
    english, hindi = load_pairs("test")[EXAMPLE_SHORT]
    _, log_p = model.teacher_forced(english, hindi)
    with torch.no_grad():
        torch_total = chapter["teacher_forced_loss"](trained, [(english, hindi)]).item() * (len(hindi) + 1)
    assert len(log_p) == len(hindi) + 1
    assert abs(-log_p.sum() - torch_total) < 1e-9
    assert f"{-log_p.sum():.4f}" == f"{torch_total:.4f}" == "0.0996"


def test_the_chapter_greedy_loop_is_mwm_greedy_decode(chapter):
    """The numpy loop of the chapter gives greedy_decode's words (and model.translate's) on 50 of 50 test sentences."""
    model = chapter["model"]
    agree = []
    for english, _ in load_pairs("test")[:50]:
        best = greedy_decode(model.step_model(english), max_length=81)
        mine = chapter["greedy"](english)
        agree.append(mine == model.target_vocab.words_of(best.tokens[:-1]) == model.translate(english))
    assert sum(agree) == len(agree) == 50


def test_the_greedy_cell_prints_the_opening_translation(chapter):
    printed = "".join("".join(o.get("text", "")) for o in _cell("def greedy(")["outputs"]).strip()
    assert printed == " ".join(chapter["greedy"]("the train to delhi is late".split())) == "delhi ki train late hai"


def test_the_leaky_summary_is_its_closed_form():
    """Proof 1's sum: the toy encoder step by step equals sum_k beta^(T-k) x_k, to within 1e-12."""
    rng = np.random.default_rng(12)
    words = rng.normal(size=(7, 3))
    closed = sum(0.9 ** (7 - k) * words[k - 1] for k in range(1, 8))
    assert np.abs(leaky_summary(words, 0.9)[-1] - closed).max() < 1e-12


def test_the_chapter_training_run_repeats_its_printed_losses(chapter):
    """The training cell, run afresh, prints what the committed notebook shows, and the loss falls."""
    cell = _cell("opt = torch.optim.Adam(")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec("".join(cell["source"]), dict(chapter))
    committed = "".join("".join(o.get("text", "")) for o in cell["outputs"])
    assert out.getvalue() == committed
    losses = [float(x) for x in re.findall(r": (\d+\.\d+) nats", committed)]
    assert len(losses) == 4 and all(a > b for a, b in zip(losses, losses[1:]))
