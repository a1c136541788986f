"""Word and sentence scopes of the constraint compiler: each part becomes one terminal expression, exact inside
the lexical shape (``_lexicon``, ``_words``).

Sentence-level conjunctions gather their word-level facts into one walk over the sentence's chunks (``_words``);
negations are pushed inwards; word-level parts become regular expressions over one word token (whose value is
its text), and the fixed tokens (quotes, dashes, clitics) are judged by the checker itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache

from corral.constraints import (
    And,
    Constraint,
    Count,
    Expr,
    ForEach,
    Match,
    Not,
    Or,
    Pos,
    Quantifier,
    Rel,
    TextRef,
    check,
)
from corral.constraints import UnitRef as _UnitRef
from corral.text import Level, get_profile

from .. import _regex as R
from ._lexicon import lexicon
from ._limits import Limits
from ._words import Need, Terminals, Words, WordTest

_BELOW = {Level.PASSAGE: Level.PARAGRAPH, Level.PARAGRAPH: Level.SENTENCE, Level.SENTENCE: Level.WORD,
          Level.WORD: Level.CHAR}
_NEGATED = {Rel.EQ: Rel.NE, Rel.NE: Rel.EQ, Rel.LT: Rel.GE, Rel.GE: Rel.LT, Rel.GT: Rel.LE, Rel.LE: Rel.GT}


class _Unsupported(Exception):
    def __init__(self, expr: Expr, reason: str) -> None:
        super().__init__(reason)
        self.expr, self.reason = expr, reason


def _is_text(selector: object) -> bool:
    return isinstance(selector, TextRef | _UnitRef)


def _holds(rel: Rel, a: int, b: int) -> bool:
    return {Rel.EQ: a == b, Rel.NE: a != b, Rel.LT: a < b, Rel.LE: a <= b, Rel.GT: a > b, Rel.GE: a >= b}[rel]


@dataclass(frozen=True)
class _Profile:
    """What the compiler needs to know of a segmentation profile, found by asking the profile itself."""

    name: str
    sentence_drops_period: bool
    no_final: tuple[str, ...]

    def normalize(self, value: str, case_sensitive: bool) -> str:
        return get_profile(self.name).normalize(value, case_sensitive)


@lru_cache(maxsize=8)
def _profile(name: str) -> _Profile:
    profile = get_profile(name)
    value = profile.split("Ab cd.", Level.SENTENCE)[0][0]
    no_final = tuple(
        w for w in R.no_final_candidates()
        if len(profile.split(f"Ab cd {w}. Ef gh.", Level.SENTENCE)) != 2
        or len(profile.split(f"Ab cd {w.capitalize()}. Ef gh.", Level.SENTENCE)) != 2
    )
    return _Profile(name, sentence_drops_period=not value.endswith("."), no_final=no_final)




# --------------------------------------------------------------------------------------- regex scopes
class _Terms:
    """Word and sentence scopes: a constraint on one unit becomes one terminal expression (exact in the shape)."""

    def __init__(self, profile: _Profile, drops_period: bool, limits: Limits, bounded_runs: bool = True,
                 paired: bool = True) -> None:
        self.profile = profile
        self.drops_period = drops_period  # a sentence unit's value lacks its final '.' (not so for the whole text)
        self.failures: list[tuple[str, str]] = []
        self.limits = limits
        self.terminals = Terminals()
        self.lexicon = lexicon(profile.name, bounded_runs)
        self.paired = paired  # sentences obey the lexicon's ``sentence_form`` (brackets paired)
        self._words: dict[tuple[bool, bool, bool, bool], Words] = {}
        self.plain = False  # set while compiling a sentence part that reads the sentence's edges
        self.opening = False  # set while compiling the text's first sentence (its first word may be lowercase)
        self.closing = False  # set while compiling the text's last sentence
        self.whole = False  # set while compiling a text that is one sentence, counting no sentences
        self._tests: dict[Expr, WordTest] = {}

    def words(self, plain: bool | None = None) -> Words:
        """The sentence expressions of the profile's lexicon (``plain``: the narrower edges; ``opening``: the
        text's first sentence; see ``Words``)."""
        key = (self.plain if plain is None else plain, self.opening, self.closing, self.whole)
        if key not in self._words:
            self._words[key] = Words(self.lexicon, self.profile.no_final, self.terminals,
                                     self.limits.sentence_words, *key)
        return self._words[key]

    def sentence(self, exprs: Iterable[Expr], opening: bool = False, closing: bool = False,
                 whole: bool = False) -> str:
        """One sentence satisfying every part of ``exprs``, inside the shape (see ``_conjunction``);
        ``opening``, ``closing``: the text's first or last sentence; ``whole``: the whole text, whose constraint
        counts no sentences (see ``Words``)."""
        self.plain, self.opening, self.closing, self.whole = False, opening, closing, whole
        try:
            found = self._conjunction(exprs)
            if self.paired and self.lexicon.sentence_form is not None and found != R.NOTHING:
                found = R.both(found, self.lexicon.sentence_form)
        except _Unsupported as exc:
            self.failures.append((str(exc.expr), exc.reason))
            found = R.ANY
        self.plain = self.opening = self.closing = self.whole = False
        return found

    def _gather(self, need: Need, expr: Expr) -> Need | None:
        """``need`` with ``expr`` added, or None if ``expr`` is not a fact about the sentence's words."""
        if isinstance(expr, ForEach) and _is_text(expr.of) and expr.level is Level.WORD:
            test = self.word_test(expr.body)
            if expr.quantifier is Quantifier.ALL:
                return replace(need, every=_both_tests(need.every, test))
            bounds = {Quantifier.ANY: (1, None), Quantifier.AT_LEAST: (expr.k, None),
                      Quantifier.AT_MOST: (0, expr.k), Quantifier.EXACTLY: (expr.k, expr.k)}[expr.quantifier]
            return replace(need, present=(*need.present, (test, *bounds)))  # type: ignore[arg-type]
        if isinstance(expr, Count) and _is_text(expr.of) and expr.level is Level.WORD and \
                expr.per in (None, Level.SENTENCE) and expr.rel is not Rel.NE:
            lo, hi = _interval(expr.rel, expr.value)
            if expr.string is None:
                top = hi if need.hi is None else need.hi if hi is None else min(hi, need.hi)
                return replace(need, lo=max(lo, need.lo), hi=top)
            return replace(need, present=(*need.present, (self.word_test(_equals(expr)), lo, hi)))
        if isinstance(expr, Count) and _is_text(expr.of) and expr.per is Level.WORD and expr.string is None \
                and expr.level is Level.CHAR:
            return replace(need, every=_both_tests(need.every, self.word_test(replace(expr, per=None))))
        if isinstance(expr, Count | Match) and isinstance(expr.of, Pos) and not (isinstance(expr, Match)
                                                                                and expr.rel is Rel.NE):
            root, _ = _root(expr.of)
            if _is_text(root.of) and root.level is Level.WORD:
                test = self.word_test(_rebase(expr, root))
                if root.index > 0:
                    at = dict(need.at)
                    at[root.index] = _both_tests(at.get(root.index), test)
                    return replace(need, at=tuple(sorted(at.items())), lo=max(need.lo, root.index))
                if root.index == -1:
                    return replace(need, last=_both_tests(need.last, test), lo=max(need.lo, 1))
        return None

    def word_test(self, expr: Expr) -> WordTest:
        """Which word tokens satisfy ``expr`` (a word-level part): a regex over a word's text, and the values of
        the fixed tokens (quotes, dashes, clitics) that pass, asked of the checker itself."""
        found = self._tests.get(expr)
        if found is None:
            regex = self._term(expr, Level.WORD)
            constraint_of = _word_constraint(expr, self.profile.name)
            values = frozenset(v for v in self.lexicon.fixed_values if check(constraint_of, v).passed)
            equals = None
            if isinstance(expr, Match) and _is_text(expr.of) and expr.rel is Rel.EQ and not expr.case_sensitive:
                equals = self.profile.normalize(expr.value, False)
            if isinstance(expr, Match) and _is_text(expr.of) and expr.rel is Rel.EQ and not _one_word(
                    expr.value, self.profile.name):
                regex = R.NOTHING  # the profile never makes one word of it ("don't" is do + n't in collie-v1)
            found = self._tests[expr] = self.words().test(regex, values, equals)
        return found

    def term(self, expr: Expr, scope: Level) -> str:
        try:
            return self._term(expr, scope)
        except _Unsupported as exc:
            self.failures.append((str(exc.expr), exc.reason))
            return R.ANY

    def _term(self, expr: Expr, scope: Level) -> str:
        if scope is Level.SENTENCE:
            if isinstance(expr, And):
                return self._conjunction(expr.parts)
            if isinstance(expr, Not):
                return self._negation(expr.part)
            if isinstance(expr, Match) and expr.rel is Rel.NE and not _is_text(expr.of):
                return self._negation(replace(expr, rel=Rel.EQ))
        if isinstance(expr, And):
            return R.both(*(self.term(p, scope) for p in expr.parts))
        if isinstance(expr, Or):
            return R.alt(*(self.term(p, scope) for p in expr.parts))
        if isinstance(expr, Not):
            return R.neg(self.term(expr.part, scope))
        if isinstance(expr, Match) and expr.rel is Rel.NE:
            return R.neg(self._term(replace(expr, rel=Rel.EQ), scope))
        if isinstance(expr, ForEach):
            return self._foreach(expr, scope)
        if isinstance(expr, Count | Match):
            if _is_text(expr.of):
                return self._count(expr, scope) if isinstance(expr, Count) else self._match(expr, scope)
            return self._positional(expr, scope)
        raise _Unsupported(expr, f"the {expr.kind} kind has no grammar compiler")

    def _conjunction(self, exprs: Iterable[Expr]) -> str:
        """Sentences satisfying every part: the word-level parts (counts, positions, every word, words present)
        are gathered into one ``Need`` and compiled as a single walk over the chunks; the rest (character counts,
        matches, ``or``) become expressions intersected with it. The walk is the sentence shape itself when
        nothing is gathered, so the result always lies inside the shape."""
        need, others = Need(), []
        for expr in _conjuncts(exprs):
            gathered = self._gather(need, expr)
            if gathered is None:
                others.append(expr)
            else:
                need = gathered
        parts = [self._term(e, Level.SENTENCE) for e in others]
        if need == Need() and len(others) == 1 and _shaped(others[0]):
            return parts[0]  # already inside the shape: intersecting two walks costs the engine dearly
        return R.both(self.words().walk(need), *parts)

    def _negation(self, expr: Expr) -> str:
        """Sentences where ``expr`` fails: the negation pushed inwards (De Morgan, negated counts, the other
        words of a position) so that no large expression is complemented; what cannot be pushed is."""
        if isinstance(expr, Not):
            return self._term(expr.part, Level.SENTENCE)
        if isinstance(expr, And):
            return R.alt(*(self._negation(p) for p in expr.parts))
        if isinstance(expr, Or):
            return self._conjunction([Not(p) for p in expr.parts])
        if isinstance(expr, Count) and _is_text(expr.of):
            return self._term(replace(expr, rel=_NEGATED[expr.rel]), Level.SENTENCE)
        if isinstance(expr, ForEach) and _is_text(expr.of) and expr.level is Level.WORD:
            words = self.words()
            test = self.word_test(expr.body)
            if expr.quantifier is Quantifier.ALL:
                return words.at_least(words.negate(test), 1)
            lo, hi = _passing(expr.quantifier, expr.k or 0)  # outside the interval: below it or above it
            return R.alt(*([words.between(test, 0, lo - 1)] if lo > 0 else []),
                         *([words.at_least(test, hi + 1)] if hi is not None else []))
        if isinstance(expr, Count | Match) and isinstance(expr.of, Pos):
            root, _ = _root(expr.of)
            if _is_text(root.of) and root.level is Level.WORD:
                # the word is there and fails, or (where ``expr`` needs the word) there is no such word
                words = self.words()
                failing = words.word_at(root.index, words.negate(self.word_test(_rebase(expr, root))))
                if _holds_when_missing(expr):
                    return failing
                return R.alt(failing, words.between(None, 0, abs(root.index) - 1))
        return R.neg(self._term(expr, Level.SENTENCE))

    # counts --------------------------------------------------------------------------------------
    def _count(self, node: Count, scope: Level) -> str:
        per = node.per
        if per is not None and per != scope and per.rank < scope.rank:
            inner = replace(node, per=None)
            return self._foreach(ForEach(Quantifier.ALL, node.of, per, inner), scope)
        if per is not None and per.rank > scope.rank:
            raise _Unsupported(node, f"a count per {per} inside a {scope}")
        if node.level.rank >= scope.rank and node.string is None:
            return R.ANY if _holds(node.rel, 1, node.value) else R.NOTHING
        rel, v = node.rel, node.value
        if node.string is None and (node.level is Level.CHAR or (node.level is Level.WORD and scope is Level.SENTENCE)):
            return self._between(node, scope)
        if node.string is not None and node.level is Level.WORD and scope is Level.SENTENCE and _absent(node):
            return self.words().exactly(self.word_test(_equals(node)), 0)

        if node.string is not None and node.level is Level.WORD and scope is Level.SENTENCE:
            test, words = self.word_test(_equals(node)), self.words()
            if rel is Rel.NE:
                return R.alt(words.between(test, 0, v - 1), words.between(test, v + 1, None))
            return words.between(test, *_interval(rel, v))

        def at_least(k: int) -> str:
            return self._at_least(node, scope, k)

        if rel is Rel.GE:
            return at_least(v)
        if rel is Rel.GT:
            return at_least(v + 1)
        if rel is Rel.LT:
            return R.neg(at_least(v))
        if rel is Rel.LE:
            return R.neg(at_least(v + 1))
        exactly = R.both(at_least(v), R.neg(at_least(v + 1)))
        return exactly if rel is Rel.EQ else R.neg(exactly)

    def _between(self, node: Count, scope: Level) -> str:
        """Plain word or character counts as intervals: no complement, which the engine handles best."""
        v = node.value
        lo, hi = {Rel.EQ: (v, v), Rel.LT: (0, v - 1), Rel.LE: (0, v), Rel.GT: (v + 1, None), Rel.GE: (v, None),
                  Rel.NE: (v, v)}[node.rel]
        lo = max(lo, 0)
        if node.level is Level.WORD:
            def between(a: int, b: int | None) -> str:
                return self.words().between(None, a, b)
        else:
            drops = scope is Level.SENTENCE and self.drops_period

            def between(a: int, b: int | None) -> str:
                if b is not None and b < a:
                    return R.NOTHING
                return _chars(f"{a},{'' if b is None else b}", drops)
        if node.rel is Rel.NE:
            return R.alt(between(0, v - 1), between(v + 1, None)) if v > 0 else between(v + 1, None)
        return between(lo, hi)

    def _at_least(self, node: Count, scope: Level, k: int) -> str:
        if k <= 0:
            return R.ANY
        if node.string is not None:
            target = self.profile.normalize(node.string, node.case_sensitive)
            if node.level is Level.WORD:
                if scope is not Level.SENTENCE:
                    raise _Unsupported(node, f"counting words {node.string!r} inside a {scope}")
                return self.words().at_least(self.word_test(_equals(node)), k)
            if node.level is Level.CHAR and len(target) == 1 and target.isascii() and target.isalpha():
                letter = R.case_pattern(target, node.case_sensitive)
                other = "[^" + letter[1:-1] + "]" if letter.startswith("[") else f"[^{letter}]"
                return R.rx(f"({other}*{letter}){{{k}}}.*")
            raise _Unsupported(node, f"counting {node.level} {node.string!r} inside a {scope}")
        if node.level is Level.WORD and scope is Level.SENTENCE:
            return self.words().at_least(None, k)
        if node.level is Level.CHAR:
            return _chars(f"{k},", scope is Level.SENTENCE and self.drops_period)
        raise _Unsupported(node, f"counting {node.level.plural} inside a {scope}")

    # matches -------------------------------------------------------------------------------------
    def _match(self, node: Match, scope: Level) -> str:
        target = self.profile.normalize(node.value, node.case_sensitive)
        t = R.ci(target, node.case_sensitive)
        if scope is Level.WORD:
            # relative to a word token, whose ends are letters or digits: its value is its text
            shapes = {Rel.EQ: t, Rel.CONTAINS: R.seq(R.ANY, t, R.ANY), Rel.STARTSWITH: R.seq(t, R.ANY),
                      Rel.ENDSWITH: R.seq(R.ANY, t)}
            return shapes[node.rel]
        if scope is Level.SENTENCE:
            self.plain = True  # the sentence's own edges are read: no openers, a bare final period
            shapes = {Rel.EQ: R.seq(t, '"."'), Rel.CONTAINS: R.seq(R.ANY, t, R.ANY),
                      Rel.STARTSWITH: R.seq(t, R.ANY), Rel.ENDSWITH: R.seq(R.ANY, t, '"."')}
            return shapes[node.rel]
        raise _Unsupported(node, f"matching a whole {scope}")

    def _char(self, node: Match) -> str:
        target = self.profile.normalize(node.value, node.case_sensitive)
        if node.rel is not Rel.EQ or len(target) != 1 or not (target.isascii() and target.isalpha()):
            raise _Unsupported(node, "characters compile only as == a letter")
        return R.ci(target, node.case_sensitive)

    def _positional(self, node: Count | Match, scope: Level) -> str:
        root, chain = _root(node.of)
        if not _is_text(root.of):
            raise _Unsupported(node, "a selector that does not start from the text")
        i = root.index
        if root.level is Level.WORD and scope is Level.SENTENCE:
            return self.words().word_at(i, self.word_test(_rebase(node, root)))
        in_unit = scope in (Level.WORD, Level.SENTENCE)
        if root.level is Level.CHAR and in_unit and chain == 1 and isinstance(node, Match):
            char = self._char(node)
            if i > 0:
                return R.seq(R.rx(f".{{{i - 1}}}"), char, R.ANY)
            if scope is Level.SENTENCE:
                self.plain = True  # counted from the end: the sentence must end with a bare period
            tail = -i - 1 + (1 if scope is Level.SENTENCE and self.drops_period else 0)
            return R.seq(R.ANY, char, R.rx(f".{{{tail}}}"))
        raise _Unsupported(node, f"selecting a {root.level} inside a {scope}")

    # quantifiers ---------------------------------------------------------------------------------
    def _foreach(self, node: ForEach, scope: Level) -> str:
        if not _is_text(node.of):
            raise _Unsupported(node, "a for-each over a selected unit")
        if node.level is scope:  # one unit: the text itself
            body = self._term(node.body, scope)
            k = {Quantifier.ALL: 1, Quantifier.ANY: 1}.get(node.quantifier, node.k)
            holds_if_true = _quantified(node.quantifier, k, 1)
            holds_if_false = _quantified(node.quantifier, k, 0)
            if holds_if_true and holds_if_false:
                return R.ANY
            if holds_if_true:
                return body
            return R.neg(body) if holds_if_false else R.NOTHING
        if not (node.level is Level.WORD and scope is Level.SENTENCE):
            raise _Unsupported(node, f"a for-each over {node.level.plural} inside a {scope}")
        test = self.word_test(node.body)
        words = self.words()
        if node.quantifier is Quantifier.ALL:
            return words.exactly(words.negate(test), 0)
        return words.between(test, *_passing(node.quantifier, node.k or 0))


def _word_fact(expr: Expr) -> bool:
    """Whether ``expr`` (at the sentence level) compiles to a walk or count over the chunks, which lies inside
    the sentence shape."""
    if isinstance(expr, ForEach):
        return _is_text(expr.of) and expr.level is Level.WORD
    if isinstance(expr, Count) and _is_text(expr.of):
        return expr.level is Level.WORD and expr.per in (None, Level.SENTENCE)
    if isinstance(expr, Count | Match) and isinstance(expr.of, Pos):
        root, _ = _root(expr.of)
        return _is_text(root.of) and root.level is Level.WORD
    return False


def _passing(quantifier: Quantifier, k: int) -> tuple[int, int | None]:
    """How many words may pass a for-each's test under ``quantifier`` (not ALL), as (lo, hi); hi None: no limit."""
    return {Quantifier.ANY: (1, None), Quantifier.AT_LEAST: (k, None), Quantifier.AT_MOST: (0, k)}.get(
        quantifier, (k, k))


def _one_word(value: str, profile: str) -> bool:
    """Whether ``profile`` reads ``value`` as a single word of that text."""
    units = get_profile(profile).split(value, Level.WORD)
    return len(units) == 1 and units[0][0] == value


def _shaped(expr: Expr) -> bool:
    """Whether the sentence-level compilation of ``expr`` lies inside the shape by construction."""
    if isinstance(expr, And):
        return True
    if isinstance(expr, Or):
        return all(_shaped(p) for p in expr.parts)
    if isinstance(expr, Not):
        part = expr.part
        if isinstance(part, And):  # pushed inwards: one of the negated parts
            return all(_shaped(Not(p)) for p in part.parts)
        if isinstance(part, Not):
            return _shaped(part.part)
        return isinstance(part, Or) or _word_fact(part)
    return _word_fact(expr)


def _conjuncts(exprs: Iterable[Expr]) -> list[Expr]:
    """``exprs`` with every ``and`` flattened into its parts."""
    out: list[Expr] = []
    for expr in exprs:
        out += _conjuncts(expr.parts) if isinstance(expr, And) else [expr]
    return out


def _interval(rel: Rel, value: int) -> tuple[int, int | None]:
    """The counts ``n`` with ``n rel value`` (not ``!=``), as (lo, hi); hi None: no limit."""
    return {Rel.EQ: (value, value), Rel.GE: (value, None), Rel.GT: (value + 1, None), Rel.LE: (0, value),
            Rel.LT: (0, value - 1)}[rel]


def _both_tests(a: WordTest | None, b: WordTest) -> WordTest:
    if a is None:
        return b
    return WordTest(R.both(a.regex, b.regex), a.values & b.values, a.equals or b.equals)


def _equals(node: Count) -> Match:
    """The word-level test "this word is ``node.string``"."""
    assert node.string is not None
    return Match(TextRef(), Rel.EQ, node.string, node.case_sensitive)


def _word_constraint(expr: Expr, profile: str) -> Constraint:
    return Constraint(expr, Level.WORD, profile)


def _chars(interval: str, drops_period: bool) -> str:
    """Texts of ``interval`` characters (``"a,b"``, ``"a,"``); with ``drops_period`` the unit's value lacks a
    final period, so a text ending in one has one character more."""
    if not drops_period:
        return R.rx(f".{{{interval}}}")
    return R.alt(R.seq(R.rx(f".{{{interval}}}"), R.lit(".")), R.both(R.rx(f".{{{interval}}}"), R.rx(r"(.*[^.])?")))


def _absent(node: Count) -> bool:
    """Whether a count only says "none": == 0, < 1, <= 0."""
    return (node.rel, node.value) in ((Rel.EQ, 0), (Rel.LT, 1), (Rel.LE, 0))


def _quantified(q: Quantifier, k: int | None, passing: int) -> bool:
    """Whether a one-unit for-each holds when ``passing`` (0 or 1) of its units pass."""
    if q is Quantifier.ALL:
        return passing == 1
    if q is Quantifier.ANY:
        return passing >= 1
    assert k is not None
    return {Quantifier.AT_LEAST: passing >= k, Quantifier.AT_MOST: passing <= k, Quantifier.EXACTLY: passing == k}[q]


def _root(selector: object) -> tuple[Pos, int]:
    """The innermost ``pos(text, ...)`` of a selector chain, and the chain's depth."""
    depth = 0
    node = selector
    while isinstance(node, Pos) and isinstance(node.of, Pos):
        node = node.of
        depth += 1
    assert isinstance(node, Pos)
    return node, depth + 1


def _rebase(expr: Expr, root: Pos) -> Expr:
    """``expr`` with its selector's root ``pos(text, L, i)`` replaced by ``text`` (as seen from that unit)."""

    def swap(selector: object) -> object:
        if selector == root:
            return TextRef()
        if isinstance(selector, Pos):
            return replace(selector, of=swap(selector.of))
        return selector

    return replace(expr, of=swap(expr.of))  # type: ignore[type-var]


def _holds_when_missing(expr: Expr) -> bool:
    """What the checker says of ``expr`` when its selected unit does not exist."""
    if isinstance(expr, Match):
        return expr.rel is Rel.NE
    if isinstance(expr, Not):
        return not _holds_when_missing(expr.part)
    if isinstance(expr, And):
        return all(_holds_when_missing(p) for p in expr.parts)
    if isinstance(expr, Or):
        return any(_holds_when_missing(p) for p in expr.parts)
    return False


def counts_sentences(expr: object) -> bool:
    """Whether a constraint counts, selects or quantifies over sentences (a count *per* sentence of a text that is
    one sentence counts the whole text, and does not)."""
    if getattr(expr, "level", None) is Level.SENTENCE:
        return True
    parts = getattr(expr, "parts", None)
    children = [*(parts or ()), *(getattr(expr, name, None) for name in ("part", "of", "body"))]
    return any(counts_sentences(child) for child in children if child is not None)
