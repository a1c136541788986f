"""FTime instances: seeded, the gold computed from the reference time, every gold passing the strict checker."""

from __future__ import annotations

from datetime import datetime

from scripts.formatbench.ftime_data import ftime_instances

from corral.suites.formatbench import check_format


def test_every_gold_passes_and_the_set_is_seeded():
    instances = list(ftime_instances(300, seed=0))
    assert len(instances) == 300 and {i["tag"] for i in instances} == {1, 2, 3}
    assert all(check_format("ftime", i, i["gold"]).passed for i in instances)
    assert instances == list(ftime_instances(300, seed=0)) != list(ftime_instances(300, seed=1))
    assert len({i["instruction"] for i in instances}) > 250
    assert not any(".." in i["instruction"] for i in instances)


def test_gold_follows_from_the_reference_time():
    for inst in ftime_instances(300, seed=0):
        ref = datetime.strptime(inst["reference"].split(":")[0], "%Y%m%dT%H%M%S")
        stamp = inst["gold"].split("/")[1] if inst["tag"] == 3 else inst["gold"]
        when = datetime.strptime(stamp, "%Y%m%dT%H%M%S")
        assert when > ref, inst
        text = inst["instruction"]
        if "minutes" in text and inst["tag"] == 1:
            minutes = int(next(w for w in text.split() if w.isdigit()))
            assert (when - ref).total_seconds() == 60 * minutes
        if "every day" in text or ("every" in text and inst["gold"].endswith("P0Y0M7DT0H0M0S")):
            assert (when - ref).days < 7
        if "dinner" in text:
            assert when.hour == 19 and (when.date() - ref.date()).days == 1
