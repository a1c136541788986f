"""Overnight's "blocks" domain (Wang, Berant and Liang, ACL 2015): utterances and lambda-DCS formulas, read from the
user's copy of SEMPRE's ``.examples`` files (the data states no licence, so Corral does not ship it).

A folder holds ``blocks.paraphrases.train.examples`` and ``blocks.paraphrases.test.examples`` (gzipped or not).
Each example is ``(example (utterance "...") (original "...") (targetFormula ...))``. Formulas are simplified as
BenchCLAMP does (the ``edu.stanford.nlp.sempre.overnight.SimpleWorld.`` prefix dropped) and written canonically
(one space between items). BenchCLAMP's dev set is as many training examples as the test set has, drawn after a
shuffle with seed 0; the rest of the training set is the example pool.
"""

from __future__ import annotations

import gzip
import random
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from corral.errors import InputError
from corral.files import read_input_bytes

from ._lispress import LispressError, canonical_lispress

__all__ = ["OVERNIGHT_PARTS", "OvernightExample", "OvernightSplit", "overnight_split", "read_examples",
           "simplify_formula"]

PREFIX = "edu.stanford.nlp.sempre.overnight.SimpleWorld."
OVERNIGHT_PARTS = ("dev", "test")
FILES = {"train": "blocks.paraphrases.train.examples", "test": "blocks.paraphrases.test.examples"}
DOWNLOAD = ("Overnight's blocks files (blocks.paraphrases.train.examples and .test.examples, SEMPRE's format; "
            "github.com/percyliang/sempre or its redistributions)")
_EXAMPLE = re.compile(r'\(example\s+\(utterance\s+"((?:[^"\\]|\\.)*)"\)\s*(?:\(original\s+"(?:[^"\\]|\\.)*"\)\s*)?'
                      r"(\(targetFormula)\s")


@dataclass(frozen=True)
class OvernightExample:
    id: str
    utterance: str
    formula: str

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(self.utterance.split())


@dataclass(frozen=True)
class OvernightSplit:
    examples: tuple[OvernightExample, ...]
    """The pool few-shot examples and the induced grammar come from."""
    evaluated: tuple[OvernightExample, ...]


def simplify_formula(formula: str) -> str:
    """BenchCLAMP's simplification: ``SimpleWorld.``'s package prefix dropped, written canonically."""
    return canonical_lispress(formula.replace(PREFIX, ""))


def read_examples(path: Path, part: str) -> tuple[OvernightExample, ...]:
    """The examples of one ``.examples`` file (gzipped or not); an ``InputError`` naming the file and the example
    that cannot be read."""
    data = read_input_bytes(path)
    text = (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("utf-8", errors="replace")
    out: list[OvernightExample] = []
    for k, match in enumerate(_EXAMPLE.finditer(text)):
        formula = _balanced(text, match.start(2))
        if formula is None:
            raise InputError(f"{path}: example {k + 1}: its targetFormula has no closing parenthesis")
        try:
            simple = simplify_formula(formula[len("(targetFormula"):-1].strip())
        except LispressError as exc:
            raise InputError(f"{path}: example {k + 1}: the formula does not read: {exc}") from None
        utterance = match.group(1).replace('\\"', '"').replace("\\\\", "\\")
        out.append(OvernightExample(f"overnight-blocks-{part}-{k:04d}", utterance, simple))
    if len(out) != text.count("(example"):
        raise InputError(f"{path}: {text.count('(example')} examples, of which {len(out)} read as (example "
                         "(utterance ...) (targetFormula ...))")
    return tuple(out)


def _balanced(text: str, start: int) -> str | None:
    """The parenthesised group that starts at ``start`` (strings aside)."""
    depth, at, quoted = 0, start, False
    while at < len(text):
        char = text[at]
        if quoted:
            if char == "\\":
                at += 1
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return text[start:at + 1]
        at += 1
    return None


def _file(folder: Path, part: str) -> Path:
    for name in (FILES[part], FILES[part] + ".gz"):
        if (folder / name).is_file():
            return folder / name
    raise InputError(f"{folder}: no {FILES[part]}(.gz); clamp-overnight reads {DOWNLOAD} from the folder given as "
                     "-T data=FOLDER")


@cache
def overnight_split(folder: str, part: str) -> OvernightSplit:
    """BenchCLAMP's ``dev`` (as many training examples as the test set has, after a shuffle with seed 0) or
    ``test``; the pool is the training set without the dev examples either way."""
    if part not in OVERNIGHT_PARTS:
        raise InputError(f"unknown Overnight part {part!r}; valid: {', '.join(OVERNIGHT_PARTS)}")
    root = Path(folder)
    if not root.is_dir():
        raise InputError(f"{root}: no such folder; clamp-overnight reads {DOWNLOAD} from -T data=FOLDER")
    train, test = read_examples(_file(root, "train"), "train"), read_examples(_file(root, "test"), "test")
    order = list(range(len(train)))
    random.Random(0).shuffle(order)
    held = set(order[:len(test)])
    pool = tuple(example for k, example in enumerate(train) if k not in held)
    dev = tuple(train[k] for k in sorted(held))
    return OvernightSplit(pool, dev if part == "dev" else test)
