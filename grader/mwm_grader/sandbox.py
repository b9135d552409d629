"""The sandbox each student's kernel runs in while it is graded (teacher's side only).

Two classes, used by ``nbgrader autograde`` through ``exercises/nbgrader_config.py``:

* :class:`SandboxedKernelManager`, a jupyter_client ``AsyncKernelManager`` that starts the
  kernel inside `bubblewrap <https://github.com/containers/bubblewrap>`_ (``bwrap``), under
  resource limits set with util-linux's ``prlimit``, talking to the teacher's process over
  Unix sockets in a scratch folder of its own, watched from outside for its disk use;
* :class:`SandboxedExecute`, nbgrader's ``Execute`` preprocessor using that manager, which
  also caps the outputs it keeps, passes the student's id into the sandbox and turns a
  kernel that dies into an error on the cell that was running instead of an exception that
  stops the notebook's grading.

What the sandbox allows and forbids is listed in :class:`SandboxedKernelManager`'s docstring.
``c.SandboxedKernelManager.sandbox = False`` in the course's ``nbgrader_config.py`` (or
``--SandboxedKernelManager.sandbox=False`` on nbgrader's command line) runs kernels unsandboxed,
with a warning logged at every start; nothing else ever does.

Nothing here runs inside the student's kernel; ``mwm`` only has to be importable by it.
"""
from __future__ import annotations

import asyncio
import contextlib
import fcntl
import importlib.util
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import zmq
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.connect import channel_socket_types
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync
from nbclient.exceptions import CellControlSignal, DeadKernelError
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute
from traitlets import Bool, Dict, Float, Integer, List, Tuple, Type, Unicode, default

__all__ = ["SandboxUnavailable", "SandboxRefused", "SandboxedKernelManager", "SandboxedExecute"]

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB

INSTALL_HINT = (
    "Install it with `sudo apt-get install bubblewrap util-linux` (Debian/Ubuntu; `make setup` "
    "and .ci/run do this). To grade WITHOUT a sandbox, knowing that student code then runs "
    "with your rights (it can read the answer key, rewrite the gradebook and other students' "
    "files), set c.SandboxedKernelManager.sandbox = False in the course's nbgrader_config.py."
)


class SandboxUnavailable(Exception):
    """The sandbox cannot be set up on this machine (bwrap, prlimit or setpriv missing or failing).

    Not a ``RuntimeError`` on purpose: nbgrader's ``Execute`` turns a ``RuntimeError`` into a
    retry and then a message-less ``UnresponsiveKernelError``, and this message must reach the
    teacher. The message says how to install bubblewrap and how to opt out (``SandboxedKernelManager.sandbox``).
    """


class SandboxRefused(ValueError):
    """A folder the sandbox was asked to show is too wide (it holds the course or the repository)."""


# ---------------------------------------------------------------------------------------------
# Helpers (module-private)


_LOUD_WARNING = (
    "\n" + "!" * 78 + "\n"
    "!! SandboxedKernelManager.sandbox is False: this kernel runs student code UNSANDBOXED, with your rights.\n"
    "!! It can read the instructor notebook, rewrite the gradebook and other students' files,\n"
    "!! use the network and fill the disk. Remove that setting to grade in the sandbox.\n"
    + "!" * 78
)


def _which(program: str) -> str | None:
    """Absolute path of ``program`` (a name looked up in PATH, or a path), or None."""
    if os.sep in program:
        return program if os.path.isfile(program) and os.access(program, os.X_OK) else None
    return shutil.which(program, path=os.environ.get("PATH", "") + ":/usr/bin:/bin:/usr/sbin:/sbin")


_PREFIX_CACHE: dict[str, tuple[str, str]] = {}


def _python_prefixes(python: str) -> tuple[str, str]:
    """``(sys.prefix, sys.base_prefix)`` of the interpreter ``python`` (cached per path)."""
    real = os.path.realpath(python)
    if python == sys.executable or real == os.path.realpath(sys.executable):
        return sys.prefix, sys.base_prefix
    if python not in _PREFIX_CACHE:
        out = subprocess.run([python, "-I", "-c", "import sys; print(sys.prefix); print(sys.base_prefix)"],
                             capture_output=True, text=True, timeout=30, check=True).stdout.split("\n")
        _PREFIX_CACHE[python] = (out[0], out[1])
    return _PREFIX_CACHE[python]


#: The teacher's package (this module's folder): never readable by a sandboxed kernel.
TEACHER_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _is_within(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies below it (both absolute, normalised)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _project_roots(path: str) -> list[str]:
    """Folders at or above ``path`` that are a repository root or an nbgrader course folder."""
    roots = []
    p = Path(path)
    for q in [p, *p.parents]:
        if (q / ".git").exists() or (q / "nbgrader_config.py").exists() or (q / "exercises").is_dir():
            roots.append(str(q))
    return roots


def _uids_running() -> set[int]:
    """Real uids of the processes this machine (this PID namespace) runs."""
    uids = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                uids.add(os.stat(f"/proc/{entry}").st_uid)
            except OSError:
                pass
    return uids


def _pids_of_uid(uid: int) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    pids.append(int(entry))
            except OSError:
                pass
    return pids


def _state(pid: int) -> bytes:
    """The one-letter state of ``pid`` from /proc (b"R", b"S", b"T" stopped, b"Z" zombie...); b"X" once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return b"X"


def _is_zombie(pid: int) -> bool:
    """Whether ``pid`` has exited and waits for its parent (or is gone)."""
    return _state(pid) in (b"Z", b"X")


def _task_count(uid: int) -> int:
    """Number of tasks (processes and threads; what RLIMIT_NPROC counts) of the real ``uid``."""
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry}/task"))
            except OSError:
                pass
    return count


def _folder_usage(folder: str, max_entries: int) -> tuple[int, int]:
    """``(bytes on disk, number of entries)`` below ``folder``; counting stops past ``max_entries``.

    Bytes are allocated blocks (a sparse file counts what it occupies), each inode once.
    """
    total, count, seen = 0, 0, set()
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            it = os.scandir(current)
        except OSError:
            continue
        with it:
            for entry in it:
                count += 1
                if count > max_entries:
                    return total, count
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if (st.st_dev, st.st_ino) not in seen:
                    seen.add((st.st_dev, st.st_ino))
                    total += st.st_blocks * 512
                if stat.S_ISDIR(st.st_mode):
                    stack.append(entry.path)
    return total, count


def _process_tree(root: int) -> list[int]:
    """``root`` and every process below it (host pids, from the parent links in /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    tree, stack = [], [root]
    while stack:
        pid = stack.pop()
        tree.append(pid)
        stack.extend(children.get(pid, ()))
    return tree


def _memory_in_use(pids) -> int:
    """Bytes of memory the processes ``pids`` hold together: their proportional set sizes (Pss).

    Pages shared after a fork count once in all, not once per process. A process whose
    ``smaps_rollup`` cannot be read counts its resident size.
    """
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
                for line in f:
                    if line.startswith(b"Pss:"):
                        total += int(line.split()[1]) * KiB
                        break
        except (OSError, ValueError, IndexError):
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{pid}/statm", "rb") as f:
                    total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return total


def _rmtree(folder: str) -> None:
    """Remove ``folder`` even where the sandbox took away permissions (mode 000 folders)."""
    def retry(func, path, _exc):
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(path), 0o700)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
                shutil.rmtree(path, ignore_errors=True)
            else:
                func(path)
    if os.path.lexists(folder):
        shutil.rmtree(folder, onerror=retry)


_PROBED: set[tuple] = set()

# Signals by the exit status bwrap passes on (128 + signal number).
_SIGNAL_REASONS = {
    signal.SIGKILL: "it was killed (SIGKILL): it hit the memory or process limit, or something killed it",
    signal.SIGXCPU: "it used up its CPU time",
    signal.SIGXFSZ: "it wrote a file larger than the size limit",
    signal.SIGSEGV: "it crashed (segmentation fault)",
    signal.SIGABRT: "it aborted",
    signal.SIGTERM: "it was terminated (SIGTERM)",
    signal.SIGBUS: "it crashed (bus error)",
}


# ---------------------------------------------------------------------------------------------
# The kernel client: bounded receive buffers, unreadable messages dropped

#: What a message the teacher's process cannot read becomes: it answers no request and has no
#: parent, so nbclient passes it by.
_UNREADABLE = "mwm_unreadable"


def _unreadable_message() -> dict:
    header = {"msg_id": "", "msg_type": _UNREADABLE}
    return {"header": header, "msg_id": "", "msg_type": _UNREADABLE, "parent_header": {}, "metadata": {},
            "content": {}, "buffers": []}


def _well_formed(msg) -> bool:
    """Whether a deserialized message has the shape nbclient relies on (dicts, string ids)."""
    if not isinstance(msg, dict):
        return False
    header, parent = msg.get("header"), msg.get("parent_header")
    return (isinstance(header, dict) and isinstance(msg.get("msg_type"), str) and isinstance(msg.get("msg_id"), str)
            and isinstance(parent, dict) and isinstance(parent.get("msg_id", ""), str)
            and isinstance(msg.get("metadata"), dict) and isinstance(msg.get("content"), dict))


class _TolerantChannel(AsyncZMQSocketChannel):
    """A kernel channel that turns a message it cannot read into a harmless placeholder.

    The kernel runs student code, which can send any frames signed with the kernel's own key:
    unparsable or deeply nested JSON, a replayed signature, a header or content that is not a
    dict. jupyter_client would raise in the teacher's process and stop that notebook's grading
    (nbgrader then drops the student's graded notebook and reports the batch as failed); here
    such a message becomes one of type ``mwm_unreadable`` with no parent, which nbclient ignores.
    """

    async def _recv(self, **kwargs) -> dict:
        frames = await self.socket.recv_multipart(**kwargs)
        try:
            _idents, rest = self.session.feed_identities(frames)
            msg = self.session.deserialize(rest)
        except Exception:  # noqa: BLE001 - anything the kernel sent that does not parse
            return _unreadable_message()
        return msg if _well_formed(msg) else _unreadable_message()


class _BoundedKernelClient(AsyncKernelClient):
    """An ``AsyncKernelClient`` whose sockets refuse oversized messages and queue few of them.

    ``max_iopub_bytes`` (bytes) caps one message frame on the iopub channel (outputs) and
    ``max_reply_bytes`` on shell/control (replies); a kernel that sends a larger frame is
    disconnected by ZeroMQ (the socket reconnects) and the frame is never held by the teacher's
    process. ``iopub_queue`` is the iopub receive high-water mark, in messages.
    """

    max_iopub_bytes = Integer(16 * MiB)
    max_reply_bytes = Integer(8 * MiB)
    iopub_queue = Integer(8)
    shell_channel_class = Type(_TolerantChannel)
    iopub_channel_class = Type(_TolerantChannel)
    stdin_channel_class = Type(_TolerantChannel)
    control_channel_class = Type(_TolerantChannel)

    def _create_connected_socket(self, channel, identity=None):
        url = self._make_url(channel)
        sock = self.context.socket(channel_socket_types[channel])
        sock.linger = 1000
        if identity:
            sock.identity = identity
        if getattr(self, "curve_publickey", None) is not None:
            sock.curve_secretkey = self.curve_secretkey
            sock.curve_publickey = self.curve_publickey
            sock.curve_serverkey = self.curve_publickey
        if channel == "iopub":
            sock.setsockopt(zmq.MAXMSGSIZE, self.max_iopub_bytes)
            sock.rcvhwm = self.iopub_queue
        elif channel in ("shell", "control", "stdin"):
            sock.setsockopt(zmq.MAXMSGSIZE, self.max_reply_bytes)
        sock.connect(url)
        return sock


# ---------------------------------------------------------------------------------------------
# The kernel manager


class SandboxedKernelManager(AsyncKernelManager):
    """A jupyter_client ``AsyncKernelManager`` whose kernel runs in a bubblewrap sandbox.

    Start it as any kernel manager (``await km.start_kernel(cwd=notebook_folder)``); nbclient
    and nbgrader's ``Execute`` do so when ``kernel_manager_class`` names this class. The
    kernel command (``python -m ipykernel_launcher -f CONNECTION_FILE ...``) is wrapped as::

        prlimit --as --cpu --nproc --fsize --core=0 -- bwrap [namespaces, mounts, env] --
            setpriv --reuid U --regid U --clear-groups --no-new-privs ... -- python -m ipykernel_launcher ...

    **What the kernel may do** (both modes):

    ============================  =================================================================
    read                          its notebook's folder (the kernel's cwd, read-only); the Python
                                  environment (the kernel interpreter's ``sys.prefix`` and
                                  ``sys.base_prefix``); the folder holding the ``mwm`` package
                                  (``package_dir``, also the sandbox's ``PYTHONPATH``); ``/usr``
                                  (``/bin``, ``/lib``... as on the host), ``/etc/ld.so.cache``;
                                  ``/proc`` of its own PID namespace; a minimal ``/dev``;
                                  ``extra_read_only`` folders. The teacher's package
                                  (``mwm_grader``) is in none of them.
    write                         only its scratch folder (HOME, TMPDIR, MPLCONFIGDIR, IPYTHONDIR),
                                  at most ``disk_limit`` bytes and ``file_count_limit`` entries
                                  (watched from outside; over it the sandbox is killed), no file
                                  above ``file_size_limit``
    talk                          to the teacher's process through the Unix sockets in the
                                  scratch folder; no network at all (own, empty network namespace)
    see                           only its own processes (PID namespace), its own hostname (UTS),
                                  its own System V IPC
    use                           ``memory_limit`` bytes of address space per process and of
                                  memory (Pss) for all its processes together (watched from
                                  outside; over it the sandbox is killed), ``cpu_limit`` CPU
                                  seconds, ``process_limit`` tasks, no core files
    environment                   a fixed list (PATH, HOME, LANG=C.UTF-8, one BLAS/OpenMP thread,
                                  MPLBACKEND=Agg, PYTHONDONTWRITEBYTECODE=1, PYTHONPATH, ...) plus
                                  ``sandbox_env``; nothing of the teacher's environment
    ============================  =================================================================

    Anything else of the host (``/root``, ``/home``, the host's ``/tmp``, ``/work``, the course
    folder, the repository, other students' folders) does not exist inside. ``/``, ``/dev``
    (including ``/dev/shm``) and every bound folder but the scratch folder are read-only. The
    sandbox dies with the teacher's process (``--die-with-parent``), runs in a new session (no
    terminal to inject into), and its scratch folder is removed when the kernel is shut down or
    dies.

    **Two modes**, chosen by the teacher's effective uid:

    * *as root*: bwrap sets up the namespaces and mounts as root, without a user namespace,
      then ``setpriv`` drops to a numeric uid/gid ``U`` of the sandbox's own (from ``uid_range``,
      unique among running sandboxes, held by a lock file in ``uid_lock_dir``; no passwd entry
      needed), with no supplementary groups, no capabilities (bounding and inheritable sets
      empty) and ``no_new_privs``. Guarantees: the kernel cannot touch root's or anyone's files
      even where a mount would let it (file permissions apply to ``U``); ``RLIMIT_NPROC`` counts
      only this sandbox's tasks, so a fork bomb stops at ``process_limit``; it cannot signal the
      teacher's processes, and at shutdown every process of ``U`` is killed. The notebook's
      folder must be readable by others (mode ``o+rx``; nbgrader's default ``444`` files and
      ``755`` folders are); if it is not, :class:`SandboxRefused` says so.
    * *not as root*: bwrap runs in an unprivileged user namespace, keeping the teacher's uid
      (mapped to itself) and no capabilities. The mount, network, PID, IPC and UTS isolation
      and the read-only mounts are the same, but the kernel acts with the teacher's uid on
      whatever is mounted (only the scratch folder is writable, so it can write nothing else),
      and ``RLIMIT_NPROC`` counts all the teacher's tasks: it is set to their current number plus
      ``process_limit``, so a fork bomb is stopped, but it also takes away the teacher's own
      margin for new processes until the sandbox is killed.

    Traits (all configurable, e.g. ``c.SandboxedKernelManager.memory_limit = 3 * 2**30``):
    ``bwrap_path``, ``prlimit_path``, ``setpriv_path`` (programs, by name or path),
    ``memory_limit`` (bytes of address space per process, and of memory in use by all, 2 GiB),
    ``cpu_limit`` (CPU seconds, 300),
    ``process_limit`` (tasks, 128), ``file_size_limit`` (bytes, 64 MiB), ``disk_limit``
    (bytes, 256 MiB), ``file_count_limit`` (entries, 10,000), ``watch_interval`` (seconds between
    disk and memory checks, 0.2), ``sandbox_env`` (extra environment variables, e.g. ``MWM_STUDENT``),
    ``package_dir`` (the folder that holds ``mwm``; found from the teacher's own import),
    ``extra_read_only`` (more folders to show read-only), ``scratch_parent`` (where scratch
    folders are made; the system's temporary folder), ``uid_range`` and ``uid_lock_dir``.

    After the kernel has stopped, :meth:`stop_reason` says why, in words.

    Raises
    ------
    SandboxUnavailable
        at start, if bwrap, prlimit or setpriv is missing or cannot set up a sandbox here.
    SandboxRefused
        at start, if a folder to show contains the course folder (``exercises/``, an
        ``nbgrader_config.py``) or a repository root (``.git``), or is ``/``; or, as root, if
        the notebook's folder is not readable by others.
    """

    sandbox = Bool(True, help="Run each graded kernel in the sandbox. False runs student code UNSANDBOXED, with "
                              "your rights (it can read the answer key and rewrite the gradebook), with a warning at "
                              "every start: only knowingly, on a machine without bubblewrap.").tag(config=True)
    bwrap_path = Unicode("bwrap", help="The bubblewrap program (name or path).").tag(config=True)
    prlimit_path = Unicode("prlimit", help="util-linux prlimit (name or path).").tag(config=True)
    setpriv_path = Unicode("setpriv", help="util-linux setpriv (name or path).").tag(config=True)
    memory_limit = Integer(2 * GiB, help="Address space of each sandboxed process (RLIMIT_AS), and memory of all "
                                         "of them together (watched), bytes.").tag(config=True)
    cpu_limit = Integer(300, help="CPU seconds of each sandboxed process (RLIMIT_CPU).").tag(config=True)
    process_limit = Integer(128, help="Tasks (processes and threads) the sandbox may have (RLIMIT_NPROC).").tag(config=True)
    file_size_limit = Integer(64 * MiB, help="Largest file the sandbox may write, bytes (RLIMIT_FSIZE).").tag(config=True)
    disk_limit = Integer(256 * MiB, help="Bytes the scratch folder may hold before the sandbox is killed.").tag(config=True)
    file_count_limit = Integer(10_000, help="Entries the scratch folder may hold before the sandbox is killed.").tag(config=True)
    watch_interval = Float(0.2, help="Seconds between two checks of the scratch folder.").tag(config=True)
    sandbox_env = Dict(Unicode(), help="Extra environment variables inside the sandbox (e.g. MWM_STUDENT).").tag(config=True)
    package_dir = Unicode(help="Folder holding the mwm and mwm_practice packages (lib/); bound read-only and the sandbox's PYTHONPATH.").tag(config=True)
    extra_read_only = List(Unicode(), help="More folders the kernel may read.").tag(config=True)
    hidden_folders = List(Unicode(), help="Folders inside a shown one that the kernel may not read: each is covered "
                                          "by an empty folder (the coding labs' grading hides the course library, "
                                          "whose functions are the labs' answers).").tag(config=True)
    scratch_parent = Unicode(help="Folder in which per-kernel scratch folders are made.").tag(config=True)
    uid_range = Tuple(Integer(), Integer(), default_value=(2_000_000, 2_100_000),
                      help="Uids (and gids) the sandboxes run under when the teacher is root: [first, last).").tag(config=True)
    uid_lock_dir = Unicode(help="Folder of the lock files that keep sandbox uids unique across processes.").tag(config=True)
    max_iopub_bytes = Integer(16 * MiB, help="Largest output message frame the teacher's client accepts, bytes.").tag(config=True)
    iopub_queue = Integer(8, help="Output messages the teacher's client queues at most.").tag(config=True)

    client_factory = Type(klass=AsyncKernelClient, default_value=_BoundedKernelClient)

    @default("package_dir")
    def _package_dir_default(self):
        spec = importlib.util.find_spec("mwm")
        if spec is None or not spec.origin:
            return ""
        return os.path.dirname(os.path.dirname(os.path.abspath(spec.origin)))

    @default("scratch_parent")
    def _scratch_parent_default(self):
        return tempfile.gettempdir()

    @default("uid_lock_dir")
    def _uid_lock_dir_default(self):
        return "/run/lock/mwm-sandbox" if os.path.isdir("/run/lock") else os.path.join(tempfile.gettempdir(), "mwm-sandbox-locks")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.scratch = None
        self.sandbox_uid = None
        self._uid_lock = None
        self._stop_reason = None
        self._watch_stop = threading.Event()
        self._watch_thread = None
        self._cleanup_lock = threading.Lock()
        self._unsandboxed = False
        self._log_fd = None

    # -- public helpers ----------------------------------------------------------------------

    @property
    def sandboxed(self) -> bool:
        """Whether the running (or last) kernel was started in the sandbox (False if ``sandbox`` is False)."""
        return not self._unsandboxed

    def stop_reason(self) -> str:
        """Why the kernel stopped, in words ("" if it is running or nothing is known).

        A limit the watchdog enforced (disk, file count), a kill by :class:`SandboxedExecute`
        (no reaction to an interrupt) or the exit status of the sandbox (a signal such as SIGKILL
        for the memory or process limits, SIGXCPU for the CPU limit, or an exit code).
        """
        if self._stop_reason:
            return self._stop_reason
        proc = getattr(self.provisioner, "process", None) if self.provisioner else None
        code = proc.poll() if proc is not None else None
        if code is None:
            return ""
        sig = -code if code < 0 else (code - 128 if code > 128 else 0)
        if sig:
            with contextlib.suppress(ValueError):
                name = signal.Signals(sig).name
                text = _SIGNAL_REASONS.get(sig, f"it was stopped by signal {name}")
                return f"{text} ({name})" if name not in text else text
            return f"it was stopped by signal {sig}"
        return f"its process ended with exit code {code}"

    def record_stop_reason(self, reason: str) -> None:
        """Remember why the sandbox is being stopped (the first reason given wins)."""
        if not self._stop_reason:
            self._stop_reason = reason

    def client(self, **kwargs):
        """A kernel client whose sockets refuse oversized output frames (see ``max_iopub_bytes``)."""
        kc = super().client(**kwargs)
        if isinstance(kc, _BoundedKernelClient):
            kc.max_iopub_bytes = self.max_iopub_bytes
            kc.iopub_queue = self.iopub_queue
        return kc

    # -- start -------------------------------------------------------------------------------

    async def _async_pre_start_kernel(self, **kw):
        self._stop_reason = None
        if not self.sandbox:
            self._unsandboxed = True
            self.log.warning(_LOUD_WARNING)
            env = dict(kw.get("env") or os.environ)
            env.update(self.sandbox_env)
            kw["env"] = env
            return await super()._async_pre_start_kernel(**kw)
        self._unsandboxed = False
        tools = self._check_tools()
        cwd = os.path.realpath(kw.get("cwd") or os.getcwd())
        self._make_scratch()
        try:
            self.transport = "ipc"
            self.ip = os.path.join(self.scratch, "kernel-ipc")
            self.connection_file = os.path.join(self.scratch, "kernel.json")
            kernel_cmd, kw = await super()._async_pre_start_kernel(**kw)
            if self.sandbox_uid is not None:
                os.chown(self.connection_file, self.sandbox_uid, self.sandbox_uid)
                os.chmod(self.connection_file, 0o400)
            wrapper, kernel_cmd = self._sandbox_command(tools, kernel_cmd, cwd)
            await self._probe(tools, wrapper)
            cmd = wrapper + kernel_cmd
        except BaseException:
            self._remove_scratch()
            raise
        kw["env"] = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        kw["cwd"] = self.scratch
        # The kernel's own stdout/stderr (not the notebook's outputs, which go over the sockets)
        # go to a file in the scratch folder, not to the teacher's terminal.
        log_fd = os.open(self.kernel_log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        kw["stdin"] = subprocess.DEVNULL
        kw["stdout"] = kw["stderr"] = log_fd
        self._log_fd = log_fd
        return cmd, kw

    @property
    def kernel_log(self) -> str:
        """Path of the file receiving the sandboxed process's own stdout and stderr (bwrap's errors too)."""
        return os.path.join(self.scratch, "kernel-output.log") if self.scratch else ""

    def kernel_log_tail(self, n: int = 1000) -> str:
        """The last ``n`` characters of :attr:`kernel_log` ("" once the scratch folder is gone)."""
        try:
            with open(self.kernel_log, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - n))
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    pre_start_kernel = _async_pre_start_kernel

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        try:
            await super()._async_launch_kernel(kernel_cmd, **kw)
        finally:
            if getattr(self, "_log_fd", None) is not None:
                os.close(self._log_fd)
                self._log_fd = None
        if not self._unsandboxed:
            self._watch_stop.clear()
            self._watch_thread = threading.Thread(target=self._watch, args=(self.provisioner.process, self.scratch),
                                                  name="mwm-sandbox-watch", daemon=True)
            self._watch_thread.start()

    _launch_kernel = _async_launch_kernel

    def _check_tools(self) -> dict:
        tools = {}
        for name in ("bwrap", "prlimit", "setpriv"):
            configured = getattr(self, f"{name}_path")
            found = _which(configured)
            if found is None:
                raise SandboxUnavailable(
                    f"Cannot grade in the sandbox: {name} ({configured!r}) was not found. " + INSTALL_HINT)
            tools[name] = found
        return tools

    async def _probe(self, tools, wrapper) -> None:
        """Run the sandbox once with ``true`` in place of the kernel, once per process and setup."""
        key = (tools["bwrap"], tools["prlimit"], tools["setpriv"], os.geteuid())
        if key in _PROBED:
            return
        probe = wrapper + ["/usr/bin/true" if os.path.exists("/usr/bin/true") else "/bin/true"]
        proc = await asyncio.create_subprocess_exec(*probe, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                                    env={"PATH": "/usr/bin:/bin"}, cwd=self.scratch)
        _, err = await proc.communicate()
        if proc.returncode != 0:
            raise SandboxUnavailable(
                "Cannot grade in the sandbox: bubblewrap could not start here (exit code "
                f"{proc.returncode}: {err.decode(errors='replace').strip()[:500]}). It needs user "
                "namespaces (or root); in a container, allow them (e.g. Docker's --security-opt "
                "seccomp=unconfined, or run as root). " + INSTALL_HINT)
        _PROBED.add(key)

    def _make_scratch(self) -> None:
        parent = self.scratch_parent or tempfile.gettempdir()
        self.scratch = os.path.realpath(tempfile.mkdtemp(prefix="mwm-sandbox-", dir=parent))
        self.sandbox_uid = self._allocate_uid() if os.geteuid() == 0 else None
        for sub in ("home", "tmp", "mpl", "ipython"):
            os.mkdir(os.path.join(self.scratch, sub))
        # matplotlib's font list, so that the first `import matplotlib.pyplot` does not rebuild it
        with contextlib.suppress(Exception):
            import matplotlib
            for f in Path(matplotlib.get_cachedir()).glob("fontlist-*.json"):
                if f.stat().st_size < 4 * MiB:
                    shutil.copy(f, os.path.join(self.scratch, "mpl", f.name))
        if self.sandbox_uid is not None:
            u = self.sandbox_uid
            for dirpath, _dirnames, filenames in os.walk(self.scratch):
                os.chown(dirpath, u, u)
                for f in filenames:
                    os.chown(os.path.join(dirpath, f), u, u)
            # the folder itself: the sandbox's, and traversable by the teacher (root)
            os.chmod(self.scratch, 0o700)

    def kill_strays(self) -> int:
        """Kill every process in the sandbox but the kernel itself (what its cells forked).

        Only when the sandbox runs under a uid of its own (the teacher is root); otherwise the
        PID namespace still ends them all when the kernel stops.

        Returns:
            int: how many processes were killed.
        """
        if self.sandbox_uid is None or self._uid_lock is None:  # not (or no longer) this sandbox's uid
            return 0
        started = {}
        for pid in _pids_of_uid(self.sandbox_uid):
            try:
                with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
                    started[pid] = int(f.read().rsplit(")", 1)[1].split()[19])  # field 22: start time
            except (OSError, ValueError, IndexError):
                continue
        if len(started) < 2:
            return 0
        kernel = min(started, key=lambda pid: (started[pid], pid))  # the sandbox's first process

        def strays():
            return [pid for pid in _pids_of_uid(self.sandbox_uid) if pid != kernel and not _is_zombie(pid)]

        # First stop them all, until a scan finds none still running: a stopped process cannot
        # fork, so the set is then closed (killing at once races a fork bomb, whose survivors
        # fill each freed slot). Then kill them, and wait until each has exited.
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            running = [pid for pid in strays() if _state(pid) not in (b"T", b"t")]
            if not running:
                break
            for pid in running:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGSTOP)
        killed = set()
        while time.monotonic() < deadline:
            left = strays()
            if not left:
                break
            for pid in left:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                    killed.add(pid)
            time.sleep(0.005)
        return len(killed)

    def _allocate_uid(self) -> int:
        first, last = self.uid_range
        os.makedirs(self.uid_lock_dir, mode=0o700, exist_ok=True)
        running = _uids_running()
        for uid in range(first, last):  # the lowest free one, so that few lock files ever exist
            if uid in running:
                continue
            fd = os.open(os.path.join(self.uid_lock_dir, f"uid-{uid}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            self._uid_lock = fd
            return uid
        raise SandboxUnavailable(f"No free sandbox uid in {self.uid_range}.")

    def _release_uid(self) -> None:
        # Only while this sandbox still holds the uid's lock: once released, another sandbox (in
        # another grading process) may run under the same uid, and must not be killed.
        if self._uid_lock is None:
            return
        if self.sandbox_uid is not None:
            # Kill, and keep the lock until the uid's processes are gone (a killed process, or a zombie
            # its dying parent has not reaped, stays listed a moment): the next sandbox to take the uid
            # must find it empty. Bounded, so a process stuck in the kernel cannot hang the grader.
            deadline = time.monotonic() + 10.0
            while (left := _pids_of_uid(self.sandbox_uid)) and time.monotonic() < deadline:
                for pid in left:
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
                time.sleep(0.01)
            if left:
                self.log.warning("Sandbox uid %s still has processes %s after 10 s; releasing it anyway",
                                 self.sandbox_uid, left)
        if self._uid_lock is not None:
            with contextlib.suppress(OSError):
                os.close(self._uid_lock)
            self._uid_lock = None

    # -- the bwrap command --------------------------------------------------------------------

    def _check_shown(self, folder: str, protected: list[str], what: str) -> str:
        real = os.path.realpath(folder)
        if real == "/":
            raise SandboxRefused(f"Refusing to show {what} {folder!r} to the sandbox: it is the whole filesystem.")
        for marker in (".git", "exercises", "nbgrader_config.py", "gradebook.db"):
            if os.path.lexists(os.path.join(real, marker)):
                raise SandboxRefused(
                    f"Refusing to show {what} {folder!r} to the sandbox: it holds {marker!r}, so student code "
                    "could read the course folder or the repository. Keep the Python environment, the folder "
                    "holding mwm and the notebook's folder outside (or below) the course's folders.")
        for root in protected:
            if _is_within(root, real):
                raise SandboxRefused(
                    f"Refusing to show {what} {folder!r} to the sandbox: it contains {root!r}, a repository "
                    "root or course folder.")
        return real

    def _sandbox_command(self, tools: dict, kernel_cmd: list[str], cwd: str) -> tuple[list[str], list[str]]:
        """``(wrapper, kernel_cmd)``: the prlimit/bwrap/setpriv words, and the kernel command to append."""
        python = kernel_cmd[0] if os.sep in kernel_cmd[0] else (_which(kernel_cmd[0]) or kernel_cmd[0])
        kernel_cmd = [python, *kernel_cmd[1:]]
        prefix, base_prefix = _python_prefixes(python)
        package_dir = self.package_dir
        protected = set()
        for p in [cwd, package_dir, prefix, base_prefix, *self.extra_read_only]:
            if p:
                protected.update(_project_roots(os.path.realpath(p)))
        # a root above a shown folder is fine as long as the folder is inside it, not around it
        shown = [(prefix, "the Python environment"), (base_prefix, "the base Python installation")]
        if package_dir:
            shown.append((package_dir, "the folder holding mwm"))
        shown += [(p, "the extra folder") for p in self.extra_read_only]
        ro = []
        for folder, what in shown:
            real = self._check_shown(folder, sorted(protected), what)
            if real not in ro:
                ro.append(real)
        cwd = self._check_shown(cwd, sorted(protected), "the notebook's folder")
        if self.sandbox_uid is not None:
            mode = os.stat(cwd).st_mode
            if not (mode & stat.S_IROTH and mode & stat.S_IXOTH):
                raise SandboxRefused(
                    f"The notebook's folder {cwd!r} (mode {oct(mode & 0o777)}) is not readable by others; the "
                    "sandboxed kernel runs under a uid of its own and could not read it. chmod o+rx it.")
        for exe in (python, os.path.realpath(python)):
            if not any(_is_within(os.path.abspath(exe), r) for r in ro + ["/usr"]):
                ro.append(self._check_shown(os.path.dirname(exe), sorted(protected), "the interpreter's folder"))

        args = [tools["bwrap"]]
        if self.sandbox_uid is None:
            args += ["--unshare-all"]  # includes a user namespace (unprivileged mode)
        else:
            # as root: no user namespace (its uid map would make the kernel root again); setpriv drops to U
            args += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        args += ["--die-with-parent", "--new-session", "--hostname", "sandbox"]
        # system folders as on the host
        for d in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
            if os.path.islink(d):
                args += ["--symlink", os.readlink(d), d]
            elif os.path.isdir(d):
                args += ["--ro-bind", d, d]
        args += ["--ro-bind", "/usr", "/usr"]
        if os.path.exists("/etc/ld.so.cache"):
            args += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
        made = {"/", "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"}

        def parents(path):
            out = []
            for q in reversed(Path(path).parents):
                if str(q) not in made:
                    made.add(str(q))
                    out += ["--perms", "0755", "--dir", str(q)]
            return out

        binds = [(p, "--ro-bind") for p in ro] + [(cwd, "--ro-bind"), (self.scratch, "--bind")]
        # a folder bound inside another bound folder must come after it
        for path, how in sorted(binds, key=lambda b: b[0].count("/")):
            args += parents(path) + [how, path, path]
        # The teacher's package is not on a student's path where it is installed as the course
        # installs it (editable, from grader/, which is never shown). Installed into the kernel's
        # own environment instead (a plain `pip install ./grader`), it would be inside a shown
        # folder: an empty folder covers it, so nothing of it can be read or imported.
        teacher = os.path.realpath(TEACHER_PACKAGE)
        # Each cover is an empty tmpfs made read-only: run without root, the kernel could otherwise fill
        # it, in memory the disk and memory watches do not see.
        if any(_is_within(teacher, r) for r in [*ro, cwd, "/usr"]):
            args += ["--tmpfs", teacher, "--remount-ro", teacher]
            made.add(path)
        for folder in self.hidden_folders:   # e.g. lib/mwm while the labs are graded
            real = os.path.realpath(folder)
            if any(_is_within(real, r) for r in [*ro, cwd, "/usr"]):
                args += ["--tmpfs", real, "--remount-ro", real]
        args += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev", "--remount-ro", "/"]
        env = {
            "PATH": f"{os.path.dirname(python)}:/usr/local/bin:/usr/bin:/bin",
            "HOME": os.path.join(self.scratch, "home"),
            "TMPDIR": os.path.join(self.scratch, "tmp"),
            "MPLCONFIGDIR": os.path.join(self.scratch, "mpl"),
            "IPYTHONDIR": os.path.join(self.scratch, "ipython"),
            "LANG": "C.UTF-8",
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "MPLBACKEND": "Agg",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPATH": package_dir,
            "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        }
        if "NBGRADER_EXECUTION" in os.environ:  # nbgrader's own flag (autograde/validate)
            env["NBGRADER_EXECUTION"] = os.environ["NBGRADER_EXECUTION"]
        env.update(self.sandbox_env)
        args += ["--clearenv"]
        for k, v in env.items():
            args += ["--setenv", k, str(v)]
        args += ["--chdir", cwd, "--"]
        if self.sandbox_uid is not None:
            u = str(self.sandbox_uid)
            args += [tools["setpriv"], f"--reuid={u}", f"--regid={u}", "--clear-groups", "--inh-caps=-all",
                     "--bounding-set=-all", "--no-new-privs", "--"]
            nproc = self.process_limit
        else:
            nproc = _task_count(os.getuid()) + self.process_limit
        limits = [tools["prlimit"], f"--as={self.memory_limit}", f"--cpu={self.cpu_limit}:{self.cpu_limit + 5}",
                  f"--nproc={nproc}", f"--fsize={self.file_size_limit}", "--core=0", "--"]
        return limits + args, kernel_cmd

    # -- watching and cleaning up -----------------------------------------------------------------

    def _watch(self, proc, scratch) -> None:
        """Thread: kill the sandbox if its scratch folder or its memory grows too large; clean up when it ends."""
        while not self._watch_stop.wait(self.watch_interval):
            if proc.poll() is not None:
                break
            size, count = _folder_usage(scratch, self.file_count_limit)
            reason = None
            if size > self.disk_limit:
                reason = f"its scratch folder passed the disk limit ({self.disk_limit // MiB} MiB)"
            elif count > self.file_count_limit:
                reason = f"its scratch folder passed the limit of {self.file_count_limit} files"
            elif _memory_in_use(_process_tree(proc.pid)) > self.memory_limit:
                # RLIMIT_AS holds each process; forked processes could together hold process_limit times it
                reason = f"its processes together passed the memory limit ({self.memory_limit // MiB} MiB)"
            if reason:
                self.record_stop_reason(reason)
                self.log.warning("Sandboxed kernel %s stopped: %s", self.kernel_id, reason)
                with contextlib.suppress(OSError):
                    proc.kill()
                break
        if proc.poll() is not None or self._stop_reason:
            with contextlib.suppress(Exception):
                proc.wait(timeout=5)
            if not self._stop_reason and not self._watch_stop.is_set() and not self.shutting_down:
                tail = self.kernel_log_tail(600).strip()
                if tail:
                    self.log.warning("Sandboxed kernel %s ended (%s); its last output:\n%s",
                                     self.kernel_id, self.stop_reason(), tail)
            self._cleanup_sandbox()

    def _cleanup_sandbox(self) -> None:
        with self._cleanup_lock:
            self._release_uid()
            self._remove_scratch()

    def _remove_scratch(self) -> None:
        if self.scratch:
            _rmtree(self.scratch)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if not self._unsandboxed:
            self._watch_stop.set()
            proc = getattr(self.provisioner, "process", None) if self.provisioner else None
            if proc is not None and proc.poll() is None:
                with contextlib.suppress(OSError):
                    proc.kill()
            if self._watch_thread is not None and self._watch_thread is not threading.current_thread():
                await asyncio.get_running_loop().run_in_executor(None, self._watch_thread.join, 10)
            self._cleanup_sandbox()

    cleanup_resources = _async_cleanup_resources

    async def _async_interrupt_kernel(self) -> None:
        """Interrupt by an ``interrupt_request`` on the control channel.

        A signal to the process group would reach bwrap, not the kernel (which runs in a new
        session inside a PID namespace), and would kill the sandbox; ipykernel answers the
        message by sending SIGINT to itself, as a signal would.
        """
        if self._unsandboxed:
            return await super()._async_interrupt_kernel()
        if not self.has_kernel:
            raise RuntimeError("Cannot interrupt kernel. No kernel is running!")
        msg = self.session.msg("interrupt_request", content={})
        self._connect_control_socket()
        self.session.send(self._control_socket, msg)

    interrupt_kernel = _async_interrupt_kernel


# ---------------------------------------------------------------------------------------------
# The nbgrader preprocessor


def _content_size(obj, limit: int) -> int:
    """Approximate size in bytes of a message's content (strings and buffers), counted up to ``limit``."""
    total, stack = 0, [obj]
    while stack and total <= limit:
        o = stack.pop()
        if isinstance(o, str):
            total += len(o)
        elif isinstance(o, (bytes, bytearray, memoryview)):
            total += len(o)
        elif isinstance(o, dict):
            total += 8 * len(o)
            stack.extend(o.keys())
            stack.extend(o.values())
        elif isinstance(o, (list, tuple)):
            total += 8 * len(o)
            stack.extend(o)
        else:
            total += 8
    return total


_JSON_MIME = re.compile(r"application/(.*\+)?json")


def _text(value) -> bool:
    """A multiline string as nbformat has it: a string, or a list of strings."""
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def _malformed(msg_type: str, content: dict) -> bool:
    """Whether an output message's content would make an invalid output (the grader's later steps rely on it)."""
    count = content.get("execution_count")
    if "execution_count" in content and count is not None and (isinstance(count, bool) or not isinstance(count, int)):
        return True
    if msg_type == "stream":
        return content.get("name") not in ("stdout", "stderr") or not isinstance(content.get("text"), str)
    if msg_type in ("display_data", "execute_result", "update_display_data"):
        data, metadata, transient = content.get("data"), content.get("metadata", {}), content.get("transient")
        if not isinstance(data, dict) or not isinstance(metadata, dict):
            return True
        if transient is not None and (not isinstance(transient, dict)
                                      or not isinstance(transient.get("display_id", ""), (str, type(None)))):
            return True
        return not all(isinstance(k, str) and (_JSON_MIME.fullmatch(k) or _text(v)) for k, v in data.items())
    if msg_type == "error":
        return not (isinstance(content.get("ename"), str) and isinstance(content.get("evalue"), str)
                    and _text(content.get("traceback")) and isinstance(content.get("traceback"), list))
    if msg_type == "clear_output":
        return not isinstance(content.get("wait", False), bool)
    if msg_type == "status":
        return not isinstance(content.get("execution_state"), str)
    return False


def _truncate_error(content: dict) -> dict:
    """A copy of an error's content (``ename``, ``evalue``, ``traceback``) cut to a few kB."""
    tb = [str(line)[:500] for line in (content.get("traceback") or [])]
    if len(tb) > 30:
        tb = tb[:10] + [f"... ({len(tb) - 20} lines left out) ..."] + tb[-10:]
    return {**content, "ename": str(content.get("ename", ""))[:200],
            "evalue": str(content.get("evalue", ""))[:2000], "traceback": tb}


def why_no_sandbox() -> str:
    """Whether a sandbox can start on this machine.

    Returns:
        str: "" when the tools are there and bubblewrap can make its namespaces, else one
        line saying why not (what to install, or bwrap's own error).
    """
    import subprocess

    try:
        tools = SandboxedKernelManager()._check_tools()
    except SandboxUnavailable as exc:
        return str(exc)
    r = subprocess.run([tools["bwrap"], "--ro-bind", "/", "/", "--unshare-all", "true"], capture_output=True, text=True)
    return "" if r.returncode == 0 else f"bwrap cannot start here: {r.stderr.strip()}"


class SandboxedExecute(Execute):
    """nbgrader's ``Execute`` preprocessor, running each notebook in a :class:`SandboxedKernelManager`.

    Use it in place of ``Execute`` in ``c.Autograde.autograde_preprocessors``; ``Execute.*``
    settings (``timeout``, ``interrupt_on_timeout``, ``shutdown_kernel``, ``extra_arguments``)
    apply as before, and ``SandboxedKernelManager.*`` settings configure the sandbox. Besides:

    * the kernel gets ``MWM_STUDENT`` = the id of the student whose submission is graded
      (``resources["nbgrader"]["student"]``; absent outside nbgrader), and ``sandbox_env``;
    * outputs are counted as they arrive (bytes of text and data): at most
      ``max_output_per_cell`` (100 kB) per cell and ``max_output_per_notebook`` (2 MB) per
      notebook are kept; the rest of that cell's outputs is dropped and one short note (on
      stdout) says so. Error outputs are always kept, cut to a few kB, so a failed check
      cannot be hidden by a flood. One output message larger than the kernel manager's
      ``max_iopub_bytes`` is refused by the socket and never held by the teacher's process;
    * a kernel that dies (``os._exit``, a limit, SIGKILL, the disk watchdog) does not stop the
      notebook's grading: the running cell gets one error output ``KernelStopped`` saying why,
      the remaining cells are not run and get no outputs, and the notebook is returned as
      usual so nbgrader saves the grades of what did run. Exception, on by default
      (``mark_unrun_graded_cells``): nbgrader gives full points to an autograded test cell with
      no error output, so a test cell left unrun gets an error output saying it was not run;
    * a message from the kernel that cannot be read (unparsable, replayed, not the shape of a
      message) is dropped, and so is an output message that would make an invalid output (a
      stream without a name, display data that is not strings...), with one note on the cell:
      student code can send any message signed with the kernel's key, and none may stop the
      notebook's grading or break a later step;
    * timeouts work as in nbgrader (``timeout`` seconds per cell, then an interrupt and a
      ``CellTimeoutError`` on that cell); a kernel that has not stopped ``interrupt_grace``
      seconds after the interrupt (it ignores SIGINT) is killed, and is reported as above.

    ``raise_on_iopub_timeout`` defaults to False here: outputs lost after a refused message must
    not stop the notebook. Raises :class:`SandboxUnavailable` or :class:`SandboxRefused` (from the
    kernel manager) if the sandbox cannot be set up.
    """

    max_output_per_cell = Integer(100_000, help="Bytes of outputs kept per cell.").tag(config=True)
    max_output_per_notebook = Integer(2_000_000, help="Bytes of outputs kept per notebook.").tag(config=True)
    interrupt_grace = Float(5.0, help="Seconds a kernel has to stop after a timeout's interrupt before it is killed.").tag(config=True)
    sandbox_env = Dict(Unicode(), help="Extra environment variables for the sandboxed kernel.").tag(config=True)
    mark_unrun_graded_cells = Bool(True, help="After the kernel stopped, give unrun nbgrader test cells an error output.").tag(config=True)
    raise_on_iopub_timeout = Bool(False, help=Execute.raise_on_iopub_timeout.help).tag(config=True)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("kernel_manager_class", SandboxedKernelManager)
        super().__init__(*args, **kwargs)

    # -- per-notebook state --------------------------------------------------------------------

    def reset_execution_trackers(self) -> None:
        """Reset nbclient's trackers and the sandbox's output counters and kernel state."""
        super().reset_execution_trackers()
        self._nb_bytes = 0
        self._cell_bytes = 0
        self._cell_capped = False
        self._cell_errors = 0
        self._stopped = None  # (cell index, reason) once the kernel has stopped
        self._current_msg_id = None

    def create_kernel_manager(self):
        """Create the kernel manager and hand it the sandbox's environment (``MWM_STUDENT``)."""
        km = super().create_kernel_manager()
        env = dict(self.sandbox_env)
        student = ((getattr(self, "resources", None) or {}).get("nbgrader") or {}).get("student")
        if student is not None:
            env["MWM_STUDENT"] = str(student)
        if hasattr(km, "sandbox_env"):
            km.sandbox_env = {**km.sandbox_env, **env}
        return km

    # -- cells ----------------------------------------------------------------------------------

    async def async_execute_cell(self, cell, cell_index, execution_count=None, store_history=True):
        """Run one cell as nbclient does, but survive a dead kernel (see the class docstring)."""
        if self._stopped is not None:
            if cell.cell_type == "code":
                cell.outputs = []
                cell.execution_count = None
                nbg = cell.metadata.get("nbgrader", {})
                if self.mark_unrun_graded_cells and nbg.get("grade") and not nbg.get("solution"):
                    cell.outputs.append(new_output(
                        "error", ename="NotRun", evalue=f"not run: the kernel had stopped in cell {self._stopped[0]}",
                        traceback=[f"NotRun: this check was not run, because the kernel had stopped in cell "
                                   f"{self._stopped[0]} ({self._stopped[1]})."]))
            return cell
        self._cell_bytes = 0
        self._cell_capped = False
        self._cell_errors = 0
        self._cell_idle = False
        self._cell_dropped = False
        try:
            cell = await super().async_execute_cell(cell, cell_index, execution_count, store_history)
        except DeadKernelError:
            self._kernel_stopped(cell, cell_index)
            return cell
        finally:
            # processes a cell started (a fork bomb, a server) do not outlive it
            if self.km is not None and hasattr(self.km, "kill_strays"):
                self.km.kill_strays()
        if self._stopped is not None and self._stopped[0] == cell_index:
            self._append_stop_error(cell)
        elif cell.cell_type == "code" and cell.source.strip() and not self._cell_idle and not self._cell_capped:
            # the kernel's "idle" never came: a message was refused (over max_iopub_bytes) or dropped
            self._note(cell, "some output was lost (a message too large for the grader, or too many at once)")
            await self._reconnect_iopub()
        return cell

    async def _reconnect_iopub(self) -> None:
        """Open a fresh iopub connection (ZeroMQ drops one that delivered a refused message)."""
        with contextlib.suppress(Exception):
            self.kc.iopub_channel.close()
        self.kc._iopub_channel = None
        _ = self.kc.iopub_channel
        await asyncio.sleep(0.2)  # let the new subscription reach the kernel

    execute_cell = run_sync(async_execute_cell)

    def _kernel_stopped(self, cell, cell_index) -> None:
        reason = self.km.stop_reason() if hasattr(self.km, "stop_reason") else ""
        if not reason:
            reason = "it died"
        if self._stopped is None:
            self._stopped = (cell_index, reason)
        self.log.warning("Kernel stopped in cell %s: %s", cell_index, reason)
        self._append_stop_error(cell)

    def _append_stop_error(self, cell) -> None:
        reason = self._stopped[1]
        cell.outputs.append(new_output(
            "error", ename="KernelStopped", evalue=f"the kernel stopped: {reason}",
            traceback=[f"KernelStopped: the kernel stopped while running this cell: {reason}. "
                       "The cells after this one were not run."]))

    async def _async_poll_for_reply(self, msg_id, cell, timeout, task_poll_output_msg, task_poll_kernel_alive):
        self._current_msg_id = msg_id
        return await super()._async_poll_for_reply(msg_id, cell, timeout, task_poll_output_msg, task_poll_kernel_alive)

    async def _async_handle_timeout(self, timeout, cell=None):
        reply = await super()._async_handle_timeout(timeout, cell)
        if not self.interrupt_on_timeout or self.interrupt_grace <= 0 or self._current_msg_id is None:
            return reply
        deadline = time.monotonic() + self.interrupt_grace
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                msg = await self.kc.shell_channel.get_msg(timeout=remaining)
            except Exception:  # queue.Empty: no reply in time
                break
            if msg["parent_header"].get("msg_id") == self._current_msg_id:
                return reply  # the interrupt worked; nbgrader's timeout error stands
        reason = (f"it did not stop within {self.interrupt_grace:g} s of the interrupt after the "
                  f"{timeout} s time limit, so it was killed")
        if hasattr(self.km, "record_stop_reason"):
            self.km.record_stop_reason(reason)
        self.log.warning("Killing the kernel: %s", reason)
        with contextlib.suppress(Exception):
            await self.km.shutdown_kernel(now=True)
        index = next((i for i, c in enumerate(self.nb.cells) if c is cell), -1)
        self._stopped = (index, reason)
        return reply

    # -- outputs --------------------------------------------------------------------------------

    def process_message(self, msg, cell, cell_index):
        """Keep a well-formed output message while the cell's and the notebook's caps allow it.

        A message whose content would make an invalid output (a stream without a name, display
        data that is not a dict of strings, an error whose traceback is not a list...), or that
        nbclient cannot handle, is dropped with one note on the cell: it must not stop the
        notebook's grading, nor break a later step (limits, judging, the feedback page).
        """
        if _malformed(msg["msg_type"], msg["content"]):
            self._dropped(cell)
            return None
        try:
            return self._process_message(msg, cell, cell_index)
        except CellControlSignal:  # CellExecutionComplete: the kernel is idle
            raise
        except Exception:  # noqa: BLE001 - nbclient choked on what the kernel sent
            self._dropped(cell)
            return None

    def _dropped(self, cell) -> None:
        if not getattr(self, "_cell_dropped", False):
            self._cell_dropped = True
            cell.outputs.append(new_output("stream", name="stdout",
                                           text="\n[a malformed message from the kernel was dropped]\n"))

    def _process_message(self, msg, cell, cell_index):
        msg_type = msg["msg_type"]
        if msg_type in ("status", "execute_input", "clear_output"):
            if msg_type == "status" and msg["content"].get("execution_state") == "idle":
                self._cell_idle = True
            return super().process_message(msg, cell, cell_index)
        if msg_type == "error":
            self._cell_errors += 1
            if self._cell_errors > 3:
                return None
            msg = {**msg, "content": _truncate_error(msg["content"])}
            return super().process_message(msg, cell, cell_index)
        cell_left = self.max_output_per_cell - self._cell_bytes
        nb_left = self.max_output_per_notebook - self._nb_bytes
        limit = max(min(cell_left, nb_left), 0)
        size = _content_size(msg.get("content"), limit + 1)
        size += sum(len(b) for b in msg.get("buffers") or [])
        if self._cell_capped or size > limit:
            if self._cell_capped:
                return None
            self._cell_capped = True
            out = None
            content = msg.get("content") or {}
            if msg_type == "stream" and isinstance(content.get("text"), str) and limit > 0:
                # keep the beginning of a long stream, up to the cap
                msg = {**msg, "content": {**content, "text": content["text"][:limit]}}
                self._cell_bytes += limit
                self._nb_bytes += limit
                out = super().process_message(msg, cell, cell_index)
            which = "cell" if cell_left <= nb_left else "notebook"
            cap = self.max_output_per_cell if which == "cell" else self.max_output_per_notebook
            self._note(cell, f"this {which} reached its limit of {cap // 1000} kB of output; the rest was dropped")
            return out
        self._cell_bytes += size
        self._nb_bytes += size
        return super().process_message(msg, cell, cell_index)

    @staticmethod
    def _note(cell, why: str) -> None:
        cell.outputs.append(new_output("stream", name="stdout", text=f"\n[output cut: {why}]\n"))

    def on_cell_executed(self, **kwargs):
        """nbgrader's hook (records an error reply as an output), with the error cut to a few kB."""
        reply = kwargs.get("execute_reply")
        if reply and reply.get("content", {}).get("status") == "error":
            kwargs["execute_reply"] = {**reply, "content": _truncate_error(reply["content"])}
        return super().on_cell_executed(**kwargs)

