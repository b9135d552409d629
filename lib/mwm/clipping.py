"""Chapter 8: first aid for exploding gradients, and a good start for W.

* :func:`clip_by_global_norm` caps the length of the whole gradient (all arrays
  together, as if they were one long vector) at a threshold γ (gamma, ``max_norm``) and
  keeps its direction: ``g <- min(1, γ / ||g||) g``. This is what ``torch.nn.utils.clip_grad_norm_`` does
  (torch adds 1e-6 to the length before dividing; see the function's notes).
* :func:`clip_by_value` caps each entry on its own. It is here as the trap: it turns
  the gradient's direction.
* :func:`orthogonal` draws a random orthogonal matrix (times a scale) to start W with
  every eigenvalue of size ``scale``.
* A small landscape with a cliff (:func:`cliff_loss`, :func:`cliff_gradient`), plain
  or clipped gradient descent on it (:func:`descend`) and where a run crosses the wall
  (:func:`wall_crossing`), for the chapter's ball.
"""
from __future__ import annotations

import numpy as np

from ._validate import as_array, non_empty, positive, positive_int


def global_norm(grads) -> float:
    """The length of several arrays taken together: sqrt of the sum of all their squared entries.

    Args:
        grads: a sequence of arrays of any shapes (one per weight: W, U, b, ...), a dict of
            them (the gradients the backward functions return, ``{"W": ..., "U": ...}``), or
            one array.

    Returns:
        float >= 0.

    Raises:
        ValueError: if the sequence is empty or an array is not numeric or not finite.
    """
    arrays = _arrays(grads)
    with np.errstate(over="ignore", under="ignore"):   # an overflow or underflow here takes the scaled path below
        squares = sum(float(np.sum(g * g)) for g in arrays)
    if 1e-280 < squares < 1e280:
        return float(np.sqrt(squares))
    # tiny (< 1e-140) or huge (> 1e140) entries: scaled by the largest first, so that their squares
    # neither underflow to 0 nor overflow to inf
    top = max((float(np.max(np.abs(g))) if g.size else 0.0) for g in arrays)
    if top == 0.0:
        return 0.0
    return top * float(np.sqrt(sum(float(np.sum((g / top) ** 2)) for g in arrays)))


def _arrays(grads):
    if isinstance(grads, np.ndarray) or np.isscalar(grads):
        return [as_array(grads, "grads")]
    if isinstance(grads, dict):
        non_empty(grads, "grads")
        return [as_array(g, f"grads[{k!r}]") for k, g in grads.items()]
    non_empty(grads, "grads")
    return [as_array(g, f"grads[{i}]") for i, g in enumerate(grads)]


def clip_by_global_norm(grads, max_norm):
    """Shrink the whole gradient to length ``max_norm`` if it is longer; keep its direction (chapter 8).

    Every array is multiplied by the same factor ``s = min(1, max_norm / ||g||)``, where
    ``||g||`` is the length of all the arrays together (:func:`global_norm`). A gradient
    already no longer than ``max_norm`` comes back unchanged (as copies).

    Args:
        grads: a sequence of arrays (any shapes), a dict of them (as the backward functions
            return their gradients), or a single array.
        max_norm: the clipping threshold γ, a positive number.

    Returns:
        (clipped, norm): ``clipped`` is a list of new arrays with the shapes of ``grads``
        (a dict with the same keys if a dict was given, a single array if a single array
        was given); ``norm`` is the length before clipping, a float.

    Raises:
        ValueError: if ``max_norm`` is not positive or ``grads`` is empty or not numeric.

    Notes:
        ``torch.nn.utils.clip_grad_norm_(params, γ)`` multiplies by
        ``min(1, γ / (||g|| + 1e-6))``, so its result differs from this exact rule by a
        relative 1e-6 / ||g|| when it clips.

    Example (chapter 8): (30, 40) with γ = 5 has length 50, factor 0.1, and becomes (3, 4).

    >>> clipped, norm = clip_by_global_norm(np.array([30.0, 40.0]), 5)
    >>> clipped.round(4).tolist(), norm
    ([3.0, 4.0], 50.0)
    """
    max_norm = positive(max_norm, "max_norm")
    single = isinstance(grads, np.ndarray) or np.isscalar(grads)
    arrays = _arrays(grads)
    norm = global_norm(arrays)
    scale = min(1.0, max_norm / norm) if norm > 0 else 1.0
    clipped = [g * scale for g in arrays]
    if isinstance(grads, dict):
        return dict(zip(grads, clipped)), norm
    return (clipped[0] if single else clipped), norm


def clip_by_value(grad, limit):
    """Cap every entry of a gradient at ``[-limit, limit]`` on its own (the trap of chapter 8).

    Args:
        grad: an array of any shape.
        limit: a positive number.

    Returns:
        a new array of the same shape. Unlike :func:`clip_by_global_norm`, this turns
        the gradient: (30, 40) at 5 becomes (5, 5), 45 degrees instead of 53.13.

    Raises:
        ValueError: if ``limit`` is not positive or ``grad`` is not numeric.
    """
    limit = positive(limit, "limit")
    return np.clip(as_array(grad, "grad"), -limit, limit)


def direction_degrees(vector) -> float:
    """The angle of a 2-D vector from the first axis, in degrees (-180, 180].

    Raises:
        ValueError: if ``vector`` does not have shape (2,) or is zero.
    """
    v = as_array(vector, "vector", shape=(2,))
    if not np.any(v):
        raise ValueError("vector must not be zero")
    return float(np.degrees(np.arctan2(v[1], v[0])))


def orthogonal(n, seed=0, scale=1.0):
    """A random n x n orthogonal matrix times ``scale``, to start W at the right volume (chapter 8).

    Draws a Gaussian matrix from ``numpy.random.default_rng(seed)``, takes its QR
    factorisation and multiplies each column of Q by the sign of R's diagonal entry.
    The sign fix makes the result uniformly distributed over orthogonal matrices (the
    Haar measure; Mezzadri 2007, "How to generate random matrices from the classical
    compact groups"); without it QR's sign convention biases the draw. Every eigenvalue
    of the result has size exactly ``scale`` and ``||Q v|| = scale ||v||``.

    Args:
        n: the size, a whole number >= 1.
        seed: the seed of the random generator (int).
        scale: a positive number: 1 for a pure turn-or-mirror, 0.9 for just under the
            knife edge (the start of the chapter 5 model).

    Returns:
        array of shape (n, n).

    Raises:
        ValueError: if ``n`` is not a whole number >= 1 or ``scale`` is not positive.
    """
    n = positive_int(n, "n")
    scale = positive(scale, "scale")
    a = np.random.default_rng(seed).standard_normal((n, n))
    q, r = np.linalg.qr(a)
    signs = np.where(np.diag(r) < 0, -1.0, 1.0)
    return scale * (q * signs)


# --- a landscape with a cliff (the ball of chapter 8's "Try") ----------------------

#: The cliff landscape's constants: L(x, y) = A((x - XV)^2 + B y^2) + H (1 - tanh(K (x - XW))) / 2.
#: A gentle bowl centred on the valley (XV, 0), plus a plateau of height H for x < XW that
#: drops down a wall of steepness K at x = XW.
CLIFF = {"A": 0.05, "B": 1.0, "XV": 2.0, "H": 10.0, "K": 3.0, "XW": 0.0}
#: The map the ball lives on: |x| <= MAP_X, |y| <= MAP_Y. Off it, the run is lost.
MAP_X, MAP_Y = 4.0, 3.0
#: The chapter's start, step size and default number of steps.
CLIFF_START = (-3.5, 2.0)
CLIFF_LR = 0.5
CLIFF_STEPS = 60


def cliff_loss(point) -> np.ndarray:
    """The cliff landscape L(x, y) (chapter 8's own; see :data:`CLIFF` for the formula).

    Args:
        point: a point (x, y), shape (2,), or many points, shape (..., 2).

    Returns:
        the loss, shape ``point.shape[:-1]`` (a 0-d array for one point).

    Raises:
        ValueError: if the last axis does not have length 2.
    """
    point = as_array(point, "point", ndim=None)
    if point.ndim == 0 or point.shape[-1] != 2:
        raise ValueError(f"point must have shape (..., 2), got {point.shape}")
    x, y = point[..., 0], point[..., 1]
    c = CLIFF
    return c["A"] * ((x - c["XV"]) ** 2 + c["B"] * y ** 2) + c["H"] * (1 - np.tanh(c["K"] * (x - c["XW"]))) / 2


def cliff_gradient(point) -> np.ndarray:
    """The gradient (dL/dx, dL/dy) of :func:`cliff_loss` at one point.

    Args:
        point: (x, y), shape (2,).

    Returns:
        array of shape (2,).

    Raises:
        ValueError: if ``point`` does not have shape (2,).
    """
    x, y = as_array(point, "point", shape=(2,))
    c = CLIFF
    wall = -c["H"] * c["K"] / 2 / np.cosh(c["K"] * (x - c["XW"])) ** 2
    return np.array([2 * c["A"] * (x - c["XV"]) + wall, 2 * c["A"] * c["B"] * y])


def on_map(point) -> bool:
    """Whether a point (x, y) lies on the map |x| <= MAP_X, |y| <= MAP_Y."""
    x, y = as_array(point, "point", shape=(2,))
    return bool(abs(x) <= MAP_X and abs(y) <= MAP_Y)


def descend(start=CLIFF_START, lr=CLIFF_LR, steps=CLIFF_STEPS, max_norm=None):
    """Plain or clipped gradient descent on the cliff landscape (chapter 8's ball).

    Each step computes g = grad L(p) at the ball's point p, clips it to length ``max_norm``
    with :func:`clip_by_global_norm` if a threshold is given, and moves p <- p - lr g.
    The run stops early, after the step that takes the ball off the map.

    Args:
        start: the starting point, shape (2,).
        lr: the learning rate η, a positive number.
        steps: the largest number of steps, a whole number >= 1.
        max_norm: the clipping threshold γ (positive), or None for no clipping.

    Returns:
        dict with
        ``path``: shape (n + 1, 2), the points p_0..p_n (n <= steps);
        ``grad_norms``: shape (n,), the gradient's length before clipping at each step;
        ``losses``: shape (n + 1,), the loss at each point of the path;
        ``left_map_at``: the step (1-based) after which the ball was off the map, or None.

    Raises:
        ValueError: for a bad start, step size, number of steps or limit.
    """
    point = as_array(start, "start", shape=(2,)).copy()
    lr = positive(lr, "lr")
    steps = positive_int(steps, "steps")
    if max_norm is not None:
        max_norm = positive(max_norm, "max_norm")
    path, norms, left = [point.copy()], [], None
    for t in range(1, steps + 1):
        g = cliff_gradient(point)
        norms.append(float(np.linalg.norm(g)))
        if max_norm is not None:
            g, _ = clip_by_global_norm(g, max_norm)
        point = point - lr * g
        path.append(point.copy())
        if not on_map(point):
            left = t
            break
    path = np.array(path)
    return {"path": path, "grad_norms": np.array(norms), "losses": cliff_loss(path), "left_map_at": left}


def wall_crossing(run):
    """Where a run of :func:`descend` crosses the wall x = XW: the step that does it, from where, how hard.

    Chapter 8 uses it to see why some unclipped balls survive the wall and others are
    flung: it depends on where the last step before the wall starts.

    Args:
        run: a dict returned by :func:`descend` whose path starts left of the wall
            (x < XW) and ends right of it.

    Returns:
        dict with
        ``step``: the step (1-based) after which the ball was first right of the wall;
        ``take_off``: shape (2,), the point that step started from (left of the wall);
        ``grad_norm``: the gradient's length there, before any clipping;
        ``landing``: shape (2,), where that step ended (possibly off the map).

    Raises:
        ValueError: if ``run`` is not such a dict, or its path never crosses the wall
        from the left.
    """
    if not isinstance(run, dict) or not {"path", "grad_norms"} <= set(run):
        raise ValueError("run must be a dict returned by descend(), with 'path' and 'grad_norms'")
    path = as_array(run["path"], "run['path']", ndim=2)
    right = path[:, 0] > CLIFF["XW"]
    if right[0] or not right.any():
        raise ValueError("run must start left of the wall and cross it; this path does not")
    step = int(np.argmax(right))
    return {"step": step, "take_off": path[step - 1].copy(), "grad_norm": float(run["grad_norms"][step - 1]),
            "landing": path[step].copy()}
