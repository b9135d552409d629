"""A model you own: a character language model in one file, trained on any text you give it.

Everything here is the course's own machinery, put together: chapter 2's cell
``h_t = tanh(W h_{t-1} + U x_t + b)`` over one-hot characters, chapter 4's read-out
``p_t = softmax(V h_t + b_V)`` and cross-entropy loss, chapter 6's BPTT, cut every τ characters
with the hidden state carried across the cut (truncated BPTT), chapter 8's global-norm clipping
and a good start (an orthogonal ``W``), and chapter 5's sampler with a temperature. The weights
move by Adam (chapter 5 names it: a gradient descent that adapts each weight's step from its past
gradients). Run it on a text of your own::

    python -m mwm.tiny --text my.txt --steps 3000

It prints samples as it learns, with a progress bar, and the loss on the last tenth of the text,
which it never trains on (the held-out loss, in nats per character).
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .bptt import rnn_bptt
from .cell import rnn_forward, rnn_step
from .clipping import clip_by_global_norm, orthogonal
from .npz import save_npz
from .readout import log_softmax, one_hot, readout_gradient, softmax

#: The parameter names, in the order the optimiser visits them.
KEYS = ("W", "U", "b", "V", "b_V")


@dataclass
class TinyModel:
    """The characters it knows (``chars``: one per one-hot input and per logit) and its weights."""

    chars: str
    weights: dict = field(repr=False)   # W (h, h), U (h, K), b (h,), V (K, h), b_V (K,)

    def encode(self, text: str) -> np.ndarray:
        """The index of each character of ``text`` in ``chars``; ValueError naming one it does not know."""
        index = {c: i for i, c in enumerate(self.chars)}
        unknown = sorted(set(text) - set(index))
        if unknown:
            raise ValueError(f"text has characters the model does not know: {''.join(unknown[:10])!r}")
        return np.array([index[c] for c in text], dtype=np.int64)


def save(model: TinyModel, path) -> None:
    """Write ``model`` to an ``.npz`` file (:func:`mwm.npz.save_npz`, the same bytes for the same weights):
    its weights and its characters, as code points."""
    save_npz(path, {"chars": np.array([ord(c) for c in model.chars], dtype=np.int64), **model.weights})


def load(path) -> TinyModel:
    """Read a model :func:`save` wrote. Raises ValueError if the file lacks a weight or its shapes disagree."""
    with np.load(path) as data:
        missing = sorted((set(KEYS) | {"chars"}) - set(data.files))
        if missing:
            raise ValueError(f"{path} is not a tiny model: it lacks {missing}")
        chars, weights = "".join(map(chr, data["chars"])), {k: data[k].astype(float) for k in KEYS}
    h, k = weights["W"].shape[0], len(chars)
    shapes = {"W": (h, h), "U": (h, k), "b": (h,), "V": (k, h), "b_V": (k,)}
    if any(weights[key].shape != shape for key, shape in shapes.items()):
        raise ValueError(f"{path}: weight shapes {[weights[key].shape for key in KEYS]} do not fit {h} and {k}")
    return TinyModel(chars, weights)


def new_model(text: str, hidden_size: int = 64, seed: int = 0) -> TinyModel:
    """A new model for the characters of ``text``: W orthogonal (chapter 8's good start), U and V small, biases zero.

    Args:
        text: any string; its distinct characters, sorted, become the model's K characters.
        hidden_size: h, the numbers in the hidden state, a whole number >= 1.
        seed: the random generator's seed (a whole number >= 0).

    Returns:
        TinyModel with W (h, h), U (h, K), b (h,), V (K, h), b_V (K,).

    Raises:
        ValueError: if ``text`` has fewer than 2 distinct characters or ``hidden_size`` is not >= 1.
    """
    chars = "".join(sorted(set(text)))
    if len(chars) < 2:
        raise ValueError(f"text must have at least 2 different characters, got {len(chars)}")
    if int(hidden_size) < 1:
        raise ValueError(f"hidden_size must be a whole number >= 1, got {hidden_size!r}")
    rng, h, k = np.random.default_rng([seed, 1]), int(hidden_size), len(chars)   # not W's stream
    weights = {"W": orthogonal(h, seed=seed), "U": rng.normal(0, 0.1, (h, k)), "b": np.zeros(h),
               "V": rng.normal(0, 0.1, (k, h)), "b_V": np.zeros(k)}
    return TinyModel(chars, weights)


def loss_and_grads(model: TinyModel, ids, h0):
    """Read ``ids[:-1]`` from ``h0`` and guess each next character (chapters 4-6): the loss and its gradients.

    Args:
        model: the model (its weights are read, not changed).
        ids: character indices into ``model.chars``, shape (T + 1,) with T >= 1: inputs ``ids[:-1]``,
            targets ``ids[1:]``.
        h0: the hidden state before the first input, shape (h,).

    Returns:
        (loss, grads, h_T): the summed cross-entropy in nats (float); a dict name -> gradient with the
        keys of :data:`KEYS` and the weights' shapes; the last hidden state, shape (h,), to carry on.

    Raises:
        ValueError: if ``ids`` has fewer than 2 entries or ``h0`` has the wrong shape (naming it).
    """
    if len(ids) < 2:
        raise ValueError(f"ids must have at least 2 entries (an input and its next character), got {len(ids)}")
    w = model.weights
    xs = _one_hot_rows(ids[:-1], len(model.chars))             # one-hot inputs, (T, K)
    hs, _ = rnn_forward(xs, w, h0)                             # forward: every hidden state
    logits = hs @ w["V"].T + w["b_V"]                          # read-out
    loss = -float(log_softmax(logits)[np.arange(len(xs)), ids[1:]].sum())   # cross-entropy, nats
    dy = readout_gradient(softmax(logits), ids[1:])            # prediction minus truth
    g = rnn_bptt(xs, hs, dy @ w["V"], w, h0)                   # backward through time
    grads = {"W": g.dW, "U": g.dU, "b": g.db, "V": dy.T @ hs, "b_V": dy.sum(axis=0)}
    return loss, grads, hs[-1]


def _one_hot_rows(ids, size: int) -> np.ndarray:
    """Rows of ``size`` zeros with a one at each index of ``ids``, shape (len(ids), size): chapter 4's
    :func:`mwm.readout.one_hot` for a whole chunk at once."""
    rows = np.zeros((len(ids), size))
    rows[np.arange(len(ids)), ids] = 1.0
    return rows


def heldout_loss(model: TinyModel, text: str, chunk: int = 1000) -> float:
    """The mean cross-entropy of ``text`` read from the zero state, in nats per character (its first is given).

    Forward only, ``chunk`` characters at a time with the hidden state carried on, so any length fits in memory.

    Raises:
        ValueError: if ``text`` has fewer than 2 characters or one the model does not know.
    """
    ids = model.encode(text)
    if len(ids) < 2:
        raise ValueError("text must have at least 2 characters")
    w, h, total = model.weights, np.zeros(len(model.weights["b"])), 0.0
    for start in range(0, len(ids) - 1, chunk):
        inputs, targets = ids[start:start + chunk], ids[start + 1:start + chunk + 1]
        inputs = inputs[:len(targets)]
        hs, _ = rnn_forward(_one_hot_rows(inputs, len(model.chars)), w, h)
        total -= log_softmax(hs @ w["V"].T + w["b_V"])[np.arange(len(targets)), targets].sum()
        h = hs[-1]
    return float(total) / (len(ids) - 1)


def next_char_probs(model: TinyModel, prompt: str, temperature: float = 1.0) -> np.ndarray:
    """The model's probabilities for the character after ``prompt``, read from the zero state, at θ (chapter 5).

    Returns:
        array of shape (K,), one probability per character of ``model.chars``.

    Raises:
        ValueError: if ``prompt`` is empty or holds a character the model does not know, or θ is not > 0.
    """
    ids, w = model.encode(prompt), model.weights
    if len(ids) == 0:
        raise ValueError("prompt must have at least one character")
    hs, _ = rnn_forward(_one_hot_rows(ids, len(model.chars)), w)
    return softmax(w["V"] @ hs[-1] + w["b_V"], temperature)


def sample(model: TinyModel, prompt: str, length: int = 200, temperature: float = 1.0, seed: int = 0) -> str:
    """Read ``prompt``, then write ``length`` characters, each drawn from the guess at ``temperature`` (chapter 5).

    Args:
        prompt: one or more characters the model knows. length: characters to write, >= 0.
        temperature: θ > 0 (1: the model's own guess; smaller: bolder picks of the likeliest).
        seed: the random generator's seed.

    Returns:
        str of ``length`` characters (the prompt not included).

    Raises:
        ValueError: if ``prompt`` is empty or has a character the model does not know, or θ is not > 0.
    """
    ids, rng, w = model.encode(prompt), np.random.default_rng(seed), model.weights
    if len(ids) == 0:
        raise ValueError("prompt must have at least one character")
    h = np.zeros(len(w["b"]))
    out = []
    for t in range(len(ids) + length - 1):
        x = one_hot(int(ids[t]) if t < len(ids) else out[-1], len(model.chars))
        h, _ = rnn_step(h, x, w)
        if t >= len(ids) - 1:
            out.append(int(rng.choice(len(model.chars), p=softmax(w["V"] @ h + w["b_V"], temperature))))
    return "".join(model.chars[i] for i in out)


@dataclass
class Run:
    """A training run: the model, the curve (step, mean training loss since the last point, held-out loss), samples."""

    model: TinyModel
    curve: list = field(default_factory=list)
    samples: list = field(default_factory=list)


def train(text: str, steps: int = 3000, hidden_size: int = 64, tau: int = 25, lr: float = 0.001,
          max_norm: float = 5.0, seed: int = 0, every: int = 500, progress: bool = True, log=None) -> Run:
    """Train on the first nine tenths of ``text`` in chunks of ``tau`` characters; measure on the last tenth.

    Each step reads one chunk, takes its gradient by BPTT within the chunk, clips it to global norm
    ``max_norm`` and moves the weights by Adam. The hidden state flows on from one chunk to the next
    (truncated BPTT, chapter 6), from zero at the start of the text and again whenever the text is
    read through.

    Args:
        text: the text, any characters. steps: training steps (>= 1). hidden_size: h.
        tau: characters per chunk, τ. lr: Adam's learning rate. max_norm: the clipping threshold γ.
        seed: the weights' random start. every: steps between curve points and samples.
        progress: show a progress bar (tqdm). log: a function of one string, called at each curve point.

    Returns:
        Run: the trained model; ``curve`` of (step, mean training loss since the previous point,
        held-out loss), in nats per character; ``samples`` of (step, 200 characters after the text's first).

    Raises:
        ValueError: if ``steps``, ``hidden_size``, ``tau`` or ``every`` is not a whole number >= 1, ``lr`` or
            ``max_norm`` not a positive number, or the text too short for one chunk of training and two
            characters of held-out text (each message names the argument).
    """
    for name, value in (("steps", steps), ("hidden_size", hidden_size), ("tau", tau), ("every", every)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
    for name, value in (("lr", lr), ("max_norm", max_norm)):
        if not (isinstance(value, (int, float)) and np.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a positive number, got {value!r}")
    cut = int(len(text) * 0.9)
    if cut < tau + 1 or len(text) - cut < 2:
        shortest = next(n for n in range(2, 10 * tau + 100) if int(n * 0.9) >= tau + 1 and n - int(n * 0.9) >= 2)
        raise ValueError(f"text must have at least {shortest} characters for tau = {tau}, got {len(text)}")
    model = new_model(text, hidden_size, seed)
    ids, w = model.encode(text[:cut]), model.weights
    m = {k: np.zeros_like(v) for k, v in w.items()}
    v = {k: np.zeros_like(x) for k, x in w.items()}
    run, h, start, losses = Run(model), np.zeros(hidden_size), 0, []
    from tqdm.auto import tqdm

    for step in tqdm(range(1, steps + 1), disable=not progress, unit="step", file=sys.stderr):
        if start + tau + 1 > len(ids):
            start, h = 0, np.zeros(hidden_size)                # back to the beginning of the text
        loss, grads, h = loss_and_grads(model, ids[start:start + tau + 1], h)
        start += tau
        losses.append(loss / tau)
        grads, _ = clip_by_global_norm(grads, max_norm)
        for k in KEYS:                                         # Adam
            m[k] = 0.9 * m[k] + 0.1 * grads[k]
            v[k] = 0.999 * v[k] + 0.001 * grads[k] ** 2
            w[k] -= lr * (m[k] / (1 - 0.9 ** step)) / (np.sqrt(v[k] / (1 - 0.999 ** step)) + 1e-8)
        if step % every == 0 or step == steps:
            run.curve.append((step, float(np.mean(losses)), heldout_loss(model, text[cut:])))
            run.samples.append((step, sample(model, text[0], 200, seed=step)))
            losses = []
            if log:
                written = (text[0] + run.samples[-1][1]).replace("\n", " / ")
                log(f"step {step}: training loss {run.curve[-1][1]:.3f}, held-out {run.curve[-1][2]:.3f} nats/char\n"
                    f"  {written}")
    return run


def main(argv=None) -> int:
    """``python -m mwm.tiny --text my.txt``: train on a UTF-8 text file, print samples as it learns."""
    ap = argparse.ArgumentParser(prog="python -m mwm.tiny", formatter_class=argparse.ArgumentDefaultsHelpFormatter,
                                 description=__doc__.split("\n\n")[0] + " The last tenth of the text is held out: "
                                 "never trained on, it measures the model. In samples, / marks a line break.")
    ap.add_argument("--text", required=True, type=Path, help="a UTF-8 text file; a few hundred thousand characters "
                                                            "of one author is a good start")
    ap.add_argument("--steps", type=int, default=3000, help="training steps, one chunk of τ characters each")
    ap.add_argument("--hidden", type=int, default=64, help="numbers in the hidden state")
    ap.add_argument("--tau", type=int, default=25, help="characters per chunk, τ of truncated BPTT")
    ap.add_argument("--lr", type=float, default=0.001, help="Adam's learning rate")
    ap.add_argument("--every", type=int, default=500, help="steps between a sample and the two losses")
    ap.add_argument("--seed", type=int, default=0, help="the random start")
    ap.add_argument("--save", type=Path, help="write the trained model here (.npz), for mwm.tiny.load")
    args = ap.parse_args(argv)
    from tqdm.auto import tqdm

    try:
        text = args.text.read_text(encoding="utf-8-sig")   # a byte-order mark is not text
        run = train(text, args.steps, args.hidden, args.tau, args.lr, seed=args.seed, every=args.every,
                    log=tqdm.write)
        if args.save:
            save(run.model, args.save)
            tqdm.write(f"saved to {args.save}")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print(f"python -m mwm.tiny: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
