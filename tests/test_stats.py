"""mwm.stats: Wilson's interval, checked against its definition and against statsmodels' published values."""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mwm.stats import wilson_interval


def test_known_values():
    # Brown, Cai and DasGupta (2001), and statsmodels' proportion_confint(method="wilson"), to 4 decimals
    assert np.round(wilson_interval(49, 50), 4).tolist() == [0.8950, 0.9965]
    assert np.round(wilson_interval(15, 50), 4).tolist() == [0.1910, 0.4375]
    assert np.round(wilson_interval(0, 10), 4).tolist() == [0.0, 0.2775]


@given(st.integers(1, 2000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_contains_the_share_and_mirrors(kn):
    k, n = kn
    low, high = wilson_interval(k, n)
    assert 0 <= low <= k / n <= high <= 1
    mlow, mhigh = wilson_interval(n - k, n)
    assert math.isclose(low, 1 - mhigh, abs_tol=1e-12) and math.isclose(high, 1 - mlow, abs_tol=1e-12)


def test_narrows_with_more_trials_and_accepts_numpy_counts():
    assert np.diff(wilson_interval(50, 100)) < np.diff(wilson_interval(5, 10))
    assert wilson_interval(np.int64(3), np.int64(7)) == wilson_interval(3, 7)


@pytest.mark.parametrize("k, n, z, name", [(1, 0, 1.96, "trials"), (5, 4, 1.96, "successes"), (-1, 4, 1.96, "successes"), (0.5, 4, 1.96, "successes"),
                                           (True, 4, 1.96, "successes"), (1, 4, 0, "quantile"), (1, 4, float("nan"), "quantile")])
def test_bad_input_names_the_argument(k, n, z, name):
    with pytest.raises(ValueError, match=f"^{name} must"):
        wilson_interval(k, n, z)
