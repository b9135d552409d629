"""PyTorch cross-checks of lib's BPTT (chapter 6): full BPTT against autograd, truncated
BPTT against autograd with ``h = h.detach()`` at the start of every chunk. Float64."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mwm.bptt import rnn_bptt, scalar_bptt  # noqa: E402
from mwm.cell import rnn_forward, scalar_rnn  # noqa: E402

#: lib and torch do the same float64 arithmetic in a different order; differences
#: are a few units of rounding (about 1e-14). The course's goal is 1e-6; we check 1e-10.
TOL = 1e-10


def torch_bptt(xs, G, W, U, b, h0, k=None):
    """Autograd's gradients of L = sum_t <G_t, h_t>, so that dL/dh_t (direct) = G_t.

    With ``k`` the state is detached at the start of every chunk of k words.
    Returns (dW, dU, db, dL/dh_t total for every t, dL/dh0) as numpy arrays.
    """
    Wt, Ut, bt, h = (torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (W, U, b, h0))
    h_start = h
    hs = []
    for t in range(xs.shape[0]):
        if k is not None and t > 0 and t % k == 0:
            h = h.detach()                      # truncated BPTT: no blame crosses the cut
        h = torch.tanh(h @ Wt.T + torch.from_numpy(xs[t]) @ Ut.T + bt)
        h.retain_grad()
        hs.append(h)
    loss = sum((h * torch.from_numpy(g)).sum() for h, g in zip(hs, G))
    loss.backward()
    dh = np.stack([h.grad.numpy() for h in hs])
    return Wt.grad.numpy(), Ut.grad.numpy(), bt.grad.numpy(), dh, h_start.grad.numpy()


def _problem(seed, T, hidden, d, batch):
    rng = np.random.default_rng(seed)
    W = rng.normal(0, 1.1 / np.sqrt(hidden), (hidden, hidden))
    U, b = rng.normal(0, 0.8, (hidden, d)), rng.normal(0, 0.3, hidden)
    lead = (T,) if batch is None else (T, batch)
    xs, G = rng.normal(size=(*lead, d)), rng.normal(size=(*lead, hidden))
    h0 = rng.normal(0, 0.5, (hidden,) if batch is None else (batch, hidden))
    return xs, G, W, U, b, h0


CASES = [(0, 12, 4, 3, None), (1, 40, 16, 5, None), (2, 25, 8, 2, 6), (3, 96, 48, 32, 16)]
#: truncation lengths checked on the small cases; the benchmark-sized case is checked with k = 20
TRUNCATIONS = [(case, k) for case in CASES[:3] for k in (1, 3, 7, 20)] + [(CASES[3], 20)]


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """Tiny matrices: one thread is faster and keeps the check quick on a busy machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def max_diff(lib, ref):
    return max(float(np.abs(a - r).max()) for a, r in zip(lib, ref))


@pytest.mark.parametrize("seed,T,hidden,d,batch", CASES)
def test_full_bptt_equals_autograd(seed, T, hidden, d, batch):
    xs, G, W, U, b, h0 = _problem(seed, T, hidden, d, batch)
    hs = rnn_forward(xs, dict(W=W, U=U, b=b), h0)[0]
    g = rnn_bptt(xs, hs, G, dict(W=W, U=U, b=b), h0)
    ref = torch_bptt(xs, G, W, U, b, h0)
    assert max_diff((g.dW, g.dU, g.db, g.dh, g.dh0), ref) < TOL


@pytest.mark.parametrize("case,k", TRUNCATIONS, ids=lambda v: str(v))
def test_truncated_bptt_equals_autograd_with_detach(case, k):
    seed, T, hidden, d, batch = case
    xs, G, W, U, b, h0 = _problem(seed, T, hidden, d, batch)
    hs = rnn_forward(xs, dict(W=W, U=U, b=b), h0)[0]
    g = rnn_bptt(xs, hs, G, dict(W=W, U=U, b=b), h0, tau=k)
    ref = torch_bptt(xs, G, W, U, b, h0, k=k)
    assert max_diff((g.dW, g.dU, g.db, g.dh), ref[:4]) < TOL
    # autograd's h0 only hears from the first chunk, as lib's dh0 does
    assert max_diff((g.dh0,), ref[4:]) < TOL
    if k < T:   # and truncation really changed something
        full = rnn_bptt(xs, hs, G, dict(W=W, U=U, b=b), h0)
        assert np.abs(full.dW - g.dW).max() > 1e-6


def test_step_machine_against_autograd():
    w = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    h = torch.tensor(0.0, dtype=torch.float64)
    for x in (1.0, 0.0, 0.0, 0.0):
        h = torch.tanh(w * h + 1.0 * x)
    (0.5 * (h - 1.0) ** 2).backward()
    hs = scalar_rnn([1, 0, 0, 0], 0.5, 1)
    g = scalar_bptt([1, 0, 0, 0], hs, [0, 0, 0, hs[-1] - 1], 0.5, 1)
    assert abs(w.grad.item() - g.dw) < 1e-15
