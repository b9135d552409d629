"""A PostgreSQL gradebook of the course's own: started and stopped by command, on a local socket, no sudo.

Usage (from the project root; ``make gradebook-db`` and ``make gradebook-db-stop`` run these)::

    mwm-gradebook start     # create it on first use, start it
    mwm-gradebook stop
    mwm-gradebook status

Grading with several workers needs a database server (README, "Grading a large class"). On a
machine with systemd and sudo, Debian's own service will do; in a container, a CI runner or a
lab box as root, where neither exists, this makes a cluster of the course's own with Debian's
``postgresql`` programs (``initdb``, ``pg_ctl``): its data in ``exercises/.gradebook-db/`` (git
ignores it; as root, where PostgreSQL's user cannot reach the course folder, in
``/var/tmp/mwm-gradebook-<hash>/``), listening on a Unix socket in that folder only (no TCP port), trust authentication
for the local account (the socket folder is readable by its owner only). As root, the server
runs as Debian's ``postgres`` user, as PostgreSQL requires.

``start`` writes the gradebook's address to ``exercises/.gradebook-url``; the course's
``nbgrader_config.py`` uses it whenever ``MWM_GRADEBOOK_URL`` is not set, so every later command
(``nbgrader collect``, ``make grade``, ``nbgrader export``, the Formgrader) reads the same
gradebook without an ``export``. ``stop`` stops the server and leaves the data and the address
(a command run while it is stopped says the gradebook cannot be reached).

Exit status: 0 done; 1 the server could not start or stop (its log's last lines are printed).
"""
from __future__ import annotations

import argparse
import os
import pwd
import subprocess
import sys
from pathlib import Path

from . import COURSE_ROOT  # noqa: E402

ROOT = COURSE_ROOT
from mwm_grader.postgres import postgres_bin, why_no_postgres  # noqa: E402

COURSE = ROOT / "exercises"
DBNAME = "mwm_gradebook"
#: The file the course's nbgrader_config.py reads the gradebook's address from (when MWM_GRADEBOOK_URL is unset).
URL_FILE = ".gradebook-url"


def _as_server_user():
    """(prefix for commands, user name, uid, gid): PostgreSQL's user when root, else oneself."""
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        return (["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups", "--"],
                "postgres", user.pw_uid, user.pw_gid)
    me = pwd.getpwuid(os.geteuid())
    return [], me.pw_name, me.pw_uid, me.pw_gid


def cluster_folder(course: Path) -> Path:
    """Where the course's cluster lives: ``<course>/.gradebook-db``, or, where PostgreSQL's user cannot
    reach the course (a folder above it closed to others, e.g. under /root or pytest's /tmp folders,
    as root), ``/var/tmp/mwm-gradebook-<hash of the course's path>``."""
    import hashlib

    inside = course / ".gradebook-db"
    outside = Path("/var/tmp") / f"mwm-gradebook-{hashlib.sha256(str(course.resolve()).encode()).hexdigest()[:12]}"
    for folder in (inside, outside):
        if (folder / "data" / "PG_VERSION").exists():
            return folder
    prefix, *_ = _as_server_user()
    if not prefix:
        return inside
    parent_ok = subprocess.run([*prefix, "test", "-x", str(course)], capture_output=True).returncode == 0
    return inside if parent_ok else outside


def url_for(folder: Path, user: str) -> str:
    """The SQLAlchemy URL of the gradebook served from ``folder``'s socket, as ``user``."""
    return f"postgresql+psycopg://{user}@/{DBNAME}?host={folder / 'data'}"


def start(course: Path = COURSE, out=None) -> str:
    """Create (first time) and start the course's PostgreSQL gradebook; returns its URL.

    Raises:
        RuntimeError: PostgreSQL's programs are missing, or initdb, pg_ctl or createdb failed
            (with their output).
    """
    out = out or sys.stdout   # looked up now: a stream saved at import may be closed since
    why = why_no_postgres()
    if why:
        raise RuntimeError(why)
    bin_ = postgres_bin()
    prefix, user, uid, gid = _as_server_user()
    folder = cluster_folder(course)
    data = folder / "data"
    folder.mkdir(mode=0o700, exist_ok=True)
    os.chown(folder, uid, gid)
    if prefix and subprocess.run([*prefix, "test", "-w", str(folder)], capture_output=True).returncode != 0:
        raise RuntimeError(f"PostgreSQL's user {user!r} cannot write {folder}")

    def run(*args, check=True):
        done = subprocess.run([*prefix, *map(str, args)], capture_output=True, text=True, cwd=folder, timeout=120)
        if check and done.returncode != 0:
            log = (data / "server.log").read_text(errors="replace")[-1500:] if (data / "server.log").exists() else ""
            raise RuntimeError(f"{Path(str(args[0])).name} failed: {(done.stdout + done.stderr).strip()[-1500:]}\n{log}")
        return done

    if not (data / "PG_VERSION").exists():
        run(bin_ / "initdb", "-D", data, "-U", user, "--auth=trust", "-E", "UTF8")
        print(f"gradebook: created a PostgreSQL cluster in {data}", file=out)
    if run(bin_ / "pg_ctl", "-D", data, "status", check=False).returncode != 0:
        options = f"-c listen_addresses='' -k {data} -c unix_socket_permissions=0700"
        run(bin_ / "pg_ctl", "-D", data, "-o", options, "-l", data / "server.log", "-w", "-t", "60", "start")
    import psycopg

    with psycopg.connect(host=str(data), user=user, dbname="postgres", autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DBNAME,)).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{DBNAME}"')
    url = url_for(folder, user)
    write_url(course / URL_FILE, url)
    print(f"gradebook: PostgreSQL is running on the socket in {data} (no TCP port); {course / URL_FILE} names it, "
          f"so every command of the course uses it while MWM_GRADEBOOK_URL is unset:\n  {url}\n"
          "stop it with `make gradebook-db-stop`", file=out)
    return url


def write_url(path: Path, url: str) -> None:
    """Write ``url`` to ``path``, readable by its owner only (it names the gradebook's user and address)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # a file that was there already keeps its mode otherwise
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(url + "\n")


def stop(course: Path = COURSE, out=None) -> None:
    """Stop the course's gradebook server (its data and address stay)."""
    out = out or sys.stdout   # looked up now: a stream saved at import may be closed since
    bin_ = postgres_bin()
    data = cluster_folder(course) / "data"
    if bin_ is None or not (data / "PG_VERSION").exists():
        print("gradebook: there is no course gradebook server to stop", file=out)
        return
    prefix, *_ = _as_server_user()
    done = subprocess.run([*prefix, str(bin_ / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
                          capture_output=True, text=True, timeout=120)
    print("gradebook: stopped" if done.returncode == 0 else "gradebook: it was not running", file=out)


def status(course: Path = COURSE, out=None) -> bool:
    """Say whether the course's gradebook server runs; returns True if it does."""
    out = out or sys.stdout   # looked up now: a stream saved at import may be closed since
    bin_ = postgres_bin()
    data = cluster_folder(course) / "data"
    if bin_ is None or not (data / "PG_VERSION").exists():
        print("gradebook: no course gradebook server (make gradebook-db creates one)", file=out)
        return False
    prefix, *_ = _as_server_user()
    running = subprocess.run([*prefix, str(bin_ / "pg_ctl"), "-D", str(data), "status"], capture_output=True,
                             timeout=60).returncode == 0
    print(f"gradebook: {'running' if running else 'stopped'} ({data})", file=out)
    return running


def main(argv=None) -> int:
    """The command line (see the module's docstring); returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=["start", "stop", "status"])
    ap.add_argument("--course", type=Path, default=COURSE, help="the course folder (default: exercises/)")
    args = ap.parse_args(argv)
    try:
        if args.action == "start":
            start(args.course.resolve())
        elif args.action == "stop":
            stop(args.course.resolve())
        else:
            return 0 if status(args.course.resolve()) else 1
    except Exception as exc:  # noqa: BLE001 - one line for the teacher, whatever failed
        print(f"gradebook_db: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
