"""The course on a JupyterHub: one teacher's Lab on the course folder, one Lab per student.

Start it from the project root, after ``make setup`` and ``npm ci`` (README, "For teachers", "The course on a JupyterHub"):

    .venv/bin/jupyterhub -f hub/jupyterhub_config.py

Everything it needs is in this repository: the hub, its single-user servers and nbgrader run
from ``.venv``, and the proxy is ``configurable-http-proxy`` from ``node_modules`` (pinned in
``package-lock.json``). What each user gets when their server starts:

* a teacher (``MWM_HUB_TEACHERS``, comma-separated, default ``teacher``): JupyterLab opened
  on the course folder (``MWM_HUB_COURSE``, default ``exercises/``), with the *Formgrader*
  (release, collect, autograde, feedback) and the *Assignments* tab. nbgrader finds the
  course through ``labs/teacher/nbgrader_config.py`` (copied into their ``~/.jupyter``),
  which loads the course's own config;
* a student (anyone else allowed in): JupyterLab in their home folder with the student's
  Jupyter config (``labs/student/``, copied into their ``~/.jupyter``: the *Assignments* tab
  and *Validate*, no authoring tools, widgets saved with the notebook), where
  the teacher's package (``mwm_grader.student_setup``) writes their ``nbgrader_config.py`` (the
  course id, their id (the hub user name) and the exchange) and their view of the problems
  (``mwm-practice-view.json``). Their notebooks show the numbers of that id; the student's
  Lab never imports the teacher's package.

Who may log in: with ``MWM_HUB_ROSTER`` (a CSV file read as ``make keys`` reads it: the column
``student_id``, else the first column), the teachers and the roster's students; without it,
everyone the authenticator accepts.

Two ways to run it:

* **On a server (the default).** Users are the machine's own accounts: the hub runs as root,
  checks passwords with PAM and starts each user's Lab as that user (JupyterHub's
  ``LocalProcessSpawner``). Each student's files are theirs, and ``nbgrader collect`` checks
  that a submission's files belong to the student it names.
* **A trial on one account** (``MWM_HUB_TRIAL_PASSWORD`` set, at least 8 characters): any
  user name logs in with that one password (JupyterHub's ``SharedPasswordAuthenticator``),
  and every Lab runs as the account that started the hub, with a home folder of its own
  under the hub's state folder (``SimpleLocalProcessSpawner``). Nothing separates the users;
  use it to try the course or to test it (``tests/test_hub.py``), never for a class.

Every user's Lab on a host of its own: ``MWM_HUB_SUBDOMAIN_HOST`` (e.g. ``https://hub.example.org``,
with a wildcard DNS name and certificate for ``*.hub.example.org``) becomes JupyterHub's
``subdomain_host``, and each user's Lab is served at ``https://<user>.hub.example.org``. Without
it, every Lab shares the hub's origin, and a page a student's Lab serves (a student controls
their own server entirely) can script the teacher's Lab the moment the teacher opens it:
JupyterHub's own security advice. The hub says so in its log at every start on a server.

Other settings: ``MWM_HUB_STATE`` (the hub's database, cookie secret and, in a trial, the
users' homes; default ``hub/state/``); ``NBGRADER_EXCHANGE`` (the exchange folder, passed to
every user's Lab; default nbgrader's ``/usr/local/share/nbgrader/exchange``). The address is
JupyterHub's own setting, e.g. ``--port 8000`` (the default) on the command line.
"""
import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821  (provided by JupyterHub when it loads this file)

from mwm_grader import student_setup  # noqa: E402  (the teacher's package: the hub runs from the course's .venv)

ROOT = Path(__file__).resolve().parents[1]

VENV_BIN = Path(sys.executable).parent  # the hub runs from the course's .venv; so do the Labs
COURSE = Path(os.environ.get("MWM_HUB_COURSE", ROOT / "exercises")).resolve()
STATE = Path(os.environ.get("MWM_HUB_STATE", ROOT / "hub" / "state")).resolve()
TEACHERS = {name.strip().lower() for name in os.environ.get("MWM_HUB_TEACHERS", "teacher").split(",") if name.strip()}
TRIAL_PASSWORD = os.environ.get("MWM_HUB_TRIAL_PASSWORD", "")
EXCHANGE = os.environ.get("NBGRADER_EXCHANGE") or None

if not (COURSE / "nbgrader_config.py").is_file():
    sys.exit(f"MWM_HUB_COURSE: {COURSE} holds no nbgrader_config.py (the course folder is exercises/)")
for name in TEACHERS:
    student_setup.check_student_id(name)  # the same rule for every hub user name nbgrader sees
STATE.mkdir(parents=True, exist_ok=True)

# The hub's own files.
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
proxy = ROOT / "node_modules" / ".bin" / "configurable-http-proxy"
if not proxy.exists():
    sys.exit(f"{proxy} is missing: run `npm ci` in {ROOT} (package-lock.json pins configurable-http-proxy)")
c.ConfigurableHTTPProxy.command = [str(proxy)]
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")

# Each user's Lab on a host of its own (the module's docstring): a student's Lab cannot script the teacher's.
SUBDOMAIN_HOST = os.environ.get("MWM_HUB_SUBDOMAIN_HOST", "").rstrip("/")
if SUBDOMAIN_HOST:
    if not SUBDOMAIN_HOST.startswith(("http://", "https://")):
        sys.exit(f"MWM_HUB_SUBDOMAIN_HOST must be an address such as https://hub.example.org, got {SUBDOMAIN_HOST!r}")
    c.JupyterHub.subdomain_host = SUBDOMAIN_HOST
elif not TRIAL_PASSWORD:
    print("jupyterhub_config: WARNING: MWM_HUB_SUBDOMAIN_HOST is not set, so every Lab shares the hub's address: "
          "a page a student's Lab serves can act as the teacher when the teacher opens it. Give users subdomains "
          "(README, 'The course on a JupyterHub').", file=sys.stderr)

# Who may log in: user names are student ids (mwm_practice.ids), so a name nbgrader cannot file is
# refused at the login page, which says what is allowed (instead of "500: Unhandled error
# starting server" once the Lab starts).
from mwm_practice.ids import ID_PATTERN, RULE  # noqa: E402
from mwm_practice.notebook import VIEW_FILE  # noqa: E402

c.Authenticator.username_pattern = "^" + ID_PATTERN.pattern.replace("A-Za-z", "a-z") + "$"  # names are lower-cased
c.JupyterHub.template_vars = {"announcement_login": f"Your user name is your student id: {RULE}."}
if os.environ.get("MWM_HUB_ROSTER"):
    from mwm_grader.roster import RosterError, read_roster

    try:
        students = set(read_roster(Path(os.environ["MWM_HUB_ROSTER"])))
    except RosterError as exc:
        sys.exit(f"MWM_HUB_ROSTER: {exc}")
    c.Authenticator.allowed_users = TEACHERS | students
else:
    c.Authenticator.allow_all = True

# Every user's Lab: the course's Python, JupyterLab first.
c.Spawner.cmd = [str(VENV_BIN / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.env_keep = ["PATH", "LANG", "LC_ALL", "NBGRADER_EXCHANGE"]
c.Spawner.http_timeout = 120
c.Spawner.start_timeout = 120

if TRIAL_PASSWORD:
    from jupyterhub.authenticators.shared import SharedPasswordAuthenticator
    from jupyterhub.spawner import SimpleLocalProcessSpawner

    c.JupyterHub.authenticator_class = SharedPasswordAuthenticator
    c.SharedPasswordAuthenticator.user_password = TRIAL_PASSWORD
    c.JupyterHub.spawner_class = SimpleLocalProcessSpawner
    c.SimpleLocalProcessSpawner.home_dir_template = str(STATE / "homes" / "{username}")
    if os.geteuid() == 0:
        c.Spawner.args = ["--allow-root"]  # a trial started as root: every Lab runs as root


def _home(spawner) -> Path:
    """The user's home folder: the trial's folder under the state folder, else the account's."""
    if TRIAL_PASSWORD:
        return Path(spawner.home_dir)
    import pwd

    return Path(pwd.getpwnam(spawner.user.name).pw_dir)


def _give(paths, name):
    """On a server run as root: make ``paths`` belong to the account ``name`` (a trial leaves them)."""
    if TRIAL_PASSWORD or os.geteuid() != 0:
        return
    import pwd

    account = pwd.getpwnam(name)
    for path in paths:
        os.chown(path, account.pw_uid, account.pw_gid)


def install_jupyter_config(role: str, home: Path, name: str) -> Path:
    """Copy the course's Jupyter config for ``role`` (``labs/teacher`` or ``labs/student``) into ``home/.jupyter``.

    Each user gets a copy of their own, since JupyterLab writes its workspaces and settings
    into the config folder. The course's files are written again at every start (so a
    change in the course reaches everyone); the user's other files there are kept.

    Args:
        role: ``"teacher"`` or ``"student"``.
        home: the user's home folder (made if missing).
        name: the hub user name (on a server, the account that gets the files).

    Returns:
        The config folder, ``home/.jupyter``.

    Raises:
        ValueError: ``role`` is neither.
    """
    if role not in ("teacher", "student"):
        raise ValueError(f"role must be 'teacher' or 'student', got {role!r}")
    source, target = ROOT / "labs" / role, home / ".jupyter"
    made = []
    for path in sorted(source.rglob("*")):
        if not path.is_file() or "workspaces" in path.parts:
            continue
        copy = target / path.relative_to(source)
        for folder in reversed(copy.relative_to(home).parents[:-1]):
            if not (home / folder).exists():
                (home / folder).mkdir()
                made.append(home / folder)
        copy.write_bytes(path.read_bytes())
        made.append(copy)
    _give(made, name)
    return target


def set_up_user(spawner):
    """Before a user's Lab starts: their Jupyter config, the folder Lab opens on, their nbgrader config.

    Args:
        spawner: the user's JupyterHub spawner; its ``environment`` and ``notebook_dir`` are set.

    Raises:
        ValueError: the hub user name is one nbgrader cannot file a submission under.
    """
    name = spawner.user.name
    home = _home(spawner)
    home.mkdir(parents=True, exist_ok=True)
    env = {"PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"}
    if name in TEACHERS:
        env.update(JUPYTER_CONFIG_DIR=str(install_jupyter_config("teacher", home, name)), MWM_COURSE_DIR=str(COURSE))
        if TRIAL_PASSWORD:
            env["MWM_HUB_TRIAL"] = "1"  # every submission's files belong to one account
        spawner.notebook_dir = str(COURSE)
    else:
        student_setup.check_student_id(name)
        jupyter_dir = install_jupyter_config("student", home, name)
        config, _ = student_setup.set_up(name, jupyter_dir, EXCHANGE)  # found there by nbgrader, out of sight
        _give([config, config.parent / VIEW_FILE], name)  # and their view of the problems, beside it
        env["JUPYTER_CONFIG_DIR"] = str(jupyter_dir)
        spawner.notebook_dir = str(home)
    spawner.environment.update(env)


c.Spawner.pre_spawn_hook = set_up_user
