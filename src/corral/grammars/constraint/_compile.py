"""Compile a Corral constraint into a grammar whose every text passes the checker.

Word- and sentence-level parts become one terminal each (``_terms``): exact expressions relative to the lexical
shape (``_lexicon``), sentence-level word facts gathered into one walk over the sentence's chunks (``_words``).
Paragraphs and passages are built structurally here: a sequence of child units whose count and per-position plans
come from the constraint, so a fixed sentence (COLLIE's pass01) is a literal child, never counted by characters.

What cannot be compiled is never approximated: ``NotExpressible`` lists each base constraint that failed and why.
Every compiled grammar is also checked end to end: a witness text is drawn from it (``_sample.witness``) and must
pass the constraint's own checker.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from corral.constraints import (
    And,
    Constraint,
    Count,
    Expr,
    ForEach,
    Match,
    Not,
    Or,
    Quantifier,
    Rel,
    check,
)
from corral.text import Level, get_profile

from .. import _regex as R
from .._grammar import Grammar, GrammarError, NotExpressible
from ._lexicon import lexicon
from ._limits import Limits
from ._terms import (
    _BELOW,
    _NEGATED,
    _holds,
    _holds_when_missing,
    _is_text,
    _profile,
    _rebase,
    _root,
    _Terms,
    _Unsupported,
    counts_sentences,
)


# ---------------------------------------------------------------------------------- structural scopes
@dataclass(frozen=True)
class _Counts:
    """Allowed child counts: those in ``small`` (all below ``cap``), and every count >= cap if ``tail``."""

    small: frozenset[int]
    cap: int
    tail: bool

    @staticmethod
    def where(rel: Rel, value: int) -> _Counts:
        cap = max(value, 0) + 2
        return _Counts(frozenset(n for n in range(cap) if _holds(rel, n, value)), cap, _holds(rel, cap, value))

    def widen(self, cap: int) -> _Counts:
        if cap <= self.cap:
            return self
        extra = range(self.cap, cap) if self.tail else range(0)
        return _Counts(self.small | frozenset(extra), cap, self.tail)

    def __and__(self, other: _Counts) -> _Counts:
        cap = max(self.cap, other.cap)
        a, b = self.widen(cap), other.widen(cap)
        return _Counts(a.small & b.small, cap, a.tail and b.tail)


_ANY_COUNT = _Counts(frozenset(range(1, 2)), 2, True)  # at least one child


@dataclass(frozen=True)
class _Plan:
    """One alternative of a paragraph or passage: child counts, what every child obeys, per-position extras."""

    counts: _Counts = _ANY_COUNT
    every: tuple[Expr, ...] = ()
    at: tuple[tuple[int, tuple[Expr, ...]], ...] = ()

    def merge(self, other: _Plan) -> _Plan:
        at = dict(self.at)
        for i, exprs in other.at:
            at[i] = at.get(i, ()) + exprs
        return _Plan(self.counts & other.counts, self.every + other.every, tuple(sorted(at.items())))


def _negate(expr: Expr) -> Expr:
    """``not expr`` pushed inwards, or ``_Unsupported``."""
    if isinstance(expr, Not):
        return expr.part
    if isinstance(expr, And):
        return Or(tuple(_negate(p) for p in expr.parts))
    if isinstance(expr, Or):
        return And(tuple(_negate(p) for p in expr.parts))
    if isinstance(expr, Count):
        return replace(expr, rel=_NEGATED[expr.rel])
    if isinstance(expr, Match) and expr.rel in (Rel.EQ, Rel.NE):
        return replace(expr, rel=_NEGATED[expr.rel])
    if isinstance(expr, Match) and not _is_text(expr.of):
        return Not(expr)  # negated inside the child's own scope
    raise _Unsupported(expr, "its negation has no grammar above the sentence level")


class _Structure:
    """Paragraph and passage scopes: DNF plans over child units, emitted as Lark rules."""

    def __init__(self, terms: _Terms) -> None:
        self.terms = terms
        self.rules: dict[str, str] = {}
        self._names: dict[tuple, str] = {}

    def plans(self, expr: Expr, scope: Level) -> list[_Plan]:
        child = _BELOW[scope]
        if isinstance(expr, And):
            plans = [_Plan()]
            for part in expr.parts:
                plans = [a.merge(b) for a in plans for b in self.plans(part, scope)]
            return plans
        if isinstance(expr, Or):
            return [p for part in expr.parts for p in self.plans(part, scope)]
        if isinstance(expr, Not):
            if isinstance(expr.part, Match | Count) and not _is_text(expr.part.of):
                return self._positional(expr, expr.part.of, scope)
            return self.plans(_negate(expr.part), scope)
        if isinstance(expr, Match) and expr.rel is Rel.NE and not _is_text(expr.of):
            return self._positional(expr, expr.of, scope)
        if isinstance(expr, ForEach) and _is_text(expr.of) and expr.quantifier is Quantifier.ALL:
            if expr.level is child:
                return [_Plan(every=(expr.body,))]
            if expr.level.rank < child.rank:
                return [_Plan(every=(expr,))]
        if isinstance(expr, Count) and _is_text(expr.of):
            return [self._count(expr, scope, child)]
        if isinstance(expr, Count | Match) and not _is_text(expr.of):
            return self._positional(expr, expr.of, scope)
        raise _Unsupported(expr, f"no grammar for it at the {scope} level")

    def _count(self, node: Count, scope: Level, child: Level) -> _Plan:
        per = node.per if node.per is not None and node.per != scope else None
        if per is None and node.string is None and node.level is child:
            return _Plan(counts=_Counts.where(node.rel, node.value))
        if per is None and node.string is None and node.level.rank >= scope.rank:
            return _Plan() if _holds(node.rel, 1, node.value) else _Plan(counts=_Counts(frozenset(), 2, False))
        if per is child:
            return _Plan(every=(replace(node, per=None),))
        if per is not None and per.rank < child.rank:
            return _Plan(every=(node,))
        absent = node.string is not None and _Counts.where(node.rel, node.value).small == frozenset({0}) and \
            not _Counts.where(node.rel, node.value).tail
        if absent and node.level.rank < child.rank:
            return _Plan(every=(node,))
        raise _Unsupported(node, f"a {node.level} count over a whole {scope} (only per {child} or absence)")

    def _positional(self, expr: Expr, selector: object, scope: Level) -> list[_Plan]:
        root, _ = _root(selector)
        if not _is_text(root.of) or root.level is not _BELOW[scope]:
            raise _Unsupported(expr, f"selecting a {root.level} directly inside a {scope}")
        rebased = Not(_rebase(expr.part, root)) if isinstance(expr, Not) else _rebase(expr, root)  # type: ignore[arg-type]
        counts = _ANY_COUNT
        if not _holds_when_missing(expr):
            counts = _Counts.where(Rel.GE, abs(root.index))
        return [_Plan(counts=counts, at=((root.index, (rebased,)),))]

    # emission ------------------------------------------------------------------------------------
    def rule(self, exprs: Iterable[Expr], scope: Level, opening: bool = False, closing: bool = False) -> str:
        """The name of a rule (or terminal) producing one ``scope`` unit satisfying all ``exprs``; ``opening``
        and ``closing``: the unit begins or ends the text (its first sentence may start in lowercase, its last may
        end as only a text's may; ``Words``)."""
        exprs = tuple(exprs)
        key = (scope, exprs, opening, closing)
        if key in self._names:
            return self._names[key]
        if scope is Level.SENTENCE:
            name = f"S{len(self._names)}"
            self._names[key] = name
            self.rules[name] = self._sentence(exprs, opening, closing)
            return name
        name = f"p{len(self._names)}"
        self._names[key] = name
        body = exprs[0] if len(exprs) == 1 else And(exprs) if exprs else None
        plans = [_Plan()] if body is None else self.plans(body, scope)
        sequences = [seq for seq in (self._sequence(plan, scope, opening, closing) for plan in plans)
                     if seq != R.NOTHING]
        if not sequences:  # contradictory parts: a rule that matches nothing (a terminal, as llguidance needs)
            self.rules["NOTHING"] = R.NOTHING
        self.rules[name] = " | ".join(sequences) or "NOTHING"
        return name

    def _sentence(self, exprs: tuple[Expr, ...], opening: bool, closing: bool) -> str:
        fixed = [e for e in exprs if isinstance(e, Match) and _is_text(e.of) and e.rel is Rel.EQ]
        if fixed:
            text = fixed[0].value.strip()
            # a sentence already ending in a mark, perhaps inside quotes ('... side!"'), is written as it is
            emitted = text if re.search(r"[.!?][\"”’')\]]*$", text) else text + "."
            rest = [e for e in exprs if e is not fixed[0]]
            profile = self.terms.profile.name
            if not _one_sentence(emitted, fixed[0], profile):
                self.terms.failures.append((str(fixed[0]), f"the fixed sentence is not one sentence under {profile}"))
            elif rest and not check(Constraint(_and(rest), Level.SENTENCE, profile), emitted).passed:
                self.terms.failures.append((str(fixed[0]), "the fixed sentence cannot meet the other parts"))
            return R.lit(emitted)
        return self.terms.sentence(exprs, opening=opening, closing=closing)

    def _run(self, every: tuple[Expr, ...], child: Level, lo: int, hi: int | None, opening: bool,
             closing: bool) -> list[str]:
        """Alternatives for ``lo`` to ``hi`` (None: no bound) children satisfying ``every``, the first of them
        ``opening`` and the last ``closing``."""
        sep = R.SENTENCE_SEPARATOR if child is Level.SENTENCE else R.PARAGRAPH_SEPARATOR
        default = self.rule(every, child)
        top = "" if hi is None else hi - 1
        if not (opening or closing):
            return [default + (f" ({sep} {default}){{{lo - 1},{top}}}" if hi is None or hi > 1 else "")]
        out = [self.rule(every, child, opening, closing)] if lo <= 1 else []
        if hi is None or hi >= 2:
            first, last = self.rule(every, child, opening, False), self.rule(every, child, False, closing)
            middle = f" ({sep} {default}){{{max(lo - 2, 0)},{'' if hi is None else hi - 2}}}" \
                if hi is None or hi > 2 else ""
            out.append(f"{first}{middle} {sep} {last}")
        return out

    def _sequence(self, plan: _Plan, scope: Level, opening: bool = False, closing: bool = False) -> str:
        child = _BELOW[scope]
        sep = R.SENTENCE_SEPARATOR if child is Level.SENTENCE else R.PARAGRAPH_SEPARATOR
        at = dict(plan.at)
        first = max((i for i in at if i > 0), default=0)
        last = max((-i for i in at if i < 0), default=0)
        limits = self.terms.limits
        bound = limits.paragraph_sentences if child is Level.SENTENCE else limits.passage_paragraphs
        counts = (plan.counts & _Counts.where(Rel.LE, bound)).widen(first + last + 1)
        allowed = sorted(n for n in counts.small if n >= 1)
        alternatives = []
        if not at:
            for lo, hi in _runs(allowed):
                alternatives += self._run(plan.every, child, lo, hi, opening, closing)
            if counts.tail:
                alternatives += self._run(plan.every, child, counts.cap, None, opening, closing)
        else:
            for n in allowed:
                names = [self.rule(plan.every + at.get(p, ()) + at.get(p - n - 1, ()), child,
                                   opening and p == 1, closing and p == n) for p in range(1, n + 1)]
                alternatives.append(f" {sep} ".join(names))
            if counts.tail:
                head = [self.rule(plan.every + at.get(p, ()), child, opening and p == 1) for p in range(1, first + 1)]
                tail = [self.rule(plan.every + at.get(-p, ()), child, False, closing and p == 1)
                        for p in range(last, 0, -1)]
                # the children between: at least this many, the first opening the text if no head does
                loop = self._run(plan.every, child, counts.cap - first - last if head else counts.cap - last, None,
                                 opening and not head, closing and not tail)
                parts = [f" {sep} ".join(head), sep] if head else []
                parts.append("(" + " | ".join(loop) + ")")
                if tail:
                    parts.append(f"{sep} " + f" {sep} ".join(tail))
                alternatives.append(" ".join(parts))
        return " | ".join(f"({a})" for a in alternatives) if alternatives else R.NOTHING


# Sentences of the shape to stand a fixed sentence between: its neighbours may end in a number, a quote or a
# question mark and may begin with an opener.
_NEIGHBOURS_BEFORE = ("Ab cd.", "Ab 19.", 'Ab "cd."', "Ab cd?", "Ab cd!")
_NEIGHBOURS_AFTER = ("Ab cd.", '"Ab" cd.', "“Ab” cd.")


def _one_sentence(emitted: str, fixed: Match, profile: str) -> bool:
    """Whether the profile sees ``emitted`` as one sentence equal to the target, wherever it stands."""
    if "\n" in emitted:
        return False
    found = get_profile(profile)
    target = found.normalize(fixed.value, fixed.case_sensitive)
    contexts = [((), ()), *(((b,), ()) for b in _NEIGHBOURS_BEFORE), *(((), (a,)) for a in _NEIGHBOURS_AFTER),
                (("Ab cd.",), ("Ef gh.",))]
    for before, after in contexts:
        text = " ".join((*before, emitted, *after))
        units = found.split(text, Level.SENTENCE)
        if len(units) != len(before) + 1 + len(after):
            return False
        if found.normalize(units[len(before)][0], fixed.case_sensitive) != target:
            return False
    return True


def _runs(values: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for v in values:
        if runs and runs[-1][1] == v - 1:
            runs[-1] = (runs[-1][0], v)
        else:
            runs.append((v, v))
    return runs


def _and(parts: list[Expr]) -> Expr:
    return parts[0] if len(parts) == 1 else And(tuple(parts))


def _hints(expr: object) -> tuple[str, ...]:
    """The strings a constraint mentions, as written and capitalised (the witness search tries them whole)."""
    found: list[str] = []
    if isinstance(expr, Match):
        value = expr.value.strip()
        found += [value, value[:1].upper() + value[1:], value + "."]
    if isinstance(expr, Count) and expr.string:
        found += [expr.string, expr.string.capitalize()]
    for child in getattr(expr, "parts", ()) or ():
        found += _hints(child)
    for name in ("part", "body"):
        if hasattr(expr, name):
            found += _hints(getattr(expr, name))
    return tuple(dict.fromkeys(found))


def _largest(expr: object) -> int:
    """The largest count, quantifier bound or position the constraint mentions."""
    found = [abs(v) for v in (getattr(expr, "value", None), getattr(expr, "k", None), getattr(expr, "index", None))
             if isinstance(v, int)]
    for name in ("of", "part", "body"):
        if hasattr(expr, name):
            found.append(_largest(getattr(expr, name)))
    found += [_largest(p) for p in getattr(expr, "parts", ()) or ()]
    return max(found, default=0)


# ------------------------------------------------------------------------------------------ entry point
@dataclass
class _Compiled:
    lark: str
    failures: list[tuple[str, str]] = field(default_factory=list)


def to_lark(constraint: Constraint, limits: Limits = Limits(), paired: bool = True) -> _Compiled:
    """The Lark source for ``constraint`` and the parts that could not be compiled; ``paired``: every sentence
    obeys the lexicon's ``sentence_form`` (its brackets paired), where it has one."""
    profile = _profile(constraint.profile)
    level = constraint.level or Level.PASSAGE
    limits = limits.fit(_largest(constraint.body))
    # a character count bounds every word itself (and bounded runs inside it exhaust the engine's lexer)
    counts_chars = f", {Level.CHAR.value}" in str(constraint.body)
    terms = _Terms(profile, profile.sentence_drops_period and level.rank > Level.SENTENCE.rank, limits,
                   bounded_runs=not counts_chars, paired=paired)
    if level is Level.CHAR:
        return _Compiled("", [(str(constraint.body), "a single-character text has no grammar")])
    if level is Level.WORD:
        text = R.both(R.WORD, R.rx(f".{{1,{limits.word_chars}}}"), terms.term(constraint.body, Level.WORD))
        return _Compiled(f"start: TEXT\nTEXT: {text}\n", terms.failures)
    if level is Level.SENTENCE:
        # the text's first word may be lowercase (no splitter decides anything before it)
        text = terms.sentence((constraint.body,), opening=True, closing=True,
                              whole=not counts_sentences(constraint.body))
        if not counts_chars:
            text = R.seq(R.rx(" {0,2}"), text, R.rx(" ?"))
        return _Compiled(f"start: TEXT\nTEXT: {text}\n{terms.terminals.lark()}", terms.failures)
    structure = _Structure(terms)
    try:
        top = structure.rule((constraint.body,), level, opening=True, closing=True)
    except _Unsupported as exc:
        terms.failures.append((str(exc.expr), exc.reason))
        return _Compiled("", terms.failures)
    rules = "\n".join(f"{name}: {body}" for name, body in structure.rules.items())
    end = "" if counts_chars else f" {R.TEXT_END}"
    return _Compiled(f"{_start(top)}{end}\n{rules}\n{terms.terminals.lark()}", terms.failures)


def _start(top: str) -> str:
    return f"start: {R.TEXT_START} {top}"


def compile_constraint(constraint: Constraint, verify: bool = True, limits: Limits = Limits()) -> Grammar:
    """A ``Grammar`` every text of which passes ``constraint``, or ``NotExpressible`` naming what has none.

    With ``verify`` (the default) a witness text is drawn from the grammar and checked; an empty grammar
    (contradictory parts, or values the text shape cannot hold, like the word "don't") is reported too.

    Sentences pair their brackets (the lexicon's ``sentence_form``: no ``0))``) where the engine affords it; a
    grammar too complex for it with the pairing (refused by the engine, or a lexer past half the engine's budget) is
    compiled again without (both are sound), and its description says so.
    """
    if lexicon(_profile(constraint.profile).name).sentence_form is None:
        return _compile(constraint, verify, limits, paired=False)
    try:
        return _compile(constraint, verify, limits, paired=True)
    except NotExpressible as exc:
        if not any("too complex for the grammar engine" in reason for _, reason in exc.parts):
            raise
    grammar = _compile(constraint, verify, limits, paired=False)
    return replace(grammar, description=f"{grammar.description} (brackets not paired: too complex for the engine "
                                        f"with the pairing)")


def _affordable(grammar: Grammar) -> bool:
    """Whether the engine builds ``grammar``'s lexer within half its budget. Past the budget llguidance does not
    fail: its masks refuse texts the grammar holds (a paired sent04 grammar with a required number, ``wiki_c07_16``,
    cost 77 million where the budget is 50, and refused its own example at the first comma)."""
    from .._grammar import LEXER_FUEL
    from .._inspect import lexer_cost

    try:
        cost = lexer_cost(grammar)
    except ValueError:  # the engine refused to build it at all (its lexer fuel ran out)
        return False
    return cost is not None and cost <= LEXER_FUEL // 2


def _compile(constraint: Constraint, verify: bool, limits: Limits, paired: bool) -> Grammar:
    compiled = to_lark(constraint, limits, paired)
    if compiled.failures:
        raise NotExpressible(compiled.failures)
    if f"TEXT: {R.NOTHING}" in compiled.lark or re.match(rf"{re.escape(_start('p0'))}[^\n]*\nNOTHING:", compiled.lark):
        raise NotExpressible([(str(constraint.body), "no text of the grammar's shape satisfies it")])
    grammar = Grammar("lark", compiled.lark, f"constraint {constraint!s:.200}", hints=_hints(constraint.body))
    try:
        grammar.validate()
    except GrammarError as exc:
        if "too big" not in str(exc):
            raise
        raise NotExpressible([(str(constraint.body), f"too complex for the grammar engine ({exc})")]) from None
    if paired and not _affordable(grammar):  # measured before the witness search, which it would make moot
        raise NotExpressible([(str(constraint.body), "too complex for the grammar engine (its lexer past half the "
                                                     "budget with brackets paired)")])
    from corral.memory import return_freed_memory

    from .._sample import release

    try:
        _verify(constraint, grammar, verify)
    finally:
        release(grammar)
        return_freed_memory()
    return grammar


def _verify(constraint: Constraint, grammar: Grammar, verify: bool) -> None:
    """Raise ``NotExpressible`` when the engine refuses ``grammar`` or (``verify``) no witness of it passes."""
    from .._sample import engine_check, witness

    problem = engine_check(grammar)
    if problem and "NoExtensionBias" in problem:  # the engine found no first token: the grammar is empty
        raise NotExpressible([(str(constraint.body), "no text of the grammar's shape satisfies it")])
    if problem:
        raise NotExpressible([(str(constraint.body), f"too complex for the grammar engine ({problem})")])
    if verify:
        text = witness(grammar, hints=_hints(constraint.body))
        if text is None:
            raise NotExpressible([(str(constraint.body), "no text of the grammar's shape satisfies it")])
        verdict = check(constraint, text)
        if not verdict.passed:
            raise NotExpressible([(str(constraint.body), f"internal: the grammar's text {text!r:.80} fails the "
                                                         f"checker ({verdict.feedback})")])
