"""mwm: the reference code of the course "Machines with Memory".

Each module follows a part of the unit (seed sections in brackets):

* :mod:`mwm.order`    why order matters: bag of words, window, running note (§1)
* :mod:`mwm.cell`     the plain recurrent cell, one number or a vector (§2-§3)
* :mod:`mwm.params`   how many numbers each kind of reader learns (§3, §10, §11)
* :mod:`mwm.readout`  read-out, softmax with temperature, loss and its gradient (§4-§5)
* :mod:`mwm.decoding` choosing words: greedy, beam search, sampling; a tree as a model (§13)
* :mod:`mwm.bleu`     grading a translation: clipped n-gram precision, brevity penalty, BLEU (§13)
* :mod:`mwm.seq2seq`  the encoder-decoder translator, its summary, attention read-out and the bottleneck (§12, §14)
* :mod:`mwm.translation_corpus`  the toy English -> Hindi corpus and its grammar (§12)
* :mod:`mwm.widgets`  the chapters' interactive "Try" panels

numpy is the reference implementation; PyTorch is used only to check it and to train.
"""
from .bleu import BleuScore, bleu_details, brevity_penalty, clipped_matches, closest_reference_length, corpus_bleu, corpus_bleu_details, matched_positions, ngrams, sentence_bleu
from .decoding import ProbabilityTree, StepModel, beam_search, exhaustive_search, greedy_decode, sample_decode, sequence_log_prob
from .cell import rnn_forward, rnn_step, scalar_rnn
from .order import TOY_VECTORS, bag_of_words, running_note, turn_matrix, window, word_counts, words_of
from .params import cell_param_count, readout_param_count, stack_param_count, unshared_param_count
from .seq2seq import Translator, Vocab, accuracy_by_position, bleu_by_length, first_length_below, first_word_weight, leaky_summary, length_buckets, load_test_outputs, load_translator, numbers_in
from .readout import one_hot, readout, readout_gradient, sequence_loss, softmax, surprise

__all__ = [
    "TOY_VECTORS", "bag_of_words", "running_note", "turn_matrix", "window", "word_counts", "words_of",
    "scalar_rnn", "rnn_step", "rnn_forward",
    "cell_param_count", "unshared_param_count", "readout_param_count", "stack_param_count",
    "softmax", "readout", "one_hot", "surprise", "sequence_loss", "readout_gradient",
    "BleuScore", "ngrams", "clipped_matches", "matched_positions", "closest_reference_length", "brevity_penalty",
    "bleu_details", "sentence_bleu", "corpus_bleu_details", "corpus_bleu",
    "Translator", "Vocab", "load_translator", "load_test_outputs", "numbers_in", "leaky_summary",
    "first_word_weight", "first_length_below", "length_buckets", "bleu_by_length", "accuracy_by_position",
    "StepModel", "ProbabilityTree", "greedy_decode", "beam_search", "sample_decode", "sequence_log_prob",
    "exhaustive_search",
]
