"""Chapter 12's machinery: the encoder-decoder as a small torch module, its teacher-forced loss and
training step, and greedy decoding as a visible loop, checked against mwm's numpy translator.

The code is taken from the chapter's own cells, so the test checks what the learner reads.
"""
import contextlib
import io
import re

import numpy as np
import pytest
import torch
from torch import nn

from mwm.decoding import greedy_decode
from mwm.seq2seq import load_translator
from mwm.translation_corpus import load_pairs
from tests.chapter_cells import cell_with, chapter_path

CHAPTER = chapter_path(12)


def _cell(marker):
    """The code cell of the chapter whose source contains ``marker``."""
    return cell_with(CHAPTER, marker)


@pytest.fixture(scope="module")
def chapter():
    """The chapter's definitions (module, loss, greedy loop) and its trained model loaded into the module."""
    model = load_translator("plain")
    ns = {"np": np, "torch": torch, "nn": nn, "model": model, "train": load_pairs("train"),
          "E": model.params["src_embedding"].shape[1], "H": model.hidden_size}
    for marker in ("class EncoderDecoder(", "def as_tensors(", "for mine, stored in", "trained.load_state_dict("):
        exec("".join(_cell(marker)["source"]), ns)
    exec("".join(_cell("def greedy(")["source"]), ns)
    return ns


def test_the_chapter_module_gives_the_numpy_translators_next_word_scores(chapter):
    model, trained = chapter["model"], chapter["trained"]
    for english, hindi in load_pairs("test")[:8]:
        with torch.no_grad():
            ours = torch.log_softmax(trained(*chapter["as_tensors"]([(english, hindi)])[:2])[0], dim=-1).numpy()
        state, theirs = model.decoder_start(english), []
        for prev in [model.bos_id] + model.target_vocab.ids_of(hindi):
            log_p, state = model.step(state, prev)
            theirs.append(log_p)
        np.testing.assert_allclose(ours, np.array(theirs), rtol=0, atol=1e-9)


def test_the_chapter_loss_is_the_mean_teacher_forced_surprise(chapter):
    model, trained = chapter["model"], chapter["trained"]
    english, hindi = load_pairs("test")[5]
    with torch.no_grad():
        loss = chapter["teacher_forced_loss"](trained, [(english, hindi)]).item()
    assert loss == pytest.approx(-model.teacher_forced(english, hindi)[1].mean(), abs=1e-9)


def test_the_chapter_greedy_loop_is_mwm_greedy_decode(chapter):
    model = chapter["model"]
    for english, _ in load_pairs("test")[:40]:
        best = greedy_decode(model.step_model(english), max_length=81)
        assert chapter["greedy"](chapter["trained"], english) == model.target_vocab.words_of(best.tokens[:-1])


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
