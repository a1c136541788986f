"""Format checkers: passing outputs pass; each rule, broken, fails with its message; each documented mistake of
the reference checker is shown beside Corral's strict verdict; no output makes a checker raise."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.registry import RegistryError
from corral.suites.formatbench import InstanceError, check_format, get_checker

PTB = ["NN", "NNS", "VB", "VBZ", "JJ", "DT", "IN", "PRP"]
CONTEXT = "The Normans were the people who in the 10th and 11th centuries gave their name to Normandy."
SENTENCE = "Well, I think that the most important thing we can do today is to listen to each other."
NER_TEXT = "John Smith lives in Paris ."
INSTANCES = {"ftime": {"id": "f1", "tag": 1}, "mcq": {"id": "m1", "labels": PTB},
             "eqa": {"id": "e1", "context": CONTEXT}, "acrow": {"id": "a1", "target": "RAIN"},
             "ner": {"id": "n1", "text": NER_TEXT, "gold": "<PER>John Smith</PER> lives in <LOC>Paris</LOC> ."},
             "capseg": {"id": "c1", "text": SENTENCE},
             "mtt": {"id": "t1", "src": "Der Bundestag hat das neue Gesetz zur Energiewende heute beschlossen.",
                     "terms": {"Bundestag": "Bundestag", "Energiewende": "energy transition", "Bahn": "railway"}},
             "parse": {"id": "p1", "sentence": "The cat sat ."}}


def strict(task, output, **fields):
    return check_format(task, {**INSTANCES[task], **fields}, output)


def reference(task, output, **fields):
    return check_format(task, {**INSTANCES[task], **fields}, output, "reference").passed


def messages(task, output, **fields):
    verdict = strict(task, output, **fields)
    assert not verdict.passed and 0.0 <= verdict.score < 1.0
    return verdict.feedback


# ------------------------------------------------------------------------------------------------------ ftime
@pytest.mark.parametrize(("tag", "output"), [(1, "20021019T142000"), (2, "20121216T080000"), (1, "????????T??????"),
                                             (3, "R-1/20121217T100000/P0Y0M7DT0H0M0S"), (1, "20120229T000000")])
def test_ftime_passes(tag, output):
    assert strict("ftime", output, tag=tag).passed


@pytest.mark.parametrize(("tag", "output", "message"), [
    (1, "2012-12-15T12:39:00", "is not in the form YYYYMMDDTHHMMSS"),
    (1, "20121215T253900", "The hour of the time is 25; it must be 00 to 23."),
    (1, "20130230T120000", "gives day 30 of month 02, which has 28 days in 2013"),
    (1, "20121315T120000", "The month of the time is 13"),
    (1, "R1/20121215T123900/P0Y0M1DT0H0M0S", "triggers once"),
    (3, "20121215T123900", "exactly 3 fields"),
    (3, "R9/20121217T100000/P0Y0M7DT0H0M0S/X", "this has 4"),
    (3, "XR9/20121217T100000/P0Y0M7DT0H0M0S", "The first field 'XR9' must be R followed by"),
    (3, "R/20121217T100000/P0Y0M7DT0H0M0S", "The first field 'R' must be R followed by"),
    (3, "R2/20121217T100000/P1D", "The interval 'P1D' must have all six fields"),
    (1, "", "The answer is empty"),
])
def test_ftime_rules(tag, output, message):
    assert message in messages("ftime", output, tag=tag)


def test_ftime_reference_mistakes():
    # false positives of the reference: an R anywhere in the first field, a 4th field, a short duration
    for output in ("XR9/20121217T100000/P0Y0M7DT0H0M0S", "R9/20121217T100000/P0Y0M7DT0H0M0S/extra",
                   "R/20121217T100000/P1D"):
        assert reference("ftime", output, tag=3) and not strict("ftime", output, tag=3).passed
    # false negative: all digits open reads as year 0
    assert not reference("ftime", "????????T??????", tag=1) and strict("ftime", "????????T??????", tag=1).passed
    # agreement on a plain error, and the reference's first-line rule
    assert not reference("ftime", "20130230T120000", tag=1)
    assert reference("ftime", "20121215T123900\nThat is the time.", tag=1)


# -------------------------------------------------------------------------------------------------------- mcq
def test_mcq():
    assert strict("mcq", " VBZ\n").passed
    assert "labels are case-sensitive: write 'VBZ'" in messages("mcq", "vbz")
    assert "Answer with the label alone ('NN')" in messages("mcq", "The answer is NN.")
    assert "is not a label. Answer with exactly one of the 8 labels: NN, NNS, VB, VBZ, JJ, DT, IN, PRP." in messages(
        "mcq", "noun")  # every label, so the model can pick one
    assert "The answer is empty" in messages("mcq", "  ")
    assert reference("mcq", "NN") and not reference("mcq", "nn") and not reference("mcq", "'NN'")
    assert reference("mcq", "NN\nbecause it is a noun") and not strict("mcq", "NN\nbecause it is a noun").passed


# -------------------------------------------------------------------------------------------------------- eqa
def test_eqa():
    assert strict("eqa", "Normandy").passed and strict("eqa", "the 10th and 11th centuries").passed
    assert "The answer is empty" in messages("eqa", "")
    assert "'e' cuts a word of the passage" in messages("eqa", "e")
    assert "e.g. 'Normans'" in messages("eqa", "Norman")
    assert "copy it exactly (the case differs)" in messages("eqa", "normandy")
    assert "The passage has 'Normandy', but not with ', France' after it" in messages("eqa", "Normandy, France")
    assert "'Paris' does not occur in the passage, not even in part" in messages("eqa", "Paris")
    # the reference's false positives: the empty answer, a single letter, another case
    for output in ("", "e", "NORMANDY"):
        assert reference("eqa", output) and not strict("eqa", output).passed
    assert not reference("eqa", "Normandy, France")


# ------------------------------------------------------------------------------------------------------ acrow
def test_acrow():
    assert strict("acrow", "Rain on the roof\nAll night long\nIn the dark\nNow it stops").passed
    assert strict("acrow", '"Rain," she said\n(All night)\n\nIn the dark\nNow', target="RAIN").passed
    assert "Line 2 begins with 'O'; the acrostic needs 'A' there." in messages(
        "acrow", "Rain\nOver\nIn\nNow")
    assert "The poem has 3 non-empty lines; 'RAIN' needs 4" in messages("acrow", "Rain\nAll\nIn")
    poem = "New days\nEvery hour\nWind\nYes\nOnly\nRiver\nKeep"
    assert strict("acrow", poem, target="NEW YORK").passed
    # the reference can never pass a target with a space, nor a line opening with a quote
    assert not reference("acrow", poem, target="NEW YORK")
    assert not reference("acrow", '"Rain"\nAll\nIn\nNow') and strict("acrow", '"Rain"\nAll\nIn\nNow').passed
    assert reference("acrow", "R\nA\nI\nN")


# -------------------------------------------------------------------------------------------------------- ner
def test_ner():
    assert strict("ner", "<PER>John Smith</PER> lives in <LOC>Paris</LOC> .").passed
    assert strict("ner", "<PER>John Smith</PER>  lives in\n<LOC>Paris</LOC> .").passed  # whitespace is free
    cases = {
        "John Smith lives in Paris .": "The answer marks no entity",
        "</PER>John Smith<PER> lives in Paris .": "</PER> closes no open tag; remove it, or open <PER>",
        "<PER></PER>John Smith lives in Paris .": "<PER></PER> marks no text; put the entity",
        "<PER>John <LOC>Smith</PER> lives</LOC> in Paris .": "<LOC> opens inside <PER>",
        "<PERSON>John Smith</PERSON> lives in Paris .": "<PERSON> is not an entity tag; use PER, ORG, LOC, MISC.",
        "<PER>John Smith lives in Paris .": "<PER> is never closed; write </PER> after",
        "<PER>John Smith lives in <LOC>Paris</LOC> .": "<PER> is never closed",  # the outer tag, too
        "<PER>John Smyth</PER> lives in <LOC>Paris</LOC> .": "the text must be the input unchanged",
    }
    for output, message in cases.items():
        assert message in messages("ner", output), output
    # the reference's false positives: no tags, inverted tags, empty tags
    for output in list(cases)[:3]:
        assert reference("ner", output) and not strict("ner", output).passed
    assert not reference("ner", "<PERSON>John Smith</PERSON> lives in Paris .")
    assert strict("ner", NER_TEXT, gold=None).passed  # without gold, no tags is a valid answer


def test_ner_score_counts_rules_met():
    verdict = strict("ner", "<PER></PER>John Smith lives in Paris .")
    assert verdict.score == pytest.approx(5 / 6)  # one of six rules broken (empty)


# ----------------------------------------------------------------------------------------------------- capseg
def test_capseg():
    good = "Well, I think that the most important<eol>thing we can do today<eob>is to listen to each other.<eob>"
    assert strict("capseg", good).passed and reference("capseg", good)
    cases = {
        SENTENCE + "<eob>": "Block 1, line 1 has 87 characters; the limit is 42.",
        "Well, I think that<eol>the most important<eol>thing we can do today<eob>is to listen to each other.<eob>":
            "Block 1 has 3 lines; the limit is 2.",
        "Well, I think that the most important<eol>thing we can do today<eob>is to listen to each other.":
            "The text must end with <eob>.",
        "Well, I think that the most important<br>thing we can do today<eob>is to listen to each other.<eob>":
            "<br> is not a break marker",
        "Well, I think that the most important\nthing we can do today<eob>is to listen to each other.<eob>":
            "not new lines",
        "Well, I think the most important<eol>thing we can do today<eob>is to listen to each other.<eob>":
            "the text must be the input unchanged",
        "<eob>Well, I think that the most important<eol>thing we can do today<eob>is to listen to each other.<eob>":
            "Block 1 is empty.",
    }
    for output, message in cases.items():
        assert message in messages("capseg", output), output
    # the reference passes a missing final <eob> and leading empty blocks
    assert reference("capseg", "Hi there.", text="Hi there.") and not strict("capseg", "Hi there.",
                                                                             text="Hi there.").passed
    assert reference("capseg", "<eob>Hi there.<eob>", text="Hi there.")


# -------------------------------------------------------------------------------------------------------- mtt
def test_mtt():
    good = "The Bundestag passed the new law on the energy transition today."
    assert strict("mtt", good).passed and reference("mtt", good)
    assert strict("mtt", "Energy transition: the Bundestag passed the new law today.").passed  # a term opens it
    assert "The source has 'Energiewende'; translate it as 'energy transition'." in messages(
        "mtt", "The Bundestag passed the new law on the energy turnaround today.")
    # the reference's false positives: the terms alone, the German source with the terms pasted in
    for output in ("Bundestag energy transition",
                   "Der Bundestag hat das neue Gesetz zur energy transition heute beschlossen."):
        assert reference("mtt", output) and not strict("mtt", output).passed
    assert "only the terms" in messages("mtt", "Bundestag energy transition")
    assert "Most of the answer is the German source" in messages(
        "mtt", "Der Bundestag hat das neue Gesetz zur energy transition heute beschlossen.")
    # terms are data: JSON text is read, Python code is refused, never run
    assert strict("mtt", good, terms='{"Bundestag": "Bundestag"}').passed
    with pytest.raises(InstanceError, match="field 'terms' is not JSON"):
        strict("mtt", good, terms="{'Bundestag': __import__('os').getcwd()}")


# ------------------------------------------------------------------------------------------------------ parse
GOLD_TREE = "(S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .))"


def test_parse():
    assert strict("parse", GOLD_TREE).passed
    assert strict("parse", "(ROOT (S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat)) (. .)))").passed
    assert strict("parse", "(S\n  (NP (DT The) (NN cat))\n  (VP (VBD sat))\n  (. .))").passed  # pretty-printed
    cases = {
        GOLD_TREE[:-1]: "1 bracket(s) are never closed.",
        GOLD_TREE + ")": "closes nothing",
        "The cat sat .": "A tree starts with '('",
        GOLD_TREE + " That is the parse.": "Text follows the end of the tree",
        "(S (NP The cat) (VP (VBD sat)) (. .))": "each word needs its own (TAG word) node",
        "(S (NP (DT The) (NN dog)) (VP (VBD sat)) (. .))": "word 2 is 'dog', the sentence has 'cat'",
        "(S (NP (DT The) (NN cat)) (VP (VBD sat)))": "word 4 is 'the end', the sentence has '.'",
        "(S (NN (DT The) (NN cat)) (VP (VBD sat)) (. .))": "'NN' labels a phrase but is a part-of-speech tag",
        "(S (NP (DT The) (NOUN cat)) (VP (VBD sat)) (. .))": "its label must be a part-of-speech tag",
        "(S (NP (DT The) (NN cat)) (VERBPHRASE (VBD sat)) (. .))": "not a Penn Treebank label",
    }
    for output, message in cases.items():
        assert message in messages("parse", output), output
    # the reference rejects every tree, its own gold example included
    assert not reference("parse", GOLD_TREE)


def test_spans_point_into_the_output():
    output = "<PER>John Smith lives in Paris ."
    (violation,) = strict("ner", output).violations
    assert output[slice(*violation.span)] == "<PER>"
    verdict = strict("ftime", "20121215T253900", tag=1)
    assert "20121215T253900"[slice(*verdict.violations[0].span)] == "25"


def test_instance_missing_a_field_and_unknown_checker_or_mode():
    with pytest.raises(InstanceError, match=r"mcq instance q7: missing field 'labels'"):
        check_format("mcq", {"id": "q7"}, "NN")
    with pytest.raises(RegistryError, match="unknown format 'nope'"):
        get_checker("nope")
    with pytest.raises(ValueError, match="unknown checker mode 'lenient'"):
        check_format("mcq", INSTANCES["mcq"], "NN", "lenient")  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None)
@given(task=st.sampled_from(sorted(INSTANCES)), output=st.text(max_size=300) | st.sampled_from(
    ["<PER>", "</PER></PER>", "<eob><eob>", "R/", "////", "<<>>", "\x00", "<PER><ORG>x</ORG></PER>"]))
def test_checkers_never_raise_and_verdicts_are_consistent(task, output):
    for mode in ("strict", "reference"):
        verdict = check_format(task, INSTANCES[task], output, mode)
        assert verdict.passed == (verdict.score == 1.0)
        assert all(v.rule != "internal" for v in verdict.violations), verdict.feedback
        assert all(v.span is None or 0 <= v.span[0] <= v.span[1] <= len(output) for v in verdict.violations)
        assert verdict.to_json()["passed"] == verdict.passed


def test_a_new_format_is_one_registration_seen_by_checking_grammars_and_prompts():
    """An eleventh task: its checker, grammar, quality and description given in one ``register_format_task`` call
    reach ``check_format``, ``format_grammar`` and the task's description; registering a name twice is refused."""
    from corral.grammars import Grammar, accepts
    from corral.registry import format_tasks
    from corral.suites.formatbench import (
        FormatChecker,
        FormatGrammar,
        FormatTask,
        format_grammar,
        get_format_task,
        register_format_task,
    )
    from corral.verdicts import Violation

    def strict(instance, output):
        return [] if output.isupper() else [Violation("upper", "Write in capitals only.")]

    checker = FormatChecker("test-shout", {"upper": "capitals only"}, (), strict,
                            lambda instance, output: output.isupper(), "Shout: the answer in capitals")
    task = FormatTask(checker, description="Answer in capitals about {topic}.", max_tokens=8,
                      grammar=lambda instance: FormatGrammar(Grammar.regex("[A-Z ]+")),
                      quality=lambda instance, answer: {"shout_length": float(len(answer))},
                      fields=lambda instance: {"topic": instance["topic"]})
    register_format_task(task)
    try:
        assert check_format("test-shout", {}, "HELLO").passed and not check_format("test-shout", {}, "hi").passed
        assert accepts(format_grammar("test-shout", {}).grammar, "HI THERE")
        assert get_format_task("test-shout").describe({"topic": "cats"}) == "Answer in capitals about cats."
        assert get_format_task("test-shout").enforcement == "exact"
        with pytest.raises(ValueError, match="registered twice"):
            register_format_task(task)
    finally:  # catalogue keeps every registry's entries in one dict, keyed by namespace
        import catalogue

        catalogue.REGISTRY.pop(("corral", "format_tasks", "test-shout"), None)
        assert "test-shout" not in format_tasks.get_all()
