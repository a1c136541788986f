"""``CORRAL_THREADS``: the thread count local backends use when none is given."""

from __future__ import annotations

import pytest

from corral.models import ModelError
from corral.models._threads import THREADS_VARIABLE, default_threads, usable_cpus


def test_unset_means_every_usable_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(THREADS_VARIABLE, raising=False)
    assert default_threads() == usable_cpus() >= 1


def test_a_set_value_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_VARIABLE, " 3 ")
    assert default_threads() == 3


@pytest.mark.parametrize("raw", ["0", "-2", "two", "1.5"])
def test_a_bad_value_is_named(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv(THREADS_VARIABLE, raw)
    with pytest.raises(ModelError, match=f"CORRAL_THREADS={raw!r}"):
        default_threads()


def test_xdist_workers_get_their_share() -> None:
    import os

    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers is None:
        pytest.skip("not under pytest-xdist")
    assert int(os.environ[THREADS_VARIABLE]) == max(1, usable_cpus() // int(workers))
