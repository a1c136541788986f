"""The concode-gen and concode-val tasks: instances for every form pair, checks, quality keys, macro F1."""

from __future__ import annotations

import pytest

from corral.evaluation import SampleRecord, aggregate_quality
from corral.suites.concode import OUTPUT_FORMS, SCHEMA_FORMS, locality
from corral.tasks import get_task, select


@pytest.mark.parametrize("schema_form", SCHEMA_FORMS)
@pytest.mark.parametrize("output_form", OUTPUT_FORMS)
def test_reference_samples_pass_in_every_form_pair(schema_form, output_form):
    task = get_task("concode-gen", schema_form=schema_form, output_form=output_form, n=6)
    for instance in select(task):
        assert task.check(instance, instance.reference).passed, instance.id
        quality = task.quality(instance, instance.reference)
        assert quality["parsed"] == quality["root_type_ok"] == 1.0
        violated = {k: v for k, v in quality.items() if k.startswith("violated:")}
        assert violated and set(violated.values()) == {0.0}  # a rate per keyword the schema uses: none broken
        assert not any(k.startswith("locality:") for k in quality)  # locality only for a broken sample
        assert instance.groups["schema_form"] == schema_form
        assert f"```{output_form}" in instance.prompt


def test_gen_counts_invalid_samples_root_types_and_keywords():
    task = get_task("concode-gen", output_form="json", n=30)
    objects = [inst for inst in select(task) if inst.target["schema"].get("type") == "object"]
    instance = objects[0]
    assert task.quality(instance, "no sample here {") == {"parsed": 0.0, "root_type_ok": 0.0}
    wrong_root = task.quality(instance, "```json\n[1, 2]\n```")
    assert wrong_root["parsed"] == 1.0 and wrong_root["root_type_ok"] == 0.0 and wrong_root["violated:type"] == 1.0
    assert wrong_root["locality:begin"] == 1.0  # "type" opens the schema's text
    assert sum(wrong_root[f"locality:{b}"] for b in ("begin", "middle", "end")) >= 1
    verdict = task.check(instance, "```json\n[1, 2]\n```")
    assert not verdict.passed and "not of type 'object'" in verdict.feedback


def test_locality_follows_the_schema_path_through_the_text():
    schema = {"type": "object", "properties": {"a": {"type": "integer", "minimum": 1},
                                               "b": {"type": "string"}, "c": {"type": "number", "maximum": 3}}}
    assert locality(schema, "/type") == "begin"
    assert locality(schema, "/properties/c/maximum") == "end"


def test_few_shot_turns_come_from_another_suite():
    task = get_task("concode-gen", shots=3, n=10)
    instance = select(task)[0]
    assert [turn["role"] for turn in instance.context] == ["system"] + ["user", "assistant"] * 3
    test_ids = {inst.prompt for inst in select(task)}
    assert not test_ids & {turn["content"] for turn in instance.context}


def test_val_is_balanced_and_every_no_names_its_keyword():
    task = get_task("concode-val", schema_form="xml", output_form="yaml", n=40)
    instances = select(task)
    yes = [inst for inst in instances if inst.target["valid"]]
    no = [inst for inst in instances if not inst.target["valid"]]
    assert len(yes) == 40 and len(no) >= 38
    assert all(inst.target["keyword"] for inst in no)
    assert task.check(yes[0], "Yes, it does.").passed and not task.check(yes[0], "no").passed
    assert not task.check(no[0], "maybe").passed and task.check(no[0], "`no`").passed


def test_val_macro_f1_matches_a_hand_count():
    task = get_task("concode-val", n=4)
    instances = select(task)
    answers = ["yes", "yes", "no", "yes", "no", "no", "yes", "maybe"]
    records = [SampleRecord(instance=inst.id, sample=0, round=0, messages=[], output=a, answer=a,
                            passed=task.check(inst, a).passed, score=0.0, quality=task.quality(inst, a))
               for inst, a in zip(instances, answers, strict=False)]
    gold = ["yes" if inst.target["valid"] else "no" for inst in instances[:len(answers)]]
    f1 = []
    for label in ("yes", "no"):
        tp = sum(g == label and a == label for g, a in zip(gold, answers, strict=True))
        fp = sum(g != label and a == label for g, a in zip(gold, answers, strict=True))
        fn = sum(g == label and a != label for g, a in zip(gold, answers, strict=True))
        f1.append(2 * tp / (2 * tp + fp + fn))
    assert aggregate_quality(records)["val_macro_f1"] == pytest.approx(sum(f1) / 2)  # 0-1, as every figure but BLEU


def test_schemastore_val_uses_real_labelled_documents():
    task = get_task("concode-val", schemas="schemastore", n=50)
    instances = select(task)
    assert len(instances) == 50
    assert {inst.reference for inst in instances} <= {"yes", "no"}


def test_bad_options_are_one_line_errors():
    with pytest.raises(ValueError, match="bad option schema_form='toml'; expected one of json, yaml"):
        get_task("concode-gen", schema_form="toml")
    with pytest.raises(ValueError, match="bad option schemas='schemastore'; expected one of concode, jsonschemabench"):
        get_task("concode-gen", schemas="schemastore")
    with pytest.raises(ValueError, match="bad option shots=3; expected one of 0, 1, 2"):
        get_task("concode-val", shots=3)
    with pytest.raises(ValueError, match="n must be at least 1, got 0"):
        get_task("concode-val", n="0")


def test_val_instances_carry_their_schema_size_so_runs_can_pick_what_fits_a_context():
    from corral.suites.concode import schema_size

    assert schema_size({"type": "string"}) == "small"
    assert schema_size({"enum": ["x" * 10000]}) == "medium" and schema_size({"enum": ["x" * 30000]}) == "large"
    task = get_task("concode-val", schemas="schemastore", n=400)
    sizes = {instance.groups["schema_size"] for instance in select(task)}
    assert sizes <= {"small", "medium", "large"} and len(sizes) > 1
