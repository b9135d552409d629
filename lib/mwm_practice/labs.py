"""Coding labs, the student's side: call the student's function on the cases the view gives, record what it did.

A lab asks for a function (an RNN step, a forward pass, BPTT, clipping...). Grading never trusts
the student's kernel with an answer: the kernel only *runs* the student's function on the cases
of its view (inputs made for that student by the teacher's side, ``mwm_grader.labs``) and records,
for each case, what came back, whether an argument was changed in place, or the error raised. The
teacher's process then recomputes every case with ``mwm`` and judges the record
(``mwm_grader.labs.judge``).

Values travel as plain JSON (:func:`encode_value`): arrays keep their shape and dtype, numbers are
written to 12 significant figures (far finer than any tolerance, and the same on every CPU).
"""
from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import os

import numpy as np

from .notebook import Unreadable, _number   # one JSON form of a number, one stand-in for the unreadable

#: The MIME type of a lab's record of calls in a hand-in cell's output.
MIME_LAB = "application/vnd.mwm.lab-calls+json"
#: Longest error message kept from a student's exception.
MAX_ERROR = 300
#: Longest text an encoded value may hold (a word of a BLEU lab's sentences).
MAX_TEXT = 200
#: Most numbers an encoded value may hold (a result far larger than any case's answer is refused; the
#: record must fit the sandbox's 100 kB of output per cell).
MAX_NUMBERS = 3_000


def encode_value(value, _budget=None):
    """A value as tagged JSON data: arrays, numbers, lists/tuples, dicts of them, None; anything else by type name.

    ``{"array": nested lists, "shape": [...], "dtype": "float64"}``, ``{"int": n}`` (whole numbers,
    read back as ``int``), ``{"number": x}``, ``{"str": s}`` (at most :data:`MAX_TEXT` characters),
    ``{"list": [...], "tuple": bool}``, ``{"dict": {key: ...}}`` (string keys), ``{"none": true}``,
    ``{"bool": b}``, ``{"tree": [[prefix words, [[word, probability], ...]], ...]}`` (a decoder to search:
    :class:`mwm.decoding.ProbabilityTree`, chapter 13), ``{"other": "type name"}``; an array of more
    than :data:`MAX_NUMBERS` numbers is recorded as ``{"other": "array too large"}``.

    Args:
        value: any Python value (a student's result or a case's argument).

    Returns:
        dict, JSON-serialisable; :func:`decode_value` turns it back.
    """
    budget = [MAX_NUMBERS] if _budget is None else _budget
    if value is None:
        return {"none": True}
    if isinstance(value, (bool, np.bool_)):
        return {"bool": bool(value)}
    if isinstance(value, (int, np.integer)) and abs(int(value)) < 2 ** 53:
        return {"int": int(value)}   # a count such as tau stays a whole number
    if isinstance(value, (int, float, np.integer, np.floating)):
        return {"number": _number(value)}
    if isinstance(value, str):
        return {"str": value} if len(value) <= MAX_TEXT else {"other": "str too long"}
    if type(value).__name__ in ("ProbabilityTree", "LabTree") and hasattr(value, "tree"):
        budget[0] -= sum(len(node) for node in value.tree.values())
        if budget[0] < 0:
            return {"other": "tree too large"}
        # pairs, not a dict: the order of first appearance gives the token ids, and JSON may sort keys
        return {"tree": [[list(prefix), [[w, _number(p)] for w, p in node.items()]] for prefix, node in value.tree.items()]}
    tensor = _is_tensor(value)
    if tensor:
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            return {"other": f"array of {value.dtype}"[:40]}
        budget[0] -= value.size
        if budget[0] < 0:
            return {"other": "array too large"}
        flat = [_number(v) for v in value.astype(float).ravel()]
        out = {"array": flat, "shape": list(value.shape), "dtype": str(value.dtype)}
        if tensor:
            out["torch"] = True
        return out
    if isinstance(value, (list, tuple)):
        if len(value) > 64:
            return {"other": "list too long"}
        return {"list": [encode_value(v, budget) for v in value], "tuple": isinstance(value, tuple)}
    if isinstance(value, dict):
        if len(value) > 64 or not all(isinstance(k, str) for k in value):
            return {"other": "dict"}
        return {"dict": {k: encode_value(v, budget) for k, v in value.items()}}
    return {"other": type(value).__name__[:40]}


class LabTree:
    """A decoder for the decoding labs: a tree of next-word probabilities, as chapter 13's models are used.

    The same model as ``mwm.decoding.ProbabilityTree`` (vocabulary ``("<s>", "</s>", words in order
    of first appearance)``, ``bos_id`` 0, ``eos_id`` 1, the state the prefix read so far, a prefix with
    no entry ending there), written here on its own: the kernel gets a model whose class leads to no
    decoder that would answer the lab.

    Args:
        tree: dict prefix (tuple of words) -> dict word -> probability, each node summing to 1.

    Raises:
        ValueError: for a tree without the root ``()``, or a node whose probabilities are not in [0, 1]
            or do not sum to 1.
    """

    def __init__(self, tree: dict):
        if () not in tree:
            raise ValueError("tree must have a root: the entry ()")
        vocab = ["<s>", "</s>"]
        for prefix, node in tree.items():
            if not node or any(not 0.0 <= p <= 1.0 for p in node.values()) or abs(sum(node.values()) - 1.0) > 1e-9:
                raise ValueError(f"tree[{prefix!r}] must hold probabilities summing to 1")
            vocab += [w for w in node if w not in vocab]
        self.tree = dict(tree)
        self.vocab = tuple(vocab)
        self.index = {w: i for i, w in enumerate(self.vocab)}
        self.bos_id, self.eos_id = 0, 1
        self.initial_state = ()

    def step(self, state, prev_token_id):
        """(prefix read so far, token just written) -> (log-probabilities of every next token (V,), new prefix).

        Raises:
            ValueError: for the end symbol or an id outside the vocabulary.
        """
        if isinstance(prev_token_id, bool) or not isinstance(prev_token_id, (int, np.integer)) \
                or not 0 <= prev_token_id < len(self.vocab) or prev_token_id == self.eos_id:
            raise ValueError(f"prev_token_id must be an id in [0, {len(self.vocab)}) other than the end symbol, "
                             f"got {prev_token_id!r}")
        prefix = tuple(state) if prev_token_id == self.bos_id else tuple(state) + (self.vocab[prev_token_id],)
        log_probs = np.full(len(self.vocab), -np.inf)
        with np.errstate(divide="ignore"):
            for word, p in self.tree.get(prefix, {"</s>": 1.0}).items():
                log_probs[self.index[word]] = np.log(p)
        return log_probs, prefix


def _is_tensor(value) -> bool:
    """True for a torch tensor (without importing torch where no tensor was ever made)."""
    return type(value).__module__.startswith("torch") and hasattr(value, "detach") and hasattr(value, "numpy")


def decode_value(data):
    """The value an :func:`encode_value` record stands for (arrays as float64 numpy arrays).

    Untrusted input (a notebook's output): anything malformed becomes ``Unreadable``.
    """
    if not isinstance(data, dict) or len(data) not in (1, 2, 3, 4):
        return Unreadable("unreadable value")
    try:
        if "none" in data:
            return None
        if "bool" in data:
            return bool(data["bool"])
        if "int" in data:
            if isinstance(data["int"], bool) or not isinstance(data["int"], int):
                return Unreadable("unreadable whole number")
            return int(data["int"])
        if "number" in data:
            return float(data["number"])
        if "str" in data:
            return data["str"][:MAX_TEXT] if isinstance(data["str"], str) else Unreadable("unreadable text")
        if "tree" in data:
            nodes = data["tree"][:MAX_NUMBERS]
            return LabTree({tuple(str(w)[:MAX_TEXT] for w in prefix[:64]): {str(w)[:MAX_TEXT]: float(p) for w, p in node[:64]}
                            for prefix, node in nodes})
        if "array" in data:
            shape = tuple(int(n) for n in data["shape"])
            flat = np.array([float(v) for v in data["array"]], dtype=float)
            if flat.size != int(np.prod(shape)) or flat.size > MAX_NUMBERS:
                return Unreadable("unreadable array")
            out = flat.reshape(shape)
            if data.get("dtype") in ("int64", "int32", "bool"):
                out = out.astype(data["dtype"])
            if data.get("torch") is True:   # a tensor handed to or returned by a torch lab
                import torch

                return torch.from_numpy(out)
            return out
        if "list" in data:
            items = [decode_value(v) for v in data["list"]][:64]
            return tuple(items) if data.get("tuple") else items
        if "dict" in data and isinstance(data["dict"], dict):
            return {str(k)[:40]: decode_value(v) for k, v in list(data["dict"].items())[:64]}
        if "other" in data:
            return Unreadable(str(data["other"])[:40])
    except (TypeError, ValueError, KeyError, OverflowError, AttributeError):
        pass
    return Unreadable("unreadable value")


#: Tolerance of a right value: |got - want| <= ATOL + RTOL * |want|, far below any slip's effect.
RTOL, ATOL = 1e-6, 1e-9


def _kind(value) -> str:
    if isinstance(value, Unreadable):
        return repr(value)
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    if _is_tensor(value):
        return f"a tensor of shape {tuple(value.shape)}"
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)}"
    if isinstance(value, dict):
        return f"a dict with keys {sorted(value)}"
    if isinstance(value, str):
        return "a str"
    return "None" if value is None else f"a {type(value).__name__}"


def compare_value(got, want, where: str = "") -> str | None:
    """None if ``got`` matches ``want``, else one phrase saying how it differs, never what ``want`` holds.

    Arrays must have ``want``'s shape and values within :data:`RTOL` / :data:`ATOL`; lists, tuples
    and dicts are compared item by item. The phrase names the kind or shape asked for (the lab's
    signature says it) and the positions of wrong values, never a value.

    Args:
        got: the student's result, decoded; want: the reference result (arrays, lists, dicts of them).
        where: a suffix naming the item inside a larger result ("[0]", "['W']").

    Raises:
        TypeError: if ``want`` is of a kind no lab returns.
    """
    at = f" in result{where}" if where else ""
    if _is_tensor(want):   # a torch lab: the student's tensor, compared as an array of float64
        want = want.detach().cpu().numpy()
        if not _is_tensor(got):
            return f"returned {_kind(got)}{at} where a tensor of shape {tuple(want.shape)} is asked for"
        got = got.detach().cpu().numpy()
    if isinstance(want, np.ndarray):
        if not isinstance(got, np.ndarray):
            return f"returned {_kind(got)}{at} where an array of shape {want.shape} is asked for"
        if got.shape != want.shape:
            return f"returned shape {got.shape}{at} where the signature asks for {want.shape}"
        bad = ~np.isclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True)   # nan: only a slip's own
        if bad.any():
            first = tuple(int(i) for i in np.argwhere(bad)[0])
            more = int(bad.sum()) - 1
            return (f"wrong values{at}: {more + 1} of {bad.size} entries, the first at index "
                    f"{first if len(first) != 1 else first[0]}")
        return None
    if isinstance(want, dict):
        if not isinstance(got, dict) or sorted(got) != sorted(want):
            return f"returned {_kind(got)}{at} where a dict with keys {sorted(want)} is asked for"
        wrong = [why for k in want if (why := compare_value(got[k], want[k], f"{where}[{k!r}]"))]
        return "; ".join(wrong) or None
    if isinstance(got, np.ndarray) and not isinstance(want, np.ndarray):
        if got.ndim == 0:                      # a 0-d array where a number is asked for: the number
            got = got.item()
        elif got.ndim == 1 and got.dtype.kind in "iu" and isinstance(want, list):
            got = [int(v) for v in got]        # token ids as a 1-d integer array: the list
    if isinstance(want, (list, tuple)):
        tokens = bool(want) and all(isinstance(w, (int, str)) and not isinstance(w, bool) for w in want)
        if tokens and isinstance(got, (list, tuple)) and len(got) != len(want):
            # an output's length is part of the answer: say only that it differs
            return f"returned {len(got)} item{'s' if len(got) != 1 else ''}{at}, not as many as the right output has"
        items = "arrays" if all(isinstance(w, np.ndarray) for w in want) else "items"
        asked = f"a {type(want).__name__} of {len(want)} {items}" if not tokens else "a list"
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            return f"returned {_kind(got)}{at} where {asked} is asked for"
        wrong = [i for i, (g, w) in enumerate(zip(got, want)) if isinstance(w, (int, str)) and
                 not isinstance(w, bool) and compare_value(g, w)]
        if len(wrong) > 1:   # a sequence of tokens: say how many differ, not which token each should be
            return f"wrong items{at}: {len(wrong)} of {len(want)}, the first at position {wrong[0]}"
        for i, (g, w) in enumerate(zip(got, want)):
            why = compare_value(g, w, f"{where}[{i}]")
            if why:
                return why
        return None
    if isinstance(want, bool) or want is None:
        return None if same_value(got, want) else f"returned {_kind(got)}{at} where {want!r} is asked for"
    if isinstance(want, (int, np.integer)):
        if isinstance(got, bool) or not isinstance(got, (int, np.integer)):
            return f"returned {_kind(got)}{at} where a whole number is asked for"
        return None if int(got) == int(want) else f"a wrong whole number{at}"
    if isinstance(want, (float, np.floating)):
        if isinstance(got, bool) or not isinstance(got, (int, float, np.integer, np.floating)):
            return f"returned {_kind(got)}{at} where a number is asked for"
        return None if np.isclose(float(got), float(want), rtol=RTOL, atol=ATOL) else f"a wrong number{at}"
    if isinstance(want, str):
        return None if got == want else (f"returned {_kind(got)}{at} where a str is asked for"
                                         if not isinstance(got, str) else f"a wrong word{at}")
    raise TypeError(f"a lab's reference returned {type(want).__name__}")


def args_digest(encoded_args) -> str:
    """sha256 of a case's encoded arguments: both sides compute it, so a record tried on other inputs is seen."""
    return hashlib.sha256(json.dumps(encoded_args, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def same_value(a, b) -> bool:
    """True if ``a`` and ``b`` hold the same arrays or tensors (shape, dtype, values), lists, tuples, dicts or values."""
    if _is_tensor(a) or _is_tensor(b):
        return _is_tensor(a) and _is_tensor(b) and same_value(a.detach().cpu().numpy(), b.detach().cpu().numpy())
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape and \
            a.dtype == b.dtype and bool(np.array_equal(a, b, equal_nan=True))
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if type(a).__name__ in ("ProbabilityTree", "LabTree"):   # a model handed in: the same if its attributes are
        return type(a) is type(b) and same_value(vars(a), vars(b))
    return a == b


def record_calls(function, cases) -> list[dict]:
    """Call ``function`` on each case's arguments (in the student's kernel); record what happened.

    Args:
        function: the student's function.
        cases: the view's cases, each ``{"label": str, "args": [encoded argument, ...]}``.

    Returns:
        one dict per case: ``label``, ``args`` (the digest of the encoded arguments), ``mutated``
        (indices of the arguments the call changed in place), and either ``error`` ("Type:
        message") or ``result`` (encoded) and ``aliased`` (indices of the arguments the result is,
        or shares memory with). What the function prints is dropped. These flags are what the
        kernel reports about itself: a student's code can tamper with them, so the judge reads
        them as a teaching aid; the values are recomputed outside the kernel.
    """
    calls = []
    for case in cases:
        entry = {"label": str(case.get("label", ""))[:80], "args": args_digest(case.get("args"))}
        if not callable(function):
            entry["error"] = f"not a function: {type(function).__name__}"
            calls.append(entry)
            continue
        args = [decode_value(a) for a in case.get("args", [])]
        before = copy.deepcopy(args)
        try:
            # what the function prints is not shown: the record must fit the cell's output
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                result = function(*args)
        except NotImplementedError:
            entry["error"] = "NotImplementedError: the function is not written yet"
        except Exception as exc:  # the student's code: report it, on one line of printable characters
            entry["error"] = one_line(f"{type(exc).__name__}: {str(exc)[:MAX_ERROR]}")
        else:
            try:
                entry["result"] = encode_value(result)
            except Exception as exc:  # noqa: BLE001 - a result no record can carry
                entry["result"] = {"other": f"unencodable {type(result).__name__} ({type(exc).__name__})"[:40]}
            entry["aliased"] = [i for i, a in enumerate(args) if _shares(result, a)]
        entry["mutated"] = [i for i, (a, b) in enumerate(zip(args, before)) if not same_value(a, b)]
        calls.append(entry)
    return calls


def one_line(text: str) -> str:
    """``text`` with newlines and other control characters (terminal escapes among them) as spaces."""
    return "".join(ch if ch.isprintable() else " " for ch in text)


def _arrays_in(value, depth=0):
    if depth > 8:
        return
    if isinstance(value, np.ndarray):
        yield value
    elif _is_tensor(value):
        yield value.detach().numpy()   # the tensor's own memory
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _arrays_in(v, depth + 1)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _arrays_in(v, depth + 1)


def _shares(result, arg) -> bool:
    """True if ``result`` is ``arg`` or holds an array sharing memory with one of ``arg``'s."""
    if result is arg and isinstance(arg, (list, dict, np.ndarray)):
        return True
    mine = list(_arrays_in(arg))
    return any(np.shares_memory(r, a) for r in _arrays_in(result) for a in mine)


# --------------------------------------------------------------------------------------
# The notebook's object
# --------------------------------------------------------------------------------------
#: Environment variable holding the labs' grading view (JSON: inputs only), set by the teacher's grading.
LAB_VIEW_ENV = "MWM_LAB_VIEW"
#: The website's labs view: every lab's cases on the website's inputs with their results (public,
#: like the worked solutions), written by ``mwm-exercises``.
WEBSITE_LABS = "labs_view.json"


def matching_slip(slips: list, calls: list) -> str | None:
    """The hint of the first common mistake whose results (and in-place changes) the calls match on every case.

    Args:
        slips: ``[{"hint", "results": [encoded per case], "mutated": [indices per case]}]`` (a view's, or
            the teacher's, ``mwm_grader.labs.slip_results``).
        calls: as :func:`record_calls` returns them (from a notebook: untrusted).

    Returns:
        the hint, or None.
    """
    if not isinstance(calls, list) or not all(isinstance(c, dict) for c in calls):
        return None
    for slip in slips:
        if len(calls) == len(slip["results"]) and all("error" not in call and call.get("mutated") == m and compare_value(decode_value(call["result"]),
                                                                                  decode_value(r)) is None
                                                          for call, r, m in zip(calls, slip["results"], slip["mutated"])):
            return slip["hint"]
    return None


def website_labs_view() -> dict:
    """The website's labs view shipped with this package: ``{"labs": {slug: {"function", "cases"}}}``."""
    from importlib.resources import files

    return json.loads((files("mwm_practice") / WEBSITE_LABS).read_text(encoding="utf-8"))


class Labs:
    """The coding labs' notebook object: a small visible check, a gradient check, and the hand-in.

    While the student works, the cases are the website's (with their results, so :meth:`check`
    can say right or wrong). While the notebook is graded, the grading sets :data:`LAB_VIEW_ENV`
    to the student's own cases, inputs only: :meth:`hand_in` records what the function does on
    them, and the teacher's process judges the record (``mwm_grader.labs.judge``).

    Args:
        view: a labs view dict (for tests); None reads :data:`LAB_VIEW_ENV`, else the website's.
    """

    def __init__(self, view: dict | None = None):
        raw = os.environ.get(LAB_VIEW_ENV)
        self.graded = view is None and bool(raw)
        if view is None:
            view = json.loads(raw) if raw else website_labs_view()
        if not isinstance(view, dict) or not isinstance(view.get("labs"), dict):
            raise ValueError("view must be a labs view: {'labs': {slug: {'function', 'cases'}}}")
        self.view = view

    def _lab(self, slug: str) -> dict:
        if slug not in self.view["labs"]:
            raise ValueError(f"slug must be one of {sorted(self.view['labs'])}, got {slug!r}")
        return self.view["labs"][slug]

    def check(self, slug: str, function) -> None:
        """Run ``function`` on the lab's small visible cases and print, per case, right or what is wrong.

        Args:
            slug: the lab ("rnn-step", ...); function: the student's function.

        Returns:
            None; prints one line per case (nothing is graded here).

        Raises:
            ValueError: for an unknown lab.
        """
        lab = self._lab(slug)
        cases = [c for c in lab["cases"] if "expected" in c]
        if not cases:
            print(f"{lab['function']}: checked when your work is graded")
            return
        calls = record_calls(function, cases)
        any_wrong = False
        for i, (case, call) in enumerate(zip(cases, calls), 1):
            if "error" in call:
                why = f"raised {call['error']}"
            else:
                why = compare_value(decode_value(call["result"]), decode_value(case["expected"]))
                if call["mutated"]:
                    names = ", ".join(lab["arg_names"][j] for j in call["mutated"])
                    why = f"changed its argument {names} in place" + (f", and {why}" if why else "")
            any_wrong = any_wrong or why is not None
            print(f"{lab['function']}, case {i} ({case['label']}): {why or 'right'}")
        if any_wrong:
            hint = matching_slip(lab.get("slips", []), calls)
            if hint:
                print(f"Hint: {hint}")

    def gradient_check(self, function, eps: float = 1e-5) -> None:
        """Lab 3's gradient check: your BPTT's dW, dU, db against central differences of the loss (chapter 6).

        On the first visible case, the loss is ``sum(hs * dhs)``, whose gradient on each state is
        ``dhs``; the states come from the course's forward pass (``mwm.cell.rnn_forward``).

        Args:
            function: the student's ``rnn_bptt(xs, hs, dhs, h0, W, U, b, tau=None)``.

        Returns:
            None; prints, per gradient, whether its largest relative error is below 1e-6 (a right
            float64 gradient gives about 1e-8 or less). While the labs are graded it prints that
            it runs while you work: the grading hides the course library this check uses.
        """
        if self.graded:
            print("the gradient check runs while you work; grading compares your gradients with the course's")
            return
        from mwm.bptt import gradient_check
        from mwm.cell import rnn_forward

        case = self._lab("rnn-bptt")["cases"][0]
        xs, _hs, dhs, h0, W, U, b, _tau = (decode_value(a) for a in case["args"])
        params = {"W": W.copy(), "U": U.copy(), "b": b.copy()}
        hs = rnn_forward(xs, params, h0)[0]
        try:
            grads = function(xs, hs, dhs, h0, params["W"].copy(), params["U"].copy(), params["b"].copy(), None)
            errors = gradient_check(lambda: float((rnn_forward(xs, params, h0)[0] * dhs).sum()), params, grads, eps)
        except NotImplementedError:
            print("rnn_bptt is not written yet")
            return
        except Exception as exc:  # the student's code: say what it raised, as check does
            print(f"the gradient check could not run: {type(exc).__name__}: {str(exc)[:MAX_ERROR]}")
            return
        print("full BPTT (tau = None), on the first small case:")
        for name, err in errors.items():
            print(f"d{name}: " + ("matches the numerical gradient (largest relative error below 1e-6)" if err < 1e-6
                                  else f"does not match the numerical gradient (largest relative error {err:.2g})"))

    def hand_in(self, slug: str, function) -> None:
        """Hand in a lab: record what ``function`` does on the lab's cases, for the grader.

        Args:
            slug: the lab; function: the student's function.

        Raises:
            ValueError: for an unknown lab.
        """
        from .notebook import _display

        lab = self._lab(slug)
        inputs = [{"label": c["label"], "args": c["args"]} for c in lab["cases"]]
        record = {"lab": slug, "calls": record_calls(function, inputs)}
        _display({MIME_LAB: record, "text/plain": f"[handed in: {lab['function']}]"})
        if all("error" in call for call in record["calls"]):
            print(f"{lab['function']}: every case raised an error, so this hand-in earns nothing yet "
                  "(see the check above)")
        elif self.graded:
            print(f"{lab['function']}: handed in, run on your own inputs")
        else:
            print(f"{lab['function']}: recorded; in a graded course this cell hands your function in, and the "
                  "grader runs it on inputs made for you")
