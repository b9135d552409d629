"""Chapters 12 and 14: a toy English -> Hindi (romanised) parallel corpus.

The course writes its own small grammar and generates sentence pairs from it, so the
translator of chapter 12 has something real to learn and nothing has to be fetched.
The grammar is small but it has the features that make translation hard for a reader
that must squeeze a sentence into one summary:

* **word order changes.** English is subject-verb-object, Hindi is subject-object-verb:
  "the boy drinks chai" -> "ladka chai peeta hai". Time words and places move in front
  of the verb: "... chai on the platform every morning" -> "... har subah platform par
  chai ...".
* **postpositions.** "on the platform" -> "platform par", "near the temple" ->
  "mandir ke paas", "the train to delhi" -> "delhi ki train".
* **agreement at a distance.** The verb's ending follows the subject's gender
  ("ladka ... peeta hai", "ladki ... peeti hai"), and so does "ka/ki" and some
  adjectives ("bada bag", "badi train").
* **long sentences.** Clauses are joined by "and", "but", "because" and "so" ("aur",
  "lekin", "kyunki", "isliye"), so a sentence can run to forty words and more.

Articles disappear ("the"), or become "ek" ("a"). Every English sentence has exactly
one Hindi translation, so the reference is never in doubt.

:func:`generate_pairs` draws sentence pairs from a seeded ``random.Random``; the
committed files ``data/translation_train.tsv`` and ``data/translation_test.tsv`` are
written by ``scripts/make_parallel_corpus.py`` and :func:`load_pairs` reads them back.
"""
from __future__ import annotations

import random
from pathlib import Path

from ._validate import positive_int

DATA = Path(__file__).resolve().parent / "data"
#: The committed corpus files (tab-separated: English, then Hindi; one pair a line).
TRAIN_FILE = DATA / "translation_train.tsv"
TEST_FILE = DATA / "translation_test.tsv"
#: The seed and sizes the committed files were generated with.
CORPUS_SEED = 12
N_TRAIN = 6000
N_TEST = 1000
#: Source sentences are between these lengths (in words), inclusive.
MIN_WORDS, MAX_WORDS = 3, 48

# --------------------------------------------------------------------------- lexicon
# People who can be subjects: English, Hindi, gender ("m" or "f").
PEOPLE = [
    ("boy", "ladka", "m"), ("girl", "ladki", "f"), ("man", "aadmi", "m"), ("woman", "aurat", "f"),
    ("porter", "kuli", "m"), ("teacher", "adhyapak", "m"), ("nurse", "nurse", "f"),
    ("dabbawala", "dabbawala", "m"), ("chaiwala", "chaiwala", "m"), ("student", "chhatra", "m"),
    ("grandmother", "daadi", "f"), ("mother", "maa", "f"), ("father", "pita", "m"),
    ("driver", "driver", "m"), ("clerk", "babu", "m"), ("sister", "behen", "f"),
    ("brother", "bhai", "m"), ("farmer", "kisaan", "m"), ("singer", "gaayika", "f"),
    ("doctor", "doctor", "m"),
]
# Vehicles (subjects of "is late" clauses).
VEHICLES = [("train", "train", "f"), ("bus", "bus", "f"), ("taxi", "taxi", "f"),
            ("rickshaw", "rickshaw", "m"), ("ferry", "naav", "f"), ("tempo", "tempo", "m")]
CITIES = ["delhi", "mumbai", "pune", "chennai", "kolkata", "jaipur", "lucknow", "patna", "agra",
          "nagpur", "surat", "goa", "bhopal", "indore"]
# Places: English, Hindi.
PLACES = [("platform", "platform"), ("station", "station"), ("market", "bazaar"), ("temple", "mandir"),
          ("school", "school"), ("office", "daftar"), ("house", "ghar"), ("village", "gaon"),
          ("garden", "bageecha"), ("river", "nadi"), ("kitchen", "rasoi"), ("shop", "dukaan")]
# English preposition -> Hindi postposition (after the place).
PREPOSITIONS = [("on the", "par"), ("at the", "par"), ("in the", "mein"), ("near the", "ke paas"),
                ("behind the", "ke peeche"), ("in front of the", "ke saamne")]
# Things, with gender, for objects.
THINGS = {
    "chai": ("chai", "f"), "coffee": ("coffee", "f"), "water": ("paani", "m"), "milk": ("doodh", "m"),
    "lassi": ("lassi", "f"), "samosa": ("samosa", "m"), "rice": ("chawal", "m"), "roti": ("roti", "f"),
    "mango": ("aam", "m"), "food": ("khaana", "m"), "book": ("kitaab", "f"), "newspaper": ("akhbaar", "m"),
    "letter": ("chitthi", "f"), "map": ("naksha", "m"), "poem": ("kavita", "f"), "story": ("kahani", "f"),
    "ticket": ("ticket", "m"), "saree": ("saree", "f"), "bag": ("bag", "m"), "box": ("dabba", "m"),
    "suitcase": ("suitcase", "m"), "basket": ("tokri", "f"), "room": ("kamra", "m"), "door": ("darwaza", "m"),
    "window": ("khidki", "f"), "flowers": ("phool", "m"), "dal": ("dal", "f"),
}
# Transitive verbs: (base, third person, -ing form), Hindi stem, objects it takes.
TRANSITIVE = [
    (("drink", "drinks", "drinking"), "pee", ["chai", "coffee", "water", "milk", "lassi"]),
    (("eat", "eats", "eating"), "kha", ["samosa", "rice", "roti", "mango", "food", "dal"]),
    (("read", "reads", "reading"), "padh", ["book", "newspaper", "letter", "map", "poem", "story"]),
    (("write", "writes", "writing"), "likh", ["letter", "poem", "story"]),
    (("buy", "buys", "buying"), "khareed", ["ticket", "mango", "book", "flowers", "saree", "newspaper"]),
    (("carry", "carries", "carrying"), "utha", ["bag", "box", "suitcase", "basket"]),
    (("open", "opens", "opening"), "khol", ["door", "window", "box", "bag"]),
    (("cook", "cooks", "cooking"), "bana", ["food", "rice", "roti", "dal"]),
    (("sell", "sells", "selling"), "bech", ["chai", "flowers", "mango", "newspaper", "samosa"]),
    (("clean", "cleans", "cleaning"), "saaf kar", ["room", "window", "door", "box"]),
]
INTRANSITIVE = [
    (("sleep", "sleeps", "sleeping"), "so"), (("run", "runs", "running"), "daud"),
    (("wait", "waits", "waiting"), "intezaar kar"), (("sing", "sings", "singing"), "ga"),
    (("laugh", "laughs", "laughing"), "hans"), (("work", "works", "working"), "kaam kar"),
    (("sit", "sits", "sitting"), "baith"), (("play", "plays", "playing"), "khel"),
    (("walk", "walks", "walking"), "chal"), (("cry", "cries", "crying"), "ro"),
]
# Motion verbs: "goes to the market" -> "bazaar jata hai".
MOTION = [(("go", "goes", "going"), "ja"), (("come", "comes", "coming"), "aa")]
# Adjectives in front of a noun. A Hindi form ending in "a" changes to "i" before a
# feminine noun (bada -> badi); the others never change.
ADJECTIVES = [("big", "bada"), ("small", "chhota"), ("new", "naya"), ("old", "purana"), ("red", "laal"),
              ("hot", "garam"), ("cold", "thanda"), ("clean", "saaf"), ("heavy", "bhaari"),
              ("beautiful", "sundar")]
# Which adjectives suit which kind of noun.
# Adjectives for people have their own Hindi words ("old" is "boodha" for a person, "purana" for a thing).
PERSON_ADJECTIVES = {"old": "boodha", "young": "jawaan", "tall": "lamba", "kind": "dayalu"}
ADJ_FOR_VEHICLES = ["big", "small", "new", "old", "red", "clean"]
ADJ_FOR_THINGS = {"chai": ["hot", "cold"], "coffee": ["hot", "cold"], "water": ["hot", "cold", "clean"],
                  "milk": ["hot", "cold"], "lassi": ["cold"], "samosa": ["hot", "big", "small"],
                  "rice": ["hot"], "roti": ["hot"], "food": ["hot", "cold"], "dal": ["hot"],
                  "book": ["new", "old", "red", "heavy"], "bag": ["big", "small", "new", "old", "red", "heavy"],
                  "box": ["big", "small", "red", "heavy"], "suitcase": ["big", "heavy", "red", "new", "old"],
                  "basket": ["big", "small", "heavy"], "room": ["big", "small", "clean"],
                  "door": ["big", "old", "red"], "window": ["small", "old"], "saree": ["new", "red", "beautiful"],
                  "flowers": ["red", "beautiful"], "mango": ["big", "small"]}
# States after "is": English, Hindi (an "a" ending agrees with the subject, as above).
VEHICLE_STATES = [("late", "late"), ("early", "jaldi"), ("full", "bhara"), ("empty", "khaali"),
                  ("slow", "dheema"), ("fast", "tez"), ("on time", "samay par"), ("crowded", "bheed wala")]
PERSON_STATES = [("happy", "khush"), ("tired", "thaka"), ("hungry", "bhookha"), ("angry", "naraz"),
                 ("busy", "vyast"), ("sad", "udaas"), ("ready", "taiyaar"), ("late", "late")]
# Time words: English (at the end of the clause), Hindi (after the subject).
TIMES = [("every morning", "har subah"), ("every evening", "har shaam"), ("today", "aaj"), ("now", "abhi"),
         ("at night", "raat ko"), ("on sunday", "ravivaar ko"), ("on monday", "somvaar ko"),
         ("every day", "roz")]
CONJUNCTIONS = [("and", "aur"), ("but", "lekin"), ("because", "kyunki"), ("so", "isliye")]
ADJ = dict(ADJECTIVES)


def _agree(word: str, gender: str) -> str:
    """Hindi agreement: a final "a" becomes "i" for a feminine noun (bada -> badi), word by word."""
    if gender != "f":
        return word
    return " ".join(w[:-1] + "i" if w.endswith("a") else w for w in word.split())


def _an(words: list[str]) -> list[str]:
    """English "a" becomes "an" before a vowel ("an old bag")."""
    return [("an" if w == "a" and nxt[0] in "aeiou" else w) for w, nxt in zip(words, words[1:])] + words[-1:]


def _adjective(word: str, gender: str) -> str:
    hindi = ADJ[word]
    return _agree(hindi, gender) if hindi.endswith("a") else hindi


def _person(rng: random.Random):
    en, hi, g = rng.choice(PEOPLE)
    eng, hin = [], []
    eng.append(rng.choice(["the", "the", "a"]))
    if eng[0] == "a":
        hin.append("ek")
    if rng.random() < 0.3:
        adj = rng.choice(sorted(PERSON_ADJECTIVES))
        eng.append(adj)
        hin.append(_agree(PERSON_ADJECTIVES[adj], g))
    eng.append(en)
    if rng.random() < 0.25:  # "a man from pune" -> "pune ka ek aadmi": the city moves to the front
        city = rng.choice(CITIES)
        eng += ["from", city]
        hin = [city, "ki" if g == "f" else "ka"] + hin
    hin.append(hi)
    return _an(eng), hin, g


def _thing(rng: random.Random, name: str):
    hi, g = THINGS[name]
    eng, hin = [rng.choice(["the", "a"])], []
    if eng[0] == "a":
        hin.append("ek")
    if name in ADJ_FOR_THINGS and rng.random() < 0.35:
        adj = rng.choice(ADJ_FOR_THINGS[name])
        eng.append(adj)
        hin.append(_adjective(adj, g))
    if name in ("chai", "coffee", "water", "milk", "lassi", "rice", "food", "dal", "flowers"):
        eng = eng[1:]  # mass nouns and plurals take no article
        hin = [w for w in hin if w != "ek"]
    return _an(eng + [name]), hin + [hi]


def _place(rng: random.Random):
    en, hi = rng.choice(PLACES)
    prep, post = rng.choice(PREPOSITIONS)
    return prep.split() + [en], [hi] + post.split()


def _verb(rng: random.Random, forms, stem: str, gender: str, tense: str):
    """English verb words and Hindi verb words for one of three tenses."""
    base, third, ing = forms
    be_now, be_past = "hai", ("thi" if gender == "f" else "tha")
    if tense == "present":  # habitual: "drinks" -> "peeta hai" / "peeti hai"
        *head, last = stem.split()
        return [third], head + [last + _agree("ta", gender), be_now]
    if tense == "progressive":
        return ["is", ing], stem.split() + [_agree("raha", gender), be_now]
    return ["was", ing], stem.split() + [_agree("raha", gender), be_past]


def _clause(rng: random.Random):
    """One clause: English words, Hindi words."""
    kind = rng.choices(["state", "transitive", "intransitive", "motion"], weights=[2, 4, 2, 2])[0]
    tense = rng.choice(["present", "progressive", "past"])
    if kind == "state":
        if rng.random() < 0.5:
            en, hi, g = rng.choice(VEHICLES)
            eng, hin = ["the"], []
            if rng.random() < 0.3:
                adj = rng.choice(ADJ_FOR_VEHICLES)
                eng.append(adj)
                hin.append(_adjective(adj, g))
            eng.append(en)
            hin.append(hi)
            if rng.random() < 0.6:  # "the train to delhi" -> "delhi ki train"
                city = rng.choice(CITIES)
                eng += [rng.choice(["to", "from"]), city]
                hin = [city, "ki" if g == "f" else "ka"] + hin
            state_en, state_hi = rng.choice(VEHICLE_STATES)
        else:
            eng, hin, g = _person(rng)
            state_en, state_hi = rng.choice(PERSON_STATES)
        be_en = "was" if tense == "past" else "is"
        be_hi = ("thi" if g == "f" else "tha") if tense == "past" else "hai"
        eng = eng + [be_en] + state_en.split()
        where_en, where_hi = ([], [])
        if kind == "state" and rng.random() < 0.25:
            where_en, where_hi = rng.choice(TIMES)
            where_en, where_hi = where_en.split(), where_hi.split()
        hin = hin + where_hi + _agree(state_hi, g).split() + [be_hi]
        return eng + where_en, hin
    eng, hin, g = _person(rng)
    extra_en, extra_hi = [], []
    if rng.random() < 0.4:
        t_en, t_hi = rng.choice(TIMES)
        time_en, time_hi = t_en.split(), t_hi.split()
    else:
        time_en, time_hi = [], []
    if kind == "transitive":
        forms, stem, objects = rng.choice(TRANSITIVE)
        obj_en, obj_hi = _thing(rng, rng.choice(objects))
        v_en, v_hi = _verb(rng, forms, stem, g, tense)
        if rng.random() < 0.5:
            extra_en, extra_hi = _place(rng)
        return eng + v_en + obj_en + extra_en + time_en, hin + time_hi + extra_hi + obj_hi + v_hi
    if kind == "intransitive":
        forms, stem = rng.choice(INTRANSITIVE)
        v_en, v_hi = _verb(rng, forms, stem, g, tense)
        if rng.random() < 0.6:
            extra_en, extra_hi = _place(rng)
        return eng + v_en + extra_en + time_en, hin + time_hi + extra_hi + v_hi
    forms, stem = rng.choice(MOTION)
    v_en, v_hi = _verb(rng, forms, stem, g, tense)
    if rng.random() < 0.5:
        city = rng.choice(CITIES)
        dest_en, dest_hi = ["to", city], [city]
    else:
        en_place, hi_place = rng.choice(PLACES)
        dest_en, dest_hi = ["to", "the", en_place], [hi_place]
    return eng + v_en + dest_en + time_en, hin + time_hi + dest_hi + v_hi


def sentence_pair(rng: random.Random, n_clauses: int):
    """One English sentence of ``n_clauses`` clauses and its Hindi translation, as word lists.

    Args:
        rng: a ``random.Random``; the pair depends only on its state.
        n_clauses: how many clauses to join with "and", "but", "because" or "so" (>= 1).

    Returns:
        (english_words, hindi_words): two lists of lower-case words.

    Raises:
        ValueError: if ``n_clauses`` is not a whole number >= 1.
    """
    n = positive_int(n_clauses, "n_clauses")
    eng, hin = _clause(rng)
    for _ in range(n - 1):
        c_en, c_hi = rng.choices(CONJUNCTIONS, weights=[5, 2, 2, 1])[0]
        e2, h2 = _clause(rng)
        eng, hin = eng + [c_en] + e2, hin + [c_hi] + h2
    return eng, hin


def generate_pairs(n_pairs: int, seed: int = CORPUS_SEED, max_clauses: int = 5,
                   min_words: int = MIN_WORDS, max_words: int = MAX_WORDS):
    """Draw ``n_pairs`` distinct sentence pairs from the grammar (chapter 12's toy corpus).

    The number of clauses is drawn uniformly from 1..``max_clauses``, so short and long
    sentences are both common. English sentences are distinct; a sentence outside
    ``min_words``..``max_words`` words is drawn again.

    Args:
        n_pairs: how many pairs (>= 1).
        seed: seed of the ``random.Random`` that draws them; the same seed gives the same pairs.
        max_clauses: the most clauses in one sentence (>= 1).
        min_words, max_words: the allowed English lengths, inclusive.

    Returns:
        list of (english, hindi) strings, words separated by single spaces.

    Raises:
        ValueError: for a count below 1 or ``min_words > max_words``.
    """
    n_pairs = positive_int(n_pairs, "n_pairs")
    max_clauses = positive_int(max_clauses, "max_clauses")
    if positive_int(min_words, "min_words") > positive_int(max_words, "max_words"):
        raise ValueError(f"min_words ({min_words}) must not exceed max_words ({max_words})")
    rng = random.Random(seed)
    seen, pairs = set(), []
    while len(pairs) < n_pairs:
        eng, hin = sentence_pair(rng, rng.randint(1, max_clauses))
        key = " ".join(eng)
        if key in seen or not min_words <= len(eng) <= max_words:
            continue
        seen.add(key)
        pairs.append((key, " ".join(hin)))
    return pairs


def corpus_text(pairs) -> str:
    """The file format: one ``english<TAB>hindi`` line per pair, ending with a newline."""
    return "".join(f"{en}\t{hi}\n" for en, hi in pairs)


def load_pairs(split: str = "train"):
    """Read the committed corpus (``data/translation_train.tsv`` or ``..._test.tsv``).

    Args:
        split: "train" or "test".

    Returns:
        list of (english_words, hindi_words), each a list of str.

    Raises:
        ValueError: for another split name.
    """
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    path = TRAIN_FILE if split == "train" else TEST_FILE
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        en, hi = line.split("\t")
        pairs.append((en.split(), hi.split()))
    return pairs
