"""MTOP (Li et al., EACL 2021): task-oriented utterances and their decoupled TOP trees, read from the user's copy of
the official release (not shipped: Corral cannot fetch the archive), and BenchCLAMP's grammar for them.

A language folder (``en/``) holds ``train.txt``, ``eval.txt`` and ``test.txt``: tab-separated lines of eight
columns (id, intent, slot spans, utterance, domain, locale, the **decoupled form**, a JSON object with the
utterance's ``tokens``). The decoupled form is the target: ``[IN:GET_MESSAGE [SL:CONTACT Angelika ] ]``, an intent
whose children are slots, each slot holding words copied from the utterance or one nested intent; words outside
slots are dropped, and the slots need not follow the utterance's order.

BenchCLAMP §3.2 builds the grammar from the training data: a non-terminal per intent, generating its slots; a
non-terminal per slot, generating a nested intent or words copied from the utterance. Here an intent allows, in any
order, up to as many slots as it was ever seen with, each one it was seen with; a slot allows the intents seen
inside it and, if it was ever seen holding words, any contiguous run of the utterance's tokens (of the JSON token
list and of the whitespace-split utterance: both spell a span). The structure is induced once per training file;
only the copied runs differ per utterance.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from corral.errors import InputError
from corral.files import MAX_INPUT_BYTES, open_input
from corral.grammars import Grammar, lit
from corral.grammars.scfg import regex_escape

__all__ = ["MTOP_PARTS", "MtopExample", "MtopGrammar", "TopError", "TopNode", "canonical_top", "induce_mtop_grammar",
           "mtop_examples", "read_mtop", "read_top"]

MTOP_PARTS = ("dev", "test")
FILES = {"train": "train.txt", "dev": "eval.txt", "test": "test.txt"}
DOWNLOAD = ("MTOP's official release (mtop.zip from Facebook AI's MTOP page, dl.fbaipublicfiles.com/mtop): "
            "unpack it and pass -T data=FOLDER, the folder holding en/ (or en/ itself)")
MAX_SPAN_TOKENS = 64
"""Utterances longer than this copy any sequence of their tokens (the run-by-run regex grows as n² and nests n
groups deep; llguidance's regex parser refuses past about 83)."""
MAX_DEPTH = 50


class TopError(InputError):
    """A text that is not one decoupled TOP tree."""


@dataclass(frozen=True)
class TopNode:
    """``[LABEL child ...]``: an intent (``IN:``) or a slot (``SL:``); a child is a node or a copied word."""

    label: str
    children: tuple[TopNode | str, ...]

    @property
    def is_intent(self) -> bool:
        return self.label.startswith("IN:")


def read_top(text: str) -> TopNode:
    """The one tree ``text`` holds: its root an intent, every node labelled ``IN:`` or ``SL:``, brackets balanced,
    nothing after the root closes. Words sit between spaces, so ``[IN:X`` and ``]`` are whole words."""
    stack: list[tuple[str, list[TopNode | str]]] = []
    done: TopNode | None = None
    for k, word in enumerate(text.split()):
        if done is not None:
            raise TopError(f"word {k + 1} ({word[:20]!r}) follows the closed root")
        if word.startswith("[") and len(word) > 1:
            label = word[1:]
            if not label.startswith(("IN:", "SL:")) or len(label) < 4:
                raise TopError(f"word {k + 1}: {word[:30]!r} is no [IN:... or [SL:... label")
            if not stack and not label.startswith("IN:"):
                raise TopError(f"word {k + 1}: the root must be an intent, not {label[:30]!r}")
            if len(stack) >= MAX_DEPTH:
                raise TopError(f"word {k + 1}: nested deeper than {MAX_DEPTH}")
            stack.append((label, []))
        elif word == "]":
            if not stack:
                raise TopError(f"word {k + 1}: ']' closes nothing")
            label, children = stack.pop()
            node = TopNode(label, tuple(children))
            if stack:
                stack[-1][1].append(node)
            else:
                done = node
        else:
            if not stack:
                raise TopError(f"word {k + 1} ({word[:20]!r}) is outside the tree")
            stack[-1][1].append(word)
    if stack:
        raise TopError(f"{len(stack)} bracket(s) left open (the last {stack[-1][0][:30]!r})")
    if done is None:
        raise TopError("no tree: the text is empty")
    return done


def canonical_top(text: str) -> str:
    """The tree written MTOP's way (one space between words): exact match compares these."""
    return " ".join(text.split())


@dataclass(frozen=True)
class MtopExample:
    id: str
    utterance: str
    tokens: tuple[str, ...]
    decoupled: str
    domain: str

    @property
    def words(self) -> tuple[str, ...]:
        """What few-shot retrieval compares."""
        return tuple(self.utterance.split())


def read_mtop(path: Path, part: str) -> tuple[MtopExample, ...]:
    """The examples of one MTOP file; an ``InputError`` naming the file and line of the first that does not read."""
    out: list[MtopExample] = []
    with open_input(path, MAX_INPUT_BYTES) as stream:
        for number, raw in enumerate(stream, start=1):
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if not line.strip():
                continue
            columns = line.split("\t")
            if len(columns) < 7:
                raise InputError(f"{path}: line {number}: {len(columns)} tab-separated columns, MTOP's files have 8 "
                                 "(id, intent, slots, utterance, domain, locale, decoupled form, tokens)")
            decoupled = canonical_top(columns[6])
            try:
                read_top(decoupled)
            except TopError as exc:
                raise InputError(f"{path}: line {number}: column 7 (the decoupled form) does not read: {exc}") \
                    from None
            out.append(MtopExample(f"mtop-{part}-{columns[0]}", columns[3], _tokens(columns, path, number),
                                   decoupled, columns[4]))
    return tuple(out)


def _tokens(columns: list[str], path: Path, number: int) -> tuple[str, ...]:
    if len(columns) < 8 or not columns[7].strip():
        return tuple(columns[3].split())
    try:
        found = json.loads(columns[7])["tokens"]
    except (ValueError, KeyError, TypeError):
        raise InputError(f"{path}: line {number}: column 8 is not MTOP's {{\"tokens\": [...], ...}} object") from None
    if not isinstance(found, list) or not all(isinstance(token, str) for token in found):
        raise InputError(f"{path}: line {number}: column 8's tokens are not a list of strings")
    return tuple(found)


def _folder(root: Path, language: str) -> Path:
    if not root.is_dir():
        raise InputError(f"{root}: no such folder; clamp-mtop reads {DOWNLOAD}")
    for folder in (root / language, root):
        if (folder / FILES["train"]).is_file():
            return folder
    raise InputError(f"{root}: no {language}/train.txt or train.txt; clamp-mtop reads {DOWNLOAD}")


@cache
def mtop_examples(folder: str, language: str, part: str) -> tuple[MtopExample, ...]:
    """``train``, ``dev`` (MTOP's ``eval.txt``) or ``test`` of one language."""
    if part not in ("train", *MTOP_PARTS):
        raise InputError(f"unknown MTOP part {part!r}; valid: {', '.join(MTOP_PARTS)}")
    where = _folder(Path(folder), language)
    path = where / FILES[part]
    if not path.is_file():
        raise InputError(f"{where}: no {FILES[part]}; clamp-mtop reads {DOWNLOAD}")
    return read_mtop(path, part)


@dataclass
class _Seen:
    roots: set[str] = field(default_factory=set)
    slots: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    most: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    nested: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    holds_words: set[str] = field(default_factory=set)

    def add(self, node: TopNode) -> None:
        if node.is_intent:
            slots = [child for child in node.children if isinstance(child, TopNode)]
            self.most[node.label] = max(self.most[node.label], len(slots))
            self.slots[node.label].update(child.label for child in slots)
        for child in node.children:
            if isinstance(child, str):
                if not node.is_intent:
                    self.holds_words.add(node.label)
                continue
            if not node.is_intent and child.is_intent:
                self.nested[node.label].add(child.label)
            self.add(child)


@dataclass(frozen=True)
class MtopGrammar:
    """The structure induced from training trees; ``for_utterance`` adds the copied runs of one utterance."""

    rules: str
    intents: int
    slots: int

    def for_utterance(self, tokens: Sequence[str], utterance: str) -> Grammar:
        runs = [_runs(tuple(tokens)), _runs(tuple(utterance.split()))]
        span = "|".join(dict.fromkeys(run for run in runs if run)) or "([^ \\[\\]]+ )+"
        return Grammar.lark(f"{self.rules}\nSPAN: /{span}/\n", f"MTOP's grammar ({self.intents} intents, "
                            f"{self.slots} slots) copying from {utterance[:40]!r}")


def _runs(tokens: tuple[str, ...]) -> str:
    """A regex for every contiguous run of ``tokens``, each followed by one space (each start, then optionally the
    next ...). The space belongs to the word before it, so the lexer never has to choose between a space that goes
    on with the run and one that starts the slot's ``]``: it reads the next byte."""
    words = [regex_escape(token) + " " for token in tokens if token and not any(c.isspace() for c in token)]
    if not words:
        return ""
    if len(words) > MAX_SPAN_TOKENS:
        return "(" + "|".join(dict.fromkeys(words)) + ")+"
    starts = []
    for start in range(len(words)):
        tail = ""
        for word in reversed(words[start + 1:]):
            tail = f"({word}{tail})?"
        starts.append(words[start] + tail)
    return "|".join(f"({run})" for run in dict.fromkeys(starts))


def _rule_names(labels: Iterable[str]) -> dict[str, str]:
    names: dict[str, str] = {}
    for label in sorted(labels):
        base = re.sub(r"[^a-z0-9_]", "_", label.lower().replace(":", "_", 1))
        name, k = base, 1
        while name in names.values():
            k += 1
            name = f"{base}_{k}"
        names[label] = name
    return names


def induce_mtop_grammar(trees: Iterable[str]) -> MtopGrammar:
    """BenchCLAMP's MTOP grammar from training decoupled forms (those that do not read are skipped)."""
    seen = _Seen()
    for text in trees:
        try:
            root = read_top(text)
        except TopError:
            continue
        seen.roots.add(root.label)
        seen.add(root)
    if not seen.roots:
        raise InputError("no decoupled form to induce MTOP's grammar from")
    slot_labels = set(seen.holds_words) | set(seen.nested) | {s for slots in seen.slots.values() for s in slots}
    intent_labels = set(seen.roots) | set(seen.most) | {i for inner in seen.nested.values() for i in inner}
    names = _rule_names(slot_labels | intent_labels)
    lines = ["start: " + " | ".join(names[label] for label in sorted(seen.roots))]
    for label in sorted(intent_labels):
        slots = sorted(seen.slots.get(label, ()))
        body = f"({' | '.join(names[s] for s in slots)})~0..{seen.most[label]}" if slots else ""
        lines.append(f"{names[label]}: {lit('[' + label)} {body} {lit(' ]')}".replace("  ", " "))
    for label in sorted(slot_labels):
        inside = [f"{names[i]} {lit(' ]')}" for i in sorted(seen.nested.get(label, ()))]
        if label in seen.holds_words or not inside:
            inside.append(f"SPAN {lit(']')}")
        lines.append(f"{names[label]}: {lit(' [' + label + ' ')} ({' | '.join(inside)})")
    return MtopGrammar("\n".join(lines), len(intent_labels), len(slot_labels))
