"""nbgrader configuration of a teacher's Lab on the course's JupyterHub (hub/jupyterhub_config.py).

The hub copies this file into the teacher's ``~/.jupyter`` and sets ``MWM_COURSE_DIR`` to the
course folder (``exercises/`` unless the hub's ``c.CourseHub.course`` names another). The course's own
``nbgrader_config.py`` is loaded from there, so the Formgrader and the Assignments tab see
the course's assignment, gradebook, exchange and grading sandbox whatever folder the Lab
process starts in.
"""
import os

c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)
load_subconfig(os.path.join(os.environ["MWM_COURSE_DIR"], "nbgrader_config.py"))  # noqa: F821

# A trial hub runs every user's Lab as one account: each submission's files belong to it, so
# nbgrader's check that they belong to the student they name would flag every one. On a real
# server (one account per student) the check stays on.
if os.environ.get("MWM_HUB_TRIAL") == "1":
    c.ExchangeCollect.check_owner = False
