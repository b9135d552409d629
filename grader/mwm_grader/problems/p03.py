"""Problem 3, counting weights (chapters 3, 9-11): the block ``H(H+d)+H`` with directions, layers, gates."""
from __future__ import annotations

from .base import Answer, Part, Problem


def build(n) -> Problem:
    """Problem 3, counting weights (chapters 3, 9-11): the block ``H(H+d)+H`` with directions, layers, gates.

    Args:
        n: ``dict(hidden, inputs, tags)``: whole numbers >= 1.

    Returns:
        Problem with whole-number answers ``plain``, ``two_way``, ``two_layers``, ``lstm``, ``gru``, ``tagger``.

    Raises:
        KeyError: if a number is missing; ValueError (from mwm): if one is not a whole number >= 1.
    """
    from mwm import cell_param_count, readout_param_count, stack_param_count

    h, d, k = n["hidden"], n["inputs"], n["tags"]
    one = cell_param_count(h, d)
    two_way = stack_param_count(h, d, bidirectional=True)
    layer2 = cell_param_count(h, h)
    two_layers = stack_param_count(h, d, num_layers=2)
    lstm, gru = cell_param_count(h, d, "lstm"), cell_param_count(h, d, "gru")
    lstm2 = stack_param_count(h, d, "lstm", bidirectional=True)
    head = readout_param_count(2 * h, k)
    tagger = lstm2 + head

    def g(x):
        return f"{x:,}".replace(",", "\\,")

    return Problem(
        3, "Counting weights", "medium", "the block $H(H+d)+H$, with directions, layers and gates",
        statement=(
            f"A word tagger reads word vectors of $d={d}$ numbers and keeps hidden states of $H={h}$ numbers. "
            "For each design below, count the numbers it learns: every weight and every bias. "
            "Each answer is a whole number."),
        given=f"H, d, tags = {h}, {d}, {k}",
        parts=[
            Part("a", "One plain recurrent cell. Store the count in `plain`.",
                 [Answer("plain", "integer", one, what="a whole number")],
                 "# W is H x H, U is H x d, b has H entries.\nplain = H * H + H * d + H\nprint(plain)"),
            Part("b", "A two-way reader made of plain cells. Store it in `two_way`.",
                 [Answer("two_way", "integer", two_way, what="a whole number")],
                 "# Two independent cells of the same shape, one per direction.\n"
                 "two_way = 2 * plain\nprint(two_way)"),
            Part("c", "A one-way reader built from two layers of plain cells, where the cell on top takes "
                      "in the hidden states of the cell below it. Store it in `two_layers`.",
                 [Answer("two_layers", "integer", two_layers, what="a whole number")],
                 "# Layer 2 reads hidden states of H numbers instead of words of d numbers.\n"
                 "two_layers = plain + (H * H + H * H + H)\nprint(two_layers)"),
            Part("d", "The same job done by gated cells reading in one direction: an LSTM, and (separately) "
                      "a GRU. Count each gate block as the plain cell was counted, with one weight block and "
                      "one bias (PyTorch keeps two bias vectors per block; count one). Store the two counts "
                      "in `lstm` and `gru`.",
                 [Answer("lstm", "integer", lstm, what="a whole number"),
                  Answer("gru", "integer", gru, what="a whole number")],
                 "# An LSTM has four blocks of the plain cell's shape, a GRU three.\n"
                 "lstm = 4 * plain\ngru = 3 * plain\nprint(lstm, gru)"),
            Part("e", f"The full tagger: a two-way LSTM, and above it a read-out that turns each word's two-way "
                      f"hidden state into logits for $K={k}$ tags. Include the read-out's matrix $V$ and bias "
                      "$\\boldsymbol b_V$. Store the count in `tagger`.",
                 [Answer("tagger", "integer", tagger, what="a whole number")],
                 "# Two LSTMs, then a read-out from the 2H-number two-way state to the tags.\n"
                 "tagger = 2 * lstm + (tags * 2 * H + tags)\nprint(tagger)", points=2),
        ],
        steps=[
            f"**(a) One block.** $P=H(H+d)+H={h}\\cdot {h + d}+{h}={g(h * (h + d))}+{h}={g(one)}$.",
            f"**(b) Two directions.** One cell per direction, each as large as the plain cell: $2P={g(two_way)}$.",
            f"**(c) Two layers.** What the upper layer takes in is a hidden state of {h} numbers instead of a word "
            f"of {d}: ${h}\\cdot({h}+{h})+{h}={g(layer2)}$. With the lower layer, ${g(one)}+{g(layer2)}={g(two_layers)}$.",
            f"**(d) Gates.** An LSTM is four blocks, $4P={g(lstm)}$; a GRU is three, $3P={g(gru)}$.",
            f"**(e) The tagger.** Two LSTMs give $2\\cdot{g(lstm)}={g(lstm2)}$. Each word's hidden state now has "
            f"$2H={2 * h}$ numbers, so $V$ is ${k}\\times{2 * h}$ and $\\boldsymbol b_V$ has {k} entries: "
            f"${g(k * 2 * h)}+{k}={g(head)}$. In all, ${g(lstm2)}+{g(head)}={g(tagger)}$.",
        ],
        remember=("Every design here is assembled from one block, $H(H+d)+H$. Count the blocks, then check "
                  "the width of what each block takes in: a word has $d$ numbers, a one-way hidden state $H$, a "
                  "two-way hidden state $2H$."),
        numbers=n)
