"""Write the course's little corpus, lib/mwm/data/railway_sentences.txt (chapter 5).

About 300 short sentences from the course's world: railway announcements for Indian
cities, platforms and delays, and chai at home. They come from a small grammar (the
templates below), a few fillers per slot, and one seeded random draw, so running

    python scripts/make_railway_sentences.py

rewrites exactly the committed file (a test checks this). Only the 28 symbols of the
character language model appear: the letters a-z, the space and the full stop. The
file holds one sentence per line; the model reads them joined by spaces.

The same run writes lib/mwm/data/railway_heldout.txt: grammatical sentences the corpus
does not contain (:func:`unseen_sentences`), on which chapter 5 measures the trained
model on text it never saw.
"""
from __future__ import annotations

import argparse
import itertools
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "lib" / "mwm" / "data" / "railway_sentences.txt"
HELDOUT_OUT = OUT.with_name("railway_heldout.txt")
SEED = 5           # chapter 5
HELDOUT_SEED = SEED + 1   # the held-out draw's own generator
PER_TEMPLATE = 14  # sentences drawn from each template (fewer if it has fewer)

CITIES = ["pune", "patna", "delhi", "mumbai", "chennai", "kolkata", "kochi", "surat",
          "jaipur", "lucknow", "nagpur", "bhopal", "agra", "mysore"]
PLATFORMS = ["one", "two", "three", "four", "five", "six", "seven", "eight"]
HOURS = ["five", "six", "seven", "eight", "nine", "ten"]
DELAYS = ["ten minutes", "twenty minutes", "half an hour", "one hour", "two hours"]
PEOPLE = ["mother", "father", "sister", "brother", "grandmother", "uncle", "aunt"]
DAYS = ["today", "tomorrow", "on monday", "on sunday"]
CHAI = ["hot", "sweet", "ready", "strong", "too sweet", "cold now"]
WITH = ["ginger", "milk", "sugar", "cardamom", "biscuits"]

#: Each template with the filler list for each of its slots, in order.
TEMPLATES = [
    ("the train to {} is late.", [CITIES]),
    ("the train to {} is on time.", [CITIES]),
    ("the train to {} is cancelled today.", [CITIES]),
    ("the train to {} will leave from platform {}.", [CITIES, PLATFORMS]),
    ("the train from {} will arrive on platform {}.", [CITIES, PLATFORMS]),
    ("the train to {} is late by {}.", [CITIES, DELAYS]),
    ("{} express will arrive on platform {}.", [CITIES, PLATFORMS]),
    ("passengers for {} please go to platform {}.", [CITIES, PLATFORMS]),
    ("the {} mail is running late.", [CITIES]),
    ("my {} makes chai at {}.", [PEOPLE, HOURS]),
    ("my {} drinks chai with {}.", [PEOPLE, WITH]),
    ("my {} is going to {} {}.", [PEOPLE, CITIES, DAYS]),
    ("the chai is {}.", [CHAI]),
    ("the chaiwala sells chai on platform {}.", [PLATFORMS]),
    ("the dabbawala brings lunch at {}.", [HOURS]),
    ("we drink chai at home at {}.", [HOURS]),
    ("we wait for the train to {} on platform {}.", [CITIES, PLATFORMS]),
    ("my {} waits for the train on platform {}.", [PEOPLE, PLATFORMS]),
    ("the train to {} leaves at {}.", [CITIES, HOURS]),
    ("please stand behind the yellow line on platform {}.", [PLATFORMS]),
    ("the train from {} is late by {}.", [CITIES, DELAYS]),
    ("tickets for {} are sold at window {}.", [CITIES, PLATFORMS]),
    ("my {} buys a ticket to {}.", [PEOPLE, CITIES]),
    ("the train to {} is on platform {}.", [CITIES, PLATFORMS]),
]

#: Sentences the chapter quotes: always in the corpus.
MUST_HAVE = ["the train to pune is late.", "passengers for kochi please go to platform six.",
             "my mother makes chai at six."]


def sentences(seed: int = SEED, per_template: int = PER_TEMPLATE) -> list[str]:
    """Draw the corpus: ``per_template`` sentences from each template, plus MUST_HAVE, shuffled."""
    rng = np.random.default_rng(seed)
    chosen = list(MUST_HAVE)
    for template, slots in TEMPLATES:
        every = [template.format(*fill) for fill in itertools.product(*slots)]
        every = [s for s in every if s not in chosen]
        take = min(per_template, len(every))
        chosen += [every[i] for i in sorted(rng.choice(len(every), size=take, replace=False))]
    order = rng.permutation(len(chosen))
    return [chosen[i] for i in order]


def unseen_sentences(seed: int = HELDOUT_SEED, per_template: int = PER_TEMPLATE) -> list[str]:
    """Grammatical sentences that are not in the corpus, drawn the way the corpus was drawn.

    From each template, ``per_template`` of its fillings that :func:`sentences` did not
    choose (all of them if fewer are left), by a numpy Generator seeded with ``seed``.
    Templates with one slot of at most 14 fillers are used up by the corpus and give
    none, so the held-out set comes from the 15 templates with two or three slots. Every
    word of these sentences occurs in the corpus; what is new is the combination.

    Returns:
        list of distinct sentences, template by template; none of them is in the corpus.
    """
    rng = np.random.default_rng(seed)
    seen = set(sentences())
    held_out = []
    for template, slots in TEMPLATES:
        unseen = [s for s in (template.format(*fill) for fill in itertools.product(*slots)) if s not in seen]
        take = min(per_template, len(unseen))
        held_out += [unseen[i] for i in sorted(rng.choice(len(unseen), size=take, replace=False))]
    return held_out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the corpus")
    args = parser.parse_args()
    lines = sentences()
    allowed = set("abcdefghijklmnopqrstuvwxyz .")
    assert all(set(s) <= allowed for s in lines), "only the 28 symbols may appear"
    assert len(set(lines)) == len(lines), "no sentence twice"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="ascii")
    print(f"wrote {len(lines)} sentences, {sum(map(len, lines))} characters, to {args.out}")
    held_out = unseen_sentences()
    assert not set(held_out) & set(lines), "held-out sentences are not in the corpus"
    heldout_out = args.out.with_name(HELDOUT_OUT.name)
    heldout_out.write_text("\n".join(held_out) + "\n", encoding="ascii")
    print(f"wrote {len(held_out)} held-out sentences to {heldout_out}")


if __name__ == "__main__":
    main()
