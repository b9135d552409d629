"""The grading sandbox (mwm_grader.sandbox): real sandboxed kernels attacked by small notebooks.

Each test builds a notebook in a temporary folder and runs it through ``SandboxedExecute``
(nbgrader's ``Execute`` preprocessor in the sandbox), as ``nbgrader autograde`` would, then
checks the outputs and the host. Kernels start in about a second; checks share a notebook
where they can. Without bubblewrap the tests are skipped with a message;
``MWM_REQUIRE_SANDBOX=1`` (``.ci/run`` sets it) makes that an error.
"""
import json
import os
import sys
import socket
import threading
from pathlib import Path

import pytest
from nbformat.v4 import new_code_cell, new_notebook
from traitlets.config import Config

from mwm_grader import sandbox as sb
from mwm_grader.sandbox import (SandboxedExecute, SandboxRefused, SandboxUnavailable,
                                  why_no_sandbox)

ROOT = Path(__file__).resolve().parents[1]
AS_ROOT = os.geteuid() == 0


_WHY_NOT = why_no_sandbox()
if _WHY_NOT and os.environ.get("MWM_REQUIRE_SANDBOX") == "1":
    raise RuntimeError("MWM_REQUIRE_SANDBOX=1 but the sandbox cannot run: " + _WHY_NOT)
needs_sandbox = pytest.mark.skipif(bool(_WHY_NOT), reason=f"no sandbox here ({_WHY_NOT})")


@pytest.fixture()
def nbdir(tmp_path):
    """A notebook folder (readable by others, as nbgrader leaves it), a sibling folder with a secret, a file."""
    tmp_path.chmod(0o755)
    folder = tmp_path / "alice" / "practice"
    folder.mkdir(parents=True)
    (tmp_path / "alice").chmod(0o755)
    folder.chmod(0o755)
    (folder / "data.txt").write_text("the notebook's own data\n")
    (folder / "data.txt").chmod(0o644)
    sibling = tmp_path / "alice" / "other"
    sibling.mkdir(mode=0o755)
    (sibling / "secret.txt").write_text("another student's work\n")
    (sibling / "secret.txt").chmod(0o644)
    return folder


def run(folder, cells, student="alice", config=None, **kw):
    """Run ``cells`` (code strings) in the sandbox with ``folder`` as the notebook's folder; the notebook back."""
    nb = new_notebook(cells=[new_code_cell(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    kw.setdefault("timeout", 15)
    ep = SandboxedExecute(config=config or Config(), **kw)
    resources = {"metadata": {"path": str(folder)}, "nbgrader": {"student": student}}
    nb, _ = ep.preprocess(nb, resources)
    return nb


def text(cell) -> str:
    """Everything a cell printed or raised, as one string."""
    parts = []
    for o in cell.outputs:
        if o.output_type == "stream":
            parts.append(o.text)
        elif o.output_type == "error":
            parts.append(f"{o.ename}: {o.evalue}")
        else:
            parts.append(str(o.get("data", {}).get("text/plain", "")))
    return "".join(parts)


def result(cell):
    """The JSON a cell printed on its last line."""
    return json.loads(text(cell).strip().splitlines()[-1])


PROBE = r"""
import json, os
def can_read(p):
    try:
        if os.path.isdir(p):
            os.listdir(p)
        else:
            open(p, 'rb').read(1)
        return True
    except OSError:
        return False
def can_write(p):
    try:
        with open(p, 'w') as f:
            f.write('x')
        return True
    except OSError:
        return False
"""


# ----------------------------------------------------------------------------------------------


@needs_sandbox
def test_computes_reads_only_what_it_may_and_writes_only_scratch(nbdir, monkeypatch):
    """numpy and mwm work; the notebook's folder is read-only; nothing else of the host is there."""
    monkeypatch.setenv("MWM_TEST_TEACHER_SECRET", "do-not-leak")
    sibling = nbdir.parent / "other" / "secret.txt"
    exercises = ROOT / "exercises"
    host_root = set(os.listdir("/root")) if os.access("/root", os.R_OK) else set()
    nb = run(nbdir, [
        "import json, numpy as np, mwm\n"
        "print(json.dumps({'mwm': mwm.__file__, 'det': float(np.linalg.det(np.eye(3) * 2)),"
        " 'sig': float(mwm.sigmoid(np.array(0.0)))}))",
        PROBE + f"""
print(json.dumps({{
  'own': open('data.txt').read(), 'cwd': os.getcwd(),
  'sibling': can_read({str(sibling)!r}), 'sibling_dir': can_read({str(sibling.parent)!r}),
  'exercises': can_read({str(exercises)!r}), 'instructor': can_read({str(exercises / 'source')!r}),
  'gradebook': can_read({str(exercises / 'gradebook.db')!r}), 'repo': can_read({str(ROOT / 'README.md')!r}),
  'root': sorted(os.listdir('/root')) if os.path.isdir('/root') else [],
  'home_dirs': can_read('/home'), 'host_etc_passwd': can_read('/etc/passwd'),
  'uid': os.getuid(), 'tmp': sorted(os.listdir('/tmp')),
  'checkout': sorted(os.listdir({str(ROOT)!r})) if os.path.isdir({str(ROOT)!r}) else [],
}}))""",
        PROBE + """
home = os.environ['HOME']
print(json.dumps({
  'nb_folder': can_write('written.txt'), 'root': can_write('/x'), 'tmp': can_write('/tmp/x'),
  'dev_shm': can_write('/dev/shm/x'), 'usr': can_write('/usr/x'), 'venv': can_write(os.__file__ + '.x'),
  'home': can_write(home + '/ok.txt'), 'tmpdir': can_write(os.environ['TMPDIR'] + '/ok.txt'),
  'mkdir_root': can_write('/etc/x'), 'scratch': os.path.dirname(home),
}))""",
        "import os, errno\n"
        "try:\n"
        "    with open(os.environ['HOME'] + '/big', 'wb') as f:\n"
        "        f.write(b'0' * (80 * 2**20))\n"
        "    print('big file written')\n"
        "except OSError as e:\n"
        "    print('big file refused', errno.errorcode[e.errno])",
        "import json, os; print(json.dumps(dict(os.environ)))",
    ])
    compute, reads, writes = result(nb.cells[0]), result(nb.cells[1]), result(nb.cells[2])
    assert compute["det"] == pytest.approx(8.0) and compute["sig"] == 0.5
    assert compute["mwm"] == str(ROOT / "lib" / "mwm" / "__init__.py")  # this checkout's mwm, through PYTHONPATH
    assert reads["own"] == "the notebook's own data\n" and reads["cwd"] == str(nbdir)
    assert not reads["sibling"] and not reads["sibling_dir"]
    assert not reads["exercises"] and not reads["instructor"] and not reads["gradebook"] and not reads["repo"]
    assert not reads["home_dirs"] and not reads["host_etc_passwd"]
    # /root and /tmp hold, of the host, only the path down to what is shown: the library of this
    # checkout and its Python environment (a clone in /root/... or /tmp/..., a Python of pyenv's in
    # /root/.pyenv); /tmp also the scratch folder and the notebook's folder
    shown = [ROOT / "lib", Path(sys.prefix), Path(sys.base_prefix)]

    def down_to(top):
        return {p.resolve().parts[2] for p in shown if p.resolve().parts[:2] == ("/", top) and len(p.resolve().parts) > 2}

    assert set(reads["root"]) <= down_to("root") and not (set(reads["root"]) & (host_root - down_to("root"))), reads["root"]
    assert not set(reads["tmp"]) - {os.path.basename(writes["scratch"]), nbdir.parts[2], *down_to("tmp")}, reads["tmp"]
    # of the checkout itself, only the library (and the Python environment, where it lives inside)
    assert set(reads["checkout"]) <= {"lib", ".venv"}, reads["checkout"]
    if AS_ROOT:
        assert reads["uid"] != 0
    assert writes == {**writes, "nb_folder": False, "root": False, "tmp": False, "dev_shm": False, "usr": False,
                      "venv": False, "mkdir_root": False, "home": True, "tmpdir": True}
    assert not (nbdir / "written.txt").exists()
    assert "big file refused EFBIG" in text(nb.cells[3])
    env = result(nb.cells[4])
    assert "MWM_TEST_TEACHER_SECRET" not in env and "do-not-leak" not in json.dumps(env)
    assert env["MWM_STUDENT"] == "alice"
    assert env["HOME"].startswith(writes["scratch"]) and env["LANG"] == "C.UTF-8"
    assert env["OPENBLAS_NUM_THREADS"] == "1" and env["MPLBACKEND"] == "Agg"
    assert env["PYTHONPATH"] == str(ROOT / "lib")
    assert not Path(writes["scratch"]).exists()  # removed at shutdown


@needs_sandbox
def test_no_network(nbdir):
    """A TCP server on the host's 127.0.0.1 cannot be reached (the sandbox has its own, empty network)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    accepted = []
    done = threading.Event()

    def accept():
        while not done.is_set():
            try:
                accepted.append(server.accept())
            except OSError:
                pass

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    nb = run(nbdir, [f"""
import socket, errno
try:
    socket.create_connection(('127.0.0.1', {port}), timeout=2)
    print('connected')
except OSError as e:
    print('refused', errno.errorcode.get(e.errno, e))
try:
    socket.create_connection(('1.1.1.1', 80), timeout=2)
    print('outside')
except OSError as e:
    print('no route', e)
"""])
    done.set()
    t.join()
    server.close()
    assert "refused" in text(nb.cells[0]) and "connected" not in text(nb.cells[0])
    assert "no route" in text(nb.cells[0])
    assert accepted == []


@needs_sandbox
def test_fork_bomb_is_contained(nbdir):
    """Forks fail at the process limit, the next cell still runs, and no process is left after shutdown."""
    nb = run(nbdir, [
        "import os; print(os.getuid(), os.getpid())",
        """
import os, time
n = 0
try:
    while True:
        if os.fork() == 0:
            while True:          # every child forks too, and never returns
                try:
                    os.fork()
                except OSError:
                    time.sleep(0.05)
        n += 1
except OSError as e:
    print('fork failed after', n, 'children:', e.strerror)
""",
        "print('still graded', True)",
        # what the bomb's cell started is gone: besides bwrap's init and the kernel, only zombies
        "alive = [p for p in os.listdir('/proc') if p.isdigit() and int(p) not in (1, os.getpid())\n"
        "         and open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[0] != 'Z']\n"
        "print('left running:', len(alive))",
    ])
    uid, _ = map(int, text(nb.cells[0]).split())
    assert "fork failed after" in text(nb.cells[1])
    assert "still graded True" in text(nb.cells[2])
    if AS_ROOT:  # strays are killed after each cell (the sandbox's own uid tells them apart)
        assert "left running: 0" in text(nb.cells[3])
        assert uid != 0
        assert sb._pids_of_uid(uid) == []          # shutdown returns once the uid's processes are gone


@needs_sandbox
def test_memory_bomb(nbdir):
    """One huge allocation and a growing list both end in MemoryError; the test process is untouched."""
    c = Config()
    c.SandboxedKernelManager.memory_limit = 1 * 2**30
    nb = run(nbdir, [
        "x = bytearray(3 * 2**30)",
        "chunks = []\nwhile True:\n    chunks.append(bytearray(50 * 2**20))",
        "del chunks; print('alive')",
    ], config=c)
    assert "MemoryError" in text(nb.cells[0])
    out = text(nb.cells[1])
    assert "MemoryError" in out or "KernelStopped" in out
    if "MemoryError" in out:
        assert "alive" in text(nb.cells[2])


@needs_sandbox
def test_endless_loops_cost_one_cell(nbdir):
    """A loop that runs past the timeout is interrupted and the next cell runs; one that ignores the
    interrupt is killed, reported, and the rest is not run (its graded cells are marked)."""
    nb = run(nbdir, [
        "while True:\n    pass",
        "print('next cell ran')",
        "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    time.sleep(0.01)",
        "print('never')",
    ], timeout=2, interrupt_grace=1.0, iopub_timeout=1)
    assert "KeyboardInterrupt" in text(nb.cells[0]) or "CellTimeoutError" in text(nb.cells[0])
    assert "next cell ran" in text(nb.cells[1])
    assert "KernelStopped" in text(nb.cells[2]) and "did not stop" in text(nb.cells[2])
    assert nb.cells[3].outputs == []


@needs_sandbox
def test_unrun_graded_cells_get_no_free_points(nbdir):
    """After the kernel died, an unrun nbgrader test cell gets an error (nbgrader would give an empty one full points)."""
    nb = new_notebook(cells=[new_code_cell("import os; os._exit(1)"), new_code_cell("print(1)"),
                             new_code_cell("assert answer == 42")])
    nb.cells[2].metadata["nbgrader"] = {"grade": True, "solution": False, "points": 1, "grade_id": "t"}
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb, _ = SandboxedExecute(timeout=15).preprocess(nb, {"metadata": {"path": str(nbdir)}})
    assert "KernelStopped" in text(nb.cells[0]) and "exit code 1" in text(nb.cells[0])
    assert nb.cells[1].outputs == []
    assert "NotRun" in text(nb.cells[2])


@needs_sandbox
def test_output_flood_is_capped(nbdir):
    """Outputs stop at the per-cell and per-notebook caps with one note; a giant message is refused."""
    nb = run(nbdir, [
        "for i in range(200_000):\n    print('x' * 99)",
        "print('y' * 50_000_000)",
        "print('after the giant')",
        "print('z' * 60_000)",
        "print('w' * 60_000)",
        "raise ValueError('e' * 1_000_000)",
    ], max_output_per_notebook=200_000, iopub_timeout=1)
    first = text(nb.cells[0])
    assert 90_000 < len(first) < 110_000 and first.count("[output cut") == 1
    assert len(text(nb.cells[1])) < 110_000 and "[output cut" in text(nb.cells[1])
    assert "after the giant" in text(nb.cells[2])
    assert len(text(nb.cells[3])) > 60_000  # fits: about 160 kB so far
    assert "[output cut: this notebook" in text(nb.cells[4])  # 160 + 60 kB > 200 kB
    errors = [o for o in nb.cells[5].outputs if o.output_type == "error"]
    assert errors and len(errors[0].evalue) <= 2000  # the error stays, cut short
    total = sum(len(json.dumps(c.outputs)) for c in nb.cells)
    assert total < 230_000


@needs_sandbox
def test_disk_filler_is_killed_and_scratch_removed(nbdir):
    """Filling the scratch folder past the limit kills the kernel; the folder is removed."""
    c = Config()
    c.SandboxedKernelManager.disk_limit = 40 * 2**20
    nb = run(nbdir, [
        "import os; print(os.path.dirname(os.environ['HOME']))",
        "import os, time\nfor i in range(100):\n"
        "    with open(os.path.join(os.environ['HOME'], f'f{i}'), 'wb') as f:\n"
        "        f.write(b'1' * (8 * 2**20))\n    time.sleep(0.05)",
        "print('never')",
    ], config=c)
    scratch = Path(text(nb.cells[0]).strip())
    assert "KernelStopped" in text(nb.cells[1]) and "disk limit" in text(nb.cells[1])
    assert nb.cells[2].outputs == []
    assert not scratch.exists()


@needs_sandbox
def test_many_files_are_killed(nbdir):
    c = Config()
    c.SandboxedKernelManager.file_count_limit = 2000
    nb = run(nbdir, ["import os\nfor i in range(100_000):\n    open(os.path.join(os.environ['HOME'], str(i)), 'w').close()"],
             config=c)
    assert "KernelStopped" in text(nb.cells[0]) and "2000 files" in text(nb.cells[0])


@needs_sandbox
def test_kills_and_exits_are_reported(nbdir):
    """os.kill of its parent or of PID 1 fails (or only ends the sandbox); kill(-1) and os._exit are reported."""
    me = os.getpid()
    nb = run(nbdir, [
        "import os\ntry:\n    os.kill(os.getppid(), 9)\nexcept OSError as e:\n    print('parent:', e.strerror)",
        "try:\n    os.kill(1, 9)\nexcept OSError as e:\n    print('pid 1:', e.strerror)",
        f"try:\n    os.kill({me}, 9)\nexcept OSError as e:\n    print('teacher:', e.strerror)",
        "os.kill(-1, 9)  # every process it may signal (on Linux, not itself)",
        "print('alive')",
        "os.kill(os.getpid(), 9)",
        "print('never')",
    ])
    if AS_ROOT:
        assert "parent: Operation not permitted" in text(nb.cells[0])
        assert "pid 1: Operation not permitted" in text(nb.cells[1])
    assert "alive" in text(nb.cells[4])
    assert "teacher: No such process" in text(nb.cells[2]) or "KernelStopped" in text(nb.cells[2])
    assert "KernelStopped" in text(nb.cells[5]) and "SIGKILL" in text(nb.cells[5])
    assert nb.cells[6].outputs == []
    nb = run(nbdir, ["import os; os._exit(1)", "print('never')"])
    assert "KernelStopped" in text(nb.cells[0]) and "exit code 1" in text(nb.cells[0])
    assert nb.cells[1].outputs == []
    assert os.getpid() == me  # still here


@needs_sandbox
def test_the_teachers_package_is_covered_wherever_it_is_installed(nbdir, tmp_path, monkeypatch):
    """Installed inside a folder the kernel may read (as a plain `pip install ./grader` into its Python
    would put it), the teacher's package is covered by an empty folder: its files cannot be read."""
    from mwm_grader import sandbox as sb

    shown = tmp_path / "site-packages"
    (shown / "mwm_grader").mkdir(parents=True)
    (shown / "mwm_grader" / "key.py").write_text("KEY = 42\n")
    (shown / "other.txt").write_text("visible\n")
    os.chmod(tmp_path, 0o755)
    for folder in (shown, shown / "mwm_grader"):
        os.chmod(folder, 0o755)
    for f in (shown / "mwm_grader" / "key.py", shown / "other.txt"):
        os.chmod(f, 0o644)
    c = Config()
    c.SandboxedKernelManager.extra_read_only = [str(shown)]
    probe = (f"import os\nprint(open({str(shown / 'other.txt')!r}).read().strip(), "
             f"sorted(os.listdir({str(shown / 'mwm_grader')!r})))")
    nb = run(nbdir, [probe], config=c)
    assert text(nb.cells[0]).split() == ["visible", "['key.py']"], text(nb.cells[0])   # uncovered: readable
    monkeypatch.setattr(sb, "TEACHER_PACKAGE", str(shown / "mwm_grader"))
    nb = run(nbdir, [probe], config=c)
    assert text(nb.cells[0]).split() == ["visible", "[]"], text(nb.cells[0])   # covered: an empty folder


def test_refuses_to_show_the_repository(nbdir):
    """The repository root, or a folder around it, is never bound: a clear error instead."""
    with pytest.raises(SandboxRefused, match="exercises|.git"):
        run(ROOT, ["print(1)"])
    c = Config()
    c.SandboxedKernelManager.package_dir = str(ROOT)
    with pytest.raises(SandboxRefused):
        run(nbdir, ["print(1)"], config=c)
    c = Config()
    c.SandboxedKernelManager.extra_read_only = [str(ROOT.parent)]
    with pytest.raises(SandboxRefused):
        run(nbdir, ["print(1)"], config=c)


def test_missing_bwrap_says_how_to_install(nbdir, tmp_path):
    c = Config()
    c.SandboxedKernelManager.bwrap_path = "/nonexistent/bwrap"
    # scratch folders in a folder of this test's own: other tests grade in /tmp at the same time
    c.SandboxedKernelManager.scratch_parent = str(tmp_path / "scratch")
    (tmp_path / "scratch").mkdir()
    with pytest.raises(SandboxUnavailable) as err:
        run(nbdir, ["print(1)"], config=c)
    assert "apt-get install bubblewrap" in str(err.value) and "SandboxedKernelManager.sandbox = False" in str(err.value)
    assert not list((tmp_path / "scratch").iterdir()), "no scratch folder is left behind"


def test_sandbox_off_runs_unsandboxed_with_a_warning(nbdir, caplog):
    c = Config()
    c.SandboxedKernelManager.sandbox = False   # as a teacher's nbgrader_config.py would set it
    nb = run(nbdir, ["import os; print(os.getuid(), os.environ.get('MWM_STUDENT'))"], student="bob", config=c)
    assert text(nb.cells[0]).split() == [str(os.getuid()), "bob"]
    assert "UNSANDBOXED" in caplog.text


@needs_sandbox
def test_hidden_folders_cannot_be_read_or_imported(nbdir):
    """The labs' grading hides the course library (mwm_grader.judge.library_folders): an empty folder covers it."""
    from mwm_grader.judge import library_folders

    hidden = library_folders()
    assert [os.path.basename(f) for f in hidden] == ["mwm", "mwm_torch", "sacrebleu"]
    config = Config()
    config.SandboxedKernelManager.hidden_folders = hidden
    nb = run(nbdir, [
        "import importlib\ntry:\n    importlib.import_module('mw' 'm.bleu')\nexcept ImportError as e:\n    print('import:', type(e).__name__)",
        f"import os\nprint('files:', os.listdir({hidden[0]!r}), os.path.exists({os.path.join(hidden[1], 'translator.py')!r}))",
        "import mwm_practice.labs, torch\nprint('still there: mwm_practice and torch')",
        f"try:\n    open({os.path.join(hidden[0], 'x')!r}, 'w')\nexcept OSError as e:\n    print('write:', type(e).__name__)",
        "import importlib\nprint('sacrebleu has BLEU:', hasattr(importlib.import_module('sacre' 'bleu'), 'BLEU'))",
    ], config=config, timeout=60)
    assert text(nb.cells[0]) == "import: ModuleNotFoundError\n"
    assert text(nb.cells[1]) == "files: [] False\n"
    assert text(nb.cells[2]) == "still there: mwm_practice and torch\n"
    assert text(nb.cells[3]) in ("write: OSError\n", "write: PermissionError\n")   # a read-only cover, not a place to fill
    assert text(nb.cells[4]) == "sacrebleu has BLEU: False\n"   # an empty folder: a namespace with nothing in it
