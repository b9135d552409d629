"""The course on a JupyterHub: one teacher's Lab on the course folder, one Lab per student.

Start it from the project root, after ``make setup`` and ``npm ci`` (README, "For teachers", "The course on a JupyterHub"):

    .venv/bin/jupyterhub -f hub/jupyterhub_config.py

Everything it needs is in this repository: the hub, its single-user servers and nbgrader run
from ``.venv``, and the proxy is ``configurable-http-proxy`` from ``node_modules`` (pinned in
``package-lock.json``). What each user gets when their server starts:

* a teacher (``c.CourseHub.teachers``, default ``["teacher"]``): JupyterLab opened
  on the course folder (``c.CourseHub.course``, default ``exercises/``), with the *Formgrader*
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

Who may log in: with ``c.CourseHub.roster`` (a CSV file read as ``make keys`` reads it: the column
``student_id``, else the first column), the teachers and the roster's students; without it,
everyone the authenticator accepts.

Two ways to run it:

* **On a server (the default).** Users are the machine's own accounts: the hub runs as root,
  checks passwords with PAM and starts each user's Lab as that user (JupyterHub's
  ``LocalProcessSpawner``). Each student's files are theirs, and ``nbgrader collect`` checks
  that a submission's files belong to the student it names.
* **A trial on one account** (``c.CourseHub.trial_password`` set, at least 8 characters): any
  user name logs in with that one password (JupyterHub's ``SharedPasswordAuthenticator``),
  and every Lab runs as the account that started the hub, with a home folder of its own
  under the hub's state folder (``SimpleLocalProcessSpawner``). Nothing separates the users;
  use it to try the course or to test it (``tests/test_hub.py``), never for a class.

Every user's Lab on a host of its own: ``c.CourseHub.subdomain_host`` (e.g. ``https://hub.example.org``,
with a wildcard DNS name and certificate for ``*.hub.example.org``) becomes JupyterHub's
``subdomain_host``, and each user's Lab is served at ``https://<user>.hub.example.org``. Without
it, every Lab shares the hub's origin, and a page a student's Lab serves (a student controls
their own server entirely) can script the teacher's Lab the moment the teacher opens it:
JupyterHub's own security advice. The hub says so in its log at every start on a server.

Other settings: ``c.CourseHub.state`` (the hub's database, cookie secret and, in a trial, the
users' homes; default ``hub/state/``); ``NBGRADER_EXCHANGE`` (the exchange folder, passed to
every user's Lab; default nbgrader's ``/usr/local/share/nbgrader/exchange``). The address is
JupyterHub's own setting, e.g. ``--port 8000`` (the default) on the command line.

The course's settings are traitlets, set below as JupyterHub's own are (``.venv/bin/python -m mwm_grader.hub``
lists them); the work is done by :func:`mwm_grader.hub.configure`. To run a class, copy this file
beside the hub's state and set them there: ``jupyterhub -f /srv/hub/jupyterhub_config.py``.
"""

c = get_config()  # noqa: F821  (provided by JupyterHub when it loads this file)

# The course's settings (examples; `.venv/bin/python -m mwm_grader.hub` explains each):
# c.CourseHub.course = "/srv/course/exercises"        # the course folder; default: this checkout's exercises/
# c.CourseHub.state = "/srv/hub/state"                # the hub's own files; default: this checkout's hub/state/
# c.CourseHub.teachers = ["teacher"]                  # hub user names that teach
# c.CourseHub.roster = "/srv/course/roster.csv"       # who else may log in; default: everyone the authenticator accepts
# c.CourseHub.subdomain_host = "https://hub.example.org"   # each Lab on a host of its own (set it for a class)
# c.CourseHub.trial_password = "..."                  # a trial on one account, never for a class

from mwm_grader.hub import configure  # noqa: E402  (the teacher's package: the hub runs from the course's .venv)

configure(c)
