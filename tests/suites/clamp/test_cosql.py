"""CoSQL (``clamp-cosql``): the shipped dev turns with their dialogue context, prompts in BenchCLAMP's ``c | d | u``
form with few-shot turns from other databases only, the grammar's coverage of the gold queries, and question- and
interaction-level accuracy from a run."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corral.evaluation import EvalSpec, evaluate, plan_run, read_records
from corral.metrics import all_of, all_of_stats
from corral.models import ScriptedModel
from corral.suites.clamp import cosql_coverage, cosql_turns, spider_schemas
from corral.tasks import get_task


def test_the_dev_turns_carry_their_dialogue_context():
    turns = cosql_turns()
    assert len(turns) == 1007 and len({t.dialogue for t in turns}) == 293
    assert {t.db_id for t in turns} <= set(spider_schemas()) and len({t.db_id for t in turns}) == 20
    by_dialogue: dict[str, list] = {}
    for turn in turns:
        by_dialogue.setdefault(turn.dialogue, []).append(turn)
    for dialogue in by_dialogue.values():
        assert [t.turn for t in dialogue] == list(range(len(dialogue)))
        assert all(t.context == tuple(u.utterance for u in dialogue[:t.turn]) for t in dialogue)
        assert len({t.db_id for t in dialogue}) == 1


def test_a_prompt_holds_the_earlier_utterances_and_examples_from_other_databases():
    task = get_task("clamp-cosql")
    turns = {t.id: t for t in cosql_turns()}
    later = next(t for t in cosql_turns() if t.turn == 2)
    instance = next(i for i in task.instances() if i.id == later.id)
    asked = instance.prompt.rsplit("Human: ", 1)[1]
    assert asked.startswith(" | ".join(later.context) + f" | {later.db_id} | ")
    assert asked.endswith(f"{later.utterance}\nComputer:")
    shots = instance.prompt.split("Human: ")[1:-1]
    assert shots and all(f"| {later.db_id} |" not in shot for shot in shots)
    assert instance.target["dialogue"] == later.dialogue and instance.groups["turn"] == "2"
    assert turns[later.id].query == instance.reference


def test_the_grammar_covers_the_gold_queries():
    found = cosql_coverage(limit=200)
    assert found.examples == 200 and found.covered / found.examples >= 0.95


@given(st.dictionaries(st.sampled_from("abcde"), st.lists(st.booleans(), min_size=1, max_size=4), min_size=1))
def test_all_of_is_the_share_of_groups_with_every_item_right(groups):
    stats: dict[str, float] = {}
    for group, items in groups.items():
        for right in items:
            for key, value in all_of_stats("m", group, right).items():
                stat = key.split(":", 1)[1]
                stats[stat] = stats.get(stat, 0.0) + value
    assert all_of(stats) == pytest.approx(sum(all(items) for items in groups.values()) / len(groups))


def test_a_run_reports_question_and_interaction_level_accuracy(tmp_path):
    """Two dialogues over one database: every turn of the first answered with its gold query, the second with one
    turn wrong. Question level counts turns, interaction level dialogues."""
    turns = cosql_turns()
    db = turns[0].db_id
    dialogues = list(dict.fromkeys(t.dialogue for t in turns if t.db_id == db))[:2]
    chosen = [t for t in turns if t.dialogue in dialogues]
    task = get_task("clamp-cosql", shots=0)
    instances = [i for i in task.instances() if i.id in {t.id for t in chosen}]
    small = dataclasses.replace(task, instances=lambda: instances)
    wrong = next(t for t in chosen if t.dialogue == dialogues[1])
    answers = {t.utterance: ("SELECT 1" if t.id == wrong.id else t.query) for t in chosen}

    def reply(request, i):
        asked = request.messages[-1]["content"].rsplit("| ", 1)[1].removesuffix("\nComputer:")
        return answers[asked]

    run, summary = evaluate(plan_run(EvalSpec(task=small.name, model="scripted:s", task_options={"shots": "0"}),
                                     small), tmp_path / "run", model=ScriptedModel(reply))
    records = read_records(run)
    assert len(records) == len(chosen)
    execution = [r.quality["execution"] for r in records]
    assert summary.quality["execution"] == pytest.approx(sum(execution) / len(execution))
    assert summary.quality["interaction_execution"] == pytest.approx(
        sum(all(r.quality["execution"] for r in records if r.instance.startswith(d)) for d in dialogues) / 2)
    # the gold answers are right at both levels; the second dialogue's one wrong turn fails it whole
    assert summary.quality["interaction_execution"] == summary.quality["interaction_exact_set"] == 0.5
    assert summary.quality["exact_set"] == pytest.approx((len(chosen) - 1) / len(chosen))
