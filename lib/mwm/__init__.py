"""mwm: the reference code of the course "Machines with Memory".

Each module follows a part of the unit (seed sections in brackets):

* :mod:`mwm.order`    why order matters: bag of words, window, running note (§1)
* :mod:`mwm.cell`     the plain recurrent cell, one number or a vector (§2-§3)
* :mod:`mwm.params`   how many numbers each kind of reader learns (§3, §10, §11)
* :mod:`mwm.readout`  read-out, softmax with temperature, loss and its gradient (§4-§5)
* :mod:`mwm.charlm`   a character language model: teacher-forced surprise, greedy and sampled talk (§5)
* :mod:`mwm.widgets`  the chapters' interactive "Try" panels

numpy is the reference implementation; PyTorch is used only to check it and to train.
"""
from .cell import rnn_forward, rnn_step, scalar_rnn
from .charlm import (ALPHABET, CharLM, Talk, char_lm_param_count, decode, encode, find_loop, lm_forward, lm_step,
                     load_char_lm, load_corpus, next_char_probs, talk_greedy, talk_sample, text_surprise)
from .order import TOY_VECTORS, bag_of_words, running_note, turn_matrix, window, word_counts, words_of
from .params import cell_param_count, readout_param_count, stack_param_count, unshared_param_count
from .readout import one_hot, readout, readout_gradient, sequence_loss, softmax, surprise

__all__ = [
    "TOY_VECTORS", "bag_of_words", "running_note", "turn_matrix", "window", "word_counts", "words_of",
    "scalar_rnn", "rnn_step", "rnn_forward",
    "cell_param_count", "unshared_param_count", "readout_param_count", "stack_param_count",
    "softmax", "readout", "one_hot", "surprise", "sequence_loss", "readout_gradient",
    "ALPHABET", "CharLM", "Talk", "char_lm_param_count", "encode", "decode", "load_corpus", "load_char_lm",
    "lm_step", "lm_forward", "next_char_probs", "text_surprise", "find_loop", "talk_greedy", "talk_sample",
]
