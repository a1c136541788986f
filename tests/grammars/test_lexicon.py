"""The lexical model the constraint compiler relies on agrees with the profiles themselves.

Texts are drawn from the model (``corral.grammars.constraint._lexicon``): chunks of openers, words, glue, suffixes and
closers, sentences ending in a mark. The model says which words and how many sentences each text has; the
profile's own ``split`` must say the same, and the compiled shape must accept the text.
"""

from __future__ import annotations

import re
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corral.constraints import TEXT, Constraint, Count, Rel
from corral.grammars import Grammar, accepts, compile_constraint

# the compiler's model of each profile's words, drawn from and checked against the profile (docs/grammars.md)
from corral.grammars import _regex as R  # the regex builders the model's expressions are written with
from corral.grammars.constraint import LEXICONS, Lexicon, Token, lexicon
from corral.grammars.constraint._terms import _profile  # what the compiler asks of a profile (its sentence ends)
from corral.grammars.constraint._words import Terminals, Words  # the sentence walk built from the model
from corral.text import Level, get_profile

PROFILES = sorted(LEXICONS)
LOWER = "abcdefghijklmnopqrstuvwxyzéüñçà"
UPPER = "ABCDEFGHIJKLMNOPRSTUVWXYZÉÜ"
JOINERS = {"collie-v1": "-/", "default": "-"}
STEMS = ["do", "is", "could", "ca", "wo", "was", "don", "couldn", "isn", "can", "won", "it", "Ann"]


@lru_cache(maxsize=32)
def _word_grammar(profile: str, stem: str | None = None) -> Grammar:
    word = lexicon(profile).word if stem is None else f"({lexicon(profile).word}) & ({stem})"
    return Grammar("lark", f"start: W\nW: {word}\n", "a word")


@lru_cache(maxsize=8)
def _shape(profile: str, one_sentence: bool = False) -> Grammar:
    terminals = Terminals()
    words = Words(lexicon(profile), _profile(profile).no_final, terminals, 64)
    top = "S" if one_sentence else f"{R.TEXT_START} S ({R.SENTENCE_SEPARATOR} S)* {R.TEXT_END}"
    return Grammar("lark", f"start: P\nP: {top}\nS: {words.shape}\n{terminals.lark()}", "shape")


@st.composite
def _words(draw, profile: str, first: bool = False, last: bool = False, stem: str | None = None,
           capital: bool = False) -> str:
    """A word of the lexicon (checked against its own expression, and ``stem`` if given)."""
    from hypothesis import assume

    if stem is not None:
        word = draw(st.sampled_from(STEMS))
    else:
        letters = st.text(LOWER, min_size=1, max_size=6)
        digits = st.text("0123456789", min_size=1, max_size=4)
        # the default profile ends a sentence only after plain letters: draw nothing else there (rejected
        # draws cost hypothesis a new example each)
        plain_last = last and profile == "default"
        if not plain_last and draw(st.booleans()):
            number = draw(digits)
            for _ in range(draw(st.integers(0, 2))):
                number += draw(st.sampled_from(",:.")) + draw(digits)
                if draw(st.integers(0, 3)) == 0:  # 802.11ac, 1,000th
                    number += draw(st.text(LOWER[:26], min_size=1, max_size=3))
            word = number
            if profile == "collie-v1" and not first and draw(st.integers(0, 5)) == 0:
                word = draw(st.sampled_from("£€¥")) + word  # a sign Treebank keeps on its number
        else:
            word = draw(letters)
            for _ in range(0 if plain_last else draw(st.integers(0, 3))):
                word += draw(st.sampled_from(JOINERS[profile])) + draw(letters)
        if not plain_last and draw(st.integers(0, 6)) == 0:  # an apostrophe after one or two letters: O'Brien, o'clock
            mark = "'" if profile == "collie-v1" else draw(st.sampled_from("'’"))
            word = draw(st.sampled_from(["O", "o", "d", "Ma", "D"])) + mark + draw(st.sampled_from(
                ["Brien", "clock", "Arc", "am", "Angelo", "ll", "re", "ve"])) + word
        if profile == "default" and not plain_last and draw(st.integers(0, 3)) == 0:
            word += draw(st.sampled_from("'’")) + draw(st.sampled_from(["s", "m", "d", "ll", "re", "ve"]))
        if profile == "default" and not plain_last and draw(st.integers(0, 5)) == 0:
            word = draw(st.sampled_from(["do", "is", "could", "ca", "wo"])) + "n" + draw(st.sampled_from("'’")) + "t"
    if first or capital:
        # collie-v1 (Punkt) also starts a sentence with a digit
        word = draw(st.sampled_from(UPPER + ("0123456789" if profile == "collie-v1" and not capital else ""))) + word
    if last:
        assume(("." not in word or lexicon(profile).dotted_last)
               and accepts(_word_grammar(profile, lexicon(profile).last_word), word))
    assume(accepts(_word_grammar(profile, stem), word))
    if last:
        assume(word.lower() not in _profile(profile).no_final)
    return word


def _pick(draw, tokens: tuple[Token, ...], most: int, in_a_row: int = 2) -> list[Token]:
    """Tokens of one kind: at most ``most`` word-making ones, at most ``in_a_row`` others between them."""
    free = [t for t in tokens if t.value is None]
    weighted = [t for t in tokens if t.value is not None]
    out: list[Token] = []
    run = 0
    for _ in range(draw(st.integers(0, 2))):
        if weighted and len([t for t in out if t.value]) < most and draw(st.booleans()):
            out.append(draw(st.sampled_from(weighted)))
            run = 0
        elif free and run < in_a_row:
            out.append(draw(st.sampled_from(free)))
            run += 1
    return out


def _keep_runs(tokens: list[Token], run: str | None) -> list[Token]:
    """``tokens`` with each run of non-word tokens cut to what ``run`` (the lexicon's closer run, a terminal
    expression) allows: its first token, or none."""
    if run is None:
        return tokens
    allowed = re.compile(run.strip("/"))
    out: list[Token] = []
    pending: list[Token] = []
    for token in [*tokens, None]:
        if token is not None and token.value is None:
            pending.append(token)
            continue
        if pending and not allowed.fullmatch("".join(t.text for t in pending)):
            pending = pending[:1] if allowed.fullmatch(pending[0].text) else []
        out += pending
        pending = []
        if token is not None:
            out.append(token)
    return out


def _paired(draw, lex: Lexicon, sentence: str) -> None:
    """Keep only a sentence of the lexicon's ``sentence_form`` (its brackets paired), which compiled grammars
    hold; the shape alone (``Words.shape``) does not pair them."""
    from hypothesis import assume

    if lex.sentence_form is not None:
        assume(re.fullmatch(lex.sentence_form.strip("/"), sentence))


@st.composite
def _chunk(draw, lex: Lexicon, first: bool, last: bool, whole: bool = False) -> tuple[str, list[str]]:
    """One chunk and the words the model says it makes (``whole``: of a text that is one sentence)."""
    text, values = "", []
    # an initial before a capitalised word (``D. James``), with no opener and one word
    initial = lex.initial is not None and draw(st.integers(0, 5)) == 0
    if initial:
        letters = draw(st.lists(st.sampled_from(UPPER), min_size=1, max_size=2))
        text, values = "".join(letter + "." + draw(_space(lex)) for letter in letters), letters
    elif not first and lex.alone and draw(st.integers(0, 5)) == 0:
        token = draw(st.sampled_from(lex.alone))
        text, values = token.text + draw(_space(lex)), [token.value] if token.value else []
    # a single quotation mark opening the first word, after the openers if any ('The, "'Till)
    quoted = lex.quote is not None and not initial and draw(st.integers(0, 4)) == 0
    for token in [] if initial else _pick(draw, lex.openers, lex.max_openers, in_a_row=1):
        text += token.text
        values += [token.value] if token.value else []
    if quoted:
        text += lex.quote
    glued = draw(st.integers(0, lex.max_glue)) if lex.glue and not initial else 0
    suffix = draw(st.sampled_from(lex.suffixes)) if lex.suffixes and draw(st.booleans()) else None
    for k in range(glued + 1):
        stem = suffix.stem if suffix is not None and k == glued else None
        word = draw(_words(lex.profile, first=first and k == 0 and not initial, last=last and k == glued, stem=stem,
                           capital=initial and k == 0))
        if last and not lex.dotted_last:
            from hypothesis import assume

            assume("." not in word)
        if quoted and k == 0:
            from hypothesis import assume

            assume(re.match(r"\w", word) and not re.match(r"(?i)(re|ve|ll|m|t|s|d|n)\b", word))
        values.append(word)
        text += word
        if k < glued:
            joint = draw(st.sampled_from(lex.glue))
            text += joint.text
            values += [joint.value] if joint.value else []
    if suffix is not None:
        for group in suffix.parts:
            token = draw(st.sampled_from(group))
            text += token.text
            values += [token.value] if token.value else []
    if whole and lex.whole_text and not last and draw(st.integers(0, 3)) == 0:
        return text + ".", values  # To Mr. Hector
    run = (lex.final_closer_run or lex.closer_run) if last else lex.closer_run
    for token in [] if last and initial else _keep_runs(_pick(draw, lex.closers, lex.max_closers), run):
        text += token.text
        values += [token.value] if token.value else []
    if last and initial:  # a bare final mark after an initial's word
        return text + draw(st.sampled_from(lex.ends)).text, values
    if last:
        text += draw(st.sampled_from(lex.ends)).text
        after = _pick(draw, lex.after_end, lex.max_after)
        if [t for t in after if t.value is None][1:]:
            after = after[:1]  # at most one non-word token in a row after the end
        for token in after:
            text += token.text
            values += [token.value] if token.value else []
    return text, values


def _space(lex: Lexicon) -> st.SearchStrategy[str]:
    """What separates two chunks: one space, or two where the lexicon allows it."""
    return st.sampled_from([gap for gap in (" ", "  ") if accepts(_space_grammar(lex.profile), gap)])


@lru_cache(maxsize=8)
def _space_grammar(profile: str) -> Grammar:
    return Grammar("lark", f"start: W\nW: {lexicon(profile).space}\n", "a chunk separator")


@st.composite
def _paragraph(draw, profile: str, paired: bool = False) -> tuple[str, list[str], int]:
    """A paragraph of the shape; ``paired``: of compiled grammars, whose sentences pair their brackets."""
    lex = lexicon(profile)
    sentences, values = [], []
    for _ in range(draw(st.integers(1, 3))):
        n = draw(st.integers(1, 5))
        chunks = []
        for i in range(n):
            text, found = draw(_chunk(lex, first=i == 0, last=i == n - 1))
            chunks.append(text)
            values += found
        sentences.append("".join(c + (draw(_space(lex)) if i < n - 1 else "") for i, c in enumerate(chunks)))
        if paired:
            _paired(draw, lex, sentences[-1])
    # one to three spaces between sentences, maybe one or two before the first and one after the last
    text = draw(st.sampled_from(["", "", "", " ", "  "]))
    for i, sentence in enumerate(sentences):
        text += (draw(st.sampled_from([" ", "  ", "   "])) if i else "") + sentence
    return text + draw(st.sampled_from(["", "", " "])), values, len(sentences)


@pytest.mark.parametrize("profile", PROFILES)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_the_profile_splits_the_shape_as_the_lexicon_says(profile, data):
    text, expected, sentences = data.draw(_paragraph(profile))
    found = get_profile(profile)
    assert [u[0] for u in found.split(text, Level.WORD)] == expected, text
    assert len(found.split(text, Level.SENTENCE)) == sentences, text
    assert accepts(_shape(profile), text), text


@lru_cache(maxsize=256)
def _word_count(profile: str, n: int) -> Grammar:
    return compile_constraint(Constraint(Count(TEXT, Level.WORD, Rel.EQ, n), Level.SENTENCE, profile), verify=False)


@st.composite
def _sentence(draw, profile: str) -> tuple[str, list[str]]:
    """A sentence of the shape as a whole text: its first word may be lowercase (no splitter decides anything
    before it), and it may start with one or two spaces and end with one."""
    lex = lexicon(profile)
    n = draw(st.integers(1, 4))
    chunks, values = [], []
    for i in range(n):
        text, found = draw(_chunk(lex, first=i == 0, last=i == n - 1, whole=True))
        chunks.append(text)
        values += found
    text = "".join(c + (draw(_space(lex)) if i < n - 1 else "") for i, c in enumerate(chunks))
    _paired(draw, lex, text)
    if draw(st.booleans()) and text[0].isupper() and values[0][0] == text[0] and text[1:2] != ".":
        text, values = text[0].lower() + text[1:], [values[0][0].lower() + values[0][1:], *values[1:]]
    return draw(st.sampled_from(["", " ", "  "])) + text + draw(st.sampled_from(["", " "])), values


@pytest.mark.parametrize("profile", PROFILES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_the_compiled_word_count_is_the_profiles(profile, data):
    """The walks count a sentence's words as the lexicon says (a token that makes no word is no word slot)."""
    text, expected = data.draw(_sentence(profile))
    n = len(get_profile(profile).split(text, Level.WORD))
    assert n == len(expected), text
    assert accepts(_word_count(profile, n), text), text
    assert not accepts(_word_count(profile, n + 1), text), text


@pytest.mark.parametrize("profile", PROFILES)
def test_every_fixed_token_is_one_word_of_its_value(profile):
    """A word test is asked of the checker on each fixed token's value: the profile must see it as that word."""
    found = get_profile(profile)
    for value in lexicon(profile).fixed_values:
        assert [u[0] for u in found.split(value, Level.WORD)] == [value]


@pytest.mark.parametrize(("profile", "text", "words"), [
    ("collie-v1", 'He said "I don\'t know," and left.', ["He", "said", "``", "I", "do", "n't", "know", "''", "and",
                                                         "left"]),
    ("collie-v1", "It’s a well-known (A/B) war—peace 3.5 story.", ["It", "’", "s", "a", "well-known", "A/B", "war",
                                                                   "—", "peace", "3.5", "story"]),
    ("collie-v1", "Richard D. James cannot stop,--he said  it twice. 1960s were good.",
     ["Richard", "D", "James", "can", "not", "stop", "--", "he", "said", "it", "twice", "1960s", "were", "good"]),
    ("collie-v1", "That--ah riveted the gaze; K. V. Ramalingam saw 802.11ac here for £4,000 or $50.",
     ["That", "--", "ah", "riveted", "the", "gaze", "K", "V", "Ramalingam", "saw", "802.11ac", "here", "for", "£4,000",
      "or", "50"]),
    ("default", 'He said "I don\'t know," and left.', ["He", "said", "I", "don't", "know", "and", "left"]),
    ("default", "It’s a well-known war—peace 1,000 story.", ["It’s", "a", "well-known", "war", "peace", "1,000",
                                                             "story"]),
])
def test_natural_sentences_are_in_the_shape(profile, text, words):
    assert accepts(_shape(profile), text)
    assert [u[0] for u in get_profile(profile).split(text, Level.WORD)] == words


@pytest.mark.parametrize(("profile", "text"), [
    ("collie-v1", "He met Mr. Smith."),       # a period after a word inside a sentence
    ("collie-v1", "He met “A. Smith."),       # an initial after an opener (Punkt breaks there)
    ("collie-v1", "He met A. smith."),        # an initial before a lowercase word
    ("collie-v1", "He met A. “Smith."),       # an initial before an opener
    ("collie-v1", "he left."),                # a lowercase start (but for the text's first word)
    ("collie-v1", "Wait... then go."),        # an ellipsis
    ("default", "He cost $5."),               # a sign stripped when strings are compared
    ("collie-v1", "The plan.2 went."),        # a period joins digits only
    ("collie-v1", "Its concern't grew."),     # n't follows an auxiliary only
    ("default", "Its concern't grew."),
    ("collie-v1", "Go & & & now."),           # a lone token stands before a chunk, once
    ("collie-v1", "He checked-it-out-and-in-up again."),  # at most three joins in a word
    ("default", "He saw thehumanspiritualitythatisasimilar now."),  # at most 24 letters in a run
    ("default", "He said war—peace—war now."),  # at most one dash between the words of a chunk
    ("default", "He said “““ no."),           # at most two free tokens in a row
    ("collie-v1", "He met O’Brien."),         # Treebank splits a curly apostrophe off: O ’ Brien
])
def test_forms_left_out_of_the_shape(profile, text):
    assert not accepts(_shape(profile, one_sentence=True), text)


@pytest.mark.parametrize("text", [
    "To Mr. Hector, therefore, is due the impulse which first made Johnson an author.",
    "Mr. Gladstone returned home in February, 1859.",
    "He joined Shearson, Hammill & Co. in 1950.",
    "The theatre began to show films during World War I.",
    " he said, indicating the other supper-takers. ",
    "They were once known as the 'Depressed Classes', as the report said.",
    "Pringle Bay () is a small coastal village.",
    "It reached about . ",
    "According to police , four men left.",
    "He said 'The End' was near, and left.'",
])
def test_a_text_that_is_one_sentence_holds_more(text):
    """A text that is one sentence may open in lowercase or with spaces, hold a period after a word (Punkt may
    break there; the words are the same) and end in any word: its words are the profile's, counted exactly."""
    n = len(get_profile("collie-v1").split(text, Level.WORD))
    assert accepts(_word_count("collie-v1", n), text)
    assert not accepts(_word_count("collie-v1", n + 1), text)


def test_a_text_that_counts_sentences_keeps_periods_at_sentence_ends():
    """Where sentences are counted, "Mr." would end one: the period after a word stays out."""
    grammar = compile_constraint(Constraint(Count(TEXT, Level.SENTENCE, Rel.EQ, 1), Level.SENTENCE, "collie-v1"),
                                 verify=False)
    assert accepts(grammar, "He met Smith today.")
    assert not accepts(grammar, "He met Mr. Smith today.")


@lru_cache(maxsize=64)
def _sentence_count(n: int) -> Grammar:
    return compile_constraint(Constraint(Count(TEXT, Level.SENTENCE, Rel.EQ, n), Level.PARAGRAPH, "collie-v1"),
                              verify=False)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_the_text_edges_keep_the_sentence_count(data):
    """The text's first word may be lowercase and its last sentence may end in ':' (no splitter decides anything
    before or after the text): the paragraph still has the sentences the grammar counted."""
    text, expected, sentences = data.draw(_paragraph("collie-v1", paired=True))
    stripped = text.strip(" ")
    if data.draw(st.booleans()) and stripped[:1].isupper() and stripped[1:2] not in (".", ""):
        at = text.index(stripped[0])
        text = text[:at] + text[at].lower() + text[at + 1:]
        expected = [expected[0][0].lower() + expected[0][1:], *expected[1:]] if expected else expected
    if data.draw(st.booleans()) and text.endswith(".") and not text.endswith(" ."):
        # (not before a final space: the sentence's lexeme, which may go on after a ':', takes the space greedily)
        text = text[:-1] + ":"
    found = get_profile("collie-v1")
    assert [u[0] for u in found.split(text, Level.WORD)] == expected, text
    assert len(found.split(text, Level.SENTENCE)) == sentences, text
    assert accepts(_sentence_count(sentences), text), text


def test_a_period_after_a_word_stays_inside_a_one_sentence_text():
    """``Mr.`` may stand inside a text that is one sentence, never before its final mark (``Jail..")``: the
    recall benchmark drew such a text from a sent02 grammar, and the checker counted its words otherwise)."""
    grammar = _word_count("collie-v1", 3)
    assert accepts(grammar, "Mr. Smith left.")
    assert not accepts(grammar, "Mr Smith left..")
    assert not accepts(grammar, 'Mr Smith left..")')


# Junk a small model wrote under an earlier shape (docs/results/collie-smollm2*/constrained), refused now, beside a
# human form of the same kind that stays in (benchmarks/collie_grammar_precision.py measures the rest).
@pytest.mark.parametrize(("junk", "human"), [
    ("It was 0)) and more.", "It was (see below) and more."),                 # two closing brackets
    ("Its capacity XPCC)).", "The rate reached (100%)."),                      # two brackets before the mark
    ("He was positive,.", "It collided with its vessel, ."),                  # a comma before the final mark
    ("He said the,, so.", "He said the, so."),                                # two commas
    ("It was students;; then.", "It was (see below); then."),                 # two semicolons
    ("It was (the);.", "It was (5%)."),                                        # a semicolon before the mark
    ("It was financial,).) now.", "It was (financial), now."),                # a comma before a bracket
])
def test_junk_closer_runs_are_refused_and_the_human_form_kept(junk, human):
    assert not accepts(_shape("collie-v1", one_sentence=True), junk)
    assert accepts(_shape("collie-v1", one_sentence=True), human)


@pytest.mark.parametrize(("junk", "human"), [
    # a sentence closes a bracket it did not open, after it opened one (a first closer may be Punkt's: below)
    ("1) with exactly (the) (the) 11th words; (the) (the) .)", "1) with exactly (the) 11th words; (any) word."),
    ("3) The party was a huge success, and new-fangled, .)", "3) The party was a huge success (and more)."),
    ("It was (see) more) then.", "It was (see more) then."),
    ("It was ((see)) then.", "It was (see) then."),                           # one deep
    ("It was (see [a) b] then.", "It was (see) [a] b then."),                 # crossed
])
def test_a_compiled_sentence_pairs_its_brackets(junk, human):
    assert not accepts(_word_count("collie-v1", len(get_profile("collie-v1").split(junk, Level.WORD))), junk)
    assert accepts(_word_count("collie-v1", len(get_profile("collie-v1").split(human, Level.WORD))), human)


@pytest.mark.parametrize("text", [
    # Punkt ends a sentence inside a bracket (COLLIE-v1's ccnews_c10_51, ccnews_c05_45): the second sentence closes
    # what the first opened
    "He's already taken officials to Oregon (Oct. 8), Tennessee and Georgia.",
    "It is set out in the criteria (pub. 27 Jun 2016) here and there.",
    # list labels, as COLLIE-v1's prompts enumerate and models continue them
    "1) I'm a loyal friend. 2) I'm a skilled warrior. 3) I'm here; 4) and there.",
])
def test_brackets_split_by_the_sentence_splitter_and_list_labels_stay_in(text):
    sentences = len(get_profile("collie-v1").split(text, Level.SENTENCE))
    assert accepts(_sentence_count(sentences), text), text


def test_a_grammar_too_complex_with_paired_brackets_is_compiled_without(monkeypatch):
    """Pairing costs the engine's lexer: where it runs out of fuel, the grammar is compiled without (sound
    either way) rather than refused."""
    from corral.grammars import NotExpressible
    from corral.grammars.constraint import _compile

    made = []
    real = _compile._compile

    def compile_(constraint, verify, limits, paired):
        made.append(paired)
        if paired:
            raise NotExpressible([("it", "too complex for the grammar engine (fuel exhausted)")])
        return real(constraint, verify, limits, paired)

    monkeypatch.setattr(_compile, "_compile", compile_)
    constraint = Constraint(Count(TEXT, Level.WORD, Rel.GE, 1), Level.SENTENCE, "collie-v1")
    unpaired = _compile.compile_constraint(constraint)
    assert made == [True, False]
    assert "brackets not paired" in unpaired.description
    assert accepts(unpaired, "It was (see) more) then.")
    assert not accepts(real(constraint, True, _compile.Limits(), True), "It was (see) more) then.")


@lru_cache(maxsize=1)
def _form_grammar() -> Grammar:
    return Grammar("lark", f"start: S\nS: {lexicon('collie-v1').sentence_form}\n", "collie-v1's sentence form")


@settings(max_examples=300, deadline=None)
@given(text=st.text("ab1 ()[].", min_size=1, max_size=14))
def test_the_sentence_form_means_to_the_engine_what_it_means_to_python(text):
    """The recall figures check COLLIE-v1's examples against the pairing rule with Python's ``re``
    (``docs/performance.md``); the engine must read the expression the same way."""
    form = lexicon("collie-v1").sentence_form
    assert form is not None
    assert accepts(_form_grammar(), text) == bool(re.fullmatch(form.strip("/"), text)), text


def test_a_paired_grammar_whose_lexer_costs_past_half_the_budget_is_compiled_without(monkeypatch):
    """llguidance does not refuse a grammar whose lexer outgrows its budget: its masks refuse texts the grammar
    holds. A paired grammar that costs more than half the budget is compiled again without the pairing."""
    from corral.grammars import _inspect
    from corral.grammars._grammar import LEXER_FUEL

    constraint = Constraint(Count(TEXT, Level.WORD, Rel.GE, 2), Level.SENTENCE, "collie-v1")
    paired = compile_constraint(constraint)
    assert "not paired" not in paired.description and not accepts(paired, "It was (see) more) then.")
    assert _inspect.lexer_cost(paired) <= LEXER_FUEL // 2
    monkeypatch.setattr(_inspect, "lexer_cost", lambda grammar: LEXER_FUEL // 2 + 1)
    unpaired = compile_constraint(constraint)
    assert "brackets not paired" in unpaired.description
    assert accepts(unpaired, "It was (see) more) then.")


def test_no_collie_v1_example_breaks_the_sentence_form():
    """Pairing brackets costs no recall: every sentence of the 2,080 human examples, as the profile splits them
    (which is what each sentence terminal must match), is of the form."""
    from corral.suites.collie import instances

    form = re.compile(lexicon("collie-v1").sentence_form.strip("/"))
    split = get_profile("collie-v1").split
    broken = [(inst.id, unit[0]) for inst in instances() for unit in split(inst.example, Level.SENTENCE)
              if not form.fullmatch(unit[0])]
    assert not broken, broken[:5]
