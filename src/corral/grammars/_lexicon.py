"""What each segmentation profile makes of every lexical form the compiled grammars may write.

The constraint compiler keeps text inside a *shape* in which it knows exactly which words and sentences the
profile sees. This module is that knowledge, as data: a sentence is *chunks* separated by single spaces, and a
chunk is

    openers · body · closers          (inside a sentence)
    openers · body · closers · end · after-end      (the sentence's last chunk)
    a stand-alone token               (a dash, an ampersand)

where the body is ``word (glue word)* clitic?``. Every piece but ``word`` is a fixed ``Token`` whose word value
under the profile is known (``None``: the profile makes no word of it). A ``word`` is a run of letters and digits
with single joiners between them (``well-known``, ``3.5``, ``1,000``, ``O'Brien``, ``U.S``); its value is its
text. So a chunk's words are its tokens in order, and the decomposition is unique: openers, closers, glue and
ends are non-alphanumeric, words begin and end alphanumeric, and a word never ends with a clitic.

Per profile (checked against the profile itself by ``tests/grammars/test_lexicon.py``, which draws texts from
this model and compares the profile's words and sentences with the model's):

* ``collie-v1`` (Treebank words, untrained Punkt): quotes are words (``"`` opens as ````` `` ````` and closes as
  ``''``; ``“ ” ‘ ’`` are themselves), so are the dashes ``— – --``; ``'s n't 'll ...`` are words of their own;
  ``( ) , ; : $ % & -`` are not words.
* ``default`` (its own word rules, syntok sentences): quotes and dashes are never words; a contraction is one
  word (``don't``, ``it’s``); ``A/B`` is two words. Brackets are left out (syntok ends a sentence before an
  unclosed one), and so are ``$5`` and ``50%`` (their signs are stripped when strings are compared, so the
  value would not be the text).

Forms left out of the shape (the recall benchmark counts what they cost): sentences that start with a
lowercase letter or a digit, ellipses, a period inside a sentence after a word (``Mr.``, ``U.S.``), words
ending in a period, single quotes used as quotation marks, words with letters outside Latin-1, line breaks
inside a paragraph, and more than one space.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ._regex import rx

# Letters and digits a word is made of: ASCII and Latin-1 letters (not ß, whose case folding changes its
# length), digits.
ALNUM = "A-Za-z0-9À-ÖØ-Þà-öø-ÿ"
_A = f"[{ALNUM}]"
UPPER = "A-ZÀ-ÖØ-Þ"


@dataclass(frozen=True)
class Token:
    """A fixed piece of text and the word the profile makes of it (None: no word)."""

    text: str
    value: str | None = None


@dataclass(frozen=True)
class Lexicon:
    """One profile's lexical forms (see the module docstring).

    Attributes:
        profile: the segmentation profile it describes.
        word: a terminal expression (llguidance's Lark dialect) of a word token, whose value is its text.
        openers, closers: tokens before and after a chunk's body, inside a sentence.
        glue: tokens between two words of one body (``—`` in ``war—peace``).
        clitics: tokens after a body's last word (``'s``, ``n't``).
        alone: tokens that are a chunk on their own.
        ends: the sentence-final marks; after_end: tokens after them (a closing quote).
        max_openers ... max_after: at most this many *word-making* tokens of each kind per chunk (tokens that
            make no word repeat freely), so a chunk holds a bounded number of words.
    """

    profile: str
    word: str
    openers: tuple[Token, ...]
    closers: tuple[Token, ...]
    glue: tuple[Token, ...]
    clitics: tuple[Token, ...]
    alone: tuple[Token, ...]
    ends: tuple[Token, ...] = (Token("."), Token("!"), Token("?"))
    after_end: tuple[Token, ...] = ()
    max_openers: int = 1
    max_glue: int = 2
    max_closers: int = 2
    max_after: int = 1

    @property
    def fixed_values(self) -> frozenset[str]:
        """Every word value a fixed token can have (what a word test must be evaluated on)."""
        kinds = (self.openers, self.closers, self.glue, self.clitics, self.alone, self.ends, self.after_end)
        return frozenset(t.value for kind in kinds for t in kind if t.value is not None)


def _segment(joiners: str) -> str:
    """Alphanumeric runs joined by single ``joiners``, or by a comma or colon between digits."""
    runs = rx(f"{_A}+(([{joiners}]{_A}+)|([,:][0-9]+))*")
    return f"({runs} & ~({rx('.*[^0-9][,:].*')}))"


# Treebank splits these words in two (can|not, gon|na ...); a word must not hold them as a part.
_SPLIT_WORDS = "cannot|gimme|gonna|gotta|lemme|wanna|more'n|d'ye|'tis|'twas"
_CLITICS = ("'s", "'S", "'m", "'M", "'d", "'D", "'ll", "'LL", "'re", "'RE", "'ve", "'VE", "n't", "N'T")

_NOT_ALNUM = f"[^{ALNUM}]"
_COLLIE_WORD = " & ".join([
    _segment("'/.-"),
    # no clitic at the end (it is a word of its own)
    "~(" + rx(".*('[sSmMdD]|'ll|'LL|'re|'RE|'ve|'VE|[nN]'[tT])") + ")",
    # no apostrophe before a single letter (Treebank splits "'x" off)
    "~(" + rx(f"(.*{_NOT_ALNUM})?'{_A}({_NOT_ALNUM}.*)?") + ")",
    # no part that Treebank splits in two
    "~(" + rx(f"(.*{_NOT_ALNUM})?(?i:{_SPLIT_WORDS})({_NOT_ALNUM}.*)?") + ")",
])

COLLIE_V1 = Lexicon(
    profile="collie-v1",
    word=_COLLIE_WORD,
    # no "$": Treebank reads a '"' after it as a closing quote
    openers=(Token('"', "``"), Token("“", "“"), Token("‘", "‘"), Token("("), Token("[")),
    closers=(Token(","), Token(";"), Token(":"), Token(")"), Token("]"), Token("%"), Token('"', "''"),
             Token("”", "”"), Token("’", "’")),
    glue=(Token("—", "—"), Token("–", "–"), Token("--", "--"), Token("’", "’")),
    clitics=tuple(Token(c, c) for c in _CLITICS),
    alone=(Token("—", "—"), Token("–", "–"), Token("--", "--"), Token("-"), Token("&")),
    after_end=(Token('"', "''"), Token("”", "”"), Token("’", "’"), Token(")")),
)

# ``$5`` and ``50%`` are default-profile words, but their signs are stripped when strings are compared, so a
# word's value would not be its text: they are left out of the shape.
_DEFAULT_WORD = _segment("'’.-")

# No brackets: syntok ends a sentence before an opening bracket that is not closed ("Aa (bb." is two), and
# pairing brackets is beyond a chunk.
DEFAULT = Lexicon(
    profile="default",
    word=_DEFAULT_WORD,
    openers=(Token('"'), Token("“"), Token("‘")),
    # no ";": syntok ends a sentence at one followed by a quote (';" — next')
    closers=(Token(","), Token(":"), Token('"'), Token("”"), Token("’")),
    glue=(Token("—"), Token("–"), Token("--"), Token("/")),
    clitics=(),
    alone=(Token("—"), Token("–"), Token("--"), Token("-"), Token("&")),
    after_end=(Token('"'), Token("”"), Token("’")),
)

LEXICONS = {lex.profile: lex for lex in (COLLIE_V1, DEFAULT)}

_PLAIN_WORD = rx("[A-Za-z][a-z]*")


@lru_cache(maxsize=8)
def lexicon(profile: str) -> Lexicon:
    """The lexicon of ``profile``; a profile Corral has no lexical model of gets the narrow *plain* one
    (ASCII words, lowercase after an optional capital, commas, a final period), which any splitter that
    breaks sentences at periods and words at spaces and commas agrees with."""
    found = LEXICONS.get(profile)
    if found is not None:
        return found
    return Lexicon(profile=profile, word=_PLAIN_WORD, openers=(), closers=(Token(","),), glue=(), clitics=(),
                   alone=(), ends=(Token("."),), after_end=())
