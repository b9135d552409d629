"""Chapters 12 and 14's translator in PyTorch: what ``scripts/train_translator.py`` trains.

Three kinds: "plain" (the decoder reads out from its own note), "attention" (a combine
layer reads the decoder's note and the attention read s_t) and "control" (the same
combine layer, same size, reading the encoder's last note h^enc_T at every step instead;
the summary that starts the decoder is s = [h^enc_T; c^enc_T], so the control adds numbers
but no information the decoder lacked).

:class:`mwm.seq2seq.Translator` runs the trained weights in numpy; ``tests/test_seq2seq.py``
checks that the two agree.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from mwm.seq2seq import Vocab


#: The read-out kinds, and the key of each kind's combine layer in a weight file.
COMBINE_KEYS = {"plain": None, "attention": "combine", "control": "summary_combine"}


class Seq2Seq(nn.Module):
    """LSTM encoder -> summary -> LSTM decoder, read out plainly, through attention or through
    the same combine layer fed the encoder's last note h^enc_T (``kind``: "plain", "attention", "control")."""

    def __init__(self, n_src: int, n_tgt: int, embed: int, hidden: int, kind: str):
        super().__init__()
        if kind not in COMBINE_KEYS:
            raise ValueError(f"kind must be one of {sorted(COMBINE_KEYS)}, got {kind!r}")
        self.kind = kind
        self.src_embedding = nn.Embedding(n_src, embed, padding_idx=0)
        self.tgt_embedding = nn.Embedding(n_tgt, embed, padding_idx=0)
        self.encoder = nn.LSTM(embed, hidden, batch_first=True)
        self.decoder = nn.LSTM(embed, hidden, batch_first=True)
        if kind != "plain":  # created here in both cases, so both start from the same random numbers
            self.combine = nn.Linear(2 * hidden, hidden)
        self.out = nn.Linear(hidden, n_tgt)

    def forward(self, src, src_len, tgt_in):
        """Scores for every next target word, teacher forced: (B, L, V)."""
        packed = nn.utils.rnn.pack_padded_sequence(self.src_embedding(src), src_len, batch_first=True,
                                                   enforce_sorted=False)
        notes, (h, c) = self.encoder(packed)
        notes, _ = nn.utils.rnn.pad_packed_sequence(notes, batch_first=True)     # (B, T, H)
        dec, _ = self.decoder(self.tgt_embedding(tgt_in), (h, c))                # the summary starts it
        if self.kind == "attention":
            scores = dec @ notes.transpose(1, 2)                                  # (B, L, T)
            mask = torch.arange(notes.shape[1])[None, None, :] >= src_len[:, None, None]
            weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
            dec = torch.tanh(self.combine(torch.cat([dec, weights @ notes], dim=-1)))
        elif self.kind == "control":                                              # s = h_T at every step
            dec = torch.tanh(self.combine(torch.cat([dec, h[-1][:, None, :].expand_as(dec)], dim=-1)))
        return self.out(dec)

    def to_numpy(self, src_vocab: Vocab, tgt_vocab: Vocab) -> dict:
        """The weights in the layout of ``mwm.seq2seq.Translator`` (float32; the two LSTM biases added)."""
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
