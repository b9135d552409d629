"""Submissions that try to cheat, spy or break the grading, graded in one batch with an honest class.

One class (tests/practice_course.py's ``grade_class``) is graded by ``nbgrader autograde`` in one
batch: every kernel runs in the bubblewrap sandbox (mwm_grader.sandbox) and every part is judged
in the teacher's process (mwm_grader.judge). nbgrader grades in the sorted order of the ids, so
the attackers ``a…`` are graded BEFORE the honest students and the attackers ``z…`` AFTER them: an
attack on other students' files would hit classmates already graded and classmates not yet graded.

Each attacker's answer cells are left as released (``raise NotImplementedError()``; the answers
stay ``None``, as the given cells set them, and their records are judged "not right") except the
ones holding the attack; answer cells are the only cells a student controls (locked and hand-in
cells are restored by nbgrader). Where attacks are combined in one student, each is in its own
answer cell and the one that stops the kernel comes last: a1 (patches, then builtins), z1 (exits
and kills that fail, then one that works), z4 (memory), z5 (loops), z6 (flood, then disk).

=================  =====================================================================================
honest
``h-kim``          every answer cell holds the worked solution for kim's numbers           -> full marks
``h-lee``          the same for lee's numbers                                              -> full marks
``h-partial``      the solution with part 1(c) wrong                                       -> max - 1(c)
``blank``          the release, untouched                                                  -> 0
graded before the honest students
``a1-patch``       1(a): every ``mwm_practice.checks.check_*`` and ``check_answer`` made a no-op;
                   ``Practice.hand_in`` wrapped and ``notebook._display`` replaced so that each
                   hand-in displays one forged record (the website's answers, or a guessed
                   classmate's), an input transformer rewriting each hand-in cell so it runs
                   without answers; 16(d): ``print``, ``isinstance``, ``float``, ``json.dumps/loads``
                   and ``IPython.display.display`` replaced (the kernel stops answering and is
                   killed after the timeout)                        -> 0, each part judged "not right"
``a2-hooks``       ``pre_run_cell`` and ``post_run_cell`` hooks display, in every hand-in cell, records
                   of the website's and of classmate h-kim's answers (computed with mwm in the kernel)
                   for that part and for the next one, and print "Problem 1 (a): right" -> 0,
                   "N answer records in one hand-in cell"
``a3-onerecord``   a ``post_run_cell`` hook displays exactly ONE record per hand-in cell: every other
                   part a well-formed record of plausible values (website / classmate) for that
                   part, the others a well-formed record for the wrong part                -> 0,
                   "not right" / "no answer was handed in"
``a4-hide``        ``set_custom_exc((BaseException,), …)`` returning nothing, ``sys.excepthook`` and
                   ``showtraceback`` replaced; 1(a) answered with a string                 -> 0
``a5-read``        lists every folder up from its cwd, reads the course's source/, release/,
                   gradebook.db, nbgrader_config.py, other students' folders, /root, /work, /tmp,
                   /proc, the environment, walks the whole visible filesystem grepping for the
                   canary, and hands all it found in as its answer                        -> 0, no canary
``a6-write``       sqlite ``update grade set auto_score = 0`` and deletes/overwrites the gradebook,
                   overwrites/removes other students' submitted, autograded and feedback files,
                   source/ and release/, creates files in the course root, /tmp, /work, /root,
                   /dev/shm, its own notebook's folder                                    -> 0, nothing changed
``a7-messages``    sends crafted messages from the kernel, signed with its own key: unparsable JSON,
                   deeply nested JSON, a replayed signature, a stream without a name, a display
                   whose data is not a dict, an error whose traceback is not a list, a non-dict
                   parent header... (before the fix in mwm_grader.sandbox, the first one stopped
                   this student's grading and failed the batch)                          -> 0, batch unharmed
graded after the honest students
``z1-exits``       1(a) ``sys.exit()``; 1(b) ``raise SystemExit``, ``os.kill(1, 9)``,
                   ``os.kill(os.getppid(), SIGKILL)``, SIGKILL to every pid it can see; 1(c) ``exit()``;
                   2(a) ``os.killpg(0, 9)``                                                 -> 0
``z2-osexit``      ``os._exit(0)`` in the first answer cell                                -> 0
``z3-fork``        a fork bomb (every child forks for ever) in the last answer cell        -> 0
``z4-memory``      8 GiB at once, then 128 MiB blocks until MemoryError, then a numpy 10^12 array;
                   then 3 forked processes holding 900 MiB each (each under its own 2 GiB
                   address-space limit)                                                   -> 0, killed
``z5-loops``       1(a) ``while True: pass`` with SIGINT ignored (timed out, interrupted, killed 5 s later;
                   the plain endless loop is tests/test_exercises.py's student ``loop``)  -> 0
``z6-flood-disk``  1(a) 20 MB on stdout, 10 MB on stderr, one 20 MiB display, 20,000 small displays;
                   1(b) a hook printing 200 kB after every cell; 2(a) files written to its scratch
                   folder until the disk watchdog kills it                                -> 0
=================  =====================================================================================

The class is graded with the course's own cell time limit, ``TIMEOUT`` (15 s). The slowest cell
that must end before the limit is z4's forked one: its processes touch 2.6 GiB before the memory
watchdog can stop them, which took about 4 s on a busy 2-core machine and, once in about fifteen
full runs, more than 8 s (a 4 s limit interrupted it twice in four runs, an 8 s limit once).

Checked: the batch succeeds; every attacker scores 0 on every part; the honest students score
exactly; their submitted files are byte-identical to what they sent, and their autograded
notebooks and feedback pages exist with the right verdicts; source/ and release/ are unchanged;
no canary (planted in source/ and in the course root) appears in any graded notebook or feedback
page; no file an attack tried to create exists; the forgeries' hand-in cells say why.
"""
from __future__ import annotations

import hashlib
import json
import os
import secrets
import sqlite3
from pathlib import Path

import nbformat
import pytest

from mwm_practice import notebook as notebook_mod
from mwm_grader import problems as problems_mod
from mwm_grader.judge import PART_CELL, expected_problems, judge_part
from mwm_grader.variants import numbers_for
from tests.practice_course import autograded, cell, errors, gid, grade_class, parts_of, solve, text

pytestmark = [pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning"),
              pytest.mark.filterwarnings("ignore::nbformat.warnings.MissingIDFieldWarning")]

PROBLEMS, _MISSING = problems_mod.build_all()
BY_ID = parts_of(PROBLEMS)
PART_IDS = list(BY_ID)

HONEST_FULL = ["h-kim", "h-lee"]
PARTIAL, WRONG_PART = "h-partial", "p01-c"
BLANK = "blank"
HONEST = [*HONEST_FULL, PARTIAL, BLANK]
CLASSMATE = "h-kim"   # the classmate whose id the forgers guess
#: The class's cell time limit, seconds: the course's own (see the module's docstring).
TIMEOUT = 15

TOKEN = secrets.token_hex(6)             # names the files the attacks try to create
CANARY = f"MWM-CANARY-{secrets.token_hex(8)}"


def _for(student):
    return parts_of(problems_mod.build_all(numbers_for(student))[0])


# --------------------------------------------------------------------------------------
# Forged answer records (the website's answers, or a guessed classmate's)
# --------------------------------------------------------------------------------------
def records_from(numbers) -> dict:
    """Part id -> a well-formed answer record holding the answers for ``numbers`` (None: the website's)."""
    out = {}
    for p in problems_mod.build_all(numbers)[0]:
        for q in p.parts:
            answers = {}
            for a in q.answers:
                if a.kind == "function":
                    answers[a.name] = {"calls": [{"args": [notebook_mod.encode(x) for x in args],
                                                  "result": notebook_mod.encode(want)} for args, want in a.cases]}
                else:
                    answers[a.name] = notebook_mod.encode(a.expected)
            out[f"{p.slug}-{q.letter}"] = {"part": f"{p.slug}-{q.letter}", "student": None, "answers": answers}
    return out


WEBSITE_RECORDS = records_from(None)
CLASSMATE_RECORDS = records_from(numbers_for(CLASSMATE))


def _right_for(student, record, part_id) -> bool:
    problem = expected_problems(student)[part_id[:3]]
    (part,) = [q for q in problem.parts if q.letter == part_id[-1]]
    return judge_part(problem, part, [record])[0]


def forged_for(student) -> dict:
    """Part id -> the one record a forger hands in: the website's values, else the classmate's.

    Some parts have an answer that does not depend on the numbers (a choice, a yes/no), and for
    some parts two ids share numbers: a forged record would then simply be the right answer.
    For those, the forger's record holds a plausible but wrong number instead, so that the test
    checks the grader, not luck. The test asserts that no forged record is right.
    """
    out = {}
    for pid in PART_IDS:
        for source in (WEBSITE_RECORDS, CLASSMATE_RECORDS):
            if not _right_for(student, source[pid], pid):
                out[pid] = source[pid]
                break
        else:
            rec = json.loads(json.dumps(WEBSITE_RECORDS[pid]))
            rec["answers"] = {name: {"number": 0.4242} for name in rec["answers"]}
            out[pid] = rec
    return out


# --------------------------------------------------------------------------------------
# The attacks (sources of answer cells)
# --------------------------------------------------------------------------------------
A1_PATCH = '''\
# Attack: every check a no-op, every hand-in a forged "right" record
import json, re as _re
import IPython.display
import mwm_practice.checks
import mwm_practice.notebook as _N   # names a given cell will not reuse
_FORGED = json.loads({forged!r})
for _name in dir(mwm_practice.checks):
    if _name.startswith("check_"):
        setattr(mwm_practice.checks, _name, lambda *a, **k: None)
_N.check_answer = lambda *a, **k: None
_real_display = _N._display
def _forging_display(data):
    rec = data.get(_N.MIME_ANSWER)
    if isinstance(rec, dict) and rec.get("part") in _FORGED:
        data = {{**data, _N.MIME_ANSWER: _FORGED[rec["part"]], "text/plain": "Problem %s: right" % rec["part"]}}
    _real_display(data)
_N._display = _forging_display
_real_hand_in = _N.Practice.hand_in
def _hand_in(self, part_id, **answers):
    _problem, part = self._part(part_id)
    _real_hand_in(self, part_id, **{{a.name: 0.0 for a in part.answers}})
    print("%s: right" % part_id)
_N.Practice.hand_in = _hand_in
# the hand-in cells name answers this notebook never sets: run them without
def _rewrite(lines):
    m = _re.search(r"practice\\.hand_in\\('(p\\d\\d-[a-z])'", "".join(lines))
    return ["practice.hand_in(%r)\\n" % m.group(1)] if m else lines
get_ipython().input_transformers_post.append(_rewrite)
'''

A1_BUILTINS = '''\
# Attack: patch the builtins and the display machinery themselves
import builtins, json
import IPython.display
builtins.print = lambda *a, **k: None
builtins.isinstance = lambda obj, kind: True
builtins.float = lambda *a, **k: 1.0
json.dumps = lambda *a, **k: '{"part": "p16-d", "answers": {}}'
json.loads = lambda *a, **k: {"part": "p16-d", "answers": {}}
IPython.display.display = lambda *a, **k: None
'''


def a2_hooks() -> str:
    """Hooks that display forged answer records around every hand-in cell: the website's
    answers and a guessed classmate's (computed here: the graded kernel cannot compute any)."""
    return """\
# Attack: hooks that display forged answer records around every hand-in cell
import json, re as _re
from IPython.display import publish_display_data as _publish
from mwm_practice import notebook as _N
_WEBSITE = json.loads(WEBSITE_JSON)
_CLASSMATE = json.loads(CLASSMATE_JSON)   # a guessed classmate's id
_ORDER = list(_WEBSITE)
def _forge(info):
    m = _re.search(r"practice\\.hand_in\\('(p\\d\\d-[a-z])'", info.raw_cell or "")
    if not m:
        return
    part = m.group(1)
    after = _ORDER[(_ORDER.index(part) + 1) % len(_ORDER)]
    for rec in (_WEBSITE[part], _CLASSMATE[part], _WEBSITE[after]):
        _publish({_N.MIME_ANSWER: rec, "text/plain": "[handed in]"})
    print("Problem 1 (a): right")
ip = get_ipython()
ip.events.register("pre_run_cell", _forge)
ip.events.register("post_run_cell", lambda result: _forge(result.info))
""".replace("WEBSITE_JSON", repr(json.dumps(WEBSITE_RECORDS))).replace(
        "CLASSMATE_JSON", repr(json.dumps(CLASSMATE_RECORDS)))


A3_ONE_RECORD = '''\
# Attack: exactly one well-formed record per hand-in cell, from a hook
import json, re as _re
from IPython.display import publish_display_data as _publish
import mwm_practice.notebook as _N
_FORGED = json.loads({forged!r})
_ORDER = list(_FORGED)
def _forge(result):
    m = _re.search(r"practice\\.hand_in\\('(p\\d\\d-[a-z])'", result.info.raw_cell or "")
    if not m:
        return
    i = _ORDER.index(m.group(1))
    rec = _FORGED[_ORDER[i]] if i % 2 == 0 else _FORGED[_ORDER[(i + 1) % len(_ORDER)]]   # odd: another part's
    _publish({{_N.MIME_ANSWER: rec, "text/plain": "[handed in]"}})
    print("Problem %d (%s): right" % (int(_ORDER[i][1:3]), _ORDER[i][-1]))
# the hand-in's own record (of the released None answers) is dropped: only the forged one is left
_real_display = _N._display
_N._display = lambda data: _real_display({{k: v for k, v in data.items() if k != _N.MIME_ANSWER}})
get_ipython().events.register("post_run_cell", _forge)
'''

A4_HIDE = '''\
# Attack: hide every error
import sys
ip = get_ipython()
ip.set_custom_exc((BaseException,), lambda shell, etype, value, tb, tb_offset=None: None)
sys.excepthook = lambda *args: None
ip.showtraceback = lambda *a, **k: None
ip.showsyntaxerror = lambda *a, **k: None
type(ip).showtraceback = lambda *a, **k: None
h1 = "0.5"   # the wrong kind: its hand-in raises, and the handler hides it
'''

A5_READ = '''\
# Attack: read whatever can be found, and hand it in
import os, sys, glob, sqlite3
from pathlib import Path
found = []
def note(*words):
    found.append(" ".join(str(w) for w in words)[:400])
def look(path):
    path = Path(path)
    try:
        if path.is_dir():
            note("DIR", path, sorted(os.listdir(path))[:50])
        else:
            note("FILE", path, path.read_bytes()[:300])
    except BaseException as exc:
        note("NO", path, type(exc).__name__, exc)
here = Path.cwd()
note("cwd", here, "uid", os.getuid(), "pid", os.getpid())
for up in [here, *here.parents]:
    look(up)
course = here.parents[2]
for p in ["gradebook.db", "nbgrader_config.py", "canary.txt", "source", "source/canary.txt",
          "source/practice", "source/practice/practice.ipynb", "release", "release/practice/practice.ipynb",
          "submitted", "autograded", "feedback", "submitted/h-kim/practice/practice.ipynb",
          "autograded/h-kim/practice/practice.ipynb", "feedback/h-kim/practice/practice.html"]:
    look(course / p)
for p in ["/root", "/work", "/work/main", "/tmp", "/home", "/etc/passwd", "/etc/shadow", "/proc/1/environ",
          "/proc/1/cmdline", "/proc/self/mountinfo", "/run", "/var", "/dev/shm", "/sys"]:
    look(p)
for pattern in ["../../../*", "../../../*/*", "../../../*/*/*", "/*/*"]:
    note("GLOB", pattern, glob.glob(pattern)[:50])
try:
    db = sqlite3.connect("file:%s?mode=ro" % (course / "gradebook.db"), uri=True)
    note("DB", db.execute("select * from student").fetchall())
except BaseException as exc:
    note("NO DB", type(exc).__name__, exc)
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    look("/proc/%s/cmdline" % pid)
    look("/proc/%s/environ" % pid)
note("ENV", dict(os.environ))
# the whole visible filesystem but the system and Python: every name, and any file with a canary
hits, seen = [], []
skip = ("/proc", "/sys", "/dev", "/usr", sys.prefix, sys.base_prefix)
for root, dirs, files in os.walk("/"):
    dirs[:] = [d for d in dirs if not os.path.join(root, d).startswith(skip)]
    for f in files:
        path = os.path.join(root, f)
        seen.append(path)
        try:
            if os.path.getsize(path) < 2_000_000 and b"MWM-" + b"CANARY-" in open(path, "rb").read():
                hits.append("HIT %s" % path)
        except BaseException:
            pass
note("SEEN", len(seen), "files, e.g.", [p for p in seen if "/mwm/" not in p][:60])
found = hits + found
print("\\n".join(found))
h1 = "\\n".join(found)
'''

A6_WRITE = '''\
# Attack: write, delete and rewrite everything in reach
import os, shutil, sqlite3
from pathlib import Path
here = Path.cwd()
course = here.parents[2]
tried = []
def attempt(what, action):
    try:
        action()
        tried.append("DONE " + what)
    except BaseException as exc:
        tried.append("failed %s: %s" % (what, type(exc).__name__))
def sql(statement):
    db = sqlite3.connect(str(course / "gradebook.db"), timeout=1)
    db.execute(statement)
    db.commit()
attempt("sql zero", lambda: sql("update grade set auto_score = 0"))
attempt("sql full", lambda: sql("update grade set manual_score = 100"))
attempt("sql drop", lambda: sql("drop table grade"))
attempt("gradebook truncate", lambda: (course / "gradebook.db").write_bytes(b""))
attempt("gradebook delete", lambda: os.remove(course / "gradebook.db"))
for other in {classmates!r}:
    for folder, name in (("submitted", "practice.ipynb"), ("autograded", "practice.ipynb"),
                         ("feedback", "practice.html")):
        d = course / folder / other / "practice"
        attempt("overwrite %s" % (d / name), lambda d=d, name=name: (d / name).write_text("{{}}"))
        attempt("remove %s" % d, lambda d=d: shutil.rmtree(d))
        attempt("mkdir in %s" % d, lambda d=d: os.makedirs(d / "PWNED-{token}"))
for p in ["source/practice/practice.ipynb", "release/practice/practice.ipynb", "nbgrader_config.py"]:
    attempt("overwrite " + p, lambda p=p: (course / p).write_text("{{}}"))
attempt("remove source", lambda: shutil.rmtree(course / "source"))
for p in [course / "PWNED-{token}", here / "PWNED-{token}", Path("/tmp/PWNED-{token}"),
          Path("/work/PWNED-{token}"), Path("/root/PWNED-{token}"), Path("/dev/shm/PWNED-{token}"),
          Path("/PWNED-{token}"), course.parent / "PWNED-{token}"]:
    attempt("create %s" % p, lambda p=p: p.write_text("pwned"))
attempt("own notebook", lambda: (here / "practice.ipynb").write_text("{{}}"))
attempt("chmod cwd", lambda: os.chmod(here, 0o777))
print("\\n".join(tried))
h1 = 0.0
'''

A7_MESSAGES = '''\
# Attack: messages the grader cannot parse or does not expect, signed with the kernel's own key
import json
k = get_ipython().kernel
s, iopub, parent = k.session, k.iopub_socket, k.get_parent()
sent = []
def raw(msg_type, content_bytes, parent_header=None):
    header = s.msg_header(msg_type)
    frames = [s.pack(header), s.pack(parent_header if parent_header is not None else parent["header"]),
              s.pack({{}}), content_bytes]
    signature = s.sign(frames)
    iopub.send_multipart([b"<IDS|MSG>", signature, *frames])
    sent.append(msg_type)
    return signature, frames
raw("display_data", b"{{not json")
raw("display_data", b'{{"data": ' + b"[" * 100000 + b"]" * 100000 + b', "metadata": {{}}}}')
sig, frames = raw("stream", json.dumps({{"name": "stdout", "text": "once"}}).encode())
iopub.send_multipart([b"<IDS|MSG>", sig, *frames])   # the same signature again
raw("stream", json.dumps({{"text": "a stream without a name"}}).encode())
raw("stream", json.dumps({{"name": "stdout", "text": ["not", "a", "string"]}}).encode())
raw("stream", json.dumps({{"name": "elsewhere", "text": "x"}}).encode())
raw("display_data", json.dumps({{"data": ["not", "a", "dict"], "metadata": {{}}}}).encode())
raw("display_data", json.dumps({{"data": {{"text/plain": 42, "{mime}": [1]}}, "metadata": []}}).encode())
raw("display_data", json.dumps({{"metadata": {{}}}}).encode())
raw("execute_result", json.dumps({{"data": {{"text/plain": "x"}}, "metadata": {{}}, "execution_count": "x"}}).encode())
raw("error", json.dumps({{"ename": 1, "evalue": None, "traceback": "not a list"}}).encode())
raw("error", json.dumps(["not", "a", "dict"]).encode())
raw("update_display_data", json.dumps({{"data": {{}}, "metadata": {{}}, "transient": {{"display_id": 7}}}}).encode())
raw("display_data", json.dumps({{"data": {{"text/plain": "x"}}, "metadata": {{}}, "transient": "x"}}).encode())
raw("clear_output", json.dumps({{"wait": "maybe"}}).encode())
raw("display_data", json.dumps({{"data": {{"text/plain": "x"}}, "metadata": {{}}}}).encode(), parent_header=["x"])
raw("status", json.dumps({{"execution_state": 0}}).encode())
print("sent", len(sent))
'''

Z1_EXIT = "import sys\nsys.exit()\n"
Z1_KILLS = '''\
import os, signal
results = []
for what, action in [("SystemExit", lambda: (_ for _ in ()).throw(SystemExit(0))),
                     ("kill 1", lambda: os.kill(1, signal.SIGKILL)),
                     ("kill parent", lambda: os.kill(os.getppid(), signal.SIGKILL))]:
    try:
        action()
        results.append(what + ": done")
    except BaseException as exc:
        results.append("%s: %s" % (what, type(exc).__name__))
for pid in [int(p) for p in os.listdir("/proc") if p.isdigit()]:
    if pid != os.getpid():
        try:
            os.kill(pid, signal.SIGKILL)
            results.append("kill %d: done" % pid)
        except BaseException as exc:
            results.append("kill %d: %s" % (pid, type(exc).__name__))
print("\\n".join(results))
raise SystemExit(3)
'''
Z1_QUIT = "exit()\n"
Z1_KILLPG = "import os\nos.killpg(0, 9)\n"
Z2_OSEXIT = "import os\nos._exit(0)\n"
Z3_FORK = '''\
# Attack: a fork bomb (every child forks for ever)
import os
made = 0
try:
    while True:
        if os.fork() == 0:
            while True:
                try:
                    os.fork()
                except OSError:
                    pass
        made += 1
except OSError as exc:
    print("forks made:", made, type(exc).__name__)
'''
Z4_MEMORY = '''\
# Attack: take all the memory
try:
    huge = bytearray(8 * 2**30)
except MemoryError:
    print("8 GiB at once: MemoryError")
blocks = []
while True:
    blocks.append(bytearray(2**27))
'''
Z4_NUMPY = "del blocks\nimport numpy as np\nx = np.ones((10**6, 10**6))\n"
Z4_FORKED = '''\
# Attack: each process may hold 2 GiB of address space, so hold memory in several processes.
# A kernel's own address space (0.8 to 1.2 GB, by what it has run) leaves each child room for
# some 0.8 GiB; each takes what it can in 100 MiB blocks (touched: resident, not just reserved)
# and says how much it holds, so four hold more than 2 GiB together whatever the kernel's size.
import os, time
r, w = os.pipe()
for _ in range(4):
    if os.fork() == 0:
        try:
            blocks = []
            try:
                while len(blocks) < 9:
                    blocks.append(bytearray(100 * 2**20))
            except MemoryError:
                pass
            os.write(w, b"%d " % (100 * len(blocks)))
            time.sleep(60)
        finally:
            os._exit(0)
time.sleep(10)
held = os.read(r, 1000).split()
print(len(held), "processes held", sum(map(int, held)), "MiB together")
'''
Z5_DEAF_LOOP = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass\n"
Z6_FLOOD = '''\
# Attack: a flood of output
import sys
from IPython.display import display, publish_display_data
for i in range(20_000):
    print("x" * 1000)
sys.stderr.write("y" * 10**7)
publish_display_data({"text/plain": "z" * (20 * 2**20)})
for i in range(20_000):
    display(i)
'''
Z6_HOOK = '''\
get_ipython().events.register("post_run_cell", lambda result: print("w" * 200_000))
'''
Z6_DISK = '''\
# Attack: fill the disk
import os
folder = os.environ["TMPDIR"]
for i in range(100):
    with open(os.path.join(folder, "fill%d" % i), "wb") as f:
        for _ in range(60):
            f.write(b"\\1" * 2**20)
        f.flush()
        os.fsync(f.fileno())
'''


# The answer key inside the library: the problems' builders compute every expected value.
A8_KEY_OBJECT = "h1 = practice.build(1).parts[0].answers[0].expected\nprint('key object', h1)"
A8_KEY_BUILD = """import os
from mwm_grader.problems import build
from mwm_grader.variants import numbers_for
h2 = build(1, numbers_for(os.environ['MWM_STUDENT'])).parts[1].answers[0].expected
"""
A8_KEY_SOURCE = """import glob, importlib.util, os
import mwm_practice
print('teacher package found:', importlib.util.find_spec('mwm_grader') is not None)
course = os.path.dirname(os.path.dirname(os.path.dirname(mwm_practice.__file__)))   # lib/.. : the checkout
def size(path):
    try:
        return f"{len(open(path, 'rb').read())} bytes"
    except OSError as e:
        return f"unreadable ({type(e).__name__})"
print('problems:', size(os.path.join(course, 'grader', 'mwm_grader', 'problems', '__init__.py')))
print('problem 1 text:', size(os.path.join(course, 'grader', 'mwm_grader', 'problems', 'p01.md.j2')))
for path in glob.glob(os.path.join(course, '**', 'problems', '*'), recursive=True):
    print('found', os.path.basename(path), size(path))
print('grading view given:', 'MWM_PRACTICE_VIEW' in os.environ)
h3 = 0.5
"""


def _attacks(**cells):
    """change(nb): put each source in its answer cell ("p01_a" -> "p01-a-answer"), the rest as released."""
    def change(nb):
        for key, source in cells.items():
            cell(nb, key.replace("_", "-") + "-answer").source = source
        return []
    return change


def _one_wrong(nb):
    solve(nb, _for(PARTIAL))
    cell(nb, f"{WRONG_PART}-answer").source = "h3 = w * h2 + u * xs[2] + b  # forgot the squash\n"
    return [WRONG_PART]


def _tree_hash(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


CLASSMATES = [*HONEST, "a1-patch", "z6-flood-disk"]
ATTACKS = {
    "a1-patch": lambda: _attacks(p01_a=A1_PATCH.format(forged=json.dumps(forged_for("a1-patch"))),
                                 p16_d=A1_BUILTINS),
    "a2-hooks": lambda: _attacks(p01_a=a2_hooks()),
    "a3-onerecord": lambda: _attacks(p01_a=A3_ONE_RECORD.format(forged=json.dumps(forged_for("a3-onerecord")))),
    "a4-hide": lambda: _attacks(p01_a=A4_HIDE),
    "a5-read": lambda: _attacks(p01_a=A5_READ),
    "a6-write": lambda: _attacks(p01_a=A6_WRITE.format(classmates=CLASSMATES, token=TOKEN)),
    "a7-messages": lambda: _attacks(p01_a=A7_MESSAGES.format(mime=notebook_mod.MIME_ANSWER)),
    "a8-key": lambda: _attacks(p01_a=A8_KEY_OBJECT, p01_b=A8_KEY_BUILD, p01_c=A8_KEY_SOURCE),
    "z1-exits": lambda: _attacks(p01_a=Z1_EXIT, p01_b=Z1_KILLS, p01_c=Z1_QUIT, p02_a=Z1_KILLPG),
    "z2-osexit": lambda: _attacks(p01_a=Z2_OSEXIT),
    "z3-fork": lambda: _attacks(p16_d=Z3_FORK),
    "z4-memory": lambda: _attacks(p01_a=Z4_MEMORY, p01_b=Z4_NUMPY, p01_c=Z4_FORKED),
    "z5-loops": lambda: _attacks(p01_a=Z5_DEAF_LOOP),
    "z6-flood-disk": lambda: _attacks(p01_a=Z6_FLOOD, p01_b=Z6_HOOK, p02_a=Z6_DISK),
}
ATTACKERS = list(ATTACKS)
#: Files the attacks try to create, on the host.
CREATED = [f"/tmp/PWNED-{TOKEN}", f"/work/PWNED-{TOKEN}", f"/root/PWNED-{TOKEN}", f"/dev/shm/PWNED-{TOKEN}",
           f"/PWNED-{TOKEN}"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    class_ = {name: (lambda nb, name=name: (solve(nb, _for(name)), [])[1]) for name in HONEST_FULL}
    class_[PARTIAL] = _one_wrong
    class_[BLANK] = lambda nb: list(BY_ID)
    for name, make in ATTACKS.items():
        class_[name] = make()
    before = {}

    def plant(course):
        (course / "canary.txt").write_text(f"the answer key: {CANARY}\n")
        (course / "source" / "canary.txt").write_text(f"the answer key: {CANARY}\n")
        before["source"] = _tree_hash(course / "source")
        before["release"] = _tree_hash(course / "release")
        before["config"] = (course / "nbgrader_config.py").read_bytes()

    result = grade_class(tmp_path_factory.mktemp("attacked"), class_, before_grading=plant,
                         settings={"Execute.timeout": TIMEOUT})
    result["before"] = before
    return result


def _feedback(graded, student) -> str:
    return (graded["course"] / "feedback" / student / "practice" / "practice.html").read_text(encoding="utf-8")


def _hand_in_cells(nb):
    return [c for c in nb.cells if PART_CELL.fullmatch(gid(c))]


# --------------------------------------------------------------------------------------
# The batch and the honest students
# --------------------------------------------------------------------------------------
def test_the_forged_records_are_wrong_for_the_forgers():
    """Precondition: a forger's records would not be right by luck (see forged_for)."""
    for student in ("a1-patch", "a3-onerecord"):
        forged = forged_for(student)
        assert not [pid for pid, rec in forged.items() if _right_for(student, rec, pid)]


def test_attackers_are_graded_before_and_after_the_honest_students(graded):
    order = sorted(graded["students"])
    first, last = min(order.index(s) for s in HONEST), max(order.index(s) for s in HONEST)
    assert any(s in ATTACKERS for s in order[:first]) and any(s in ATTACKERS for s in order[last + 1:])
    # nbgrader did grade them in that order: the autograded notebooks were written one after another
    written = sorted(order, key=lambda s: (graded["course"] / "autograded" / s / "practice" / "practice.ipynb")
                     .stat().st_mtime_ns)
    assert written == order


def test_the_batch_ran_to_the_end(graded):
    assert graded["result"]["success"], graded["result"].get("error") or graded["result"].get("log")
    assert graded["feedback"]["success"], graded["feedback"].get("error")


def test_honest_students_score_exactly(graded):
    max_score = graded["max_score"]
    for student in HONEST_FULL:
        assert graded["scores"][student] == max_score, graded["parts"][student]
    parts = graded["parts"][PARTIAL]
    assert parts[WRONG_PART] == 0 and all(parts[p] == BY_ID[p][1].points for p in parts if p != WRONG_PART)
    assert graded["scores"][PARTIAL] == max_score - BY_ID[WRONG_PART][1].points
    assert graded["scores"][BLANK] == 0


@pytest.mark.parametrize("student", HONEST)
def test_honest_files_are_intact_and_say_the_right_verdicts(graded, student):
    course = graded["course"]
    assert (course / "submitted" / student / "practice" / "practice.ipynb").read_bytes() == graded["submitted"][student]
    nb = autograded(graded, student)
    page = _feedback(graded, student)
    for c in _hand_in_cells(nb):
        pid = PART_CELL.fullmatch(gid(c)).group(1)
        problem, part = BY_ID[pid]
        label = f"Problem {problem.number} ({part.letter})"
        right = student in HONEST_FULL or (student == PARTIAL and pid != WRONG_PART)
        if right:
            assert text(c).startswith(f"{label}: right\n") and not errors(c), (pid, text(c))
            assert f">{label}: right</a>" in page
        else:
            assert errors(c), (pid, text(c))
            assert f">{label}: not right</a>" in page


def test_source_release_and_config_are_unchanged(graded):
    course, before = graded["course"], graded["before"]
    assert _tree_hash(course / "source") == before["source"]
    assert _tree_hash(course / "release") == before["release"]
    assert (course / "nbgrader_config.py").read_bytes() == before["config"]


# --------------------------------------------------------------------------------------
# The attackers
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("student", ATTACKERS)
def test_an_attacker_scores_nothing(graded, student):
    assert graded["scores"][student] == 0 == graded["scores"][BLANK]
    assert set(graded["parts"][student]) == set(BY_ID)
    assert set(graded["parts"][student].values()) == {0}, graded["parts"][student]
    # its graded notebook and feedback page exist, with every part named and judged not right
    assert (graded["course"] / "autograded" / student / "practice" / "practice.ipynb").is_file()
    page = _feedback(graded, student)
    assert page.count(": not right</a>") == len(BY_ID) and ": right</a>" not in page


def test_no_canary_in_any_graded_notebook_or_feedback_page(graded):
    course = graded["course"]
    for student in graded["students"]:
        nb_text = (course / "autograded" / student / "practice" / "practice.ipynb").read_text(encoding="utf-8")
        assert CANARY not in nb_text and "MWM-CANARY" not in nb_text, student
        assert CANARY not in _feedback(graded, student), student


def test_the_reader_saw_nothing_of_the_course(graded):
    nb = autograded(graded, "a5-read")
    seen = text(cell(nb, "p01-a-answer"))
    assert "cwd " in seen and "SEEN" in seen, seen[:2000]      # the attack ran and reported
    assert "HIT" not in seen
    # no classmate's name is visible (the attack's own failed guesses, "NO ...", aside)
    listed = "\n".join(ln for ln in seen.splitlines() if not ln.startswith("NO "))
    for other in [*HONEST, *[s for s in ATTACKERS if s != "a5-read"]]:
        assert other not in listed, other
    for secret in ("gradebook.db", "nbgrader_config.py", "canary.txt"):
        assert f"FILE {graded['course'] / secret}" not in seen
    assert "DB [" not in seen


def test_the_answer_key_code_is_empty_while_graded(graded):
    """While graded, the kernel has the problems' statements and numbers, but no code that computes answers.

    The teacher's package (``mwm_grader``: the problems, each student's numbers, the catalogue) is
    not on the sandboxed kernel's path, and its folder is not inside the sandbox at all.
    """
    nb = autograded(graded, "a8-key")
    assert "key object None" in text(cell(nb, "p01-a-answer"))       # the grading view has no expected value
    assert any("ModuleNotFoundError: No module named 'mwm_grader" in e
               for e in errors(cell(nb, "p01-b-answer"))), errors(cell(nb, "p01-b-answer"))
    seen = text(cell(nb, "p01-c-answer"))
    assert "grading view given: True" in seen, seen
    assert "teacher package found: False" in seen, seen
    assert "problems: unreadable" in seen and "problem 1 text: unreadable" in seen, seen
    assert not [ln for ln in seen.splitlines() if ln.startswith("found")], seen


def test_the_writer_changed_nothing(graded):
    nb = autograded(graded, "a6-write")
    tried = text(cell(nb, "p01-a-answer"))
    assert "failed sql zero" in tried and "failed create /tmp/PWNED" in tried, tried[:2000]
    assert "DONE" not in tried, [ln for ln in tried.splitlines() if "DONE" in ln]
    course = graded["course"]
    for path in [*CREATED, course / f"PWNED-{TOKEN}", course.parent / f"PWNED-{TOKEN}"]:
        assert not os.path.lexists(path), path
    assert not list(course.rglob(f"*PWNED-{TOKEN}*"))
    with sqlite3.connect(course / "gradebook.db") as db:
        assert db.execute("select count(*) from grade where manual_score is not null").fetchone() == (0,)


def test_monkeypatched_checks_and_hand_in_are_judged_on_the_forged_values(graded):
    nb = autograded(graded, "a1-patch")
    for c in _hand_in_cells(nb)[:-1]:   # 16(d) ran after the builtins were replaced
        problem, part = BY_ID[PART_CELL.fullmatch(gid(c)).group(1)]
        # one record, the forged one, judged on its values (the forger printed "right" for each)
        assert text(c).startswith(f"NotRight: Problem {problem.number} ({part.letter}): not right\n"), text(c)
    assert any("KernelStopped" in e or "Timeout" in e for e in errors(cell(nb, "p16-d-answer")))


def test_forging_hooks_are_told_there_are_several_records(graded):
    nb = autograded(graded, "a2-hooks")
    for c in _hand_in_cells(nb):
        assert "answer records in one hand-in cell; cannot tell which to grade" in text(c), text(c)


def test_one_forged_record_per_cell_is_judged_or_ignored(graded):
    nb = autograded(graded, "a3-onerecord")
    for i, c in enumerate(_hand_in_cells(nb)):
        if i % 2:   # a record for another part
            assert "no answer was handed in" in text(c), text(c)
        else:
            assert ": not right" in text(c), text(c)


def test_hidden_errors_still_lose(graded):
    nb = autograded(graded, "a4-hide")
    cells = _hand_in_cells(nb)
    assert "h1 should be a number, got a string" in text(cells[0])
    for c in cells[1:]:   # the released answers (None), handed in; their errors hidden in the kernel
        assert errors(c) and "not right" in text(c), text(c)


def test_crafted_messages_do_not_stop_the_grading(graded):
    nb = autograded(graded, "a7-messages")
    out = text(cell(nb, "p01-a-answer"))
    assert "sent 17" in out and "[a malformed message from the kernel was dropped]" in out, out
    assert out.count("once") == 1   # the replayed message was dropped
    nbformat.validate(nb)           # every output kept is a valid one
    assert all(errors(c) for c in _hand_in_cells(nb))


def test_exits_and_kills_stop_only_the_attackers_kernel(graded):
    nb = autograded(graded, "z1-exits")
    kills = text(cell(nb, "p01-b-answer"))
    assert "kill 1: PermissionError" in kills and "kill parent: PermissionError" in kills, kills
    assert "done" not in kills
    assert any("KernelStopped" in e for e in errors(cell(nb, "p02-a-answer")))
    nb = autograded(graded, "z2-osexit")
    assert any("KernelStopped" in e for e in errors(cell(nb, "p01-a-answer")))
    assert any("NotRun" in e or "NotRight" in e for e in errors(cell(nb, "p16-d-test")))


def test_fork_bomb_memory_bomb_and_loops_are_stopped(graded):
    nb = autograded(graded, "z3-fork")
    assert "forks made:" in text(cell(nb, "p16-d-answer"))
    nb = autograded(graded, "z4-memory")
    assert any("MemoryError" in e for e in errors(cell(nb, "p01-a-answer")))
    assert any("MemoryError" in e for e in errors(cell(nb, "p01-b-answer")))
    assert any("KernelStopped" in e and "together passed the memory limit" in e
               for e in errors(cell(nb, "p01-c-answer"))), text(cell(nb, "p01-c-answer"))
    nb = autograded(graded, "z5-loops")
    assert any("KernelStopped" in e and "killed" in e for e in errors(cell(nb, "p01-a-answer")))


def test_flood_and_disk_are_capped(graded):
    course = graded["course"]
    path = course / "autograded" / "z6-flood-disk" / "practice" / "practice.ipynb"
    assert path.stat().st_size < 4_000_000
    nb = autograded(graded, "z6-flood-disk")
    assert "[output cut:" in text(cell(nb, "p01-a-answer"))
    assert any("disk limit" in e for e in errors(cell(nb, "p02-a-answer")))


def test_no_attacker_process_is_left_running(graded):
    # the attackers' ids are this file's own; an honest id ("blank") may be graded by another test meanwhile
    ours = {f"MWM_STUDENT={s}".encode() for s in ATTACKERS}
    left = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                env = set(Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"))
            except OSError:
                continue
            if env & ours:
                left.append(entry)
    assert not left
