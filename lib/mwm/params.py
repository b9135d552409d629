"""How many numbers a recurrent network learns (chapters 3, 4, 10 and 11).

One plain cell with a hidden state of ``h`` numbers reading words of ``d`` numbers learns
``W`` (h x h), ``U`` (h x d) and ``b`` (h): ``h(h + d) + h`` numbers, whatever the
length of the sentence. A GRU has three such blocks (update, reset, candidate), an LSTM
four (forget, input, output, candidate).

PyTorch's ``nn.RNN``, ``nn.GRU`` and ``nn.LSTM`` keep two bias vectors per block
(``b_ih`` and ``b_hh``); pass ``bias_vectors=2`` to count the way they do. The course's
formula (``bias_vectors=1``) has one.
"""
from __future__ import annotations

from ._validate import positive_int

#: How many h(h+d)+h blocks each cell type has.
CELL_BLOCKS = {"rnn": 1, "gru": 3, "lstm": 4}


def _blocks(cell: str) -> int:
    if cell not in CELL_BLOCKS:
        raise ValueError(f"cell must be one of {sorted(CELL_BLOCKS)}, got {cell!r}")
    return CELL_BLOCKS[cell]


def cell_param_count(hidden_size: int, input_size: int, cell: str = "rnn", bias_vectors: int = 1) -> int:
    """Numbers learned by one cell: ``blocks * (h(h+d) + bias_vectors * h)`` (chapters 3 and 10).

    Args:
        hidden_size: h, the length of the hidden state (>= 1).
        input_size: d, the length of each input vector (>= 1).
        cell: "rnn", "gru" or "lstm".
        bias_vectors: 1 for the course's formula, 2 for PyTorch's layout.

    Returns:
        int. Example: h=4, d=3 plain cell -> 32.

        >>> cell_param_count(4, 3)
        32

    Raises:
        ValueError: for a size below 1, an unknown cell, or bias_vectors not in {1, 2}.
    """
    h = positive_int(hidden_size, "hidden_size")
    d = positive_int(input_size, "input_size")
    if bias_vectors not in (1, 2):
        raise ValueError(f"bias_vectors must be 1 or 2, got {bias_vectors!r}")
    return _blocks(cell) * (h * (h + d) + bias_vectors * h)


def unshared_param_count(hidden_size: int, input_size: int, steps: int, cell: str = "rnn") -> int:
    """Numbers a chain of ``steps`` cells would learn if no weights were shared (chapter 3).

    Args:
        hidden_size, input_size, cell: as in :func:`cell_param_count`.
        steps: T, the number of steps (>= 1).

    Returns:
        int, ``T`` times the shared count. Example: h=4, d=3, T=10 -> 320.

        >>> unshared_param_count(4, 3, 10)
        320
    """
    return positive_int(steps, "steps") * cell_param_count(hidden_size, input_size, cell)


def readout_param_count(hidden_size: int, output_size: int) -> int:
    """Numbers in the read-out ``softmax(V h + b_V)``: V is (K x h), b_V is (K,) (chapter 4).

    Args:
        hidden_size: h (>= 1); output_size: K, the number of possible answers (>= 1).

    Returns:
        int, ``K h + K``.
    """
    h = positive_int(hidden_size, "hidden_size")
    k = positive_int(output_size, "output_size")
    return k * h + k


def stack_param_count(hidden_size: int, input_size: int, cell: str = "rnn", num_layers: int = 1,
                      bidirectional: bool = False, bias_vectors: int = 1) -> int:
    """Numbers in a reader built from layers of cells, one-way or two-way (chapter 11).

    Layer 1 reads the inputs (d numbers); each higher layer reads the hidden states of the
    layer below (h numbers, or 2h when two-way). A two-way layer has two independent
    cells of the same size.

    Args:
        hidden_size, input_size, cell, bias_vectors: as in :func:`cell_param_count`.
        num_layers: number of layers (>= 1).
        bidirectional: True for a two-way reader.

    Returns:
        int. Examples for h=128, d=64 plain cells: one-way 24,704; two-way 49,408;
        two one-way layers 57,600.

        >>> stack_param_count(128, 64), stack_param_count(128, 64, bidirectional=True)
        (24704, 49408)
        >>> stack_param_count(128, 64, num_layers=2)
        57600

    Raises:
        ValueError: as :func:`cell_param_count`, or for num_layers below 1.
    """
    layers = positive_int(num_layers, "num_layers")
    directions = 2 if bidirectional else 1
    total, d = 0, input_size
    for _ in range(layers):
        total += directions * cell_param_count(hidden_size, d, cell, bias_vectors)
        d = directions * hidden_size
    return total
