"""COLLIE-v1 conformance: Corral's verdicts equal the reference checker's on real model outputs."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from corral.constraints import check, render, to_json
from corral.suites.collie import BY_CODE, STRUCTURES, constraint_for, instances, structure


def test_dev_generations_agree_with_reference(dev_generations):
    disagreements = [
        (row["key"], row["collie_verdict"])
        for row in dev_generations
        if check(constraint_for(row["code"], row["targets"]), row["text"]).passed != row["collie_verdict"]
    ]
    assert len(dev_generations) == 2870
    assert disagreements == []


def test_dev_generations_cover_every_structure_and_both_verdicts(dev_generations):
    codes = Counter(row["code"] for row in dev_generations)
    assert set(codes) == set(BY_CODE)
    assert {row["collie_verdict"] for row in dev_generations} == {True, False}


def test_shipped_examples_get_reference_verdict():
    rows = list(instances())
    assert len(rows) == 2080
    wrong = [i.id for i in rows if check(i.constraint, i.example).passed != i.reference_verdict]
    assert wrong == []
    assert sum(not i.reference_verdict for i in rows) == 96  # the reference rejects some of its own examples


def test_shipped_data_equals_shared_data(collie_rows):
    shipped = {i.id: i for i in instances()}
    assert len(shipped) == len(collie_rows)
    for row in collie_rows:
        inst = shipped[row["id"]]
        assert (inst.code, inst.targets, inst.example, inst.reference_verdict) == (
            row["code"], row["targets"], row["example"], row["collie_verdict_on_example"])


def _values(targets) -> list:
    if isinstance(targets, list):
        return [v for t in targets for v in _values(t)]
    return [targets]


@pytest.mark.parametrize("code", sorted(BY_CODE))
def test_rendering_names_the_stored_prompts_values(code):
    """Every stored prompt: Corral's rendering names the same values (numbers, words, positions)."""
    checked = 0
    for inst in instances():
        if inst.code != code:
            continue
        ours = render(inst.constraint)
        for value in _values(inst.targets):
            if isinstance(value, str):
                assert f"'{value}'" in ours or f'"{value}"' in ours, (inst.id, value, ours)
            else:
                assert re.search(rf"\b{value}\b", ours), (inst.id, value, ours)
            assert str(value) in inst.prompt
        for ordinal in re.findall(r"\b(\d+(?:st|nd|rd|th))\b", inst.prompt):
            assert ordinal in ours, (inst.id, ordinal, ours)
        if "last" in inst.prompt:
            assert "last" in ours or " end with " in ours, (inst.id, ours)
        checked += 1
    assert checked > 0


def test_structure_by_name_equals_constraint_for():
    assert structure("sent02", n=17, words=["aids", "positioners", "nests"]) == constraint_for(
        "c05", [17, ["aids", "positioners", "nests"]])
    assert structure("pass01", last_sentences=["I sit.", "I cry."], min_sentences=2) == constraint_for(
        "c14", [["I sit.", "I cry."], 2])
    assert set(STRUCTURES) == {"word01", "word02", "word03", "sent01", "sent02", "sent03", "sent04", "para01",
                               "para02", "para03", "para04", "para05", "pass01"}


def test_structure_rejects_wrong_values():
    with pytest.raises(ValueError, match="sent02 takes n, words"):
        structure("sent02", n=3)
    with pytest.raises(ValueError, match="unknown COLLIE-v1 structure"):
        structure("sent09", n=3)
    with pytest.raises(ValueError, match="unknown COLLIE-v1 code"):
        constraint_for("c13", [1])
    with pytest.raises(ValueError, match="do not fit c05"):
        constraint_for("c05", 17)


def test_collie_constraints_use_collie_profile_and_round_trip():
    from corral import from_json, parse

    for inst in list(instances())[::40]:
        c = inst.constraint
        assert c.profile == "collie-v1"
        assert parse(str(c)) == c
        assert from_json(to_json(c)) == c
