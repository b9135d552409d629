"""Chapter 11's checks, moved out of the chapter's path (issue 26): the course's readers against torch.

The chapter says, and links here, that PyTorch builds the same two-way and stacked readers
(``bidirectional=True``, ``num_layers=2``) with the forward half first, that torch's counts are
one bias of H higher per cell, that torch's final states ``h_n`` hold the backward cell's state at
word 1 (not the last row of the output), and that the proof's counts are the library's arrays.
Every number below is the one the chapter used to print; each is computed here by mwm and torch.
"""
import numpy as np
import pytest
import torch

from mwm import (TEDDY_SENTENCES, init_reader, layers_from_torch, reader_forward, reader_param_count,
                 stack_param_count, toy_word_vectors)

CONFIGS = [(1, False), (1, True), (2, False), (2, True)]


def _teddy_inputs(sentence):
    vectors = toy_word_vectors(TEDDY_SENTENCES, size=4, seed=11)
    return np.array([vectors[w.lower()] for w in sentence.split()])


def test_torch_two_layer_two_way_reader_gives_the_same_states():
    torch.manual_seed(0)
    module = torch.nn.RNN(input_size=4, hidden_size=3, num_layers=2, bidirectional=True).double()
    layers = layers_from_torch("rnn", {k: v.detach().numpy() for k, v in module.named_parameters()},
                               num_layers=2, bidirectional=True)
    xs = _teddy_inputs(TEDDY_SENTENCES[1])
    with torch.no_grad():
        theirs = module(torch.from_numpy(xs))[0].numpy()
    ours = reader_forward(xs, layers, "rnn")[0]
    assert ours.shape == (7, 6)
    assert np.abs(ours - theirs).max() < 1e-14


@pytest.mark.parametrize("num_layers, bidirectional", CONFIGS)
def test_counts_torch_holds_one_more_bias_per_cell(num_layers, bidirectional):
    ours = stack_param_count(128, 64, num_layers=num_layers, bidirectional=bidirectional)
    assert ours == {(1, False): 24_704, (1, True): 49_408, (2, False): 57_600, (2, True): 147_968}[num_layers, bidirectional]
    theirs = sum(p.numel() for p in torch.nn.RNN(64, 128, num_layers=num_layers, bidirectional=bidirectional).parameters())
    assert theirs - ours == 128 * num_layers * (2 if bidirectional else 1)
    kwargs = {"num_layers": num_layers, "bidirectional": bidirectional}
    assert reader_param_count(init_reader("rnn", 128, 64, **kwargs)) == ours     # the proof's formula = the arrays


def test_the_layer_counts_of_proof_1():
    assert reader_param_count(init_reader("rnn", 128, 64, num_layers=2)[1:]) == 128 * 256 + 128 == 32_896
    upper = init_reader("rnn", 128, 64, num_layers=2, bidirectional=True)[1][0]
    assert reader_param_count([upper]) == 128 * (128 + 256) + 128 == 49_280


def test_torch_h_n_is_the_summary_and_not_the_last_row():
    torch.manual_seed(1)
    one_layer = torch.nn.RNN(input_size=4, hidden_size=3, bidirectional=True).double()
    with torch.no_grad():
        out, h_n = one_layer(torch.from_numpy(_teddy_inputs(TEDDY_SENTENCES[1])))
    backward_final, last_row, first_row = h_n[1].numpy(), out[-1, 3:].numpy(), out[0, 3:].numpy()
    np.testing.assert_array_equal(backward_final, first_row)
    assert np.abs(backward_final - last_row).max() > 0.1
    assert (backward_final.round(4) + 0.0).tolist() == [-0.4541, 0.6728, -0.5743]
    assert (last_row.round(4) + 0.0).tolist() == [0.1711, -0.5672, -0.8905]
    np.testing.assert_array_equal(h_n[0].numpy(), out[-1, :3].numpy())            # forward half: the last row
