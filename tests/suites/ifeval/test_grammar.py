"""A prompt's grammar is sound: every text it accepts passes the checker of every instruction it enforces.

Texts are drawn from each grammar's own pattern by a small generator for the subset of regex syntax the compiler
writes (``\\x{HEX}`` and alphanumeric literals, classes with ``*`` or ``+``, groups of alternatives), with free
text biased towards the characters that could fool a checker (brackets, asterisks, angle brackets, quotation marks,
line breaks, spaces). llguidance confirms that each drawn text is in the grammar, so the generator is checked too.
"""

from __future__ import annotations

import random
import re

import pytest

from corral.grammars import Grammar, accepts, random_walk, sample
from corral.suites.ifeval import compile_prompt, read_prompts

PROMPTS = list(read_prompts())
COUNTED = {"length_constraints:number_words", "keywords:letter_frequency", "keywords:frequency",
           "keywords:forbidden_words"}
"""Kinds a grammar enforces as a count beside the shape (``PromptGrammar.counts``), tested on their own below."""
TRICKY = "[]*<>\"\n ,.'-PpSs"
_ATOM = re.compile(r"\\x\{([0-9A-F]+)\}|\[((?:\\x\{[0-9A-F]+\}(?:-\\x\{[0-9A-F]+\})?)+)\]|([A-Za-z0-9])")
_RANGE = re.compile(r"\\x\{([0-9A-F]+)\}(?:-\\x\{([0-9A-F]+)\})?")


def _chars(body: str) -> list[str]:
    out: list[str] = []
    for start, end in _RANGE.findall(body):
        out += [chr(c) for c in range(int(start, 16), int(end or start, 16) + 1)]
    return out


def _draw(pattern: str, rng: random.Random) -> str:
    """One random text of ``pattern``: the compiler's subset of regex syntax (``\\x{HEX}`` and alphanumeric
    literals, classes, groups of alternatives, each optionally followed by ``*``, ``+`` or ``?``)."""
    text, at = _sequence(pattern, 0, rng)
    assert at == len(pattern), f"unexpected syntax at {pattern[at:at + 30]!r}"
    return text


def _sequence(pattern: str, at: int, rng: random.Random) -> tuple[str, int]:
    """The alternatives from ``at`` to the closing parenthesis (or the end): one of them drawn."""
    options: list[str] = []
    out: list[str] = []
    while at < len(pattern) and pattern[at] != ")":
        if pattern[at] == "|":
            options.append("".join(out))
            out, at = [], at + 1
            continue
        if pattern[at] == "(":
            start = at
            _, at = _sequence(pattern, at + 1, rng)  # parsed once to find where the group ends
            assert pattern[at] == ")"
            at += 1
            body = pattern[start + 1:at - 1]
            draw = lambda body=body: _sequence(body, 0, rng)[0]  # noqa: E731
        else:
            match = _ATOM.match(pattern, at)
            assert match, f"unexpected syntax at {pattern[at:at + 30]!r}"
            at = match.end()
            code, body, plain = match.groups()
            if body is None:
                literal = chr(int(code, 16)) if code else plain
                draw = lambda literal=literal: literal  # noqa: E731
            else:
                chars = _chars(body)
                tricky = [c for c in chars if c in TRICKY]
                draw = lambda chars=chars, tricky=tricky: (  # noqa: E731
                    rng.choice(tricky) if tricky and rng.random() < 0.4 else rng.choice(chars))
        repeat = pattern[at] if at < len(pattern) and pattern[at] in "*+?" else ""
        at += bool(repeat)
        count = {"": 1, "?": rng.choice([0, 1]), "*": rng.choice([0, 1, 2, 5, 20]),
                 "+": 1 + rng.choice([0, 1, 2, 5, 20])}[repeat]
        out += [draw() for _ in range(count)]
    options.append("".join(out))
    return rng.choice(options), at


def _passes(instruction, text: str) -> bool:
    if instruction.id == "change_case:english_lowercase":
        return text.islower()  # the grammar's part; the language is the checker's
    if instruction.id == "change_case:english_capital":
        return text.isupper()
    return not instruction.kind.check(instruction.args, text)


@pytest.mark.parametrize("chunk", range(4))
def test_every_drawn_text_passes_what_its_grammar_enforces(chunk: int) -> None:
    rng = random.Random(chunk)
    checked = 0
    for prompt in PROMPTS[chunk::4]:
        compiled = compile_prompt(prompt.instructions)
        if compiled.pattern is None:
            continue
        grammar = Grammar.regex(compiled.pattern)
        enforced = [i for i in prompt.instructions if i.id in compiled.enforced and i.id not in COUNTED]
        for _ in range(3):
            text = _draw(compiled.pattern, rng)
            assert accepts(grammar, text), (prompt.key, text[:200])
            failing = [i.id for i in enforced if not _passes(i, text)]
            assert not failing, (prompt.key, failing, text[:300])
            checked += 1
    assert checked > 200


def test_most_prompts_have_a_grammar_and_each_left_instruction_says_why() -> None:
    compiled = [compile_prompt(prompt.instructions) for prompt in PROMPTS]
    assert sum(c.pattern is not None for c in compiled) >= 460
    assert sum(c.json for c in compiled) == 17
    assert all(reason for c in compiled for _, reason in c.left)


def test_conflicting_instructions_enforce_one_and_leave_the_other() -> None:
    from corral.suites.ifeval import Instruction

    quoted = Instruction.parse("startend:quotation", {})
    repeat = Instruction.parse("combination:repeat_prompt", {"prompt_to_repeat": "Say hi."})
    compiled = compile_prompt((quoted, repeat))
    assert compiled.enforced == ("startend:quotation",)
    assert compiled.left == (("combination:repeat_prompt", "another instruction fixes how the response begins"),)
    no_comma = Instruction.parse("punctuation:no_comma", {})
    keyword = Instruction.parse("keywords:existence", {"keywords": ["one, two"]})
    assert compile_prompt((keyword, no_comma)).enforced == ("punctuation:no_comma",)


def test_a_text_the_grammar_refuses_is_one_the_checker_fails() -> None:
    from corral.suites.ifeval import Instruction

    end = Instruction.parse("startend:end_checker", {"end_phrase": "Any other questions?"})
    lower = Instruction.parse("change_case:english_lowercase", {})
    grammar = Grammar.regex(compile_prompt((end, lower)).pattern or "")
    assert accepts(grammar, "all good here. any other questions?")
    assert not accepts(grammar, "All good here. any other questions?")  # a capital
    assert not accepts(grammar, "all good here. any other questions? ok")  # something after the phrase


def test_bullets_sections_and_paragraphs_are_counted_exactly_by_the_grammar() -> None:
    from corral.suites.ifeval import Instruction

    bullets = Instruction.parse("detectable_format:number_bullet_lists", {"num_bullets": 2})
    grammar = Grammar.regex(compile_prompt((bullets,)).pattern or "")
    assert accepts(grammar, "Two points:\n* one\n* two\nThat is all.")
    assert not accepts(grammar, "Two points:\n* one\n* two\n- three")  # a third bullet
    assert not accepts(grammar, "Two points:\n* one\n* two\n  * three")  # an indented one counts too
    assert not accepts(grammar, "- one\n* two\n* three")  # a bullet at the very start
    assert not accepts(grammar, "Two points:\n* one")
    sections = Instruction.parse("detectable_format:multiple_sections", {"section_spliter": "Day", "num_sections": 2})
    grammar = Grammar.regex(compile_prompt((sections,)).pattern or "")
    assert accepts(grammar, "Plan\nDay 1\nrest\nDay 2\nwalk")
    assert not accepts(grammar, "Plan\nDay 1\nrest")
    paragraphs = Instruction.parse("length_constraints:number_paragraphs", {"num_paragraphs": 3})
    grammar = Grammar.regex(compile_prompt((paragraphs,)).pattern or "")
    assert accepts(grammar, "One.\n***\nTwo.\n***\nThree.")
    assert not accepts(grammar, "One.\n***\nTwo.")
    assert not accepts(grammar, "One.\n***\n***\nThree.")  # an empty paragraph
    assert not accepts(grammar, "One.\n***\nTwo.\n***\nThree.\n***\nFour.")
    # a piece that could begin a line with a bullet's mark leaves the bullets to the checker
    keyword = Instruction.parse("keywords:existence", {"keywords": ["-minus"]})
    assert dict(compile_prompt((keyword, bullets)).left)["detectable_format:number_bullet_lists"].startswith(
        "another instruction's piece")


def test_blank_line_paragraphs_and_the_nth_first_word_are_enforced_exactly() -> None:
    from corral.suites.ifeval import Instruction

    nth = Instruction.parse("length_constraints:nth_paragraph_first_word",
                            {"num_paragraphs": 3, "nth_paragraph": 2, "first_word": "Elm"})
    grammar = Grammar.regex(compile_prompt((nth,)).pattern or "")
    for text, ok in [("Trees grow.\n\nElm trees too.\n\nThe end.", True),
                     ("Trees grow.\n\nelm trees too.\n\nThe end.", False),  # the word as written, no other case
                     ("Trees grow.\n\nOak trees too.\n\nThe end.", False),
                     ("Trees grow.\n\nElm trees too.", False),  # two paragraphs
                     ("Trees\ngrow.\n\nElm trees too.\n\nThe end.", False),  # free text has no line break
                     ("Trees grow.\n\n\nElm trees too.\n\nThe end.", False)]:
        assert accepts(grammar, text) is ok, text
        if ok:
            assert not nth.kind.check(nth.args, text)
    first = Instruction.parse("length_constraints:nth_paragraph_first_word",
                              {"num_paragraphs": 2, "nth_paragraph": 1, "first_word": "weekend"})
    quoted = Instruction.parse("startend:quotation", {})
    grammar = Grammar.regex(compile_prompt((first, quoted)).pattern or "")
    assert accepts(grammar, '"weekend plans.\n\nSunday."')  # IFEval drops the paragraph's opening quotation mark
    assert not nth.kind.check(first.args, '"weekend plans.\n\nSunday."')
    # pieces that could make a blank line, a word IFEval would cut, a paragraph past the last: left to the checker
    sections = Instruction.parse("detectable_format:multiple_sections", {"section_spliter": "Day", "num_sections": 2})
    assert "blank line" in dict(compile_prompt((sections, nth)).left)[nth.id]
    cut = Instruction.parse("length_constraints:nth_paragraph_first_word",
                            {"num_paragraphs": 2, "nth_paragraph": 1, "first_word": "don't"})
    assert cut.id in dict(compile_prompt((cut,)).left)
    past = Instruction.parse("length_constraints:nth_paragraph_first_word",
                             {"num_paragraphs": 2, "nth_paragraph": 3, "first_word": "elm"})
    assert past.id in dict(compile_prompt((past,)).left)


@pytest.mark.parametrize("chunk", range(2))
def test_a_count_beside_the_shape_accepts_exactly_the_texts_its_checker_passes(chunk: int) -> None:
    """For texts of the shape (drawn as above, and from the whole grammar by a random byte walk), the grammar
    with its counts accepts a text exactly when every counted instruction's checker passes it: the counts are
    exact, not only sound."""
    rng = random.Random(100 + chunk)
    checked = accepted = 0
    for prompt in [p for p in PROMPTS if compile_prompt(p.instructions).counts][chunk::2]:
        compiled = compile_prompt(prompt.instructions)
        grammar = Grammar.lark(compiled.lark())
        counted = [i for i in prompt.instructions if i.id in compiled.enforced and i.id in COUNTED]
        assert counted, prompt.key
        walked = sample(grammar, random_walk(rng.randrange(2**32), stop=0.02), max_bytes=6_000)
        texts = [_draw(compiled.pattern, rng) for _ in range(4)] + ([walked] if walked is not None else [])
        for text in texts:
            verdicts = {i.id: not i.kind.check(i.args, text) for i in counted}
            assert accepts(grammar, text) == all(verdicts.values()), (prompt.key, verdicts, text[:300])
            checked += 1
            accepted += all(verdicts.values())
        if walked is not None:  # a text of the whole grammar passes every instruction it enforces
            enforced = [i for i in prompt.instructions if i.id in compiled.enforced]
            assert all(_passes(i, walked) for i in enforced), (prompt.key, walked[:300])
    assert checked > 200 and accepted > 50


def test_counts_are_refused_where_they_cannot_be_written_exactly() -> None:
    from corral.suites.ifeval import Instruction

    overlapping = Instruction.parse("keywords:frequency", {"keyword": "anna", "frequency": 2, "relation": "at least"})
    assert "overlaps itself" in dict(compile_prompt((overlapping,)).left)["keywords:frequency"]
    words = Instruction.parse("length_constraints:number_words", {"num_words": 3, "relation": "less than"})
    repeat = Instruction.parse("combination:repeat_prompt", {"prompt_to_repeat": "Say one two three four."})
    compiled = compile_prompt((repeat, words))  # the request alone already has 5 words
    assert compiled.enforced == ("combination:repeat_prompt",) and "conflicts" in dict(compiled.left)[
        "length_constraints:number_words"]
    forbidden = Instruction.parse("keywords:forbidden_words", {"forbidden_words": ["cat"]})
    grammar = Grammar.lark(compile_prompt((forbidden,)).lark())
    assert accepts(grammar, "A concatenation of dogs.") and not accepts(grammar, "The Cat sat.")
