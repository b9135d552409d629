"""Chapter 13's "Try" panels: beam width on chapter 13's tree, and BLEU on a candidate."""
from __future__ import annotations

import math

import ipywidgets as widgets
from matplotlib.figure import Figure

from ..bleu import bleu_details, matched_positions, tokens_of
from ..decoding import SEED_TREE, ProbabilityTree, beam_search, exhaustive_search
from .drawing import box, layout, value_bars
from .panel import TryPanel

KEPT, PRUNED, UNSEEN, WINNER = "#c8e6c9", "#ffcdd2", "#f5f5f5", "#ffd54f"


def _tree_layout(tree: ProbabilityTree):
    """(x, y) of every prefix of the tree: depth to the right, leaves spread top to bottom."""
    leaves = []

    def walk(prefix):
        node = tree.tree.get(prefix)
        if node is None:
            leaves.append(prefix)
            return
        for word in node:
            walk(prefix + (word,))

    walk(())
    pos = {leaf: (len(leaf), -i) for i, leaf in enumerate(leaves)}
    for depth in range(max(len(x) for x in leaves) - 1, -1, -1):
        for prefix in tree.tree:
            if len(prefix) == depth:
                kids = [pos[prefix + (w,)] for w in tree.tree[prefix]]
                pos[prefix] = (depth, sum(y for _, y in kids) / len(kids))
    return pos


def draw_beam(width: int = 2, step: int = 3):
    """Figure: chapter 13's tree with the beam's kept and pruned hypotheses after ``step`` steps.

    Args:
        width: the beam width B (1 is greedy).
        step: 1 (the first word chosen), 2 (the second word) or 3 (done: the winner).

    Returns:
        (Figure, readings): the readings list what is kept and pruned at this step, with
        probabilities and log-probabilities, and at step 3 the winner, e.g. for width 2
        "winner: our train, probability 0.36, log-probability -1.022" (the beam ranks by the
        plain sum of log-probabilities, nu = 0).

    Raises:
        ValueError: for a width below 1 or a step outside 1-3.
    """
    if step not in (1, 2, 3):
        raise ValueError(f"step must be 1, 2 or 3, got {step!r}")
    tree = ProbabilityTree(SEED_TREE)
    result = beam_search(tree, width, trace=True)
    pos = _tree_layout(tree)
    status = {}  # prefix (words) -> "kept" / "pruned", for every step up to min(step, 2)
    for cands in result.steps[:min(step, 2)]:
        for c in cands:
            status[tuple(tree.words(c.tokens).split())] = "kept" if c.kept else "pruned"
    winner = tuple(tree.words(result.best.tokens).split())

    fig = Figure(figsize=(7.0, 5.8))
    ax = fig.add_subplot(1, 1, 1)
    w, h = 0.62, 0.62
    for prefix, (x, y) in pos.items():
        if prefix:
            px, py = pos[prefix[:-1]]
            p = tree.tree[prefix[:-1]][prefix[-1]]
            on_path = step == 3 and winner[:len(prefix)] == prefix
            ax.plot([px + w / 2, x - w / 2], [py, y], color="#e69500" if on_path else "0.6",
                    lw=3 if on_path else 1, zorder=1)
            ax.text((px + x) / 2, (py + y) / 2 + 0.12, f"{p:g}", fontsize=10, ha="center", color="0.2")
    for prefix, (x, y) in pos.items():
        if not prefix:
            box(ax, x - w / 2, y - h / 2, w, h, "start", fc="white", fontsize=11)
            continue
        prob = math.exp(sum(math.log(tree.tree[prefix[:i]][prefix[i]]) for i in range(len(prefix))))
        state = status.get(prefix)
        fc = {"kept": KEPT, "pruned": PRUNED}.get(state, UNSEEN)
        if step == 3 and prefix == winner:
            fc = WINNER
        ec = "0.3" if state else "0.6"
        box(ax, x - w / 2, y - h / 2, w, h, "", fc=fc, ec=ec)
        # never grown: dark grey italic on the pale box (contrast above 7:1), not pale grey on grey
        colour, style = ("black", "normal") if state else ("0.25", "italic")
        ax.text(x, y + 0.12, prefix[-1], ha="center", va="center", fontsize=11, color=colour, style=style)
        ax.text(x, y - 0.16, f"{prob:.2f}", ha="center", va="center", fontsize=10, color=colour, style=style)
        if state == "pruned":
            ax.plot([x - w / 2, x + w / 2], [y - h / 2, y + h / 2], color="tab:red", lw=1)
    ax.set_xlim(-0.5, 2.6)
    ax.set_ylim(-6.6, 0.6)
    ax.axis("off")
    names = {1: "after the first word", 2: "after the second word", 3: "done"}
    ax.set_title(f"beam width $B$ = {width}, {names[step]}\ngreen = kept, red = pruned, grey = never grown"
                 + (", gold = winner" if step == 3 else ""), fontsize=11)
    layout(fig)

    def fmt(c):
        return f"{tree.words(c.tokens)} {math.exp(c.log_prob):.2f} (ln {c.log_prob:.3f})"

    if step < 3:
        cands = result.steps[step - 1]
        kept = [fmt(c) for c in cands if c.kept]
        pruned = [fmt(c) for c in cands if not c.kept]
        text = f"kept: {'; '.join(kept)}" + (f". Pruned: {'; '.join(pruned)}" if pruned else ". Nothing pruned")
    else:
        best = result.best
        text = (f"winner: {tree.words(best.tokens)}, probability {best.probability:.2f}, "
                f"log-probability {best.log_prob:.3f}")
    return fig, text


def describe_beam(width: int = 2, step: int = 3) -> str:
    """What :func:`draw_beam`'s picture shows, in words (the website's alt text): which branches the beam
    keeps and cuts at ``step``, and where the most probable sentence of the tree is.

    Raises:
        ValueError: as :func:`draw_beam`.
    """
    if step not in (1, 2, 3):
        raise ValueError(f"step must be 1, 2 or 3, got {step!r}")
    tree = ProbabilityTree(SEED_TREE)
    result = beam_search(tree, width, trace=True)
    best = exhaustive_search(tree.model, 3)[0]
    best_words = tree.words(best.tokens)
    best_said = f'the most probable sentence, "{best_words}" ({best.probability:.2f})'
    # the step at which the best sentence's branch was cut, if it was
    cut = next((n + 1 for n, cands in enumerate(result.steps)
                for c in cands if not c.kept and best.tokens[:len(c.tokens)] == c.tokens), None)
    if step < 3:
        cands = result.steps[step - 1]
        kept = ", ".join(f'"{tree.words(c.tokens)}"' for c in cands if c.kept)
        pruned = ", ".join(f'"{tree.words(c.tokens)}"' for c in cands if not c.kept)
        said = (f"A tree of the words the model may write, after word {step}: the beam keeps {kept}"
                + (f" and crosses out {pruned}." if pruned else " and cuts nothing."))
        if cut == step:
            said += f" The cut branch is the one that leads to {best_said}."
        elif cut is not None and cut < step:
            said += f" The branch to {best_said}, was cut at word {cut}."
        return said
    found = tree.words(result.best.tokens)
    said = f'The finished search, its path in gold: the beam ends at "{found}" ({result.best.probability:.2f})'
    if found == best_words:
        return said + ", the most probable sentence of the tree."
    return said + f"; {best_said}, lay on the branch it cut at word {cut}."


#: The beam panel's step buttons.
STEPS = {"word 1": 1, "word 2": 2, "done": 3}


def beam_try(width: int = 1, step: int = 3) -> TryPanel:
    """The beam-width panel on chapter 13's tree.

    Returns:
        TryPanel with controls ``width`` (the beam width B: ToggleButtons "1", "2", "3") and ``step``
        (ToggleButtons "word 1", "word 2", "done").
    """
    controls = {
        "width": widgets.ToggleButtons(options=["1", "2", "3"], value=str(width), description="beam width B"),
        "step": widgets.ToggleButtons(options=list(STEPS), value=list(STEPS)[step - 1], description="show"),
    }
    panel = TryPanel("beam width on the tree: which sentences survive each cut?", controls,
                     lambda v: draw_beam(int(v["width"]), STEPS[v["step"]]))
    panel.describe = lambda v: describe_beam(int(v["width"]), STEPS[v["step"]])
    step_through = "set $B=1$ and step through *word 1*, *word 2* and *done*"
    panel.tour = [   # chapter 13's first panel: B = 1 step by step, then B = 2 and 3
        {"says": step_through, "moves": {"step": "word 1"}, "expect": ["kept: the 0.50", "Pruned: our 0.40"]},
        {"says": step_through, "moves": {"step": "word 2"}, "expect": ["kept: the train 0.20"]},
        {"says": step_through, "moves": {"step": "done"}, "expect": ["winner: the train, probability 0.20"]},
        {"says": 'At $B=2$ "our" survives the first cut and wins at 0.36', "moves": {"width": "2"},
         "expect": ["winner: our train, probability 0.36"]},
        {"says": "at $B=3$ nothing is cut at step 1, and the winner is the same", "moves": {"width": "3"},
         "expect": ["winner: our train, probability 0.36"]},
    ]
    return panel


#: The reference and the candidates of the BLEU panel (chapter 13).
REFERENCE = "the train is running late"
#: candidate -> what it shows.
CANDIDATES = {
    "the train is late": "close to the reference, one word short",
    "late is the train": "word salad: the right words in the wrong order",
    "the train": "too short: every piece matches",
    "the the the the": "repeats: why matches are clipped",
    "the train is delayed": "the right meaning in other words",
    "the train is not running late": "the opposite meaning in the reference's words",
}


def _piece_row(ax, y, pieces, marks, label):
    """Draw one row of word boxes (green if matched, red if not, white if marks is None); return its right end."""
    ax.text(-0.2, y, label, ha="right", va="center", fontsize=10)
    x = 0.0
    for i, piece in enumerate(pieces):
        text = " ".join(piece)
        width = 0.25 + 0.13 * len(text)
        fc = "white" if marks is None else (KEPT if marks[i] else PRUNED)
        box(ax, x, y - 0.25, width, 0.5, text, fc=fc, fontsize=10)
        x += width + 0.15
    if not pieces:
        ax.text(0.0, y, "(none)", va="center", fontsize=10, color="0.3")
    return x


def draw_bleu(candidate: str = "the train is late", reference: str = REFERENCE):
    """Figure: which words and word pairs of a candidate match the reference, and BLEU-2's pieces.

    The chapter's letters: clipped precisions pi_1, pi_2 (written π₁, π₂), and the brevity
    penalty BP = e^(1 - l_ref/l_out) for an output of l_out words and a reference of l_ref.

    Args:
        candidate: the candidate sentence (split on whitespace); may be empty.
        reference: the reference sentence.

    Returns:
        (Figure, readings): readings "π₁ = 4/4 = 1.000, π₂ = 2/3 = 0.667, BP = ... = 0.7788,
        BLEU-2 = 0.636" (for the default candidate).
    """
    cand = tokens_of(candidate, "candidate")
    d = bleu_details(cand, reference, max_n=2)
    fig = Figure(figsize=(7.0, 5.4))
    ax = fig.add_subplot(2, 1, 1)
    ref = tokens_of(reference, "reference")
    right = max(_piece_row(ax, 3, [(w,) for w in ref], None, "reference"),
                _piece_row(ax, 2, [(w,) for w in cand], matched_positions(cand, reference, 1), "words"),
                _piece_row(ax, 1, [cand[i:i + 2] for i in range(len(cand) - 1)],
                           matched_positions(cand, reference, 2), "pairs"))
    ax.set_xlim(-1.6, max(6.2, right))
    ax.set_ylim(0.4, 3.6)
    ax.axis("off")
    ax.set_title("green = matches the reference (clipped), red = does not", fontsize=11)
    bars = fig.add_subplot(2, 1, 2)
    value_bars(bars, [d.precisions[0], d.precisions[1], d.brevity_penalty, d.score],
               [r"$\pi_1$", r"$\pi_2$", "BP", "BLEU-2"], color="tab:cyan", ylim=(0, 1.12), digits=3)
    bars.set_title(f'candidate "{" ".join(cand)}"', fontsize=11)
    layout(fig)
    c, r = d.candidate_length, d.reference_length
    bp = ("1 (not shorter)" if c >= r and c else
          ("0 (empty)" if c == 0 else f"e^(1-ℓref/ℓout) = e^(1-{r}/{c}) = {d.brevity_penalty:.4f}"))
    label = CANDIDATES.get(" ".join(cand))
    def frac(n):
        m, t = d.matches[n - 1], d.totals[n - 1]
        pi = "π" + "₀₁₂₃₄"[n]
        return f"{pi} = {m}/{t} = {d.precisions[n - 1]:.3f}" if t else f"{pi} = 0/0, taken as 0"

    text = (f"{label}: " if label else "") + f"{frac(1)}, {frac(2)}, BP = {bp}, BLEU-2 = {d.score:.4f}"
    return fig, text


def describe_bleu(candidate: str = "the train is late", reference: str = REFERENCE) -> str:
    """What :func:`draw_bleu`'s picture shows, in words (the website's alt text).

    Args as :func:`draw_bleu`. Returns one sentence: the reference, the candidate's words and
    word pairs that match it (green) and do not (red), and the four bars of BLEU-2.
    """
    cand = tokens_of(candidate, "candidate")
    d = bleu_details(cand, reference, max_n=2)

    def split(pieces, marks):
        hit = [f'"{" ".join(p)}"' for p, m in zip(pieces, marks) if m]
        miss = [f'"{" ".join(p)}"' for p, m in zip(pieces, marks) if not m]
        said = f"{len(hit)} of {len(pieces)} match" + (f" ({', '.join(hit)})" if hit else "")
        return said + (f", in red {', '.join(miss)}" if miss else "")

    pairs = [tuple(cand[i:i + 2]) for i in range(len(cand) - 1)]
    words = split([(w,) for w in cand], matched_positions(cand, reference, 1)) if cand else "none"
    pair_said = split(pairs, matched_positions(cand, reference, 2)) if pairs else "none"
    return (f'Above, the reference "{reference}" and the candidate "{" ".join(cand)}", matches in green: its words, '
            f"{words}; its word pairs, {pair_said}. Below, four bars: the precisions {d.precisions[0]:.2f} and "
            f"{d.precisions[1]:.2f}, the brevity penalty {d.brevity_penalty:.2f}, and BLEU-2 {d.score:.2f}.")


def bleu_try(candidate: str = "the train is late") -> TryPanel:
    """The BLEU panel: pick a candidate (or type one) and see its matches, π₁, π₂, BP and BLEU-2.

    The dropdown alone drives every precomputed state (for the website); the text box
    below it, live in Jupyter only, overrides the dropdown while it holds any words. It
    is cleared when another candidate is picked from the dropdown, and by the *clear*
    button (picking the candidate already shown changes nothing, so the dropdown alone
    could not bring it back).

    Returns:
        TryPanel with one control, ``candidate`` (Dropdown over :data:`CANDIDATES`), and
        two extra widgets outside the listed controls: an ``ipywidgets.Text`` as the
        attribute ``own_text`` and an ``ipywidgets.Button`` as ``clear_button``; ``live_only``
        tells the website's static twin to say that typing needs Jupyter.

    Raises:
        ValueError: for a candidate not in :data:`CANDIDATES`.
    """
    if candidate not in CANDIDATES:
        raise ValueError(f"candidate must be one of {list(CANDIDATES)}, got {candidate!r}")
    own = widgets.Text(value="", placeholder="or type your own candidate", description="your own")
    clear = widgets.Button(description="clear", tooltip="empty the box and grade the candidate picked above")
    dropdown = widgets.Dropdown(options=list(CANDIDATES), value=candidate, description="candidate")

    def draw(values):
        typed = own.value.strip()
        return draw_bleu(typed if typed else values["candidate"])

    panel = TryPanel(f'BLEU-2 against the reference "{REFERENCE}"', {"candidate": dropdown}, draw)
    panel.describe = lambda values: describe_bleu(values["candidate"])   # the website shows the menu's candidates
    panel.tour = [   # chapter 13's second panel
        {"says": 'In the second panel, "the train is late" shows $\\pi_1=1$, $\\pi_2=2/3$ and BLEU-2 about 0.636', "moves": {},
         "expect": ["π₁ = 4/4 = 1.000, π₂ = 2/3 = 0.667", "BLEU-2 = 0.6359"]},
        {"says": 'The word salad "late is the train" keeps every word but only one of its three pairs, and falls to 0.450',
         "moves": {"candidate": "late is the train"}, "expect": ["π₂ = 1/3 = 0.333", "BLEU-2 = 0.4496"]},
        {"says": '"the train" has perfect precision and is punished down to 0.2231 for its length', "moves": {"candidate": "the train"},
         "expect": ["π₁ = 2/2 = 1.000, π₂ = 1/1 = 1.000", "e^(1-5/2) = 0.2231"]},
        {"says": '"the the the the" shows clipping', "moves": {"candidate": "the the the the"}, "expect": ["π₁ = 1/4 = 0.250"]},
    ]

    def picked(_change):
        own.value = ""

    dropdown.observe(picked, names="value")
    own.observe(lambda _change: panel.redraw(), names="value")
    clear.on_click(picked)
    panel.own_text = own
    panel.clear_button = clear
    panel.live_only = "type a candidate of your own into the box under the menu"
    children = list(panel.children)
    panel.children = tuple(children[:2] + [widgets.HBox([own, clear])] + children[2:])
    return panel
