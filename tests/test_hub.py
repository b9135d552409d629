"""The course on a real JupyterHub, in Chromium: one teacher and two students, from release to feedback.

The hub runs with the repository's own config, ``hub/jupyterhub_config.py``, started as the
README's "The course on a JupyterHub" starts a trial: JupyterHub's ``SharedPasswordAuthenticator`` and
``SimpleLocalProcessSpawner`` (every Lab runs as this account, each user in a home of their own),
``configurable-http-proxy`` from ``node_modules``, a temporary course folder and exchange, and
free ports. Then, in the browser, each user does what the README tells them:

1. the teacher opens the *Formgrader* from the *Nbgrader* menu of their Lab and releases ``practice``;
2. alice and bob open the *Assignments* tab and fetch it. The test writes their answers into
   the fetched notebook (as typing them would); each validates it there and submits;
3. the teacher, in the Formgrader, collects, autogrades each submission, and generates and
   releases the feedback;
4. each student fetches their feedback in the *Assignments* tab and opens the page.

Every score, in the Formgrader, the gradebook and each feedback page, must equal what the
student's answers earn and what ``nbgrader autograde`` on the command line gives the same
submissions.

The hub gives every user's Lab a host of its own (``c.CourseHub.subdomain_host``, here
``http://localhost:<port>``, so the teacher's Lab is at ``http://teacher.localhost:<port>``),
and bob's notebook carries every vector of :mod:`tests.hostile_content`: the teacher opens his
submission in the Formgrader and his feedback page, and none of it runs (no mark, no file written,
no request leaving the hub); from alice's Lab, a script cannot read the teacher's. Screenshots of a student's Assignments tab and of the teacher's Formgrader go to
``test-artifacts/screenshots/hub-*.png``.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from mwm_grader import problems as problems_mod
from mwm_grader.variants import numbers_for
from tests import hostile_content as hc
from tests.practice_course import ROOT, SOURCE, need_sandbox, parts_of, solve
from tests.test_site import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, _need_browser

PROXY = ROOT / "node_modules" / ".bin" / "configurable-http-proxy"
PASSWORD = "course-trial-password"
COURSE = "machines-with-memory"
#: What each student leaves unanswered (as in tests/test_class_trial.py).
SKIPPED = {"alice": (), "bob": ("p01-c", "p05-c")}
#: The student whose notebook carries every vector of tests/hostile_content.py.
HOSTILE = "bob"
WAIT_MS = 180_000  # a Lab's first start, or grading one submission, on a busy 2-core machine


def _free_ports(n: int) -> list[int]:
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def _stop(processes_under: Path, hub: subprocess.Popen):
    """Stop the hub (it stops the users' Labs and the proxy), then anything still running in ``processes_under``."""
    if hub.poll() is None:
        hub.send_signal(signal.SIGTERM)
        try:
            hub.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(hub.pid, signal.SIGKILL)
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and Path(os.readlink(proc / "cwd")).is_relative_to(processes_under):
                os.kill(int(proc.name), signal.SIGKILL)
        except (OSError, ValueError):
            continue


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """A running hub on a temporary course: yields (base URL, course folder, state folder, environment)."""
    _need_browser()
    need_sandbox()
    if not PROXY.exists():
        message = f"{PROXY} is missing (npm ci installs it); the hub test needs it"
        if os.environ.get("MWM_REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)
    tmp = tmp_path_factory.mktemp("hub")
    course, exchange, state = tmp / "course", tmp / "exchange", tmp / "state"
    (course / "source").mkdir(parents=True)
    exchange.mkdir(mode=0o777)
    exchange.chmod(0o777)
    shutil.copy(ROOT / "exercises" / "nbgrader_config.py", course)
    shutil.copytree(SOURCE.parent, course / "source" / "practice")
    bin_dir = Path(sys.executable).parent
    env = dict(os.environ, NBGRADER_EXCHANGE=str(exchange), PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    for name in ("MWM_STUDENT", "JUPYTER_CONFIG_DIR"):
        env.pop(name, None)
    done = subprocess.run([str(bin_dir / "nbgrader"), "generate_assignment", "practice"], cwd=course, env=env,
                          capture_output=True, text=True, timeout=300)  # what `make exercises` does in exercises/
    assert done.returncode == 0, done.stdout + done.stderr
    port, hub_port, api_port = _free_ports(3)
    settings = [f"--CourseHub.course={course}", f"--CourseHub.state={state}", f"--CourseHub.trial_password={PASSWORD}",
                "--CourseHub.teachers=teacher",
                f"--CourseHub.subdomain_host=http://localhost:{port}"]  # each user's Lab at <user>.localhost
    log = tmp / "hub.log"
    with open(log, "w") as out:
        process = subprocess.Popen(
            [str(bin_dir / "jupyterhub"), "-f", str(ROOT / "hub" / "jupyterhub_config.py"), "--ip", "127.0.0.1",
             "--port", str(port), f"--JupyterHub.hub_port={hub_port}",
             f"--ConfigurableHTTPProxy.api_url=http://127.0.0.1:{api_port}", *settings],
            cwd=tmp, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://localhost:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            assert process.poll() is None, "the hub stopped:\n" + log.read_text()[-4000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/hub/api", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the hub did not answer in 90 s:\n" + log.read_text()[-4000:]
            time.sleep(0.5)
        yield base, course, state, env
    finally:
        _stop(tmp, process)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(log, ARTIFACTS.parent / "hub.log")  # the hub's and the Labs' log, for a failure


def user_url(base: str, user: str) -> str:
    """Where ``user``'s Lab is served: a host of its own (``http://alice.localhost:<port>/user/alice``)."""
    scheme, host = base.split("://")
    return f"{scheme}://{user}.{host}/user/{user}"


def _log_in(browser, base: str, user: str, watch=None):
    """A new browser context logged in as ``user``, on a fresh Lab layout; returns its page."""
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    if watch is not None:
        context.route(lambda url: url.startswith(("http:", "https:", "ws:", "wss:")) and not watch.inside(url),
                      watch.route)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(base + "/hub/login")
    page.fill("#username_input", user)
    page.fill("#password_input", PASSWORD)
    page.click("#login_submit")
    page.wait_for_url(f"**/user/{user}/lab**")
    assert page.url.startswith(user_url(base, user)), page.url  # the Lab is on the user's own host
    page.goto(f"{user_url(base, user)}/lab?reset")  # the default layout: a launcher, nothing restored
    page.wait_for_selector(".jp-LauncherCard")
    return page


def _menu(page, top: str, item: str):
    page.click(f".lm-MenuBar-itemLabel:text-is('{top}')")
    page.click(f".lm-Menu-itemLabel:text-is('{item}')")


def _formgrader_action(frame, selector: str) -> str:
    """Click a Formgrader action and read its result window; fails on nbgrader's error window."""
    frame.locator(selector).click()
    window = frame.locator("#success-modal, #error-modal").first
    window.wait_for(state="visible", timeout=WAIT_MS)
    text = window.inner_text()
    assert frame.locator("#error-modal").count() == 0, f"{selector}: {text}"
    frame.locator(".modal-footer button").first.click()
    window.wait_for(state="detached")
    return text


def _assignments_tab(page):
    _menu(page, "Nbgrader", "Assignment List")
    page.wait_for_selector("#released_assignments_list")
    return page


def _the_class(browser, base: str, state: Path, course: Path, watch) -> tuple[dict, dict]:
    """Steps 1-4 of the module's docstring; returns the Formgrader's scores and the feedback pages' text, by student."""
    # 0. A user name that is no student id is refused at the login page, which says what is allowed.
    page = browser.new_context().new_page()
    page.goto(base + "/hub/login")
    assert "Your user name is your student id" in page.locator("body").inner_text()
    page.fill("#username_input", "zoë")
    page.fill("#password_input", PASSWORD)
    page.click("#login_submit")
    page.wait_for_load_state()
    assert "/hub/login" in page.url and "Invalid" in page.locator("body").inner_text(), page.url
    page.context.close()

    # 1. The teacher releases the assignment from the Formgrader.
    teacher = _log_in(browser, base, "teacher", watch)
    _menu(teacher, "Nbgrader", "Formgrader")
    formgrader = teacher.frame_locator(".jp-MainAreaWidget iframe").first
    row = "tbody tr:has(td.name a:text-is('practice'))"
    formgrader.locator(row).wait_for()
    _formgrader_action(formgrader, f"{row} td.release a")
    assert formgrader.locator(f"{row} td.status").inner_text().strip() == "released"

    # 2. Each student fetches, answers, validates and submits in their Assignments tab.
    students = {}
    for student, skipped in SKIPPED.items():
        page = _assignments_tab(_log_in(browser, base, student, watch))
        released = page.locator("#released_assignments_list > .list_item", has_text="practice")
        assert COURSE in released.inner_text()
        released.locator("button:text-is('Fetch')").click()
        fetched = page.locator("#fetched_assignments_list > .list_item", has_text="practice")
        fetched.wait_for()
        path = state / "homes" / student / "practice" / "practice.ipynb"
        own = parts_of(problems_mod.build_all(numbers_for(student))[0])  # their own numbers
        nb = nbformat.read(path, as_version=4)
        solve(nb, own, skip=skipped)
        if student == HOSTILE:
            hc.make_hostile(nb, raising=False)  # every vector, in the notebook bob hands in
        nbformat.write(nb, path)
        fetched.locator("a.assignment-notebooks-link").click()
        fetched.locator("button:text-is('Validate')").click()
        dialog = page.locator(".jp-Dialog")
        dialog.wait_for()
        verdict = dialog.inner_text()
        students[student] = page
        if skipped:  # validation runs the notebook and names each hand-in cell left empty
            assert verdict.count("The following cell failed") == len(skipped), verdict
            for part in skipped:
                assert f"practice.hand_in('{part}'" in verdict, verdict
            assert verdict.count("(no answer yet)") == len(skipped), verdict
        else:
            assert "Success! Your notebook passes all the tests." in verdict, verdict
        dialog.locator("button.jp-mod-accept, button").last.click()
        dialog.wait_for(state="detached")
        fetched.locator("button:text-is('Submit')").click()
        page.locator("#submitted_assignments_list > .list_item", has_text="practice").first.wait_for()

    # 3. The teacher collects, autogrades and releases feedback, all from the Formgrader.
    teacher.bring_to_front()
    collected = _formgrader_action(formgrader, f"{row} td.collect a")
    assert f"Processing {len(SKIPPED)} submissions" in collected, collected
    formgrader.locator(f"{row} td.num-submissions a:text-is('{len(SKIPPED)}')").wait_for()
    formgrader.locator(f"{row} td.num-submissions a").click()
    for student in SKIPPED:
        _formgrader_action(formgrader, f"tbody tr:has(td.student-id:text-is('{student}')) td.autograde a")
    formgrader.locator("td.score", has_text=re.compile(r"\d")).nth(len(SKIPPED) - 1).wait_for()
    shown = {student: formgrader.locator(f"tbody tr:has(td.student-id:text-is('{student}')) td.score").inner_text()
             for student in SKIPPED}
    teacher.screenshot(path=str(ARTIFACTS / "hub-teacher-formgrader.png"))
    formgrader.locator("a:text-is('Manage Assignments')").click()
    _formgrader_action(formgrader, f"{row} td.generate-feedback a")
    _formgrader_action(formgrader, f"{row} td.release-feedback a")
    _teacher_reads_the_hostile_submission(teacher, base, course, watch)

    # 4. Each student fetches their feedback and reads it.
    feedback = {}
    for student, page in students.items():
        page.bring_to_front()
        page.locator("#refresh_assignments_list, button[title*='efresh']").first.click()
        submitted = page.locator("#submitted_assignments_list > .list_item", has_text="practice").first
        submitted.locator("button:text-is('Fetch Feedback')").click()
        submitted.locator("text=(view feedback)").wait_for()
        if student == "alice":
            page.screenshot(path=str(ARTIFACTS / "hub-student-assignments.png"))
        (html,) = (state / "homes" / student / "practice" / "feedback").glob("*/practice.html")
        page.goto(f"{user_url(base, student)}/files/{html.relative_to(state / 'homes' / student)}")
        feedback[student] = page.locator("body").inner_text()
        assert not watch.markers(page, f"{student}'s feedback page")
    _no_reach_across_users(students["alice"], base)
    return shown, feedback


def _frame(page, part: str):
    for frame in page.frames:
        if part in frame.url:
            return frame
    raise AssertionError(f"no frame of {page.url} shows {part}")


def _teacher_reads_the_hostile_submission(teacher, base: str, course: Path, watch):
    """The teacher opens bob's submission in the Formgrader and his feedback page: nothing of his runs."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE) as gb:
        sid = gb.find_submission_notebook("practice", "practice", HOSTILE).id
    lab = user_url(base, "teacher")
    frame = _frame(teacher, "/formgrader")
    frame.goto(f"{lab}/formgrader/submissions/{sid}/")
    frame.wait_for_selector("input.score[placeholder]")
    frame.wait_for_selector("mjx-container", timeout=60_000)
    watch.settle(teacher)
    assert not watch.markers(teacher, "the teacher's Formgrader, bob's submission")
    honest = frame.locator(".text_cell_render", has_text=hc.HONEST_TEXT)
    assert honest.is_visible()
    honest.scroll_into_view_if_needed()
    teacher.screenshot(path=str(ARTIFACTS / "hub-teacher-hostile-submission.png"))
    tab = teacher.context.new_page()
    tab.goto(f"{lab}/files/feedback/{HOSTILE}/practice/practice.html", referer=f"{lab}/lab")
    tab.wait_for_selector("mjx-container", timeout=60_000)
    watch.settle(tab)
    assert not watch.markers(tab, "the teacher's view of bob's feedback")
    tab.close()
    frame.goto(f"{lab}/formgrader/manage_assignments")
    frame.wait_for_selector("tbody tr:has(td.name a:text-is('practice'))")


def _no_reach_across_users(page, base: str):
    """From alice's Lab, a script can neither read the teacher's Lab in a frame nor call its API."""
    reach = page.evaluate("""async (lab) => {
        const frame = document.createElement("iframe");
        frame.src = lab + "/lab";
        document.body.appendChild(frame);
        await new Promise(resolve => { frame.onload = resolve; setTimeout(resolve, 10000); });
        let read = "unreadable";
        try { read = frame.contentDocument ? frame.contentDocument.title : "unreadable"; } catch (e) { read = "unreadable"; }
        let api = "refused";
        try {
            const r = await fetch(lab + "/api/contents", {credentials: "include"});
            api = "status " + r.status + ": " + (await r.text()).slice(0, 80);
        } catch (e) { api = "refused"; }
        frame.remove();
        return [read, api];
    }""", user_url(base, "teacher"))
    assert reach == ["unreadable", "refused"], reach


def test_a_class_on_the_hub_fetches_submits_is_graded_and_reads_its_feedback(hub):
    from playwright.sync_api import sync_playwright

    base, course, state, hub_env = hub
    port = base.rsplit(":", 1)[1]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    by_id = parts_of(problems_mod.build_all()[0])
    total = sum(q.points for _, q in by_id.values())
    expected = {s: total - sum(by_id[p][1].points for p in skipped) for s, skipped in SKIPPED.items()}
    started = time.monotonic()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        watch = hc.Watch(lambda url: re.match(rf"(?:https?|wss?)://(?:[\w.-]+\.)?localhost:{port}(?:/|$)", url),
                         [course, state])
        try:
            shown, feedback = _the_class(browser, base, state, course, watch)
        except Exception:  # each user's page as it was, beside the hub's log (hub.log)
            for i, context in enumerate(browser.contexts):
                for page in context.pages:
                    page.screenshot(path=str(ARTIFACTS / f"hub-failure-{i}.png"))
            raise
        browser.close()
    print(f"the class on the hub, in the browser: {time.monotonic() - started:.0f} s")
    assert not watch.ran, f"bob's script ran: {watch.ran}"
    assert not watch.written(), f"bob's script wrote through a Jupyter API: {watch.written()}"
    assert not watch.foreign, f"requests left the hub: {watch.foreign[:10]}"

    # Every score agrees: what the answers earn, the Formgrader, the gradebook, the feedback
    # pages, and nbgrader's command line grading the same submissions in a course of its own.
    from nbgrader.api import Gradebook

    cli = course.parent / "command-line"
    (cli / "source").mkdir(parents=True)
    shutil.copy(course / "nbgrader_config.py", cli)
    shutil.copytree(course / "source" / "practice", cli / "source" / "practice")
    shutil.copytree(course / "submitted", cli / "submitted")
    for command in ("generate_assignment", "autograde"):
        done = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), command, "practice"], cwd=cli,
                              env=hub_env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE) as on_hub, \
            Gradebook(f"sqlite:///{cli / 'gradebook.db'}", COURSE) as on_cli:
        assert sorted(s.id for s in on_hub.students) == sorted(SKIPPED)
        for student, score in expected.items():
            assert on_hub.find_submission("practice", student).score == score, student
            assert on_cli.find_submission("practice", student).score == score, student
            assert shown[student] == f"{score} / {total}", (student, shown)
            assert f"practice (Score: {score:.1f} / {total:.1f})" in feedback[student], feedback[student][:500]
            for part in SKIPPED[student]:
                problem, letter = int(part[1:3]), part[-1]
                assert f"Problem {problem} ({letter}): not right" in feedback[student]


def test_the_hubs_settings_are_traitlets_set_in_its_config_file(tmp_path, capsys):
    """The commented c.CourseHub lines of hub/jupyterhub_config.py, filled in as a teacher would, configure the hub."""
    from traitlets.config.loader import PyFileConfigLoader

    if not PROXY.exists():
        pytest.skip(f"{PROXY} is missing (npm ci installs it)")
    course, state = tmp_path / "course", tmp_path / "state"
    course.mkdir()
    shutil.copy(ROOT / "exercises" / "nbgrader_config.py", course)
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id\nalice\nbob\n", encoding="utf-8")
    text = (ROOT / "hub" / "jupyterhub_config.py").read_text(encoding="utf-8")
    filled = {"course": str(course), "state": str(state), "teachers": ["ada"], "roster": str(roster),
              "subdomain_host": "https://hub.example.org"}
    for name, value in filled.items():
        line = re.search(rf"^# c\.CourseHub\.{name} = .*$", text, re.M)
        assert line, f"hub/jupyterhub_config.py shows no c.CourseHub.{name} line"
        text = text.replace(line.group(0), f"c.CourseHub.{name} = {value!r}")
    (tmp_path / "jupyterhub_config.py").write_text(text, encoding="utf-8")
    c = PyFileConfigLoader("jupyterhub_config.py", path=str(tmp_path)).load_config()
    assert c.JupyterHub.db_url == f"sqlite:///{state / 'jupyterhub.sqlite'}" and state.is_dir()
    assert c.Authenticator.allowed_users == {"ada", "alice", "bob"}
    assert c.JupyterHub.subdomain_host == "https://hub.example.org"
    assert "WARNING" not in capsys.readouterr().err
    (tmp_path / "jupyterhub_config.py").write_text(text.replace("https://hub.example.org", "hub.example.org"))
    with pytest.raises(SystemExit, match="CourseHub.subdomain_host must be an address"):
        PyFileConfigLoader("jupyterhub_config.py", path=str(tmp_path)).load_config()
    done = subprocess.run([sys.executable, "-m", "mwm_grader.hub"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "c.CourseHub.trial_password" in done.stdout, done.stderr
