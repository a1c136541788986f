"""The before/after report's error bars: a seeded percentile bootstrap over instances."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from corral.training import bootstrap


@given(st.lists(st.sampled_from([0.0, 1.0]), min_size=1, max_size=60))
def test_the_interval_holds_the_mean_and_is_reproducible(values):
    low, high = bootstrap(values)
    mean = sum(values) / len(values)
    assert 0.0 <= low <= mean <= high <= 1.0
    assert bootstrap(values) == (low, high)


def test_the_interval_narrows_with_more_instances():
    small = bootstrap([1.0, 0.0] * 5)
    large = bootstrap([1.0, 0.0] * 200)
    assert large[1] - large[0] < small[1] - small[0]
    assert bootstrap([1.0] * 7) == (1.0, 1.0)
    assert bootstrap([]) == (0.0, 0.0)
