"""Each IFEval kind on its own: verdicts, violations that name the rule with expected and seen, feedback a model can
act on, rendering, the enforcement flags, strict and loose modes, budgets and bad arguments."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.constraints import Budget
from corral.suites.ifeval import (
    KINDS,
    Instruction,
    InstructionError,
    evaluate_response,
    judge_prompt,
    loose_variants,
)


def check(kind: str, response: str, **kwargs):
    return Instruction.parse(kind, kwargs).check(response)


# (kind, kwargs, a response that follows it, one that does not, (expected, seen) of the failure's violation)
CASES = [
    ("punctuation:no_comma", {}, "No commas here.", "One, two, three", (0, 2)),
    ("detectable_format:title", {}, "<<Joy>>\nA poem.", "Joy\nA poem.", ("<<title>>", None)),
    ("startend:quotation", {}, '"Hello there."', "Hello there.", ('"..."', "H.")),
    ("startend:end_checker", {"end_phrase": "Peace!"}, "Goodbye. peace!", "Peace! Goodbye.",
     ("Peace!", "Peace! Goodbye.")),
    ("combination:two_responses", {}, "Yes.\n******\nNo.", "Yes.\n******\nYes.", ("different", "Yes.")),
    ("combination:repeat_prompt", {"prompt_to_repeat": "Say hi."}, "Say hi. Hi!", "Hi! Say hi.",
     ("Say hi.", "Hi! Say")),
    ("detectable_format:json_format", {}, '```json\n{"a": 1}\n```', "{'a': 1}", ("JSON", "{'a': 1}")),
    ("detectable_format:constrained_response", {}, "My answer is maybe.", "Maybe.",
     (["My answer is yes.", "My answer is no.", "My answer is maybe."], "Maybe.")),
    ("detectable_format:multiple_sections", {"section_spliter": "Section", "num_sections": 2},
     "Section 1\na\nSection 2\nb", "Section 1\na\nsection 2\nb", (2, 1)),
    ("detectable_format:number_bullet_lists", {"num_bullets": 2}, "* a\n* b", "* a\n* b\n- c", (2, 3)),
    ("detectable_format:number_highlighted_sections", {"num_highlights": 2}, "*a* and **b**", "*a* only",
     (2, 1)),
    ("detectable_content:number_placeholders", {"num_placeholders": 2}, "[name] at [place]", "[name] only", (2, 1)),
    ("detectable_content:postscript", {"postscript_marker": "P.S."}, "Hi.\np.s. bye", "Hi.\nPS bye",
     ("P.S.", None)),
    ("keywords:existence", {"keywords": ["river", "Cat"]}, "A CAT by the river.", "A cat.",
     (["river", "Cat"], ["river"])),
    ("keywords:forbidden_words", {"forbidden_words": ["cat"]}, "A concatenation.", "The Cat sat.",
     ("no 'cat'", "Cat")),
    ("keywords:frequency", {"keyword": "cat", "frequency": 2, "relation": "at least"}, "cat CAT", "cat",
     ("at least 2", 1)),
    ("keywords:letter_frequency", {"letter": "z", "let_frequency": 2, "let_relation": "less than"}, "zoo", "Zzz",
     ("less than 2", 3)),
    ("change_case:capital_word_frequency", {"capital_frequency": 2, "capital_relation": "at least"},
     "NO WAY", "NO way", ("at least 2", 1)),
    ("change_case:english_capital", {}, "THE RIVER RUNS TO THE SEA.", "THE RIVER runs TO THE SEA.",
     ("capital letters", "r")),
    ("change_case:english_lowercase", {}, "the river runs to the sea.", "The river runs to the sea.",
     ("lowercase", "T")),
    ("language:response_language", {"language": "de"}, "Der Fluss fließt ruhig durch die alte Stadt zum Meer.",
     "The river flows quietly through the old town to the sea.", ("de", "en")),
    ("length_constraints:number_words", {"num_words": 3, "relation": "at least"}, "one two three", "one two",
     ("at least 3", 2)),
    ("length_constraints:number_sentences", {"num_sentences": 2, "relation": "less than"}, "One sentence.",
     "One. Two.", ("less than 2", 2)),
    ("length_constraints:number_paragraphs", {"num_paragraphs": 2}, "a\n***\nb", "a\n\nb", (2, 1)),
    ("length_constraints:nth_paragraph_first_word", {"num_paragraphs": 2, "nth_paragraph": 2, "first_word": "then"},
     "First.\n\nThen, more.", "First.\n\nNext, more.", ("then", "next")),
]


def test_every_kind_has_a_case():
    assert sorted(kind for kind, *_ in CASES) == sorted(KINDS)


@pytest.mark.parametrize(("kind", "kwargs", "good", "bad", "evidence"), CASES, ids=[c[0] for c in CASES])
def test_a_kind_passes_what_follows_it_and_explains_what_does_not(kind, kwargs, good, bad, evidence):
    assert check(kind, good, **kwargs).passed
    verdict = check(kind, bad, **kwargs)
    assert not verdict.passed and verdict.score == 0.0
    first = verdict.violations[0]
    assert first.rule == kind and first.message and verdict.feedback.startswith(first.message)
    assert (first.expected, first.seen) == evidence
    assert not check(kind, "  \n", **kwargs).passed  # a blank response follows no instruction


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_renders_a_sentence_and_says_how_it_could_be_enforced(kind):
    _, kwargs, *_ = next(case for case in CASES if case[0] == kind)
    sentence = Instruction.parse(kind, kwargs).render()
    assert (sentence[0].isupper() and sentence.rstrip()[-1] in ".)!?:") or "P.S." in sentence, sentence
    for name, value in kwargs.items():
        if "relation" in name:
            assert ("at least" if value == "at least" else "fewer than") in sentence
        elif isinstance(value, int) or (isinstance(value, str) and kind not in {"language:response_language",
                                                                              "combination:repeat_prompt"}):
            assert str(value) in sentence, (kind, value, sentence)
    spec = KINDS[kind]
    assert spec.enforcement in ("grammar", "partial", "checker") and spec.why


def test_the_enforcement_flags_are_the_planned_ones():
    partial = {k for k, v in KINDS.items() if v.enforcement == "partial"}
    assert {k for k, v in KINDS.items() if v.enforcement == "checker"} == {"language:response_language"}
    assert partial == {"change_case:english_capital", "change_case:english_lowercase", "combination:two_responses",
                       "change_case:capital_word_frequency", "length_constraints:number_sentences"}


def test_messages_say_how_far_off_a_count_is():
    verdict = check("length_constraints:number_words", "a b c d", num_words=3, relation="less than")
    assert verdict.feedback == "The response has 4 words; it needs fewer than 3 words: remove at least 2."
    verdict = check("punctuation:no_comma", "Yes, sir, now")
    assert verdict.violations[0].span == (3, 4) and "2 commas" in verdict.feedback


@pytest.mark.parametrize(("kind", "kwargs", "message"), [
    ("length_constraints:number_words", {"num_words": 3}, "missing argument 'relation'"),
    ("length_constraints:number_words", {"num_words": "3", "relation": "at least"}, "num_words='3' is not a whole"),
    ("length_constraints:number_words", {"num_words": 3, "relation": "at most"}, "is not one of"),
    ("punctuation:no_comma", {"colour": 1}, "unknown argument colour"),
    ("keywords:existence", {"keywords": []}, "not a non-empty list"),
    ("language:response_language", {"language": "xx"}, "language='xx' is not one of"),
    ("nope:kind", {}, "unknown IFEval instruction 'nope:kind'; known: change_case"),
])
def test_bad_arguments_are_one_line_errors(kind, kwargs, message):
    with pytest.raises(InstructionError, match=message):
        Instruction.parse(kind, kwargs)


def test_null_arguments_are_ignored_as_in_the_hugging_face_copy():
    instruction = Instruction.parse("punctuation:no_comma", {"num_words": None, "relation": None})
    assert instruction.args == {}


def test_loose_mode_forgives_a_preamble_a_closing_line_and_emphasis():
    [quote] = [Instruction.parse("startend:quotation", {})]
    response = 'Sure, here it is:\n"To be or not to be."\nHope that helps!'
    result = evaluate_response([quote], response)
    assert result.strict == (False,) and result.loose == (True,)
    bold = evaluate_response([Instruction.parse("detectable_format:json_format", {})], '**{"a": 1}**')
    assert bold.strict == (False,) and bold.loose == (True,)


def test_the_eight_loose_variants_are_ifevals():
    assert loose_variants("*a*\nb\nc*") == ["*a*\nb\nc*", "a\nb\nc", "b\nc*", "*a*\nb", "b", "b\nc", "a\nb", "b"]


def test_a_prompt_verdict_carries_both_modes_and_the_runs_statistics():
    instructions = [Instruction.parse("startend:quotation", {}), Instruction.parse("punctuation:no_comma", {})]
    response = 'Here:\n"Yes, indeed."\nBye'
    strict = judge_prompt(instructions, response)
    loose = judge_prompt(instructions, response, "loose")
    assert not strict.passed and not loose.passed and strict.score == 0.0 and loose.score == 0.5
    assert [v.rule for v in loose.violations] == ["punctuation:no_comma"]
    assert strict.detail.to_json() == {"instructions": ["startend:quotation", "punctuation:no_comma"],
                                       "strict": [False, False], "loose": [True, False], "prompt_strict": False,
                                       "prompt_loose": False}
    assert strict.detail.quality()["instruction_loose@ratio:correct"] == 1.0
    assert judge_prompt(instructions, '"Yes indeed."').passed
    with pytest.raises(ValueError, match="unknown IFEval mode"):
        judge_prompt(instructions, "x", "lenient")  # type: ignore[arg-type]


def test_a_response_past_the_budget_is_undecided():
    instructions = [Instruction.parse("length_constraints:number_words", {"num_words": 1, "relation": "at least"})]
    verdict = judge_prompt(instructions, "word " * 100, budget=Budget(max_chars=50))
    assert not verdict.passed and verdict.undecided and "500 characters" in verdict.undecided
    many = [Instruction.parse("detectable_format:number_highlighted_sections", {"num_highlights": 1})]
    slow = judge_prompt(many, "*a* " * 50_000, budget=Budget(max_steps=5))
    assert slow.undecided is not None and "evaluations" in slow.undecided
    assert Instruction.parse("punctuation:no_comma", {}).check("a" * 60, Budget(max_chars=50)).undecided is None


def test_json_nested_too_deeply_is_undecided_not_an_error():
    verdict = judge_prompt([Instruction.parse("detectable_format:json_format", {})], "[" * 100_000 + "]" * 100_000)
    assert not verdict.passed and verdict.undecided is not None


@settings(max_examples=60, database=None)
@given(st.sampled_from(sorted(KINDS)), st.text(max_size=200))
def test_loose_never_fails_what_strict_passes_and_checks_never_raise(kind, response):
    _, kwargs, *_ = next(case for case in CASES if case[0] == kind)
    instruction = Instruction.parse(kind, kwargs)
    result = evaluate_response([instruction], response)
    assert result.loose[0] or not result.strict[0]
    verdict = judge_prompt([instruction], response)
    assert verdict.passed == result.strict[0] and (verdict.passed or verdict.violations)


@settings(max_examples=40, database=None)
@given(st.lists(st.sampled_from(["alpha", "BETA", "don't", "3.5", "naïve"]), max_size=30),
       st.sampled_from([" ", "\n", ", "]))
def test_word_counts_agree_with_the_bound_on_both_sides(words, sep):
    text = sep.join(words)
    count = sum(len(__import__("re").findall(r"\w+", w)) for w in words)
    for n in (count - 1, count, count + 1):
        if n > 0:
            assert check("length_constraints:number_words", text, num_words=n, relation="at least").passed is (
                count >= n and bool(text.strip()))
            assert check("length_constraints:number_words", text, num_words=n, relation="less than").passed is (
                count < n and bool(text.strip()))
