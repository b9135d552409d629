"""PyTorch cross-checks of lib's numpy reference (chapters 2-3).

Mapping: torch.nn.RNN computes tanh(x W_ih^T + b_ih + h W_hh^T + b_hh), so its
weight_hh is our W, weight_ih our U, and b_ih + b_hh our single b. Torch keeps two
bias vectors per gate block, so its parameter count exceeds the course's formula by
(blocks x hidden_size) per layer and direction.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mwm.cell import rnn_forward  # noqa: E402
from mwm.params import CELL_BLOCKS, cell_param_count, stack_param_count  # noqa: E402


@pytest.mark.parametrize("seed,hidden,inp,steps,batch", [(0, 4, 3, 7, None), (1, 16, 5, 40, None), (2, 8, 2, 25, 6)])
def test_vector_cell_equals_torch_rnn(seed, hidden, inp, steps, batch):
    torch.manual_seed(seed)
    rnn = torch.nn.RNN(inp, hidden, nonlinearity="tanh").double()
    shape = (steps, inp) if batch is None else (steps, batch, inp)
    x = torch.randn(*shape, dtype=torch.float64)
    h0 = torch.randn(*((1, hidden) if batch is None else (1, batch, hidden)), dtype=torch.float64)
    with torch.no_grad():
        out, _ = rnn(x, h0)
    W = rnn.weight_hh_l0.detach().numpy()
    U = rnn.weight_ih_l0.detach().numpy()
    b = (rnn.bias_ih_l0 + rnn.bias_hh_l0).detach().numpy()
    ours = rnn_forward(x.numpy(), dict(W=W, U=U, b=b), h0=h0[0].numpy())[0]
    np.testing.assert_allclose(ours, out.numpy(), rtol=0, atol=1e-6)
    assert np.max(np.abs(ours - out.numpy())) < 1e-12  # float64: far inside the 1e-6 the course asks for


def _torch_count(module):
    return sum(p.numel() for p in module.parameters())


@pytest.mark.parametrize("cell,cls", [("rnn", torch.nn.RNN), ("gru", torch.nn.GRU), ("lstm", torch.nn.LSTM)])
@pytest.mark.parametrize("hidden,inp,layers,bidirectional", [(4, 3, 1, False), (128, 64, 1, False),
                                                             (128, 64, 1, True), (128, 64, 2, False),
                                                             (7, 5, 3, True)])
def test_param_count_agrees_with_torch_after_second_bias(cell, cls, hidden, inp, layers, bidirectional):
    module = cls(inp, hidden, num_layers=layers, bidirectional=bidirectional)
    ours = stack_param_count(hidden, inp, cell, layers, bidirectional)
    directions = 2 if bidirectional else 1
    second_bias = layers * directions * CELL_BLOCKS[cell] * hidden
    assert _torch_count(module) == ours + second_bias
    assert _torch_count(module) == stack_param_count(hidden, inp, cell, layers, bidirectional, bias_vectors=2)


def test_torch_single_rnn_layer_h4_d3():
    assert _torch_count(torch.nn.RNN(3, 4)) == cell_param_count(4, 3) + 4 == 36
