"""The notation page (``notation.md``) against the library's signatures and the chapters' maths (issue 26).

Three checks, each a small function tested on a deliberately broken input first:

* :func:`parse_tables` reads the page's two tables (the notation and the reserved letters);
* :func:`signature_clashes` finds a public argument or attribute of ``mwm`` whose name is a
  symbol of the table used with another meaning (``k`` for a truncation length, ``c`` for a
  bias, ``T`` for a temperature, ``alpha`` outside attention, ``dz`` for dL/da, ...), and
  :func:`missing_code_names` finds a code name the table lists that does not exist;
* :func:`maths_clashes` finds, in a chapter's markdown maths, a reserved letter used with a
  meaning a rule can see mechanically (``\\tau`` as a divisor, ``\\theta`` as an angle, ``\\alpha``
  outside chapter 14, ...).
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import pkgutil
import re
from pathlib import Path

import pytest

import mwm

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "notation.md"
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]-*.ipynb"))

# ----------------------------------------------------------------------------- the page


def parse_tables(text: str) -> tuple[list[dict], list[dict]]:
    """The notation table and the reserved-letters table of the page, as lists of dicts keyed by header.

    Raises:
        ValueError: if the page does not hold exactly two tables, or a row has the wrong number of cells.
    """
    tables, current = [], None
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if current is None:
                current = {"header": cells, "rows": []}
                tables.append(current)
            elif set("".join(cells)) <= set("-: "):
                continue
            else:
                if len(cells) != len(current["header"]):
                    raise ValueError(f"row has {len(cells)} cells, the header {len(current['header'])}: {line}")
                current["rows"].append(dict(zip(current["header"], cells)))
        else:
            current = None
    if len(tables) != 2:
        raise ValueError(f"the page must hold two tables (notation, reserved letters), found {len(tables)}")
    return tables[0]["rows"], tables[1]["rows"]


def code_names(cell: str) -> list[str]:
    """The backticked code names of a "Name in code" cell."""
    return re.findall(r"`([^`]+)`", cell)


def _resolve(dotted: str):
    """``lstm.LSTM_BLOCKS`` or ``CharLM`` -> the object, looked up from the package ``mwm``."""
    obj = mwm
    for part in dotted.split("."):
        if hasattr(obj, part):
            obj = getattr(obj, part)
        elif inspect.ismodule(obj):
            obj = importlib.import_module(f"{obj.__name__}.{part}")
        else:
            raise AttributeError(f"{dotted}: no {part!r}")
    return obj


def _attributes(cls) -> set[str]:
    names = {n for n in dir(cls) if not n.startswith("_")}
    if dataclasses.is_dataclass(cls):
        names |= {f.name for f in dataclasses.fields(cls)}
    return names | set(getattr(cls, "_fields", ()))


def missing_code_names(names: list[str]) -> list[str]:
    """The code names that do not exist. Forms: ``f(arg=)`` (an argument of f), ``Class.attr``
    (an attribute or field), ``NAME["key"]`` (a member of a container), ``name`` (an object)."""
    missing = []
    for name in names:
        try:
            if m := re.fullmatch(r"([\w.]+)\((\w+)=\)", name):
                if m.group(2) not in inspect.signature(_resolve(m.group(1))).parameters:
                    missing.append(name)
            elif m := re.fullmatch(r'([\w.]+)\["(\w+)"\]', name):
                if m.group(2) not in _resolve(m.group(1)):
                    missing.append(name)
            elif m := re.fullmatch(r"([\w.]+)\.(\w+)", name):
                owner = _resolve(m.group(1))
                if inspect.isclass(owner) and m.group(2) not in _attributes(owner):
                    missing.append(name)
                elif not inspect.isclass(owner):
                    _resolve(name)
            else:
                _resolve(name)
        except (AttributeError, ImportError, TypeError, ValueError):
            missing.append(name)
    return missing


def test_parse_tables_refuses_a_broken_page():
    with pytest.raises(ValueError, match="two tables"):
        parse_tables("| a | b |\n|---|---|\n| 1 | 2 |\n")
    with pytest.raises(ValueError, match="cells"):
        parse_tables("| a | b |\n|---|---|\n| 1 | 2 | 3 |\n\n| c |\n|---|\n| 4 |\n")
    notation, reserved = parse_tables("| a | b |\n|---|---|\n| 1 | 2 |\n\ntext\n\n| c |\n|---|\n| 4 |\n")
    assert notation == [{"a": "1", "b": "2"}] and reserved == [{"c": "4"}]


def test_the_page_has_its_tables_and_every_code_name_exists():
    notation, reserved = parse_tables(PAGE.read_text(encoding="utf-8"))
    assert {"Symbol", "Meaning", "Name in code", "First in chapter"} == set(notation[0])
    assert len(notation) >= 30
    for row in notation:
        assert 1 <= int(row["First in chapter"]) <= 14, row
    names = [n for row in notation for n in code_names(row["Name in code"])]
    assert len(names) >= 40
    assert missing_code_names(names) == []
    # the check can fail: wrong arguments, attributes, members and objects are reported
    broken = ["rnn_bptt(k=)", "CharLM.c_bias", 'lstm.LSTM_BLOCKS["g"]', "whisper_chain", "beam_search(nu=)"]
    assert missing_code_names(broken) == broken[:4]
    # the reserved letters are exactly the ones the maths rules below check
    assert {row["Symbol"].strip("$") for row in reserved} == set(MATHS_RULES)


# ----------------------------------------------------------------------------- the library's signatures

#: Argument or attribute names that never fit the notation: each letter means something else there.
FORBIDDEN = {
    "k": "k is an earlier step (a truncation length is tau, a window's length m)",
    "T": "T is the sequence length (a temperature is temperature, theta in the maths)",
    "alpha": "alpha is attention weights (the length normalisation is nu)",
    "theta": "theta is the temperature: the argument is called temperature",
    "dz": "the gradient at the pre-activation a_t is da",
    "g": "the LSTM candidate is c~ (block c, cache key c_tilde)",
    "dice": "a random seed is seed", "die": "a random seed is seed",
    "note": "the hidden state", "notes": "the hidden states",
    "votes": "each step's contribution to the gradient (dw_steps)", "blame": "the gradient", "surprise": "the cross-entropy",
}
#: Names that fit only in some modules (or classes): there the letter has its table meaning.
RESTRICTED = {
    "tau": ("mwm.bptt", "mwm.widgets.ch06_bptt", "mwm_torch.charlm", "mwm.tiny"),  # the truncation length
    "nu": ("mwm.decoding",),                                                        # length normalisation
    "beta": ("mwm.seq2seq",),                                                       # the toy encoder's leak
    "z": ("mwm.gru", "mwm.widgets.ch10_gru"),                                       # the GRU's update gate
    "c": ("mwm.lstm.LSTMState", "mwm.seq2seq.Encoding", "mwm.seq2seq.DecoderState"),  # the cell state
}
#: Machinery rather than the course's maths: drawing helpers (x, y, w, h are a box's corner and size),
#: the website's static panels, the grading and sandbox code.
NOT_MATHS = ("mwm.widgets.drawing", "mwm.widgets.static", "mwm.widgets.panel", "mwm._validate")


def signature_clashes(where: str, names) -> list[str]:
    """The argument or attribute ``names`` of the object ``where`` (dotted: module.object) that clash with the notation."""
    out = []
    for name in names:
        if name in FORBIDDEN:
            out.append(f"{where}: {name!r} ({FORBIDDEN[name]})")
        elif name in RESTRICTED and not where.startswith(RESTRICTED[name]):
            out.append(f"{where}: {name!r} is reserved for {', '.join(RESTRICTED[name])}")
    return out


def _public_modules():
    import mwm_torch
    names = ["mwm", *(m.name for m in pkgutil.walk_packages(mwm.__path__, "mwm.")),
             "mwm_torch", *(m.name for m in pkgutil.walk_packages(mwm_torch.__path__, "mwm_torch."))]
    return [importlib.import_module(n) for n in names if not n.startswith(NOT_MATHS)
            and not any(part.startswith("_") for part in n.split("."))]


def _public_objects():
    """(dotted name, names of its arguments or attributes) for every public function, class and method."""
    seen = set()
    for module in _public_modules():
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__ or id(obj) in seen:
                continue
            seen.add(id(obj))
            where = f"{module.__name__}.{name}"
            members = [(where, obj)]
            if inspect.isclass(obj):
                yield where, _attributes(obj)
                members += [(f"{where}.{n}", m) for n, m in vars(obj).items() if callable(m) and not n.startswith("_")]
            for label, member in members:
                if callable(member):
                    try:
                        yield label, list(inspect.signature(member).parameters)
                    except (TypeError, ValueError):
                        pass


def test_signature_check_finds_a_clash():
    def fake(xs, k=None, c=None, T=1.0, alpha=0.0, dz=None, tau=None):
        """A made-up function with every clash."""
    found = signature_clashes("mwm.fake.fake", inspect.signature(fake).parameters)
    assert [f.split(":")[1].split()[0] for f in found] == ["'k'", "'c'", "'T'", "'alpha'", "'dz'", "'tau'"]
    assert signature_clashes("mwm.bptt.rnn_bptt", ["xs", "tau"]) == []
    assert signature_clashes("mwm.lstm.LSTMState", ["h", "c"]) == []
    assert signature_clashes("mwm.readout.readout", ["h", "V", "c"]) != []


def test_no_public_argument_or_attribute_of_mwm_clashes_with_the_notation():
    clashes = [c for where, names in _public_objects() for c in signature_clashes(where, names)]
    assert clashes == []
    # and the walk does reach what the table promises
    walked = dict(_public_objects())
    assert "tau" in walked["mwm.bptt.rnn_bptt"] and "nu" in walked["mwm.decoding.beam_search"]
    assert "b_V" in walked["mwm.readout.readout"] and "da" in walked["mwm.bptt.ScalarGrads"]


# ----------------------------------------------------------------------------- the chapters' maths

_MATHS = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)


def _paragraphs(markdown: str):
    """(prose, maths) per paragraph: the paragraph's text and its maths joined, folds and all."""
    for para in re.split(r"\n\s*\n", markdown):
        maths = " ".join(m.group(1) or m.group(2) for m in _MATHS.finditer(para))
        yield para, maths


def _sym(letter: str) -> str:
    """A regex for a maths letter: ``\\tau`` as a command, ``k`` as a lone letter (not inside a word or command)."""
    if letter.startswith("\\"):
        return re.escape(letter) + r"(?![A-Za-z])"
    return r"(?<![A-Za-z\\])" + letter + r"(?![A-Za-z])"


def _uses(letter, maths) -> bool:
    return re.search(_sym(letter), maths) is not None


def _rule_tau(n, chapter, para, maths):
    if _uses(r"\tau", maths):
        if re.search(r"(softmax|e\^\{)[^$]*?/\s*\\tau", maths):
            return "tau dividing logits (a temperature is theta)"
        if not re.search(r"truncat", chapter, re.I):
            return "tau in a chapter that never speaks of truncation"


def _rule_theta(n, chapter, para, maths):
    if _uses(r"\theta", maths):
        if re.search(r"\\(cos|sin|tan)\s*\\theta|e\^\{\s*i\s*\\theta|\\theta\s*\^\s*\\circ|\\nabla_?\{?\\theta|[LJ]\s*\(\s*\\theta", maths):
            return "theta as an angle or as the model's weights (an angle is varphi)"
        if not re.search(r"temperature", chapter, re.I):
            return "theta in a chapter that never speaks of temperature"


def _rule_nu(n, chapter, para, maths):
    if _uses(r"\nu", maths) and not re.search(r"length.normali[sz]", chapter, re.I):
        return "nu in a chapter without length normalisation"


def _rule_alpha(n, chapter, para, maths):
    if n != 14 and _uses(r"\alpha", maths) and not _uses(r"\nu", maths):
        return "alpha outside chapter 14 (only an aside naming nu may mention it)"


def _rule_gamma(n, chapter, para, maths):
    if _uses(r"\gamma", maths) and not re.search(r"clip", chapter, re.I):
        return "gamma in a chapter that never clips"


def _rule_eta(n, chapter, para, maths):
    if _uses(r"\eta", maths) and not re.search(r"learning rate|against (its|the) gradient|gradient descent", chapter, re.I):
        return "eta in a chapter that takes no gradient step (eta is the learning rate)"


def _rule_k(n, chapter, para, maths):
    if re.search(r"chunk|truncat", para, re.I) and _uses("k", maths):
        if re.search(_sym("k") + r"\s*=\s*\d|/\s*" + _sym("k") + r"|(\d|\)|" + _sym("m") + r")\s*" + _sym("k"), maths):
            return "k as the truncation length (that is tau)"


def _rule_T(n, chapter, para, maths):
    if re.search(r"(softmax|e\^\{)[^$]*?/\s*" + _sym("T"), maths):
        return "T as a temperature (that is theta; T is the length)"


def _rule_c(n, chapter, para, maths):
    if re.search(r"V\s*(\\boldsymbol\s*)?\{?\s*h[^$+]{0,12}\+\s*(\\boldsymbol\s*)?\{?\s*" + _sym("c"), maths):
        return "c as the read-out bias (that is b_V)"


def _rule_g(n, chapter, para, maths):
    if re.search(r"candidate", para, re.I) and re.search(_sym("g") + r"(_t|_\{t)?", maths):
        return "g as the LSTM candidate (that is c~)"


MATHS_RULES = {r"\tau": _rule_tau, r"\theta": _rule_theta, r"\nu": _rule_nu, r"\alpha": _rule_alpha,
               r"\gamma": _rule_gamma, r"\eta": _rule_eta, "k": _rule_k, "T": _rule_T, "c": _rule_c, "g": _rule_g}


def maths_clashes(n: int, markdown: str) -> list[str]:
    """Every reserved letter used in chapter ``n``'s markdown with a meaning a rule can see."""
    out = []
    for para, maths in _paragraphs(markdown):
        for letter, rule in MATHS_RULES.items():
            why = rule(n, markdown, para, maths)
            if why:
                out.append(f"chapter {n}, {letter}: {why}: {para.strip()[:120]!r}")
    return out


@pytest.mark.parametrize("n, text, letter", [
    (5, "The softmax at a temperature, $p_i = e^{y_i/\\tau}/\\sum_j e^{y_j/\\tau}$.", r"\tau"),
    (7, "A temperature elsewhere; the state turns by $\\theta$: $\\cos\\theta$ and $\\sin\\theta$.", r"\theta"),
    (13, "Rank by $\\ln P / T^{\\alpha}$ with length normalisation.", r"\alpha"),
    (6, "Truncation cuts the text into chunks of $k=20$ words.", "k"),
    (4, "The read-out is $\\boldsymbol y_t = V\\boldsymbol h_t + \\boldsymbol c$.", "c"),
    (9, "The candidate is $g_t = \\tanh(W_g h_{t-1})$.", "g"),
    (5, "Sampling divides by $T$: $\\operatorname{softmax}(\\boldsymbol y/T)$ at a temperature.", "T"),
    (12, "Nothing here is cut short, yet we write $\\gamma = 1$.", r"\gamma"),
    (3, "Nothing trains here: $\\eta = 0.1$.", r"\eta"),
    (2, "Here $\\nu = 1$ means nothing.", r"\nu"),
    (6, "Truncated BPTT cuts every $\\tau$ steps, yet samples from $\\operatorname{softmax}(\\boldsymbol y/\\tau)$.", r"\tau"),
])
def test_maths_rules_catch_a_clash(n, text, letter):
    found = maths_clashes(n, text)
    assert any(f"chapter {n}, {letter}:" in f for f in found), found


def test_maths_rules_pass_the_meanings_the_table_gives():
    good = {5: "The temperature $\\theta$: $p_i = e^{y_i/\\theta}/\\sum_j e^{y_j/\\theta}$.",
            6: "Truncated BPTT cuts the text into $\\lceil T/\\tau\\rceil$ chunks of $\\tau = 20$ words; "
               "$\\partial h_t/\\partial h_k$ for $k<t$.",
            8: "Clip at the threshold $\\gamma$; step with the learning rate $\\eta$.",
            13: "Length-normalised: $\\ln P/T^{\\nu}$ (papers often write $\\alpha$ for $\\nu$).",
            14: "Attention weights $\\alpha_{t,j}$ add up to 1.",
            9: "The candidate $\\tilde{\\boldsymbol c}_t$ and the cell state $\\boldsymbol c_t$."}
    for n, text in good.items():
        assert maths_clashes(n, text) == [], n


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem[:2])
def test_each_chapters_maths_keeps_the_reserved_letters(path):
    n = int(path.stem[:2])
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    markdown = "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert maths_clashes(n, markdown) == []
