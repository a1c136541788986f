"""The ``collie`` task as data: every v1 instance, groups for filters, budgets, templates, selection errors."""

from __future__ import annotations

from collections import Counter

import pytest

from corral.registry import RegistryError
from corral.tasks import get_task, select


def test_collie_task_holds_every_v1_instance_with_groups_and_budgets():
    task = get_task("collie")
    instances = list(task.instances())
    assert len(instances) == 2080 and len({i.id for i in instances}) == 2080
    structures = Counter(i.groups["structure"] for i in instances)
    assert len(structures) == 13 and structures["word03"] == 7
    budgets = {i.groups["structure"][:4]: i.max_tokens for i in instances}
    assert budgets == {"word": 24, "sent": 96, "para": 400, "pass": 1200}
    first = instances[0]
    assert task.check(first, first.reference).passed  # each example passes its own constraint
    assert task.answer("  an answer \n") == "an answer"


def test_templates_build_the_chat_and_the_feedback_turn():
    task = get_task("collie")
    instance = next(iter(task.instances()))
    assert task.template.messages(instance) == [{"role": "user", "content": instance.prompt}]
    turn = task.template.feedback_turn(instance, "You wrote 3 words; it must have exactly 5.")
    assert turn["role"] == "user" and "You wrote 3 words" in turn["content"] and instance.prompt in turn["content"]


def test_selection_filters_per_group_and_limit():
    task = get_task("collie")
    chosen = select(task, {"structure": ["sent02", "para05"], "source": ["wiki"]}, per_group=("structure", 2))
    assert [i.groups["structure"] for i in chosen].count("sent02") == 2 and len(chosen) == 4
    assert all(i.groups["source"] == "wiki" for i in chosen)
    assert len(select(task, limit=5)) == 5
    with pytest.raises(ValueError, match="has no 'language' groups; it has: source, structure"):
        select(task, {"language": ["en"]})
    with pytest.raises(RegistryError,
                       match=r"unknown task .colie.; available: clamp-constituency, clamp-cosql, clamp-dependency, "
                             "clamp-lispress, clamp-mtop, clamp-overnight, clamp-spider, clamp-treedst, collie"):
        get_task("colie")
