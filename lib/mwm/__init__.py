"""mwm: the reference code of the course "Machines with Memory".

Each module follows a part of the course (chapters in brackets):

* :mod:`mwm.order`    why order matters: bag of words, window, running state (chapter 1)
* :mod:`mwm.cell`     the plain recurrent cell, one number or a vector (chapters 2-3)
* :mod:`mwm.params`   how many numbers each kind of reader learns (chapters 3, 10, 11)
* :mod:`mwm.readout`  read-out: logits, softmax with temperature, cross-entropy loss and its gradient (chapters 4-5)
* :mod:`mwm.bptt`     backprop through time, full and truncated; gradient check (chapter 6)
* :mod:`mwm.dynamics` powers of w and W, eigen-directions, spectral radius: fading and exploding (chapter 7)
* :mod:`mwm.clipping` gradient clipping by global norm, orthogonal starts, a landscape with a cliff (chapter 8)
* :mod:`mwm.gates`, :mod:`mwm.lstm`, :mod:`mwm.gru`, :mod:`mwm.readers`  gated cells with BPTT, two-way and stacked readers (chapters 9-11)
* :mod:`mwm.memory_lab`  the memory lab: chai or coffee, many words later, for hand-set cells (chapter 9)
* :mod:`mwm.decoding` choosing words: greedy, beam search, sampling; a tree as a model (chapter 13)
* :mod:`mwm.bleu`     grading a translation: clipped n-gram precision, brevity penalty, BLEU (chapter 13)
* :mod:`mwm.seq2seq`  the encoder-decoder translator, its summary, attention read-out and the bottleneck (chapters 12, 14)
* :mod:`mwm.translation_corpus`  the toy English -> Hindi corpus and its grammar (chapter 12)
* :mod:`mwm.charlm`   a character language model: teacher-forced cross-entropy, greedy and sampled talk (chapter 5)
* :mod:`mwm.widgets`  the chapters' interactive "Try" panels

numpy is the reference implementation; PyTorch is used only to check it and to train
(its models live in the separate package ``mwm_torch``; ``mwm`` never imports torch). The
practice problems are not here: what runs in a student's kernel is the package
``mwm_practice``, and the teacher's tools are ``mwm_grader`` (``grader/``).

The plain cell, the GRU and the LSTM share one contract (weights are a dict of named arrays)::

    step(state, x, weights)                -> (new_state, cache)
    step_backward(d_state, cache, weights) -> (grads, d_state_prev, dx)
    forward(xs, weights, h0=None)          -> (states, caches)   (the LSTM: state0, an LSTMState)
    backward(d_states, caches, weights)    -> (grads, d_state0, dxs)

with grads a dict keyed by the weight names. The state is h for the plain cell and the GRU,
the pair :class:`mwm.lstm.LSTMState` ``(h, c)`` for the LSTM.
"""
from .bptt import (RNNGrads, ScalarGrads, chunk_count, chunk_of, gradient_check, last_state_loss, numerical_gradient,
                   relative_error, rnn_backward, rnn_bptt, rnn_step_backward, scalar_bptt, step_factors, taught_positions)
from .bleu import BleuScore, bleu_details, brevity_penalty, clipped_matches, closest_reference_length, corpus_bleu, corpus_bleu_details, matched_positions, ngrams, sentence_bleu
from .decoding import ProbabilityTree, StepModel, beam_search, exhaustive_search, greedy_decode, sample_decode, sequence_log_prob
from .cell import RNN_KEYS, rnn_forward, rnn_step, scalar_rnn
from .clipping import clip_by_global_norm, clip_by_value, descend, global_norm, orthogonal, wall_crossing
from .dynamics import eigen_split, first_step_below, matrix_powers, scalar_chain, spectral_radius, tanh_fixed_point
from .charlm import (ALPHABET, CharLM, Talk, char_lm_param_count, decode, encode, find_loop, lm_forward, lm_step,
                     load_char_lm, load_corpus, next_char_probs, talk_greedy, talk_sample, text_cross_entropy)
from .order import TOY_VECTORS, bag_of_words, running_state, turn_matrix, window, word_counts, words_of
from .params import cell_param_count, readout_param_count, stack_param_count, unshared_param_count
from .gru import (GRU_KEYS, blend, gru_backward, gru_candidate, gru_forward, gru_step, gru_step_backward, gru_weights_from_torch,
                  gru_weights_to_torch, init_gru, reset_placement_gap)
from .gates import sigmoid
from .lstm import (LSTM_KEYS, LSTMState, init_lstm, lane_keep, lstm_backward, lstm_forward, lstm_step, lstm_step_backward,
                   lstm_weights_from_stacked, lstm_weights_to_stacked)
from .readers import (TEDDY_SENTENCES, bidirectional_forward, init_reader, init_rnn, layers_from_torch, reader_backward,
                      reader_forward, reader_param_count, stacked_forward, toy_word_vectors)
from .memory_lab import (LAB_CELLS, LAB_DEFAULTS, lab_accuracy, lab_exact_accuracy, lab_gates, lab_run,
                         lab_sentences)
from .seq2seq import Translator, Vocab, accuracy_by_position, bleu_by_length, first_length_below, first_word_weight, leaky_summary, length_buckets, load_test_outputs, load_translator, numbers_in
from .readout import cross_entropy, log_softmax, one_hot, readout, readout_gradient, sequence_loss, softmax

__all__ = [
    "TOY_VECTORS", "bag_of_words", "running_state", "turn_matrix", "window", "word_counts", "words_of",
    "scalar_rnn", "RNN_KEYS", "rnn_step", "rnn_forward",
    "cell_param_count", "unshared_param_count", "readout_param_count", "stack_param_count",
    "softmax", "log_softmax", "readout", "one_hot", "cross_entropy", "sequence_loss", "readout_gradient",
    "ScalarGrads", "RNNGrads", "scalar_bptt", "rnn_bptt", "rnn_step_backward", "rnn_backward", "last_state_loss", "chunk_count",
    "chunk_of", "taught_positions", "step_factors", "numerical_gradient", "relative_error", "gradient_check",
    "scalar_chain", "first_step_below", "tanh_fixed_point", "matrix_powers", "eigen_split", "spectral_radius",
    "clip_by_global_norm", "clip_by_value", "global_norm", "orthogonal", "descend", "wall_crossing",
    "sigmoid", "LSTM_KEYS", "LSTMState", "init_lstm", "lane_keep", "lstm_step", "lstm_forward", "lstm_step_backward", "lstm_backward",
    "lstm_weights_from_stacked", "lstm_weights_to_stacked",
    "GRU_KEYS", "init_gru", "blend", "gru_candidate", "gru_step", "gru_forward", "gru_step_backward", "gru_backward",
    "gru_weights_from_torch", "gru_weights_to_torch", "reset_placement_gap",
    "init_rnn", "init_reader", "reader_forward", "reader_backward", "bidirectional_forward", "stacked_forward",
    "reader_param_count", "layers_from_torch", "TEDDY_SENTENCES", "toy_word_vectors",
    "LAB_CELLS", "LAB_DEFAULTS", "lab_gates", "lab_sentences", "lab_run", "lab_accuracy", "lab_exact_accuracy",
    "BleuScore", "ngrams", "clipped_matches", "matched_positions", "closest_reference_length", "brevity_penalty",
    "bleu_details", "sentence_bleu", "corpus_bleu_details", "corpus_bleu",
    "Translator", "Vocab", "load_translator", "load_test_outputs", "numbers_in", "leaky_summary",
    "first_word_weight", "first_length_below", "length_buckets", "bleu_by_length", "accuracy_by_position",
    "StepModel", "ProbabilityTree", "greedy_decode", "beam_search", "sample_decode", "sequence_log_prob",
    "exhaustive_search",
    "ALPHABET", "CharLM", "Talk", "char_lm_param_count", "encode", "decode", "load_corpus", "load_char_lm",
    "lm_step", "lm_forward", "next_char_probs", "text_cross_entropy", "find_loop", "talk_greedy", "talk_sample",
]
