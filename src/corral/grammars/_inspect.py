"""Questions about a grammar that need no model: where a text leaves it, what it draws, whether what it draws
passes a checker, and what it costs to compile (``corral grammar ...``).

Every answer comes from llguidance's own masks over the byte-level vocabulary of ``_sample`` (every byte is a
token), so "where a text leaves the grammar" is exactly where a constrained decoder would have refused it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any

from corral.verdicts import Verdict

from ._budget import DEFAULT_COMPILE_BUDGET, CompileBudget, within_budget
from ._grammar import LEXER_FUEL, STEP_FUEL, Grammar, engine_limits
from ._sample import EOS, allowed_bytes, byte_matcher, byte_tokenizer, engine_check, random_walk, sample

SHOWN_RANGES = 12
"""How many byte ranges the readable form of what a grammar allowed lists before it says how many more."""


@dataclass(frozen=True)
class Rejection:
    """Where a text leaves a grammar, and what the grammar allowed there.

    Attributes:
        offset: the bytes of the text (UTF-8) the grammar follows: the offset of the first refused byte, or the
            text's length when the text ends before the grammar does.
        line: the line (from 1) of the character that byte belongs to.
        column: its column (from 1, in characters).
        byte: the refused byte; None when the text ended too early.
        allowed: the bytes the grammar allowed at ``offset`` (ascending; none when the engine stopped).
        end_allowed: whether the text could have ended at ``offset``.
        error: the engine's reason when it stopped rather than refused (its lexer fuel ran out), else "".
    """

    offset: int
    line: int
    column: int
    byte: int | None
    allowed: tuple[int, ...]
    end_allowed: bool
    error: str = ""

    @property
    def ended(self) -> bool:
        """The text is a prefix of the grammar's texts but not one of them: it ended too early."""
        return self.byte is None and not self.error

    @property
    def expected(self) -> str:
        """What the grammar allowed at ``offset``, in words: ``"0"-"9", ",", or the end of the text``."""
        return describe_bytes(self.allowed, self.end_allowed)

    def reason(self) -> str:
        """One line: where the text leaves the grammar, and why."""
        where = f"byte {self.offset} (line {self.line}, column {self.column})"
        if self.error:
            return f"the grammar engine stopped at {where}: {self.error}"
        if self.byte is None:
            return f"the text ends at {where} before the grammar does; expected {self.expected}"
        return f"{show_byte(self.byte)} at {where} is not allowed; expected {self.expected}"

    def to_json(self) -> dict[str, Any]:
        """Every field, ``allowed`` as ``[low, high]`` byte ranges, with ``expected`` in words."""
        row = asdict(self)
        row["allowed"] = [list(r) for r in byte_ranges(self.allowed)]
        row["expected"] = self.expected
        row["ended"] = self.ended
        return row


def first_rejection(grammar: Grammar, text: str) -> Rejection | None:
    """Where ``text`` leaves ``grammar`` (``Rejection``), or None when ``grammar`` accepts the whole text.

    The text is fed byte by byte (UTF-8) to a byte-level matcher: the prefix before ``offset`` is one the grammar
    allows, and the byte at ``offset`` is not (or the text ends there and the grammar does not)."""
    data = text.encode("utf-8")
    matcher = byte_matcher(grammar)
    taken = matcher.try_consume_tokens(list(data)) if data else 0
    if taken == len(data) and not matcher.is_error() and matcher.is_accepting():
        return None
    line, column = _position(data, taken)
    if matcher.is_error():
        return Rejection(taken, line, column, None, (), False, _first_line(matcher.get_error()))
    allowed = allowed_bytes(matcher)
    if matcher.is_error():  # the mask computation itself ran out of fuel
        return Rejection(taken, line, column, None, (), False, _first_line(matcher.get_error()))
    refused = data[taken] if taken < len(data) else None
    return Rejection(taken, line, column, refused, tuple(b for b in allowed if b != EOS),
                     EOS in allowed and matcher.is_accepting())


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """Line and column (from 1, in characters) of the character holding byte ``offset`` of ``data``."""
    before = data[:offset].decode("utf-8", errors="ignore")  # a character cut at offset is the one pointed at
    return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "stopped"


# ------------------------------------------------------------------------------------------------ bytes in words
def byte_ranges(allowed: Iterable[int]) -> list[tuple[int, int]]:
    """Consecutive byte values as ``(low, high)`` ranges, ascending (``EOS`` left out)."""
    ranges: list[tuple[int, int]] = []
    for b in sorted(set(allowed) - {EOS}):
        if ranges and ranges[-1][1] == b - 1:
            ranges[-1] = (ranges[-1][0], b)
        else:
            ranges.append((b, b))
    return ranges


def show_byte(b: int) -> str:
    """A byte as a reader recognises it: a printable ASCII character in quotes (``"a"``, ``" "``), a control
    character as its escape (``"\\n"``), any other byte in hex (``\\xc3``: part of a UTF-8 character)."""
    if b < 0x80:
        return json.dumps(chr(b))
    return f"\\x{b:02x}"


def describe_bytes(allowed: Iterable[int], end_allowed: bool = False) -> str:
    """The bytes a grammar allowed, in words: ranges (``"a"-"z"``), at most ``SHOWN_RANGES`` of them, then the end
    of the text when allowed; "nothing" when neither."""
    ranges = byte_ranges(allowed)
    items = [show_byte(lo) if lo == hi else f"{show_byte(lo)}-{show_byte(hi)}" for lo, hi in ranges]
    if len(items) > SHOWN_RANGES:
        items = [*items[:SHOWN_RANGES], f"{len(items) - SHOWN_RANGES} more ranges"]
    if end_allowed:
        items.append("the end of the text")
    if not items:
        return "nothing (no text of the grammar continues here)"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" or {items[-1]}"


# ------------------------------------------------------------------------------------------------ drawing texts
def draw(grammar: Grammar, n: int, seed: int = 0, max_bytes: int = 2_000, tries: int | None = None) -> list[str]:
    """Up to ``n`` texts of ``grammar`` drawn by seeded random byte walks (``random_walk``: ending with probability
    0.2 where the grammar allows it, closing a quote or bracket with probability 0.5 where it allows one).

    One random stream serves every walk, so the same seed gives the same texts, and the first k of ``n`` texts are
    those ``draw(grammar, k, seed)`` gives. A walk that runs past ``max_bytes`` (or into a dead end) gives no text;
    at most ``tries`` walks are made (default ``4 n + 8``), so fewer than ``n`` texts mean most walks ran long."""
    choose = random_walk(seed, close=0.5)
    texts: list[str] = []
    for _ in range(tries if tries is not None else 4 * n + 8):
        if len(texts) >= n:
            break
        text = sample(grammar, choose, max_bytes=max_bytes)
        if text is not None:
            texts.append(text)
    return texts


@dataclass(frozen=True)
class Soundness:
    """Texts drawn from a grammar and judged by a checker: the grammar is sound on them when every one passes.

    Attributes:
        wanted: how many texts were asked for.
        texts: the texts drawn (fewer than ``wanted`` when walks ran past their length).
        failures: each failing text with the checker's reason (its feedback, or why it was not decided).
    """

    wanted: int
    texts: tuple[str, ...]
    failures: tuple[tuple[str, str], ...]

    @property
    def passed(self) -> int:
        return len(self.texts) - len(self.failures)

    @property
    def sound(self) -> bool:
        """No drawn text failed."""
        return not self.failures

    def to_json(self) -> dict[str, Any]:
        return {"wanted": self.wanted, "drawn": len(self.texts), "passed": self.passed, "sound": self.sound,
                "failures": [{"text": text, "reason": reason} for text, reason in self.failures]}


def soundness(grammar: Grammar, checker: Callable[[str], Verdict[Any]], n: int, seed: int = 0,
              max_bytes: int = 2_000) -> Soundness:
    """Draw ``n`` texts from ``grammar`` (``draw``) and judge each with ``checker``: the property "every text the
    grammar accepts passes the checker", tested on a sample. An undecided verdict counts as a failure."""
    texts = draw(grammar, n, seed, max_bytes)
    failures = []
    for text in texts:
        verdict = checker(text)
        if not verdict.passed:
            failures.append((text, verdict.undecided or verdict.feedback or "failed"))
    return Soundness(n, tuple(texts), tuple(failures))


# ------------------------------------------------------------------------------------------------ cost
@dataclass(frozen=True)
class GrammarStats:
    """What a grammar costs, measured once.

    Attributes:
        format, description: the grammar's.
        source_chars: the size of its source (Lark text, JSON Schema, regex).
        engine_chars: the size of what the engine is handed (llguidance's serialized grammar).
        rules, terminals: definitions in a Lark source (None for a schema or a regex, where they are the
            engine's, not counted).
        compile_seconds: Corral's compile (for a constraint: its compiler, the engine check and the witness).
        matcher_seconds: building a fresh llguidance matcher of it (over the 257-token byte vocabulary).
        lexer_fuel: the fuel llguidance spent building the lexer, to the first mask (limit ``LEXER_FUEL``).
        step_fuel_max: the most fuel one mask step spent along a text drawn from the grammar (limit ``STEP_FUEL``);
            None when no text was drawn.
        drawn_bytes: the length of that text.
        engine_error: the engine's complaint about the grammar, if any.
    """

    format: str
    description: str
    source_chars: int
    engine_chars: int
    rules: int | None
    terminals: int | None
    compile_seconds: float
    matcher_seconds: float
    lexer_fuel: int | None
    step_fuel_max: int | None
    drawn_bytes: int | None
    lexer_fuel_limit: int = LEXER_FUEL
    step_fuel_limit: int = STEP_FUEL
    engine_error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


_RULE = re.compile(r"^[?!]?([a-z_][a-z0-9_]*)(?:\.-?\d+)?\s*:", re.MULTILINE)
_TERMINAL = re.compile(r"^([A-Z_][A-Z0-9_]*)(?:\.-?\d+)?\s*:", re.MULTILINE)


def grammar_stats(compile: Callable[[], Grammar], budget: CompileBudget = DEFAULT_COMPILE_BUDGET,
                  seed: int = 0) -> GrammarStats:
    """Compile (``compile()``, under ``budget``) and measure the grammar: sizes, Lark rule and terminal counts,
    Corral's compile time and the engine's matcher build apart, and the lexer fuel llguidance spent, at the start
    and at its costliest step along a text drawn with ``seed``. ``NotExpressible`` past the budget."""
    started = time.perf_counter()
    grammar = within_budget(compile, budget)
    compiled = time.perf_counter() - started
    serialized = grammar.llguidance()
    from llguidance import LLMatcher

    started = time.perf_counter()
    LLMatcher(byte_tokenizer(), serialized, log_level=0, limits=engine_limits())
    built = time.perf_counter() - started
    lark = grammar.format == "lark"
    problem = engine_check(grammar)
    text = None if problem else sample(grammar, random_walk(seed, close=0.5), max_bytes=2_000)
    first, most = _fuel(serialized, text.encode("utf-8") if text is not None else b"")
    return GrammarStats(grammar.format, grammar.description, len(grammar.source), len(serialized),
                        len(_RULE.findall(grammar.source)) if lark else None,
                        len(_TERMINAL.findall(grammar.source)) if lark else None,
                        round(compiled, 6), round(built, 6), first, most if text is not None else None,
                        len(text.encode("utf-8")) if text is not None else None, engine_error=problem)


def lexer_cost(grammar: Grammar) -> int | None:
    """The lexer fuel llguidance spends on ``grammar`` to its first mask (None where the engine reports none). A
    grammar whose lexer costs more than its budget (``LEXER_FUEL``) is not refused by the engine: its masks then
    refuse texts the grammar holds, so a compiler that can choose must keep well under it."""
    return _fuel(grammar.llguidance(), b"")[0]


def _fuel(serialized: str, text: bytes) -> tuple[int | None, int | None]:
    """llguidance's lexer cost (its ``stats.lexer_cost``, the fuel its limits count) at the first mask, which
    builds the lexer, and the most of any later mask along ``text``. ``LLMatcher`` does not report it;
    ``LLInterpreter`` reports it with every mask. (None, None) where the engine gives none."""
    from llguidance import LLInterpreter

    interpreter = LLInterpreter(byte_tokenizer(), serialized, enable_backtrack=False, enable_ff_tokens=False,
                                log_level=0, limits=engine_limits())
    interpreter.start_without_prompt()
    costs = []
    for b in [*text, None]:
        _, info = interpreter.compute_mask()
        costs.append(_lexer_cost(info))
        if b is None or json.loads(info).get("stop"):
            break
        interpreter.commit_token(b)
    known = [c for c in costs if c is not None]
    if not known or costs[0] is None:
        return None, None
    return costs[0], max(known[1:], default=0)


def _lexer_cost(info: str) -> int | None:
    try:
        progress = json.loads(info).get("progress") or []
        found = [p["stats"]["lexer_cost"] for p in progress if isinstance(p.get("stats"), dict)]
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return sum(found) if found else None

