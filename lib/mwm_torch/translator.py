"""Chapters 12 and 14's translator in PyTorch: what ``scripts/train_translator.py`` trains.

Three kinds: "plain" (the decoder reads out from its own hidden state), "attention" (a combine
layer reads the decoder's hidden state and the attention read m_t) and "control" (the same
combine layer, same size, reading the encoder's last hidden state h^enc_T at every step instead;
the summary that starts the decoder is s = [h^enc_T; c^enc_T], so the control adds numbers
but no information the decoder lacked).

:class:`mwm.seq2seq.Translator` runs the trained weights in numpy; ``tests/test_seq2seq.py``
checks that the two agree.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from mwm.seq2seq import Vocab


#: The read-out kinds, and the key of each kind's combine layer in a weight file.
COMBINE_KEYS = {"plain": None, "attention": "combine", "control": "summary_combine"}
#: Every kind this module trains: those above and "additive", the attention model with additive scores
#: (Bahdanau et al., 2015) in place of dot products, which has no numpy twin and no weight file.
KINDS = (*COMBINE_KEYS, "additive")


def attention_read(dec, states, src_len, scores=None):
    """The attention read of chapter 14: weights over the encoder's states, and their weighted sum.

    Args:
        dec: the decoder's hidden states, (B, L, H).
        states: the encoder's hidden states, (B, T, H), padded after each sentence's length.
        src_len: each English sentence's length, (B,) whole numbers in 1..T.
        scores: (B, L, T) scores; None for dot products ``dec @ states^T`` (the course's model).

    Returns:
        (weights, context): the attention weights alpha, the softmax of the scores over the T
        encoder steps with padding given weight 0, (B, L, T); and the context vectors
        m = ``weights @ states``, (B, L, H).
    """
    if scores is None:
        scores = dec @ states.transpose(1, 2)                                      # (B, L, T)
    mask = torch.arange(states.shape[1])[None, None, :] >= src_len[:, None, None]
    weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
    return weights, weights @ states


def additive_scores(dec, states, W_q, W_k, b, v):
    """Additive attention scores (Bahdanau et al., 2015): e_{t,j} = v^T tanh(W_q h_t + W_k h^enc_j + b).

    Args:
        dec: decoder hidden states (B, L, H); states: encoder hidden states (B, T, H).
        W_q, W_k: (A, H); b, v: (A,), with A the scoring layer's size.

    Returns:
        scores, (B, L, T): one for every decoder step and encoder step.
    """
    mixed = F.linear(dec, W_q)[:, :, None, :] + F.linear(states, W_k, b)[:, None, :, :]   # (B, L, T, A)
    return F.linear(torch.tanh(mixed), v[None, :])[..., 0]


class Seq2Seq(nn.Module):
    """LSTM encoder -> summary -> LSTM decoder, read out plainly, through attention or through
    the same combine layer fed the encoder's last hidden state h^enc_T (``kind``: "plain",
    "attention", "control"; or "additive": attention whose score of the decoder's state h_t and the
    encoder's state h^enc_j is v^T tanh(W_q h_t + W_k h^enc_j + b) instead of h_t . h^enc_j, a layer made after every other one,
    so the two attention kinds start from the same numbers everywhere else).

    ``two_way=True`` (plain kind only; chapter 11's two directions) gives the encoder two LSTMs
    of ``hidden // 2`` units, one reading the English forwards and one backwards; their last
    hidden and cell states, joined, make a summary of the same 2 * hidden numbers that starts
    the same decoder. Such a model has no numpy twin (``to_numpy`` raises).

    Raises:
        ValueError: for an unknown ``kind``, or ``two_way`` with another kind or an odd ``hidden``.
    """

    def __init__(self, n_src: int, n_tgt: int, embed: int, hidden: int, kind: str, two_way: bool = False):
        super().__init__()
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {sorted(KINDS)}, got {kind!r}")
        if two_way and (kind != "plain" or hidden % 2):
            raise ValueError(f"two_way needs kind 'plain' and an even hidden, got {kind!r} and {hidden}")
        self.kind, self.two_way = kind, two_way
        self.src_embedding = nn.Embedding(n_src, embed, padding_idx=0)
        self.tgt_embedding = nn.Embedding(n_tgt, embed, padding_idx=0)
        self.encoder = (nn.LSTM(embed, hidden // 2, batch_first=True, bidirectional=True) if two_way
                        else nn.LSTM(embed, hidden, batch_first=True))
        self.decoder = nn.LSTM(embed, hidden, batch_first=True)
        if kind != "plain":  # created here in both cases, so both start from the same random numbers
            self.combine = nn.Linear(2 * hidden, hidden)
        self.out = nn.Linear(hidden, n_tgt)
        if kind == "additive":   # after every other layer: the same starting numbers as "attention" elsewhere
            self.score_query = nn.Linear(hidden, hidden, bias=False)   # W_q
            self.score_key = nn.Linear(hidden, hidden)                 # W_k and b
            self.score_v = nn.Linear(hidden, 1, bias=False)            # v

    def encode(self, src, src_len):
        """Read padded English ids (B, T) with lengths (B,): the encoder's hidden states (B, T, H) and the
        summary (h, c), each (1, B, H)."""
        packed = nn.utils.rnn.pack_padded_sequence(self.src_embedding(src), src_len, batch_first=True,
                                                   enforce_sorted=False)
        states, (h, c) = self.encoder(packed)
        states, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True)     # (B, T, H)
        if self.two_way:                        # forward's last state next to backward's (at word 1)
            h, c = (torch.cat([x[0], x[1]], dim=-1)[None] for x in (h, c))
        return states, (h, c)

    def read_out(self, dec, states, src_len, h_last):
        """Logits (B, L, V) from the decoder's hidden states dec (B, L, H), per ``kind``."""
        if self.kind in ("attention", "additive"):
            scores = None if self.kind == "attention" else additive_scores(
                dec, states, self.score_query.weight, self.score_key.weight, self.score_key.bias,
                self.score_v.weight[0])
            _, context = attention_read(dec, states, src_len, scores)
            dec = torch.tanh(self.combine(torch.cat([dec, context], dim=-1)))
        elif self.kind == "control":                                              # s = h_T at every step
            dec = torch.tanh(self.combine(torch.cat([dec, h_last[:, None, :].expand_as(dec)], dim=-1)))
        return self.out(dec)

    def forward(self, src, src_len, tgt_in):
        """Logits for every next target word, teacher forced: (B, L, V)."""
        states, (h, c) = self.encode(src, src_len)
        dec, _ = self.decoder(self.tgt_embedding(tgt_in), (h, c))                # the summary starts it
        return self.read_out(dec, states, src_len, h[-1])

    @torch.no_grad()
    def greedy(self, src, src_len, bos_id: int, eos_id: int, max_words: int = 80) -> list[list[int]]:
        """Greedy decoding of a batch (chapter 13), free running: each sentence's target ids, without
        the end symbol, at most ``max_words`` of them (as ``mwm.seq2seq.Translator.translate``)."""
        states, (h, c) = self.encode(src, src_len)
        h_last, state = h[-1], (h, c)
        prev = torch.full((src.shape[0], 1), bos_id, dtype=torch.long)
        out = torch.empty((src.shape[0], 0), dtype=torch.long)
        done = torch.zeros(src.shape[0], dtype=torch.bool)
        for _ in range(max_words):
            dec, state = self.decoder(self.tgt_embedding(prev), state)
            prev = self.read_out(dec, states, src_len, h_last).argmax(-1)         # (B, 1)
            out = torch.cat([out, prev], dim=1)
            done |= prev[:, 0] == eos_id
            if done.all():
                break
        ids = []
        for row in out.tolist():
            ids.append(row[:row.index(eos_id)] if eos_id in row else row)
        return ids

    def to_numpy(self, src_vocab: Vocab, tgt_vocab: Vocab) -> dict:
        """The weights in the layout of ``mwm.seq2seq.Translator`` (float32; the two LSTM biases added).

        Raises:
            ValueError: for a two-way encoder, which the numpy translator does not run.
        """
        if self.two_way or self.kind == "additive":
            raise ValueError("a two-way encoder or additive scores have no numpy twin in mwm.seq2seq")
        def f(t):
            return t.detach().numpy().astype(np.float32)
        w = {"src_words": np.array(src_vocab.words), "tgt_words": np.array(tgt_vocab.words),
             "src_embedding": f(self.src_embedding.weight), "tgt_embedding": f(self.tgt_embedding.weight),
             "out_W": f(self.out.weight), "out_b": f(self.out.bias)}
        for name, lstm in (("enc", self.encoder), ("dec", self.decoder)):
            w[f"{name}_W_ih"], w[f"{name}_W_hh"] = f(lstm.weight_ih_l0), f(lstm.weight_hh_l0)
            w[f"{name}_b"] = f(lstm.bias_ih_l0 + lstm.bias_hh_l0)
        key = COMBINE_KEYS[self.kind]
        if key:
            w[f"{key}_W"], w[f"{key}_b"] = f(self.combine.weight), f(self.combine.bias)
        return w

    @classmethod
    def from_numpy(cls, w: dict) -> "Seq2Seq":
        """Rebuild a torch model from a weight file's arrays (the biases go into ``bias_ih``)."""
        H, E = w["enc_W_hh"].shape[1], w["src_embedding"].shape[1]
        kind = next((k for k, key in COMBINE_KEYS.items() if key and f"{key}_W" in w), "plain")
        model = cls(len(w["src_words"]), len(w["tgt_words"]), E, H, kind)
        t = {k: torch.from_numpy(np.asarray(v)) for k, v in w.items() if k not in ("src_words", "tgt_words")}
        with torch.no_grad():
            model.src_embedding.weight.copy_(t["src_embedding"])
            model.tgt_embedding.weight.copy_(t["tgt_embedding"])
            model.out.weight.copy_(t["out_W"])
            model.out.bias.copy_(t["out_b"])
            for name, lstm in (("enc", model.encoder), ("dec", model.decoder)):
                lstm.weight_ih_l0.copy_(t[f"{name}_W_ih"])
                lstm.weight_hh_l0.copy_(t[f"{name}_W_hh"])
                lstm.bias_ih_l0.copy_(t[f"{name}_b"])
                lstm.bias_hh_l0.zero_()
            key = COMBINE_KEYS[kind]
            if key:
                model.combine.weight.copy_(t[f"{key}_W"])
                model.combine.bias.copy_(t[f"{key}_b"])
        return model
