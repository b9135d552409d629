"""Problem 3, counting weights (chapters 3, 9-11): the block ``H(H+d)+H`` with directions, layers, gates."""
from __future__ import annotations

from .base import Answer, Part, Problem
from .texts import Text


def build(n) -> Problem:
    """Problem 3, counting weights (chapters 3, 9-11): the block ``H(H+d)+H`` with directions, layers, gates.

    Its words are in ``p03.md.j2``.

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
    text = Text(3, hidden=h, inputs=d, tags=k, plain=one, two_way=two_way, upper_layer=layer2, two_layers=two_layers,
                lstm=lstm, gru=gru, two_way_lstm=lstm2, readout=head, tagger=tagger, grouped=grouped)
    whole = "a whole number"
    parts = [
        Part("a", text("question_a"), [Answer("plain", "integer", one, what=whole)], text("solution_a")),
        Part("b", text("question_b"), [Answer("two_way", "integer", two_way, what=whole)], text("solution_b")),
        Part("c", text("question_c"), [Answer("two_layers", "integer", two_layers, what=whole)], text("solution_c")),
        Part("d", text("question_d"), [Answer("lstm", "integer", lstm, what=whole),
                                       Answer("gru", "integer", gru, what=whole)], text("solution_d")),
        Part("e", text("question_e"), [Answer("tagger", "integer", tagger, what=whole)], text("solution_e"), points=2),
    ]
    return Problem(3, text("title"), "medium", text("practises"), statement=text("statement"), given=text("given"),
                   parts=parts, steps=text.paragraphs("steps"), remember=text("remember"), numbers=n)


def grouped(x: int) -> str:
    """A whole number with a thin space between its thousands, as the worked steps write counts: ``12\\,345``."""
    return f"{x:,}".replace(",", "\\,")
