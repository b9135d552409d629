"""Chapter 11: two-way and stacked readers, their backward pass, and the chapters' numbers."""
import numpy as np
import pytest

from mwm.cell import rnn_forward, scalar_rnn
from mwm.params import stack_param_count
from mwm.readers import (TEDDY_SENTENCES, bidirectional_forward, init_reader, init_rnn, reader_backward,
                         reader_forward, reader_param_count, stacked_forward, toy_word_vectors)
from mwm.bptt import numerical_gradient as bptt_numerical_gradient

EPS = 1e-6
TOY = {"W": [[0.5]], "U": [[1.0]], "b": [0.0]}


def test_seed_toy_forward_0_0_0_7616_backward_0_7616_0_3634_0_1797():
    notes = bidirectional_forward(np.array([[0.0], [0.0], [1.0]]), TOY, TOY, "rnn")
    np.testing.assert_allclose(notes[:, 0], [0.0, 0.0, 0.7616], atol=5e-5)
    np.testing.assert_allclose(notes[:, 1], [0.1797, 0.3634, 0.7616], atol=5e-5)
    assert notes[0, 0] == 0.0 and notes[0, 1] == pytest.approx(0.1797, abs=5e-5)  # word 1: (0, 0.1797)
    # the backward half is section 2's fading numbers, read from the other end
    np.testing.assert_allclose(notes[::-1, 1], scalar_rnn([1, 0, 0], 0.5, 1), atol=1e-15)


def test_one_way_reader_gives_word_1_nothing():
    assert stacked_forward(np.array([[0.0], [0.0], [1.0]]), [TOY])[0, 0] == 0.0


def test_two_layers_of_the_toy():
    xs = np.array([[0.0], [0.0], [1.0]])
    top = stacked_forward(xs, [TOY, TOY])
    np.testing.assert_allclose(top[:, 0], scalar_rnn(scalar_rnn([0, 0, 1], 0.5, 1), 0.5, 1), atol=1e-15)
    assert top[2, 0] == pytest.approx(np.tanh(np.tanh(1.0)), abs=1e-15)


def _teddy(sentence, vectors):
    return np.array([vectors[w.lower()] for w in sentence.split()])


def test_teddy_one_way_note_identical_two_way_different():
    vectors = toy_word_vectors()
    assert len(vectors) == 11 and all(v.shape == (4,) for v in vectors.values())
    fwd, bwd = init_reader("rnn", 3, 4, bidirectional=True, seed=5)[0]
    notes = [bidirectional_forward(_teddy(s, vectors), fwd, bwd) for s in TEDDY_SENTENCES]
    one_way = [stacked_forward(_teddy(s, vectors), [fwd]) for s in TEDDY_SENTENCES]
    teddy = 2  # word 3
    np.testing.assert_array_equal(one_way[0][teddy], one_way[1][teddy])       # bit for bit the same
    np.testing.assert_array_equal(notes[0][teddy, :3], notes[1][teddy, :3])    # the forward half too
    assert np.max(np.abs(notes[0][teddy, 3:] - notes[1][teddy, 3:])) > 0.1     # the backward half differs
    np.testing.assert_array_equal(notes[0][:, :3], one_way[0])


def test_toy_word_vectors_are_seeded_and_checked():
    a, b = toy_word_vectors(seed=11), toy_word_vectors(seed=11)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert sorted(a) == sorted({w.lower() for s in TEDDY_SENTENCES for w in s.split()})
    with pytest.raises(ValueError, match="sentences"):
        toy_word_vectors([])
    with pytest.raises(ValueError, match="sentences"):
        toy_word_vectors("He said")


def test_bidirectional_is_forward_and_reversed_backward_side_by_side():
    rng = np.random.default_rng(0)
    f, b = init_rnn(3, 2, seed=1), init_rnn(3, 2, seed=2)
    xs = rng.normal(size=(6, 4, 2))
    notes = bidirectional_forward(xs, f, b)
    assert notes.shape == (6, 4, 6)
    np.testing.assert_allclose(notes[..., :3], rnn_forward(xs, f)[0], atol=1e-15)
    np.testing.assert_allclose(notes[..., 3:], rnn_forward(xs[::-1], b)[0][::-1], atol=1e-15)


def _numerical(loss, array):
    """Central differences with the course's own checker (chapter 6), at this file's nudge."""
    return bptt_numerical_gradient(loss, array, eps=EPS)


@pytest.mark.parametrize("cell", ["rnn", "gru", "lstm"])
def test_reader_backward_matches_central_differences(cell):
    rng = np.random.default_rng(3)
    layers = init_reader(cell, 2, 3, num_layers=2, bidirectional=True, seed=4, scale=0.9)
    xs = rng.normal(size=(4, 2, 3))
    notes, cache = reader_forward(xs, layers, cell)
    G = rng.normal(size=notes.shape)
    grads, dxs = reader_backward(G, cache)

    def loss():
        return np.sum(G * reader_forward(xs, layers, cell)[0])

    for n, layer in enumerate(layers):
        for k, w in enumerate(layer):
            for key in w:
                num = _numerical(loss, w[key])
                err = np.max(np.abs(grads[n][k][key] - num)) / max(1.0, np.max(np.abs(num)))
                assert err < 1e-7, (n, k, key, err)
    num = _numerical(loss, xs)
    assert np.max(np.abs(dxs - num)) < 1e-7


def test_param_counts_24704_49408_57600_and_layer_2_32896():
    assert stack_param_count(128, 64) == 24_704
    assert stack_param_count(128, 64, bidirectional=True) == 49_408 == 2 * 24_704
    assert stack_param_count(128, 64, num_layers=2) == 57_600
    layers = init_reader("rnn", 128, 64, num_layers=2)
    assert reader_param_count(layers[1:]) == 32_896 == 128 * (128 + 128) + 128
    # a layer on top of a two-way layer reads 2h numbers: each of its readers learns h(h + 2h) + h
    two_way = init_reader("rnn", 128, 64, num_layers=2, bidirectional=True)
    assert reader_param_count([two_way[1][0]]) == 128 * (128 + 256) + 128 == 49_280
    assert reader_param_count(two_way) == stack_param_count(128, 64, num_layers=2, bidirectional=True) == 147_968


def _reader_bad_input_raises_cases():
    """One bad input per case: (function, args, kwargs, error, message naming the argument)."""
    cases = []
    cases += [
        pytest.param(reader_forward, (np.zeros((3, 1)), [(TOY,)], 'tcn'), {}, ValueError, 'cell must be one of', id='reader-forward-cell-must-be-one-of'),
        pytest.param(reader_forward, (np.zeros((3, 1)), [], 'rnn'), {}, ValueError, 'layers must be a non-empty list', id='reader-forward-layers-must-be-a-non-empty-list'),
        pytest.param(reader_forward, (np.zeros((3, 1)), [(TOY, TOY, TOY)], 'rnn'), {}, ValueError, 'layer 1 of layers', id='reader-forward-layer-1-of-layers'),
        pytest.param(reader_forward, (np.zeros((3, 1)), [(TOY,)], 'gru'), {}, ValueError, 'layer 1 of layers needs gru', id='reader-forward-layer-1-of-layers-needs-gru'),
        pytest.param(stacked_forward, (np.zeros((3, 1)), [TOY, init_rnn(2, 3)]), {}, ValueError, "layer 2 of layers must read layer 1's states, 1 numbers", id='stacked-forward-layer-2-of-layers-must-read-laye'),
        pytest.param(stacked_forward, (np.zeros((3, 2)), [TOY]), {}, ValueError, 'layer 1 of layers must read the inputs', id='stacked-forward-layer-1-of-layers-must-read-the'),
        pytest.param(init_reader, ('rnn', 3, 2), {'num_layers': 0}, ValueError, 'num_layers must', id='init-reader-num-layers'),
    ]
    notes, cache = reader_forward(np.zeros((3, 1)), [(TOY, TOY)])
    cases += [
        pytest.param(reader_backward, (np.zeros((3, 1)), cache), {}, ValueError, 'dstates must have shape', id='reader-backward-dstates-must-have-shape'),
    ]
    return cases


@pytest.mark.parametrize("call, args, kwargs, error, match", _reader_bad_input_raises_cases())
def test_reader_bad_input_raises(call, args, kwargs, error, match):
    with pytest.raises(error, match=match):
        call(*args, **kwargs)


def test_teddy_notes_stated_in_chapter_11():
    vectors = toy_word_vectors(TEDDY_SENTENCES, size=4, seed=11)
    fwd, bwd = init_reader("rnn", 3, 4, bidirectional=True, seed=5)[0]
    bears, roosevelt = (bidirectional_forward(_teddy(s, vectors), fwd, bwd)[2] for s in TEDDY_SENTENCES)
    np.testing.assert_allclose(bears[:3], [0.7148, 0.7624, 0.1315], atol=5e-5)
    np.testing.assert_allclose(bears[3:], [0.1072, -0.0917, -0.8600], atol=5e-5)
    np.testing.assert_allclose(roosevelt[3:], [-0.1384, -0.5101, -0.8230], atol=5e-5)
    # GRU and LSTM readers behave the same way: forward halves equal, backward halves not
    for cell in ("gru", "lstm"):
        f, b = init_reader(cell, 3, 4, bidirectional=True, seed=5)[0]
        a1, a2 = (bidirectional_forward(_teddy(s, vectors), f, b, cell)[2] for s in TEDDY_SENTENCES)
        np.testing.assert_array_equal(a1[:3], a2[:3])
        assert not np.array_equal(a1[3:], a2[3:])


def test_backward_half_at_the_last_word_has_read_one_word():
    notes = bidirectional_forward(np.array([[0.0], [0.0], [1.0]]), TOY, TOY)
    assert notes[-1, 1] == pytest.approx(np.tanh(1.0), abs=1e-15)   # (0.7616, 0.7616): word 3 alone
    later = bidirectional_forward(np.array([[0.0], [0.0], [-1.0]]), TOY, TOY)
    assert later[0, 1] == pytest.approx(-0.1797, abs=5e-5)          # word 1's backward half follows word 3
