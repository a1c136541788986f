"""Sentences of the lexical shape (``_lexicon``) as terminal expressions: word counts, positions and tests.

Every expression here is exact *inside the shape*: a sentence of the shape is matched exactly when the profile's
words of it satisfy the request. That holds because a sentence of the shape splits into chunks at its spaces, and
a chunk into its tokens, in exactly one way; so counting the tokens that pass a test along that one split counts
the profile's words that pass it.

Counts are built as a chain of named terminals (``Terminals``): "a prefix of chunks holding exactly n passing
words" refers to the prefixes holding n-1, n-2, ... words, so the expressions stay linear in n where written out
they would grow exponentially; llguidance shares a named terminal wherever it is used.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations

from .. import _regex as R
from ._lexicon import ALNUM, UPPER, Lexicon, Token, _ascii_either_case


@dataclass(frozen=True)
class WordTest:
    """Which words pass: ``regex`` over the text of a word token (whose value is its text), and ``values``,
    the values of fixed tokens (quotes, dashes, clitics) that pass."""

    regex: str
    values: frozenset[str]
    equals: str | None = None  # set for "the word is X" (X normalised): two such tests exclude each other


class Terminals:
    """Named terminal definitions shared by the expressions of one grammar."""

    def __init__(self) -> None:
        self.bodies: dict[str, str] = {}
        self._names: dict[str, str] = {}

    def name(self, body: str) -> str:
        """A name for ``body`` (short bodies and the empty language stay inline)."""
        if body == R.NOTHING or len(body) < 24:
            return body
        found = self._names.get(body)
        if found is None:
            found = self._names[body] = f"LX{len(self._names)}"
            self.bodies[found] = body
        return found

    def lark(self) -> str:
        return "".join(f"{name}: {body}\n" for name, body in self.bodies.items())


# ------------------------------------------------------------------------------------------- templates
@dataclass(frozen=True)
class _Word:
    """A word token; ``variant``: "" any, "first" (a sentence's first word), "last" (its last word), "nodot";
    ``stem``: an expression it must also match (the words a suffix may follow); ``quoted``: written right after the
    lexicon's single quotation mark, which makes no word."""

    variant: str = ""
    stem: str | None = None
    quoted: bool = False


@dataclass(frozen=True)
class _Tokens:
    """One of these word-making fixed tokens."""

    tokens: tuple[Token, ...]


@dataclass(frozen=True)
class _Text:
    """Text that makes no word (a run of non-word tokens, a glue token, a final mark)."""

    regex: str


_Item = _Word | _Tokens | _Text
_Template = tuple[_Item, ...]


def _cat(*parts: str) -> str:
    """``R.seq`` that writes the empty string as ``""``."""
    return R.seq(*parts) if any(parts) else '""'


def _lits(tokens: tuple[Token, ...]) -> str:
    return R.alt(*(R.lit(t.text) for t in tokens)) if tokens else R.NOTHING


def _words_of(tokens: tuple[Token, ...]) -> tuple[Token, ...]:
    return tuple(t for t in tokens if t.value is not None)


def _not_words(tokens: tuple[Token, ...]) -> tuple[Token, ...]:
    return tuple(t for t in tokens if t.value is None)


def _bracketed(tokens: tuple[Token, ...], most: int, free: int = 2, run: str | None = None) -> list[_Template]:
    """Runs of non-word tokens (at most ``free`` in a row, or what ``run`` allows: a terminal expression) with
    0..``most`` word-making tokens. Bounded: a model under a mask otherwise repeats a free token until its budget
    runs out (``The “““““...``)."""
    others = _not_words(tokens)
    zero = _Text(run if run is not None else R.rep(_lits(others), 0, free) if others else "")
    weighted = _words_of(tokens)
    out: list[_Template] = [(zero,)]
    if weighted:
        for k in range(1, most + 1):
            out.append((zero, *((_Tokens(weighted), zero) * k)))
    return out


class _Part:
    """A piece of a chunk (openers, body, closers): templates and the expressions counting their words."""

    def __init__(self, words: Words, templates: list[_Template]) -> None:
        self.words = words
        self.templates = templates
        self.most = max(sum(not isinstance(i, _Text) for i in t) for t in templates)
        self._memo: dict[tuple, str] = {}

    def _slots(self, template: _Template) -> list[int]:
        return [i for i, item in enumerate(template) if not isinstance(item, _Text)]

    def _item(self, item: _Item, test: WordTest | None, passing: bool = True) -> str:
        """The item's text; with ``test``, only where its word passes (or, not ``passing``, fails) the test."""
        if isinstance(item, _Text):
            return item.regex
        if isinstance(item, _Word):
            word = self.words.word(item.variant, item.stem)
            found = word if test is None else R.both(word, test.regex if passing else R.neg(test.regex))
            return self.words.quoted(found) if item.quoted else found
        if test is None:
            return _lits(item.tokens)
        return _lits(tuple(t for t in item.tokens if (t.value in test.values) == passing))

    def count(self, test: WordTest | None, m: int) -> str:
        """Texts of the part with exactly ``m`` words passing ``test`` (None: ``m`` words)."""
        key = ("count", test, m)
        if key not in self._memo:
            alternatives = []
            for template in self.templates:
                slots = self._slots(template)
                if m > len(slots) or (test is None and m != len(slots)):
                    continue
                for chosen in combinations(slots, m) if test is not None else [tuple(slots)]:
                    parts = [self._item(item, test, i in chosen) if i in slots else self._item(item, None)
                             for i, item in enumerate(template)]
                    alternatives.append(_cat(*parts))
            self._memo[key] = self.words.terminals.name(R.alt(*alternatives))
        return self._memo[key]

    @cached_property
    def any(self) -> str:
        return self.words.terminals.name(R.alt(*(_cat(*(self._item(i, None) for i in t)) for t in self.templates)))

    def at(self, i: int, test: WordTest, from_end: bool = False) -> str:
        """Texts of the part whose ``i``-th word (1-based; from the end with ``from_end``) passes ``test``."""
        key = ("at", i, test, from_end)
        if key not in self._memo:
            alternatives = []
            for template in self.templates:
                slots = self._slots(template)
                if i > len(slots):
                    continue
                target = slots[-i] if from_end else slots[i - 1]
                alternatives.append(_cat(*(self._item(item, test) if k == target else self._item(item, None)
                                           for k, item in enumerate(template))))
            self._memo[key] = self.words.terminals.name(R.alt(*alternatives))
        return self._memo[key]


class _Chunk:
    """A kind of chunk: alternative sequences of parts (openers · body · closers, or a lone token)."""

    def __init__(self, words: Words, shapes: list[list[_Part]]) -> None:
        self.words = words
        self.shapes = shapes
        self.most = max(sum(p.most for p in shape) for shape in shapes)
        self._memo: dict[tuple, str] = {}

    def count(self, test: WordTest | None, m: int) -> str:
        key = ("count", test, m)
        if key not in self._memo:
            self._memo[key] = self.words.terminals.name(R.alt(*(self._count(shape, test, m) for shape in self.shapes)))
        return self._memo[key]

    def _count(self, parts: list[_Part], test: WordTest | None, m: int) -> str:
        if not parts:
            return '""' if m == 0 else R.NOTHING
        head, rest = parts[0], parts[1:]
        return R.alt(*(R.seq(head.count(test, k), self._count(rest, test, m - k))
                       for k in range(0, min(head.most, m) + 1)))

    @cached_property
    def any(self) -> str:
        return self.words.terminals.name(R.alt(*(R.seq(*(p.any for p in shape)) for shape in self.shapes)))

    def at(self, i: int, test: WordTest, from_end: bool = False) -> str:
        key = ("at", i, test, from_end)
        if key not in self._memo:
            found = [self._at(shape[::-1] if from_end else shape, i, test, from_end) for shape in self.shapes]
            self._memo[key] = self.words.terminals.name(R.alt(*found))
        return self._memo[key]

    def _at(self, parts: list[_Part], i: int, test: WordTest, from_end: bool) -> str:
        """``parts`` in reading order (reversed when counting from the end): the i-th word passes."""
        if not parts or i < 1:
            return R.NOTHING
        head, rest = parts[0], parts[1:]
        here = [head.at(i, test, from_end), *(p.any for p in rest)]
        alternatives = [R.seq(*(here[::-1] if from_end else here))]
        for k in range(0, min(head.most, i - 1) + 1):
            pair = [head.count(None, k), self._at(rest, i - k, test, from_end)]
            alternatives.append(R.seq(*(pair[::-1] if from_end else pair)))
        return R.alt(*alternatives)


# ------------------------------------------------------------------------------------------- sentences
class Words:
    """The sentence expressions of one lexicon (``plain``: no openers before the first word and a bare final
    period, for parts that read the sentence's edges, such as ``startswith``; ``opening``: the text's first
    sentence, whose first word need not be capitalised: no splitter decides a boundary before it; ``closing``: the
    text's last sentence, which may end in one of the lexicon's ``text_ends`` and whose last word may be any word,
    where the lexicon allows (``Lexicon.whole_text``): no splitter decides a boundary after it; ``whole``: the
    sentence is the whole text and the constraint counts no sentences, so where the lexicon allows
    (``Lexicon.whole_text``) a word may end in a period inside it and its last word may be any word)."""

    def __init__(self, lex: Lexicon, no_final: tuple[str, ...], terminals: Terminals, max_chunks: int,
                 plain: bool = False, opening: bool = False, closing: bool = False, whole: bool = False) -> None:
        self.lex = lex
        self.opening = opening
        self.closing = (closing or whole) and lex.whole_text
        self.whole = whole and lex.whole_text
        self.no_final = no_final
        self.terminals = terminals
        self.max_chunks = max_chunks
        self.plain = plain
        self.space = lex.space
        self.all_values = lex.fixed_values
        self._memo: dict[tuple, str] = {}
        openers: list[_Template] = [(_Text(""),)] if plain else _bracketed(lex.openers, lex.max_openers, free=1)
        closers = _bracketed(lex.closers, lex.max_closers, run=lex.closer_run)
        before_end = _bracketed(lex.closers, lex.max_closers,
                                run=lex.final_closer_run if lex.final_closer_run is not None else lex.closer_run)
        ends = _Text(_lits(lex.ends + (lex.text_ends if self.closing else ())))
        if plain:
            final = [(_Text(R.lit(".")),)]
        else:
            after = _bracketed(lex.after_end, lex.max_after, free=1)  # syntok reads '."" Next' as one sentence
            final = [(*c, ends, *a) for c in before_end for a in after]
        if self.whole:  # "To Mr. Hector": Punkt breaks there, the words stay the same (inside the sentence only:
            # "Aa.." is no final mark; "Co.," is left out: with no break there, Treebank keeps "a's." whole)
            closers.append((_Text(R.lit(".")),))

        def body(lead: str, last: bool, most_glue: int = lex.max_glue, quoted: bool = False) -> _Part:
            """A chunk's body; ``lead``: the variant of its first word ("first", "cap" or ""); ``quoted``: that
            word follows the lexicon's single quotation mark."""
            templates: list[_Template] = []
            glue_words, glue_other = _words_of(lex.glue), _not_words(lex.glue)
            glues: list[_Item] = ([_Tokens(glue_words)] if glue_words else []) + \
                ([_Text(_lits(glue_other))] if glue_other else [])
            for g in range(0, most_glue + 1 if glues else 1):
                for joints in _products(glues, g):
                    items: list[_Word | _Tokens | _Text] = []
                    for k in range(g + 1):
                        # no period in any word of the last chunk: syntok does not end "Aa.a—bb." there
                        variant = (lead if k == 0 else "") + \
                            ("last" if last and k == g else "nodot" if last else "")
                        items.append(_Word(variant, quoted=quoted and k == 0))
                        if k < g:
                            items.append(joints[k])
                    templates.append(tuple(items))
                    stem = items[-1]
                    assert isinstance(stem, _Word)
                    for suffix in lex.suffixes:
                        # a group of tokens that make no word is text, not a word slot (the ' of "the Owens' house")
                        ending = tuple(_Tokens(group) if _words_of(group) else _Text(_lits(group))
                                       for group in suffix.parts)
                        templates.append((*items[:-1], _Word(stem.variant, suffix.stem, stem.quoted), *ending))
            if lex.signs and not quoted:  # a sign before a number ($5): the body's first word then starts with a digit
                sign = _Text(_lits(lex.signs))
                templates += [(sign, _Word(t[0].variant, R.rx("[0-9].*")), *t[1:]) for t in list(templates)
                              if isinstance(t[0], _Word) and t[0].stem is None]
            return _Part(self, templates)

        def initials(lead: str, initial: str) -> _Part:
            """One or two initials, each with its period, before a capitalised word, with no opener (``D. James``,
            ``K. V. Ramalingam``): the profile reads each as a word of its own inside the sentence. One word
            follows them (and its suffix)."""
            one = (_Word(lead, initial), _Text(R.seq(R.lit("."), self.space)))
            return _Part(self, [one, (*one, _Word("", initial), one[1])])

        def shapes(lead: str, last: bool, before: list[_Part]) -> list[list[_Part]]:
            ending = _Part(self, final if last else closers)
            found = [[*before, body(lead, last), ending]]
            if lex.quote is not None and not plain:
                # a single-quoted word, after the openers if any ("'Till)
                found.append([*before, body(lead, last, quoted=True), ending])
            if lex.initial is not None:
                # a bare final mark: Punkt breaks after the initial when the next word's run goes on past the mark
                # ("A. Ab.)" is two sentences)
                bare = _Part(self, [(_Text(R.lit(".")) if plain else ends,)]) if last else ending
                found.append([initials(lead, lex.initial), body("cap", last, most_glue=0), bare])
            return found

        # a lone token (a dash) stands before a chunk, with its space: written as the chunk's prefix it cannot
        # repeat ("& & & &")
        lone: list[_Template] = [(_Text(""),)]
        if _words_of(lex.alone):
            lone.append((_Tokens(_words_of(lex.alone)), _Text(self.space)))
        if _not_words(lex.alone):
            lone.append((_Text(R.seq(_lits(_not_words(lex.alone)), self.space)),))
        first_openers = _Part(self, openers)
        any_openers = _Part(self, _bracketed(lex.openers, lex.max_openers, free=1))
        self.first = _Chunk(self, shapes("first", False, [first_openers]))
        self.middle = _Chunk(self, shapes("", False, [_Part(self, lone), any_openers]))
        self.last = _Chunk(self, shapes("", True, [_Part(self, lone), any_openers]))
        self.single = _Chunk(self, shapes("first", True, [first_openers]))
        self.most = max(c.most for c in (self.first, self.middle, self.last, self.single))

    # words ---------------------------------------------------------------------------------------
    def word(self, variant: str, stem: str | None = None) -> str:
        """A word token, the sentence's first (capitalised) or last (two characters or more, no period, not a
        word the profile will not end a sentence on); with ``stem``, one that also matches it."""
        key = ("word", variant, stem)
        if key not in self._memo:
            parts = [self.lex.word, *([stem] if stem else [])]
            if "first" in variant and not self.opening:
                parts.append(self.lex.first_word)
            if "cap" in variant:
                parts.append(R.rx(f"[{UPPER}].*"))
            if "nodot" in variant and not self.lex.dotted_last:
                parts.append(R.neg(R.rx(r".*\..*")))
            if "last" in variant:
                parts += [] if self.closing else [self.lex.last_word]
                parts += [] if self.lex.dotted_last else [R.neg(R.rx(r".*\..*"))]
                if self.no_final:
                    parts.append(R.neg(R.rx(f"(?i:{'|'.join(sorted(self.no_final))})")))
            self._memo[key] = self.terminals.name(R.both(*parts))
        return self._memo[key]

    def test(self, regex: str, values: frozenset[str], equals: str | None = None) -> WordTest:
        return WordTest(regex, values & self.all_values, equals)

    def quoted(self, word: str) -> str:
        """``word`` (an expression of word tokens) after the lexicon's single quotation mark, which the profile
        splits off before a letter or digit, unless the word's first run is a clitic (``'s``, ``'T-shirt``: those
        stay whole), and keeps before a sign (``'£5``)."""
        assert self.lex.quote is not None
        # what Treebank leaves on the mark: a clitic that is the whole run ('s, 're, 'T-shirt)
        clitic = R.seq(_ascii_either_case("re|ve|ll|m|t|s|d|n"), R.rx(f"([^{ALNUM}].*)?"))
        return R.seq(R.lit(self.lex.quote), R.both(word, R.rx(f"[{ALNUM}].*"), R.neg(clitic)))

    def walk(self, need: Need) -> str:
        """Sentences whose words meet ``need``, as one walk over the chunks (no intersection)."""
        if need.hi is None:
            # no upper bound asked: the walk counts words only as far as its lower bound and positions need, and
            # a cheap bound on the chunks keeps the sentence finite
            return R.both(_Walk(self, need).sentence(), self._bound)
        return _Walk(self, need).sentence()

    @cached_property
    def _bound(self) -> str:
        return R.rx(f"[^ ]+(  ?[^ ]+){{0,{self.max_chunks - 1}}}")

    def negate(self, test: WordTest) -> WordTest:
        return WordTest(R.neg(test.regex), self.all_values - test.values)

    # shape ---------------------------------------------------------------------------------------
    @cached_property
    def shape(self) -> str:
        """Every sentence of the shape (at most ``max_chunks`` chunks)."""
        many = R.seq(self.first.any, self._middles, self.space, self.last.any)
        return self.terminals.name(R.both(R.alt(self.single.any, many), self._bound))

    @cached_property
    def _middles(self) -> str:
        return R.rep(R.seq(self.space, self.middle.any), 0, None)

    def _rest(self, test: WordTest | None, lo: int, hi: int | None) -> str:
        """The rest of a sentence after its first chunk (middle chunks, then the last, each after a space)
        holding ``lo`` to ``hi`` (None: no limit) passing words.

        Written right-recursively: once a chunk is read, what remains is one named expression, so the engine's
        lexer follows one count, where a left-recursive form (or a complement) would keep every split alive."""
        lo = max(lo, 0)
        if hi is not None and hi < lo:
            return R.NOTHING
        if lo == 0 and hi is None:
            return self.terminals.name(R.seq(self._middles, self.space, self.last.any))
        key = ("rest", test, lo, hi)
        if key not in self._memo:
            top = self.last.most if hi is None else min(hi, self.last.most)
            grown = [R.seq(self.space, self.last.count(test, k)) for k in range(lo, top + 1)]
            for m in range(1, self.middle.most + 1 if hi is None else min(hi, self.middle.most) + 1):
                grown.append(R.seq(self.space, self.middle.count(test, m),
                                   self._rest(test, lo - m, None if hi is None else hi - m)))
            zero = self.middle.count(test, 0)
            head = R.rep(R.seq(self.space, zero), 0, None) if zero != R.NOTHING else ""
            self._memo[key] = self.terminals.name(R.seq(head, R.alt(*grown)))
        return self._memo[key]

    def between(self, test: WordTest | None, lo: int, hi: int | None) -> str:
        """Sentences with ``lo`` to ``hi`` (None: no limit) words passing ``test`` (None: any words)."""
        lo = max(lo, 0)
        if hi is not None and hi < lo:
            return R.NOTHING
        if test is not None and test.regex == R.NOTHING and not test.values:
            # no word passes: said outright, since the engine can lose its way in a union with an empty walk
            return self.shape if lo == 0 else R.NOTHING
        if lo == 0 and hi is None:
            return self.shape
        key = ("between", test, lo, hi)
        if key not in self._memo:
            top = self.single.most if hi is None else min(hi, self.single.most)
            alternatives = [self.single.count(test, k) for k in range(lo, top + 1)]
            for m in range(0, self.first.most + 1 if hi is None else min(hi, self.first.most) + 1):
                alternatives.append(R.seq(self.first.count(test, m),
                                          self._rest(test, lo - m, None if hi is None else hi - m)))
            self._memo[key] = self.terminals.name(R.alt(*alternatives))
        return self._memo[key]

    def exactly(self, test: WordTest | None, n: int) -> str:
        """Sentences with exactly ``n`` passing words."""
        return self.between(test, n, n)

    def at_least(self, test: WordTest | None, n: int) -> str:
        """Sentences with at least ``n`` passing words."""
        return self.between(test, n, None)

    def word_at(self, k: int, test: WordTest) -> str:
        """Sentences whose ``k``-th word (1-based; negative: from the end) passes ``test``."""
        key = ("at", k, test)
        if key not in self._memo:
            self._memo[key] = self.terminals.name(self._word_at(k, test) if k > 0 else self._word_at_end(-k, test))
        return self._memo[key]

    def _rest_with(self, k: int, test: WordTest) -> str:
        """The rest of a sentence (as in ``_rest``) whose ``k``-th word passes ``test``."""
        if k < 1:
            return R.NOTHING
        key = ("rest@", k, test)
        if key not in self._memo:
            grown = [R.seq(self.space, self.last.at(k, test)),
                     R.seq(self.space, self.middle.at(k, test), self._middles, self.space, self.last.any)]
            grown += [R.seq(self.space, self.middle.count(None, m), self._rest_with(k - m, test))
                      for m in range(0, min(k - 1, self.middle.most) + 1) if m > 0]
            zero = self.middle.count(None, 0)
            head = R.rep(R.seq(self.space, zero), 0, None) if zero != R.NOTHING else ""
            self._memo[key] = self.terminals.name(R.seq(head, R.alt(*grown)))
        return self._memo[key]

    def _word_at(self, k: int, test: WordTest) -> str:
        alternatives = [self.single.at(k, test),
                        R.seq(self.first.at(k, test), self._middles, self.space, self.last.any)]
        alternatives += [R.seq(self.first.count(None, m), self._rest_with(k - m, test))
                         for m in range(1, min(k - 1, self.first.most) + 1)]
        return R.alt(*alternatives)

    def _word_at_end(self, k: int, test: WordTest) -> str:
        alternatives = [self.single.at(k, test, from_end=True),
                        R.seq(self.first.any, self._middles, self.space, self.last.at(k, test, from_end=True))]
        for i in range(1, min(k, self.most) + 1):
            after = self._rest(None, k - i, k - i)
            alternatives.append(R.seq(self.first.at(i, test, from_end=True), after))
            alternatives.append(R.seq(self.first.any, self._middles, self.space, self.middle.at(i, test, from_end=True),
                                      after))
        return R.alt(*alternatives)


def _products(items: list[_Item], n: int) -> Iterator[tuple[_Item, ...]]:
    if n == 0:
        yield ()
        return
    for head in items:
        for rest in _products(items, n - 1):
            yield (head, *rest)


# ---------------------------------------------------------------------------------------------- walks
@dataclass(frozen=True)
class Need:
    """Facts about a sentence's words, checked together in one walk over its chunks (``Words.walk``).

    Attributes:
        every: every word passes it.
        lo, hi: the number of words (``hi`` None: no limit).
        at: (position from 1, test) pairs: that word passes the test.
        last: the last word passes it.
        present: (test, lo, hi): the number of words passing the test.
    """

    every: WordTest | None = None
    lo: int = 0
    hi: int | None = None
    at: tuple[tuple[int, WordTest], ...] = ()
    last: WordTest | None = None
    present: tuple[tuple[WordTest, int, int | None], ...] = ()


class _Walk:
    """The product of the sentence's chunk sequence with the counters ``Need`` asks for, written as one named
    expression per state (words read so far, capped; passing words per ``present`` test, capped). Each state
    reads one chunk and names the next state, so the engine follows one path: no intersection is needed."""

    def __init__(self, words: Words, need: Need) -> None:
        self.words = words
        self.need = need
        self.at = dict(need.at)
        self.tests = [t for t, lo, hi in need.present if lo > 0 or hi is not None]
        self.bounds = [(lo, hi) for t, lo, hi in need.present if lo > 0 or hi is not None]
        self.caps = [hi + 1 if hi is not None else lo for lo, hi in self.bounds]
        top = max([need.lo, *(k for k in self.at)], default=0)
        self.cap_j = need.hi + 1 if need.hi is not None else top
        self._memo: dict[tuple, object] = {}

    # states ----------------------------------------------------------------------------------
    def _alive(self, j: int, counts: tuple[int, ...]) -> bool:
        if self.need.hi is not None and j > self.need.hi:
            return False
        return all(hi is None or c <= hi for c, (lo, hi) in zip(counts, self.bounds, strict=True))

    def _done(self, j: int, counts: tuple[int, ...]) -> bool:
        return self.need.lo <= j and self._alive(j, counts) and \
            all(lo <= c for c, (lo, hi) in zip(counts, self.bounds, strict=True))

    def _step(self, j: int, counts: tuple[int, ...], w: int, incs: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
        return min(j + w, self.cap_j), tuple(min(c + i, cap) for c, i, cap in zip(counts, incs, self.caps, strict=True))

    # slots -----------------------------------------------------------------------------------
    def _slot(self, item: _Item, position: int, last: bool) -> list[tuple[str, tuple[int, ...]]]:
        """The ways one word slot can be filled at ``position``: (text, which present-tests it passes)."""
        required = [t for t in (self.need.every, self.at.get(position), self.need.last if last else None) if t]
        out: list[tuple[str, tuple[int, ...]]] = []
        if isinstance(item, _Tokens):
            groups: dict[tuple[int, ...], list[Token]] = {}
            for token in item.tokens:
                if all(token.value in r.values for r in required):
                    key = tuple(int(token.value in t.values) for t in self.tests)
                    groups.setdefault(key, []).append(token)
            return [(_lits(tuple(tokens)), key) for key, tokens in groups.items()]
        assert isinstance(item, _Word)
        base = [self.words.word(item.variant, item.stem), *(r.regex for r in required)]
        for passing in _subsets(len(self.tests)):
            if not _compatible(self.tests, passing):
                continue
            parts = [t.regex if p else R.neg(t.regex) for t, p in zip(self.tests, passing, strict=True)]
            text = R.both(*base, *parts)
            out.append((self.words.terminals.name(self.words.quoted(text) if item.quoted else text), passing))
        return out

    def _part(self, part: _Part, start: int, last: bool) -> dict[tuple[int, tuple[int, ...]], str]:
        """Texts of ``part`` whose first word is word ``start + 1``, by (words, passes per present-test);
        ``last``: the part's last word is the sentence's last."""
        positions = tuple(self.at.get(start + k) for k in range(1, part.most + 1))
        key = ("part", id(part), positions, last)
        if key in self._memo:
            return self._memo[key]  # type: ignore[return-value]
        found: dict[tuple[int, tuple[int, ...]], list[str]] = {}
        zero = tuple(0 for _ in self.tests)
        for template in part.templates:
            slots = [i for i, item in enumerate(template) if not isinstance(item, _Text)]
            ways: list[tuple[list[str], tuple[int, ...]]] = [([], zero)]
            for i, item in enumerate(template):
                if isinstance(item, _Text):
                    ways = [([*texts, item.regex], incs) for texts, incs in ways]
                    continue
                k = slots.index(i)
                options = self._slot(item, start + k + 1, last and k == len(slots) - 1)
                ways = [([*texts, text], tuple(a + b for a, b in zip(incs, more, strict=True)))
                        for texts, incs in ways for text, more in options]
            for texts, incs in ways:
                found.setdefault((len(slots), incs), []).append(_cat(*texts))
        result = {k: self.words.terminals.name(R.alt(*v)) for k, v in found.items()}
        self._memo[key] = result
        return result

    def _chunk(self, chunk: _Chunk, j: int, last: bool) -> dict[tuple[int, tuple[int, ...]], str]:
        """Texts of a chunk starting after word ``j``, by (words, passes per present-test)."""
        positions = tuple(self.at.get(j + k) for k in range(1, chunk.most + 1))
        key = ("chunk", id(chunk), positions, last)
        if key in self._memo:
            return self._memo[key]  # type: ignore[return-value]
        found: dict[tuple[int, tuple[int, ...]], list[str]] = {}
        for shape in chunk.shapes:
            for w, incs, text in self._parts(shape, j, last):
                found.setdefault((w, incs), []).append(text)
        result = {k: self.words.terminals.name(R.alt(*v)) for k, v in found.items()}
        self._memo[key] = result
        return result

    def _parts(self, parts: list[_Part], j: int, last: bool) -> list[tuple[int, tuple[int, ...], str]]:
        if not parts:
            return [(0, tuple(0 for _ in self.tests), '""')]
        head, rest = parts[0], parts[1:]
        out = []
        if not rest:
            return [(w, incs, text) for (w, incs), text in self._part(head, j, last).items()]
        # the sentence's last word is in the rest if the rest has words, else in this part
        for (w, incs), text in self._part(head, j, False).items():
            for w2, incs2, text2 in self._parts(rest, j + w, last):
                if last and w2 == 0:
                    continue
                out.append((w + w2, _add(incs, incs2), R.seq(text, text2)))
        if last:
            for (w, incs), text in self._part(head, j, True).items():
                for w2, incs2, text2 in self._parts(rest, j + w, False):
                    if w2 == 0:
                        out.append((w + w2, _add(incs, incs2), R.seq(text, text2)))
        return out

    # the walk --------------------------------------------------------------------------------
    def rest(self, j: int, counts: tuple[int, ...]) -> str:
        """After the first chunk, having read ``j`` words: the middle chunks and the last one."""
        key = ("rest", j, counts)
        if key in self._memo:
            return self._memo[key]  # type: ignore[return-value]
        words = self.words
        loops, onward, ends = [], [], []
        for (w, incs), text in self._chunk(words.middle, j, False).items():
            nj, ncounts = self._step(j, counts, w, incs)
            if not self._alive(nj, ncounts):
                continue
            if (nj, ncounts) == (j, counts):
                loops.append(text)
            else:
                onward.append(R.seq(self.words.space, text, self.rest(nj, ncounts)))
        for (w, incs), text in self._chunk(words.last, j, True).items():
            nj, ncounts = self._step(j, counts, w, incs)
            if self._done(nj, ncounts):
                ends.append(R.seq(self.words.space, text))
        head = R.rep(R.seq(self.words.space, R.alt(*loops)), 0, None) if loops else ""
        body = R.alt(*ends, *onward)
        result = R.NOTHING if body == R.NOTHING else words.terminals.name(R.seq(head, body) if head else body)
        self._memo[key] = result
        return result

    def sentence(self) -> str:
        words = self.words
        start = tuple(0 for _ in self.tests)
        alternatives = []
        for (w, incs), text in self._chunk(words.single, 0, True).items():
            if self._done(*self._step(0, start, w, incs)):
                alternatives.append(text)
        for (w, incs), text in self._chunk(words.first, 0, False).items():
            nj, ncounts = self._step(0, start, w, incs)
            if self._alive(nj, ncounts):
                alternatives.append(R.seq(text, self.rest(nj, ncounts)))
        return R.alt(*alternatives)


def _add(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def _subsets(n: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = [()]
    for _ in range(n):
        out = [(*s, bit) for s in out for bit in (0, 1)]
    return out


def _compatible(tests: list[WordTest], passing: tuple[int, ...]) -> bool:
    """False where two "is the word X" tests with different X would both pass (no word is both)."""
    targets = {t.equals for t, p in zip(tests, passing, strict=True) if p and t.equals is not None}
    return len(targets) <= 1
