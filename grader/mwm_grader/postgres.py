"""A throwaway PostgreSQL server for the grading tests and benchmark: its own data folder and port.

    with scratch_postgres() as server:
        url = server.create_database("course")   # postgresql+psycopg://postgres@127.0.0.1:PORT/course

The server (Debian's ``postgresql`` package: ``initdb``, ``pg_ctl`` in /usr/lib/postgresql/<ver>/bin)
listens on 127.0.0.1 on a free port, with its socket in its data folder and trust
authentication, and is stopped (``pg_ctl stop -m immediate``) and deleted when the block ends,
also after an error. initdb and postgres refuse to run as root: as root they run as the
``postgres`` system user (made by Debian's package), which owns the data folder.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path


def postgres_bin() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl`` (PATH first, then Debian's newest), or None."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(on_path).parent
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    return Path(found[-1]).parent if found else None


def why_no_postgres() -> str:
    """"" when a scratch server can start here, else one line saying what is missing."""
    if postgres_bin() is None:
        return "PostgreSQL's server programs (initdb, pg_ctl) are missing: sudo apt-get install postgresql"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "as root the server must run as the 'postgres' user, which does not exist"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "the psycopg driver is missing: pip install -r requirements.txt"
    return ""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A running scratch server: ``port`` (int), ``data`` (its folder), ``url(dbname)``, ``create_database``."""

    def __init__(self, data: Path, port: int, as_user):
        self.data, self.port, self._as_user = data, port, as_user

    def url(self, dbname: str) -> str:
        """The SQLAlchemy URL of database ``dbname`` on this server (psycopg 3 driver)."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{dbname}"

    def create_database(self, dbname: str) -> str:
        """Create database ``dbname`` (letters, digits, _); returns its URL."""
        import psycopg

        if not dbname.replace("_", "").isalnum():
            raise ValueError(f"dbname must be letters, digits and _, got {dbname!r}")
        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{dbname}"')
        return self.url(dbname)


@contextmanager
def scratch_postgres():
    """Start a scratch server; yields a Server; stops and deletes it at the end.

    Raises:
        RuntimeError: why_no_postgres() gives a reason, or initdb / pg_ctl start failed (their output).
    """
    why = why_no_postgres()
    if why:
        raise RuntimeError(why)
    bin_ = postgres_bin()
    root = Path(tempfile.mkdtemp(prefix="mwm-postgres-"))
    data = root / "data"
    prefix = []
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(root, user.pw_uid, user.pw_gid)
        prefix = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups", "--"]

    def run(*args):
        done = subprocess.run([*prefix, *args], capture_output=True, text=True, cwd=root, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, args))} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")

    port = _free_port()
    started = False
    try:
        run(bin_ / "initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        options = f"-h 127.0.0.1 -p {port} -k {data} -c fsync=off -c max_connections=200"
        run(bin_ / "pg_ctl", "-D", data, "-o", options, "-l", data / "server.log", "-w", "-t", "60", "start")
        started = True
        yield Server(data, port, prefix)
    finally:
        if started:
            subprocess.run([*prefix, bin_ / "pg_ctl", "-D", data, "-m", "immediate", "stop"], capture_output=True,
                           cwd=root, timeout=60)
        shutil.rmtree(root, ignore_errors=True)
