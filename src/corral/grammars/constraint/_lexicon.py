"""What each segmentation profile makes of every lexical form the compiled grammars may write.

The constraint compiler keeps text inside a *shape* in which it knows exactly which words and sentences the
profile sees. This module is that knowledge, as data: a sentence is *chunks* separated by single spaces, and a
chunk is

    openers · body · closers          (inside a sentence)
    openers · body · closers · end · after-end      (the sentence's last chunk)
    a stand-alone token               (a dash, an ampersand)

where the body is ``word (glue word)* suffix?`` (a suffix: ``'s``, ``n't``, ``’ s``). Every piece but
``word`` is a fixed ``Token`` whose word value under the profile is known (``None``: the profile makes no word of
it). A ``word`` is a run of letters and digits with single joiners between them (``well-known``, ``A/B``,
``1,000``, ``10:30``, ``3.5``); its value is its text. So a chunk's words are its tokens in order, and the
decomposition is unique: openers, closers, glue and ends are non-alphanumeric, words begin and end
alphanumeric, and a word holds no apostrophe (for ``default``, whose words keep their contractions, only the
contraction forms themselves).

Per profile (checked against the profile itself by ``tests/grammars/test_lexicon.py``, which draws texts from
this model and compares the profile's words and sentences with the model's):

* ``collie-v1`` (Treebank words, untrained Punkt): quotes are words (``"`` opens as ````` `` ````` and closes as
  ``''``; ``“ ” ‘ ’`` are themselves), so are the dashes ``— – --``; ``'s n't 'll ...`` are words of their own;
  ``( ) , ; : $ % & -`` are not words. ``cannot`` is ``can`` + ``not``; an initial with its period stands inside a
  sentence before a capitalised word (``Richard D. James``: untrained Punkt does not break there); a dash may
  follow a comma, semicolon or colon (``compact,--in``); one or two spaces separate words; a sentence may start
  with a digit (Punkt breaks after a period whatever follows). A single quotation mark may open a chunk's first
  word and close any word (``'The End',``: Treebank splits both off, and neither is a word), and may follow the
  final mark; emptied brackets ``()`` and ``/`` stand alone, and a comma or the final period may follow a space
  (Wikipedia texts stripped of a number or a name: ``about .``, ``police , four``); ``&`` and a no-break space
  join two words and make none (``Q&A``, ``30\xa0mm``); the last chunk's words may hold a period (``3.5.``), and
  the last word is anything but a lone letter (an initial, after which Punkt does not break). At the text's edges
  (``whole_text``, ``text_ends``): the text's last sentence may end in ``:`` or a lone letter, and a text that
  is one sentence may hold ``Mr.`` inside.
* ``default`` (its own word rules, syntok sentences): quotes and dashes are never words; a contraction is one
  word (``don't``, ``it’s``); ``A/B`` is two words. Brackets are left out (syntok ends a sentence before an
  unclosed one), and so are ``$5`` and ``50%`` (their signs are stripped when strings are compared, so the
  value would not be the text).

Forms left out of the shape (the recall benchmark counts what they cost): sentences that start with a
lowercase letter (or, in ``default``, a digit) but the text's first, ellipses, a period inside a sentence after a
word (``Mr.``, ``U.S.``; only ``collie-v1``'s initials are in, and ``Mr.`` in a text that is one sentence), words
ending in a period, single quotes used as quotation
marks in ``default``, words with letters outside Latin-1, line breaks inside a paragraph, and more spaces than
one (two in ``collie-v1``) between words. The text's first word may be lowercase (no splitter decides anything
before it), and the text's edges may hold a space or two (``_compile``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from .._regex import rx

# Letters and digits a word is made of: ASCII and Latin-1 letters (not ß, whose case folding changes its
# length), digits.
ALNUM = "A-Za-z0-9À-ÖØ-Þà-öø-ÿ"
_A = f"[{ALNUM}]"
UPPER = "A-ZÀ-ÖØ-Þ"
MAX_JOINS = 3
# The longest run of letters or digits in one word (English words rarely pass 20): without a bound, a model that
# has used up a sentence's words under a mask runs one word on forever ("thehumanspiritualitythatis...").
MAX_RUN = 24


@dataclass(frozen=True)
class Token:
    """A fixed piece of text and the word the profile makes of it (None: no word)."""

    text: str
    value: str | None = None


@dataclass(frozen=True)
class Suffix:
    """Tokens after a body's last word, one from each group in turn; ``stem``: a terminal expression the word
    must also match (None: any word)."""

    parts: tuple[tuple[Token, ...], ...]
    stem: str | None = None

    def __post_init__(self) -> None:
        for group in self.parts:  # a group's tokens all make a word, or none does
            if len({t.value is None for t in group}) > 1:
                raise ValueError(f"suffix group {group} mixes tokens that make words with tokens that do not")


@dataclass(frozen=True)
class Lexicon:
    """One profile's lexical forms (see the module docstring).

    Attributes:
        profile: the segmentation profile it describes.
        word: a terminal expression (llguidance's Lark dialect) of a word token, whose value is its text.
        openers, closers: tokens before and after a chunk's body, inside a sentence.
        glue: tokens between two words of one body (``—`` in ``war—peace``).
        suffixes: what may follow a body's last word, each with the words it may follow (``n't`` only after
            ``do``, ``is``, ``could`` ...): the contractions the profile splits off.
        alone: tokens that stand on their own before a chunk (``— and``): written as a prefix of the next
            chunk, so they never repeat.
        ends: the sentence-final marks; after_end: tokens after them (a closing quote).
        last_word: what the word before the final mark must also match (a splitter will not end a sentence
            after every word: syntok reads ``ThE.`` or ``jlkY.`` as an abbreviation).
        max_openers ... max_after: at most this many *word-making* tokens of each kind per chunk (tokens that
            make no word repeat freely), so a chunk holds a bounded number of words.
        space: what separates two chunks of a sentence (a terminal expression of spaces only).
        first_word: what a sentence's first word must also match (a capital: a splitter reads a lowercase word
            after a period as the same sentence).
        initial: the one-letter words that may stand with a period inside a sentence before a capitalised word
            (``Richard D. James``); None: no initials.
        signs: tokens that make no word and stand right before a number (``$5``).
        quote: a single quotation mark that may open a chunk's first word (after its openers) and makes no
            word (Treebank splits it off: ``'The`` is ``'`` + ``The``), unless the word's first run is a clitic
            (``'s``), which is left out; None: no such mark. Not among the openers: two in a row (``''``) are a
            word of their own.
        dotted_last: the last chunk's words may hold a period (``3.5.``, ``0.14%).``): the splitter ends the
            sentence there all the same (Punkt does; syntok does not end ``Aa.a—bb.``).
        text_ends: marks that may end the text's last sentence besides ``ends`` (``whispering:``), where
            ``whole_text`` holds: no splitter decides anything after the text.
        whole_text: in a text that is one sentence and whose constraint counts no sentences, a word may end in a
            period inside it (``To Mr. Hector``) and its last word may be any word: the profile's words are the
            same wherever its sentence splitter breaks (Treebank drops the period either way: ``Mr``).
        closer_run: what a run of closers that make no word may be (a terminal expression), between the
            word-making ones (None: any two in a row). Bounded to the runs English writes (``),``, ``%)``): a model
            under a mask otherwise walks into ``0))``, ``the,,`` or ``),)`` to keep a count open.
        final_closer_run: the same before a sentence's final mark (None: as ``closer_run``): no comma, semicolon
            or colon there (``positive,.``, ``the;.``).
        sentence_form: what every whole sentence must also be (a terminal expression over its text; None:
            nothing more). COLLIE-v1 pairs its brackets inside a sentence, which no chunk can do alone.
    """

    profile: str
    word: str
    openers: tuple[Token, ...]
    closers: tuple[Token, ...]
    glue: tuple[Token, ...]
    suffixes: tuple[Suffix, ...]
    alone: tuple[Token, ...]
    ends: tuple[Token, ...] = (Token("."), Token("!"), Token("?"))
    after_end: tuple[Token, ...] = ()
    last_word: str = rx(f".*{_A}{_A}")
    max_openers: int = 1
    max_glue: int = 1
    max_closers: int = 2
    max_after: int = 1
    space: str = '" "'
    first_word: str = rx(f"[{UPPER}].*")
    initial: str | None = None
    signs: tuple[Token, ...] = ()
    quote: str | None = None
    dotted_last: bool = False
    text_ends: tuple[Token, ...] = ()
    whole_text: bool = False
    closer_run: str | None = None
    final_closer_run: str | None = None
    sentence_form: str | None = None

    @property
    def fixed_values(self) -> frozenset[str]:
        """Every word value a fixed token can have (what a word test must be evaluated on)."""
        kinds = [self.openers, self.closers, self.glue, self.alone, self.ends, self.after_end]
        kinds += [group for suffix in self.suffixes for group in suffix.parts]
        return frozenset(t.value for kind in kinds for t in kind if t.value is not None)


def _name_run(apostrophes: str) -> str:
    """A run with an apostrophe after one or two letters (``O'Brien``, ``o'clock``, ``d'Arc``): both profiles
    keep it one word. Not before a contraction's ending (``I'll``, ``we're``), which Treebank splits off."""
    ending = _ascii_either_case("ll|re|ve")
    return f"({rx(f'[A-Za-z]{{1,2}}[{apostrophes}]')} ({rx(f'{_A}{{2,{MAX_RUN}}}')} & ~({ending})))"


def _segment(joiners: str, apostrophes: str = "") -> str:
    """Alphanumeric runs joined by single ``joiners``, or by a comma, colon or period between digits (``1,000``,
    ``10:30``, ``3.5``, ``802.11ac``; a period after a letter is left out: a model would use it to run a sentence
    on).

    At most ``MAX_JOINS`` joins (``mother-in-law``): unbounded, a small model under a mask loops
    inside one word (``checked-checked-checked-...``) until its token budget runs out."""
    run = rx(f"{_A}{{1,{MAX_RUN}}}")
    first = f"({run}|{_name_run(apostrophes)})" if apostrophes else run
    digits = f"[,:.][0-9]{{1,{MAX_RUN}}}[A-Za-z]{{0,{MAX_RUN}}}"  # 3.5, 1,000th, 802.11ac
    runs = f"({first} {rx(f'(([{joiners}]{_A}{{1,{MAX_RUN}}})|({digits})){{0,{MAX_JOINS}}}')})"
    return f"({runs} & ~({rx('.*[^0-9][,:.].*')}))"


def _ascii_either_case(words: str) -> str:
    """``words`` in either case, ASCII only: a case-insensitive regex would also match ``ſ`` (long s) for
    ``s`` and ``K`` (Kelvin) for ``k``, letters the profiles see differently."""
    return rx("|".join("".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in word)
                       for word in words.split("|")))


# Treebank splits these words in two (can|not, gon|na ...); a word must not hold them as a part.
_SPLIT_WORDS = "cannot|gimme|gonna|gotta|lemme|wanna|more'n|d'ye|'tis|'twas"
_SPLIT_WORDS_EITHER_CASE = "|".join("".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in w)
                                    for w in _SPLIT_WORDS.split("|"))
# The words "n't" follows, as Treebank leaves them (can't: ca + n't, won't: wo + n't).
_AUXILIARIES = "do|does|did|is|are|was|were|has|have|had|could|would|should|must|need|might|ca|wo|ai|sha"
_APOSTROPHE_ENDINGS = ("'s", "'S", "'m", "'M", "'d", "'D", "'ll", "'LL", "'re", "'RE", "'ve", "'VE")
_CURLY_ENDINGS = ("s", "m", "d", "ll", "re", "ve")

_NOT_ALNUM = f"[^{ALNUM}]"
_COLLIE_WORD = "(" + " & ".join([
    # a currency sign Treebank keeps on its number (£80,000, €5.5; "$" it splits off: ``signs``)
    f"(({_segment('/-', chr(39))}) | ({rx('[£€¥]')} (({_segment('/-')}) & {rx('[0-9].*')})))",
    # no part that Treebank splits in two
    "~(" + rx(f"(.*{_NOT_ALNUM})?({_SPLIT_WORDS_EITHER_CASE})({_NOT_ALNUM}.*)?") + ")",
]) + ")"

# Brackets paired inside a sentence, one deep ("(see [1])" is out), but for a first closer and a last opener: Punkt
# ends a sentence inside brackets ("Oregon (Oct." | "8), Tennessee"; "(D-N.Y." | "), Kirsten"), and a list label
# ("1) In April", "; 2) with") closes nothing. No COLLIE-v1 example has another form in a sentence; a model under
# a mask writes "0))", "(the)  (the) .)" or "new-fangled, .)" to keep a count open.
_NO_BRACKET = r"[^()\[\]]"
SENTENCE_BRACKETS = (rf"({_NO_BRACKET}*[)\]])?"
                     rf"({_NO_BRACKET}|\({_NO_BRACKET}*\)|\[{_NO_BRACKET}*\]| ([0-9]{{1,2}}|[A-Za-z])\))*"
                     rf"([(\[]{_NO_BRACKET}*)?")

COLLIE_V1 = Lexicon(
    profile="collie-v1",
    word=_COLLIE_WORD,
    # no "$": Treebank reads a '"' after it as a closing quote
    openers=(Token('"', "``"), Token("“", "“"), Token("‘", "‘"), Token("("), Token("[")),
    # " ,": a comma after a space (where an editor removed what stood between: "According to police , four");
    # ",'": a single quotation mark closing after a comma ('No,' he said); never "'" alone: two in a row are a word
    closers=(Token(","), Token(";"), Token(":"), Token(")"), Token("]"), Token("%"), Token('"', "''"),
             Token("”", "”"), Token("’", "’"), Token(" ,"), Token(",'"), Token(";'")),
    # a dash between two words, maybe after a comma, semicolon or colon (``compact,--in``: Treebank pads both)
    # "&" (Q&A) and a no-break space (30\xa0mm) join two words and make none (Treebank pads "&" and splits at
    # any space); a no-break space only inside a body, never before a quote (Treebank reads '"' after it as closing)
    glue=(*(Token(p + d, d) for d in ("—", "–", "--") for p in ("", ",", ";", ":")), Token("&"), Token("\xa0")),
    suffixes=(
        Suffix((tuple(Token(c, c) for c in _APOSTROPHE_ENDINGS),)),
        # Treebank splits "cannot" in two: can + not
        Suffix(((Token("not", "not"), Token("NOT", "NOT")),), stem=_ascii_either_case("can")),
        Suffix(((Token("n't", "n't"), Token("N'T", "N'T")),), stem=_ascii_either_case(_AUXILIARIES)),
        # an apostrophe closing a word: Treebank splits it off and it makes no word (the Owens' house, 'The End',)
        Suffix(((Token("'"),),)),
        # the curly apostrophe is a word of its own, and so is what follows it: it ’ s, couldn ’ t
        Suffix(((Token("’", "’"),), tuple(Token(c, c) for c in _CURLY_ENDINGS))),
        Suffix(((Token("’", "’"),), (Token("t", "t"),)), stem=_ascii_either_case(
            "|".join(f"{w}n" for w in _AUXILIARIES.split("|") if w not in ("ca", "wo", "ai", "sha")) + "|can|won")),
    ),
    # "()": emptied brackets, as in Wikipedia texts stripped of their foreign names ("Pringle Bay () is")
    alone=(Token("—", "—"), Token("–", "–"), Token("--", "--"), Token("-"), Token("&"), Token("()"), Token("/")),
    # " .": a final period after a space (a number removed before it: "reached about ."); ", .": the same after a
    # comma (a name removed: "collided with its refueling vessel, ."), which no closer run before a mark holds
    ends=(Token("."), Token("!"), Token("?"), Token(" ."), Token(", .")),
    after_end=(Token('"', "''"), Token("”", "”"), Token("’", "’"), Token(")"), Token("'")),
    # one or two spaces between words (Treebank and Punkt read both alike; not a no-break space: Treebank reads a
    # '"' after one as a closing quote)
    space=rx("  ?"),
    # Punkt breaks a sentence after a period whatever follows, a digit included, unless the word before it is an
    # initial followed by a capital
    first_word=rx(f"[{UPPER}0-9].*"),
    initial=rx(f"[{UPPER}]"),
    # Treebank pads "$" off; before a digit nothing can follow it that it would read as a closing quote
    signs=(Token("$"),),
    # single-quoted titles and speech: 'The End', is the words The and End
    quote="'",
    # Punkt breaks after any final mark but one after a lone letter (an initial: "World War I. The" is one
    # sentence), whatever the word holds ("12-5.", "3.5.", "$147.02.")
    last_word=rx(".{2,}|[0-9]"),
    dotted_last=True,
    text_ends=(Token(":"),),
    whole_text=True,
    # a percent sign, one closing bracket, one comma-like mark, in that order ("5%),", "(see below);"): never two
    # brackets ("0))") nor two commas ("the,,"), and no comma-like mark before the final one ("positive,.")
    closer_run=rx("%?[)\\]]?(,|;|:| ,|,'|;')?"),
    final_closer_run=rx("%?[)\\]]?"),
    sentence_form=rx(SENTENCE_BRACKETS),
)

# A default-profile word keeps its contraction: don't, it’s, we'll (and n't only after an auxiliary).
_DEFAULT_WORD = (
    f"((({_segment('-', chr(39) + '’')}) ({rx(chr(39) + '|’')} ({_ascii_either_case('s|m|d|ll|re|ve')}))?)"
    f" | (({_ascii_either_case(_AUXILIARIES)}) "
    f"({_ascii_either_case('n')}) ({rx(chr(39) + '|’')}) ({_ascii_either_case('t')})))"
)

# ``$5`` and ``50%`` are default-profile words, but their signs are stripped when strings are compared, so a
# word's value would not be its text: they are left out of the shape.
# No brackets: syntok ends a sentence before an opening bracket that is not closed ("Aa (bb." is two), and
# pairing brackets is beyond a chunk.
DEFAULT = Lexicon(
    profile="default",
    word=_DEFAULT_WORD,
    openers=(Token('"'), Token("“"), Token("‘"), Token("'")),
    # no ";": syntok ends a sentence at one followed by a quote (';" — next')
    closers=(Token(","), Token(":"), Token('"'), Token("”"), Token("’"), Token("'")),
    glue=(Token("—"), Token("–"), Token("--"), Token("/")),
    suffixes=(),
    alone=(Token("—"), Token("–"), Token("--"), Token("-"), Token("&")),
    after_end=(Token('"'), Token("”"), Token("’"), Token("'")),
    # capitals only at the start, two lowercase letters at the end: syntok ends a sentence there
    last_word=rx("[A-ZÀ-ÖØ-Þ]?[a-zà-öø-ÿ]*[a-zà-öø-ÿ][a-zà-öø-ÿ]"),
)

LEXICONS = {lex.profile: lex for lex in (COLLIE_V1, DEFAULT)}

_PLAIN_WORD = rx(f"[A-Za-z]([a-z]{{0,{MAX_RUN}}})")


@lru_cache(maxsize=16)
def lexicon(profile: str, bounded_runs: bool = True) -> Lexicon:
    """The lexicon of ``profile``; ``bounded_runs=False`` lifts ``MAX_RUN`` (for constraints that count
    characters, which bound every word anyway: the engine's lexer runs out of fuel intersecting a character count
    with a bounded repetition)."""
    found = _lexicon(profile)
    if bounded_runs:
        return found
    bound = re.compile(r"\{(\d+)," + str(MAX_RUN) + r"\}")
    return replace(found, word=bound.sub(r"{\1,}", found.word), last_word=bound.sub(r"{\1,}", found.last_word))


def _lexicon(profile: str) -> Lexicon:
    """The lexicon of ``profile``; a profile Corral has no lexical model of gets the narrow *plain* one
    (ASCII words, lowercase after an optional capital, commas, a final period), which any splitter that
    breaks sentences at periods and words at spaces and commas agrees with."""
    found = LEXICONS.get(profile)
    if found is not None:
        return found
    return Lexicon(profile=profile, word=_PLAIN_WORD, openers=(), closers=(Token(","),), glue=(), suffixes=(),
                   alone=(), ends=(Token("."),), after_end=())
