"""MTOP (``clamp-mtop``): the official tab-separated files read from the user's folder (here small files written in
that format), decoupled TOP trees read and refused with their place, BenchCLAMP's grammar induced from the training
trees with slot words copied from the utterance, coverage, a run scored by exact match, and one-line errors."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from corral.cli import app
from corral.errors import InputError
from corral.evaluation import EvalSpec, evaluate, plan_run, read_records
from corral.grammars import accepts, random_walk, sample
from corral.models import ScriptedModel
from corral.suites.clamp import (
    TopError,
    check_top,
    induce_mtop_grammar,
    mtop_coverage,
    mtop_examples,
    mtop_grammar,
    read_mtop,
    read_top,
    top_quality,
)
from corral.tasks import get_task

FOLDER = str(Path(__file__).parent / "data" / "mtop")


def test_the_official_format_reads_from_the_release_folder_or_the_language_folder():
    train = mtop_examples(FOLDER, "en", "train")
    assert len(train) == 12 and len(mtop_examples(FOLDER, "en", "dev")) == 2
    first = train[0]
    assert first.utterance == "set an alarm for 7 am tomorrow" and first.domain == "alarm"
    assert first.decoupled == "[IN:CREATE_ALARM [SL:DATE_TIME for 7 am tomorrow ] ]"
    weather = train[3]
    assert weather.tokens == ("what", "'s", "the", "weather", "in", "Paris")  # column 8's tokens
    assert mtop_examples(FOLDER + "/en", "en", "test") == mtop_examples(FOLDER, "en", "test")


def test_a_tree_reads_and_what_is_no_tree_is_refused_with_its_place():
    tree = read_top("[IN:CREATE_CALL [SL:CONTACT [IN:GET_CONTACT [SL:TYPE_RELATION mom ] ] ] ]")
    assert tree.label == "IN:CREATE_CALL" and tree.is_intent
    (slot,) = tree.children
    assert slot.label == "SL:CONTACT" and slot.children[0].children[0].children == ("mom",)
    for text, where in (("[IN:A [SL:B x ]", "left open"), ("[IN:A ] ]", "word 3"), ("[SL:B x ]", "root must be"),
                        ("x [IN:A ]", "outside"), ("[IN:A ] [IN:B ]", "follows the closed root"),
                        ("[XX:A ]", "no \\[IN"), ("", "empty")):
        with pytest.raises(TopError, match=where):
            read_top(text)


def test_the_induced_grammar_copies_words_and_keeps_each_intent_to_its_slots():
    task = get_task("clamp-mtop", data=FOLDER, shots=0)
    instances = {i.reference: i for i in task.instances()}
    london = instances["[IN:GET_WEATHER [SL:LOCATION London ] [SL:DATE_TIME tomorrow ] ]"]
    grammar = mtop_grammar(london)
    assert accepts(grammar, london.reference)
    assert accepts(grammar, "[IN:GET_WEATHER [SL:DATE_TIME tomorrow ] [SL:LOCATION London ] ]")  # any order
    assert accepts(grammar, "[IN:GET_WEATHER [SL:LOCATION the weather in London ] ]")  # any run of its words
    assert accepts(grammar, "[IN:GET_WEATHER [SL:LOCATION what 's ] ]")  # a run of the JSON tokens
    assert not accepts(grammar, "[IN:GET_WEATHER [SL:LOCATION Paris ] ]")  # not in this utterance
    assert not accepts(grammar, "[IN:GET_WEATHER [SL:LOCATION weather London ] ]")  # not contiguous
    assert not accepts(grammar, "[IN:GET_WEATHER [SL:RECIPIENT London ] ]")  # never a weather slot
    assert not accepts(grammar, "[IN:GET_WEATHER [SL:LOCATION London ] [SL:LOCATION London ] "
                                "[SL:DATE_TIME tomorrow ] ]")  # more slots than weather was seen with
    assert not accepts(grammar, "[IN:GET_WEATHER [SL:LOCATION [IN:GET_CONTACT [SL:TYPE_RELATION London ] ] ] ]")
    assert accepts(grammar, "[IN:DELETE_ALARM ]")


def test_coverage_counts_the_unseen_intent_and_the_cli_prints_it():
    found = mtop_coverage(FOLDER)
    assert (found.examples, found.covered) == (4, 3)  # IN:GET_JOKE is never seen in training
    assert mtop_coverage(FOLDER, part="dev").rate == 1.0
    result = CliRunner().invoke(app, ["clamp", "coverage", "--limit", "2", "--mtop", FOLDER])
    assert result.exit_code == 0, result.output
    assert "mtop-en" in result.output and "75.0%" not in result.output  # --limit 2: the first two, both covered


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), which=st.integers(0, 3))
def test_every_text_the_grammar_draws_is_a_tree_whose_words_come_from_the_utterance(seed, which):
    instance = list(get_task("clamp-mtop", data=FOLDER, shots=0).instances())[which]
    text = sample(mtop_grammar(instance), random_walk(seed, stop=0.3, close=0.3), max_bytes=400, strict=True)
    if text is None:  # the walk ran out of room before the tree closed
        return
    tree = read_top(text)
    assert check_top(instance, text).passed
    words = [w for w in text.split() if not w.startswith("[") and w != "]"]
    spelled = set(instance.target["utterance"].split()) | set(instance.target["tokens"])
    assert set(words) <= spelled and tree.is_intent


def test_a_run_scores_exact_match_and_the_root_intent(tmp_path):
    task = get_task("clamp-mtop", data=FOLDER, shots=2)
    chosen = list(task.instances())[:3]
    assert chosen[0].prompt.count("Human: ") == 3  # two retrieved examples, then the utterance
    small = dataclasses.replace(task, instances=lambda: chosen)
    answers = [chosen[0].reference, "[IN:SEND_MESSAGE [SL:RECIPIENT Maria ] ]", "[IN:PLAY_MUSIC [SL:MUSIC_GENRE"]
    run, summary = evaluate(plan_run(EvalSpec(task=small.name, model="scripted:s",
                                              task_options={"data": FOLDER, "shots": "2"}), small),
                            tmp_path / "run", model=ScriptedModel(answers))
    records = read_records(run)
    assert [r.quality["exact_match"] for r in records] == [1.0, 0.0, 0.0]
    assert [r.quality["intent_match"] for r in records] == [1.0, 1.0, 0.0]
    assert [r.passed for r in records] == [True, True, False]  # the check is well-formedness
    assert summary.quality["well_formed"] == pytest.approx(2 / 3)
    assert top_quality(chosen[0], "  " + chosen[0].reference.replace(" ]", "   ]"))["exact_match"] == 1.0


def test_missing_data_is_one_line_naming_the_download(tmp_path):
    with pytest.raises(InputError, match="needs -T data=FOLDER: MTOP's official release"):
        next(iter(get_task("clamp-mtop").instances()))
    with pytest.raises(InputError, match=r"no en/train\.txt or train\.txt"):
        mtop_examples(str(tmp_path), "en", "test")
    result = CliRunner().invoke(app, ["eval", "clamp-mtop", "-T", f"data={tmp_path / 'absent'}", "--limit", "1",
                                      "--out", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert "no such folder" in result.output and "mtop" in result.output and "Traceback" not in result.output


def test_a_broken_line_names_its_file_line_and_column(tmp_path):
    lines = (Path(FOLDER) / "en" / "train.txt").read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "train.txt"
    broken.write_text("\n".join([lines[0], lines[1].replace("[SL:RECIPIENT Anna ]", "[SL:RECIPIENT Anna")]),
                      encoding="utf-8")
    with pytest.raises(InputError, match=r"train.txt: line 2: column 7 \(the decoupled form\)"):
        read_mtop(broken, "train")
    broken.write_text("\t".join(lines[0].split("\t")[:7]) + "\t{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 1: column 8"):
        read_mtop(broken, "train")
    broken.write_text("one\ttwo\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 1: 2 tab-separated columns"):
        read_mtop(broken, "train")
    with pytest.raises(InputError, match="no decoupled form"):
        induce_mtop_grammar(["not a tree"])


@pytest.mark.parametrize("length", [64, 65, 400])
def test_a_long_utterance_still_builds_a_grammar_that_copies_its_words(length):
    tokens = [f"w{k}" for k in range(length)]
    grammar = mtop_grammar(dataclasses.replace(
        next(iter(get_task("clamp-mtop", data=FOLDER, shots=0).instances())),
        target={"data": FOLDER, "language": "en", "tokens": tokens, "utterance": " ".join(tokens), "gold": ""}))
    assert accepts(grammar, "[IN:GET_WEATHER [SL:LOCATION w3 w4 w5 ] [SL:DATE_TIME w60 w61 ] ]")
    assert not accepts(grammar, "[IN:GET_WEATHER [SL:LOCATION w3 x4 ] ]")
    assert accepts(grammar, "[IN:GET_WEATHER [SL:LOCATION w5 w3 ] ]") == (length > 64)  # past 64: any sequence


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tokens=st.lists(st.sampled_from(["a", "b", "c", "d'x", "(e)", "f.g", "?"]), min_size=1, max_size=8),
       data=st.data())
def test_a_slot_holds_exactly_the_contiguous_runs_of_the_utterance(tokens, data):
    instance = next(iter(get_task("clamp-mtop", data=FOLDER, shots=0).instances()))
    grammar = mtop_grammar(dataclasses.replace(instance, target={
        "data": FOLDER, "language": "en", "tokens": tokens, "utterance": " ".join(tokens), "gold": ""}))
    start = data.draw(st.integers(0, len(tokens) - 1))
    end = data.draw(st.integers(start + 1, len(tokens)))
    assert accepts(grammar, f"[IN:GET_WEATHER [SL:LOCATION {' '.join(tokens[start:end])} ] ]")
    words = data.draw(st.lists(st.sampled_from(["a", "b", "c", "d'x", "(e)", "f.g", "?", "z"]), min_size=1,
                               max_size=4))
    runs = {tuple(tokens[i:j]) for i in range(len(tokens)) for j in range(i + 1, len(tokens) + 1)}
    assert accepts(grammar, f"[IN:GET_WEATHER [SL:LOCATION {' '.join(words)} ] ]") == (tuple(words) in runs)
