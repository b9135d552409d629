"""mwm_practice.checks: the one-line messages the practice problems' test cells give."""
import numpy as np
import pytest

from mwm_practice.checks import (AnswerError, check_bool, check_choice, check_function, check_integer, check_number,
                         check_vector, tolerance)


def _message(check, *args, **kwargs) -> str:
    with pytest.raises(AnswerError) as info:
        check(*args, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_tolerance_follows_the_printed_precision():
    assert tolerance(4) == pytest.approx(5e-4)
    assert tolerance(2) == pytest.approx(5e-2)
    assert tolerance(None, 2, 2.9e-8) == pytest.approx(5e-9)
    assert tolerance(None, 3, 2.78e6) == pytest.approx(5e4)
    assert tolerance(None, None) == 0


@pytest.mark.parametrize("value, words", [
    ([0.1, 0.2], "a list of 2 items"), ("0.37", "a string '0.37'"), (None, "None (no answer yet)"),
    (True, "True (True/False)"), ({"h": 1}, "a dict"), (np.zeros((2, 2)), "an array of shape (2, 2)")])
def test_a_wrong_kind_is_named(value, words):
    assert _message(check_number, "h2", value) == f"h2 should be a number, got {words}"


def test_numbers_within_and_outside_the_tolerance():
    check_number("h2", -0.3724, -0.3719848)           # within 5e-4
    check_number("h2", np.float32(-0.372), -0.3719848)
    check_number("h2", np.array(-0.372), -0.3719848)
    check_number("n", 7, 7.0)
    assert _message(check_number, "h2", -0.3907, -0.3719848) == "h2 should be -0.3720 ± 0.0005, got -0.3907"
    assert _message(check_number, "h2", np.array([0.3])).endswith("take its single entry, e.g. h2[0]")
    assert _message(check_number, "h2", float("nan")) == "h2 should be a finite number, got nan"
    check_number("far", 2.95e-8, 2.9173e-8, decimals=None, sig=2)
    assert _message(check_number, "far", 3.5e-8, 2.9173e-8, decimals=None, sig=2) == \
        "far should be 2.9e-08 ± 5.0e-09, got 3.5e-08"


def test_vectors_and_matrices():
    check_vector("h1", [0.7616, 0.0], [0.76159, 0.0])
    check_vector("h1", np.array([0.7616, 0.0]), shape=2)
    check_vector("v", [[1, 1], [1, -1]], [[1.0, 1.0], [1.0, -1.0]])
    assert _message(check_vector, "h1", 0.5, shape=2) == "h1 should be 2 numbers (a list or an array), got a float"
    assert _message(check_vector, "h1", [1, 2, 3], shape=2) == "h1 should be 2 numbers, got 3 numbers"
    assert _message(check_vector, "h1", [1, "a"], shape=2) == "h1[1] should be a number, got a string 'a'"
    assert _message(check_vector, "h1", [0.7616, 0.1], [0.76159, 0.0]) == "h1[1] should be 0.0000 ± 0.0005, got 0.1000"
    assert _message(check_vector, "v", [1, 1, 1, -1], [[1, 1], [1, -1]]) == \
        "v should be 2 rows of 2 numbers, got 4 numbers"
    assert _message(check_vector, "v", [[1, 1], [1, 1]], [[1, 1], [1, -1]]) == "v[1][1] should be -1.0000 ± 0.0005, got 1.0000"


def test_whole_numbers_choices_and_truth_values():
    check_integer("plain", 6208, 6208)
    check_integer("plain", 6208.0, 6208)
    assert _message(check_integer, "plain", 6208.5) == "plain should be a whole number, got 6208.5"
    assert _message(check_integer, "plain", "6208") == "plain should be a whole number, got a string '6208'"
    assert _message(check_integer, "plain", 6200, 6208) == "plain should be 6208, got 6200"
    check_choice("run", " c ", ["A", "B", "C"], "C")
    assert _message(check_choice, "run", "D", ["A", "B", "C"]) == "run should be one of 'A', 'B', 'C', got 'D'"
    assert _message(check_choice, "run", "A", ["A", "B", "C"], "C") == "run should be 'C', got 'A'"
    assert _message(check_choice, "run", 3, ["A", "B"]) == "run should be one of 'A', 'B', got an int"
    check_bool("link", False, False)
    assert _message(check_bool, "link", "no") == "link should be True or False, got a string 'no'"
    assert _message(check_bool, "link", True, False) == "link should be False, got True"


def test_functions_are_called_and_their_errors_reported_in_one_line():
    def first_below(w, eps):
        return int(np.floor(np.log(eps) / np.log(w))) + 1

    check_function("first_below", first_below, [((0.8, 1e-3), 31), ((0.5, 0.01), 7)], n_args=2)
    assert _message(check_function, "first_below", None) == "first_below should be a function, got None (no answer yet)"
    assert _message(check_function, "first_below", lambda w: 1, n_args=2) == "first_below should take 2 arguments, takes 1"
    assert _message(check_function, "first_below", lambda w, e: 1 / 0, [((0.8, 1e-3), 31)]) == \
        "first_below(0.8, 0.001) raised ZeroDivisionError: division by zero"
    assert _message(check_function, "first_below", lambda w, e: 30, [((0.8, 1e-3), 31)]) == \
        "first_below(0.8, 0.001) should be 31, got 30"


def test_answer_error_is_an_assertion_error():
    assert issubclass(AnswerError, AssertionError)


def test_importing_the_checks_stays_light():
    """Every graded notebook imports mwm_practice.checks in a fresh kernel: it must not pull in torch or matplotlib."""
    import subprocess
    import sys

    code = "import sys, mwm_practice.checks; print(sorted(m for m in ('torch', 'matplotlib') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
