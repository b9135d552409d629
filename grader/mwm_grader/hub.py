"""The course on a JupyterHub: its settings (:class:`CourseHub`) and what the hub config does with them.

``hub/jupyterhub_config.py`` sets ``c.CourseHub.<name>`` and calls :func:`configure`; see that file's
docstring for what each user gets. ``python -m mwm_grader.hub`` lists the settings.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from traitlets import List, Unicode
from traitlets.config import Configurable

from . import COURSE_ROOT, student_setup

ROOT = COURSE_ROOT


class CourseHub(Configurable):
    """The course's settings for its JupyterHub, set in the hub's config file as ``c.CourseHub.<name> = ...``."""

    course = Unicode("", help="The course folder (holds nbgrader_config.py); teachers' Labs open on it. "
                              "Empty: this checkout's exercises/.").tag(config=True)
    state = Unicode("", help="The hub's own files: its database, cookie secret and, in a trial, the users' homes. "
                             "Empty: this checkout's hub/state/.").tag(config=True)
    teachers = List(Unicode(), default_value=["teacher"],
                    help="The hub user names that teach (Formgrader, the course folder).").tag(config=True)
    roster = Unicode("", help="A roster CSV (the column student_id, else the first): only the teachers and its "
                              "students may log in. Empty: everyone the authenticator accepts.").tag(config=True)
    subdomain_host = Unicode("", help="e.g. https://hub.example.org: each user's Lab on a host of its own "
                                      "(<user>.hub.example.org), so a student's Lab cannot script the teacher's. "
                                      "JupyterHub's subdomain_host.").tag(config=True)
    trial_password = Unicode("", help="A trial on one account: any user name logs in with this password (8 "
                                      "characters or more) and every Lab runs as the hub's account. Never for a "
                                      "class.").tag(config=True)


def _with_command_line(c):
    """``c`` and, winning over it, the ``--CourseHub.<name>=...`` options of the running hub's command line.

    (JupyterHub applies its command line after the config file ran, so the file does not see them itself.)
    """
    import copy

    try:
        from jupyterhub.app import JupyterHub
    except ImportError:
        return c
    if not JupyterHub.initialized():
        return c
    merged = copy.deepcopy(c)
    merged.merge(JupyterHub.instance().cli_config)
    return merged


def configure(c) -> CourseHub:
    """Configure JupyterHub for the course from the ``c.CourseHub`` settings in its config ``c`` (or its command line).

    Args:
        c: the traitlets Config JupyterHub's config file gets (``get_config()``).

    Returns:
        CourseHub: the settings read.

    Raises:
        SystemExit: with one line saying what to fix (a course folder without nbgrader_config.py, a proxy not
            installed, a subdomain host that is not an address, an unreadable roster, a bad teacher name).
    """
    settings = CourseHub(config=_with_command_line(c))
    venv_bin = Path(sys.executable).parent  # the hub runs from the course's .venv; so do the Labs
    course = Path(settings.course or ROOT / "exercises").resolve()
    state = Path(settings.state or ROOT / "hub" / "state").resolve()
    teachers = {name.strip().lower() for name in settings.teachers if name.strip()}
    trial = settings.trial_password
    exchange = os.environ.get("NBGRADER_EXCHANGE") or None

    if not (course / "nbgrader_config.py").is_file():
        sys.exit(f"CourseHub.course: {course} holds no nbgrader_config.py (the course folder is exercises/)")
    for name in teachers:
        student_setup.check_student_id(name)  # the same rule for every hub user name nbgrader sees
    state.mkdir(parents=True, exist_ok=True)

    # The hub's own files.
    c.JupyterHub.db_url = f"sqlite:///{state / 'jupyterhub.sqlite'}"
    c.JupyterHub.cookie_secret_file = str(state / "jupyterhub_cookie_secret")
    c.JupyterHub.pid_file = str(state / "jupyterhub.pid")
    proxy = ROOT / "node_modules" / ".bin" / "configurable-http-proxy"
    if not proxy.exists():
        sys.exit(f"{proxy} is missing: run `npm ci` in {ROOT} (package-lock.json pins configurable-http-proxy)")
    c.ConfigurableHTTPProxy.command = [str(proxy)]
    c.ConfigurableHTTPProxy.pid_file = str(state / "jupyterhub-proxy.pid")

    # Each user's Lab on a host of its own (hub/jupyterhub_config.py's docstring): a student's Lab cannot
    # script the teacher's.
    subdomain_host = settings.subdomain_host.rstrip("/")
    if subdomain_host:
        if not subdomain_host.startswith(("http://", "https://")):
            sys.exit(f"CourseHub.subdomain_host must be an address such as https://hub.example.org, "
                     f"got {subdomain_host!r}")
        c.JupyterHub.subdomain_host = subdomain_host
    elif not trial:
        print("jupyterhub_config: WARNING: CourseHub.subdomain_host is not set, so every Lab shares the hub's "
              "address: a page a student's Lab serves can act as the teacher when the teacher opens it. Give users "
              "subdomains (README, 'The course on a JupyterHub').", file=sys.stderr)

    # Who may log in: user names are student ids (mwm_practice.ids), so a name nbgrader cannot file is
    # refused at the login page, which says what is allowed (instead of "500: Unhandled error
    # starting server" once the Lab starts).
    from mwm_practice.ids import ID_PATTERN, RULE
    from mwm_practice.notebook import VIEW_FILE

    c.Authenticator.username_pattern = "^" + ID_PATTERN.pattern.replace("A-Za-z", "a-z") + "$"  # names are lower-cased
    c.JupyterHub.template_vars = {"announcement_login": f"Your user name is your student id: {RULE}."}
    if settings.roster:
        from .roster import RosterError, read_roster

        try:
            students = set(read_roster(Path(settings.roster)))
        except RosterError as exc:
            sys.exit(f"CourseHub.roster: {exc}")
        c.Authenticator.allowed_users = teachers | students
    else:
        c.Authenticator.allow_all = True

    # Every user's Lab: the course's Python, JupyterLab first.
    c.Spawner.cmd = [str(venv_bin / "jupyterhub-singleuser")]
    c.Spawner.default_url = "/lab"
    c.Spawner.env_keep = ["PATH", "LANG", "LC_ALL", "NBGRADER_EXCHANGE"]
    c.Spawner.http_timeout = 120
    c.Spawner.start_timeout = 120

    if trial:
        from jupyterhub.authenticators.shared import SharedPasswordAuthenticator
        from jupyterhub.spawner import SimpleLocalProcessSpawner

        c.JupyterHub.authenticator_class = SharedPasswordAuthenticator
        c.SharedPasswordAuthenticator.user_password = trial
        c.JupyterHub.spawner_class = SimpleLocalProcessSpawner
        c.SimpleLocalProcessSpawner.home_dir_template = str(state / "homes" / "{username}")
        if os.geteuid() == 0:
            c.Spawner.args = ["--allow-root"]  # a trial started as root: every Lab runs as root

    def _home(spawner) -> Path:
        """The user's home folder: the trial's folder under the state folder, else the account's."""
        if trial:
            return Path(spawner.home_dir)
        import pwd

        return Path(pwd.getpwnam(spawner.user.name).pw_dir)

    def _give(paths, name):
        """On a server run as root: make ``paths`` belong to the account ``name`` (a trial leaves them)."""
        if trial or os.geteuid() != 0:
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
        env = {"PATH": f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"}
        if name in teachers:
            env.update(JUPYTER_CONFIG_DIR=str(install_jupyter_config("teacher", home, name)), MWM_COURSE_DIR=str(course))
            if trial:
                env["MWM_HUB_TRIAL"] = "1"  # every submission's files belong to one account
            spawner.notebook_dir = str(course)
        else:
            student_setup.check_student_id(name)
            jupyter_dir = install_jupyter_config("student", home, name)
            config, _ = student_setup.set_up(name, jupyter_dir, exchange)  # found there by nbgrader, out of sight
            _give([config, config.parent / VIEW_FILE], name)  # and their view of the problems, beside it
            env["JUPYTER_CONFIG_DIR"] = str(jupyter_dir)
            spawner.notebook_dir = str(home)
        spawner.environment.update(env)

    c.Spawner.pre_spawn_hook = set_up_user
    return settings


def main(argv=None) -> int:
    """``python -m mwm_grader.hub``: the course's hub settings, as ``c.CourseHub.<name>`` takes them."""
    print("Settings of the course's JupyterHub: lines c.CourseHub.<name> = ... in hub/jupyterhub_config.py (or "
          "your copy of it),\nor options --CourseHub.<name>=... on jupyterhub's command line. JupyterHub's own "
          "settings: jupyterhub --help-all.\n")
    print(CourseHub.class_config_section())
    return 0


if __name__ == "__main__":
    sys.exit(main())
