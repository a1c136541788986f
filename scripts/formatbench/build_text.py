"""Shipped data for three text tasks: CapSeg and AcroW from public-domain text, MTT from authored items.

Sources: ``pd_text/moby_dick.jsonl`` (Melville, 1851; the Etymology and Extracts sections are left out) and
``pd_text/sotu.jsonl.gz`` (State of the Union addresses, US-government works) under the shared data folder, cut
into sentences with ``corral.text``'s default segmentation. Every choice is seeded or made by a SHA-256 key, so
a rebuild from the same sources gives byte-identical files, whatever ``PYTHONHASHSEED`` is.

CapSeg (subtitle segmentation). A sentence is 60 to 200 characters of plain prose: one line with single
spaces; ASCII letters, digits and ``, . ; : ! ? ' " - — ( ) $`` only; an upper-case start and a final ``.``,
``!`` or ``?``; balanced double quotes and brackets; no dash standing alone or cutting a word; no heading
(an all-capitals first word such as ``XI``) and no stray single letter other than a, I, O; at most 30% capitals;
every word at most 42 characters (a longer one could not fit a line; such sentences are skipped).

The gold segmentation is computed, never annotated: a dynamic programme over the word boundaries considers every
way of cutting the sentence into blocks of one or two lines, each line at most 42 characters (its words joined
by single spaces), and takes the one that minimises, in this order,

1. the number of blocks;
2. the number of lines;
3. the break cost: each line or block break (the one at the end of the sentence excepted) costs 0 after a word
   ending in punctuation (``, . ; : ! ? —``, closing quotes and brackets allowed after it), 2 after a function
   word that should not end a subtitle line (an article, preposition, conjunction, pronoun, possessive,
   auxiliary: ``FUNCTION_WORDS``), and 1 after any other word;
4. the sum of the squared block lengths in characters (blocks of even length);
5. the sum of the squared line lengths (two lines of a block of even length).

Remaining ties are broken block by block from the start: the block that ends earlier, then the first line that
ends earlier. The gold text is the words with `` <eol> `` between the two lines of a block, `` <eob> ``
between blocks and `` <eob>`` at the end, e.g. ``Call me Ishmael. <eob>``: removing the markers and squeezing
spaces gives the sentence back. Splits are by document (a SHA-256 bucket of the document id), so test and
train never share a document, and a sentence that occurs in documents of two splits is dropped from both. Test
and train draw half of their sentences from each source; the 3 few-shot sentences show 1, 2 and 3 blocks.

AcroW (acrostic writing). Targets are real English words of 4 to 8 letters that occur in lower case at least
``MIN_WORD_COUNT`` times in each source, are written in lower case in at least 90% of their occurrences (which
leaves proper nouns out), and are neither function words nor in ``NOT_TARGETS``. Some targets are two words (3
to 5 letters each, 4 to 8 letters together, each qualifying as above and not in ``NOT_IN_PAIRS``) that stand
side by side in the text at least ``MIN_PAIR_COUNT`` times, such as ``high seas``. The gold answer is a found
poem: for each letter, one real sentence of the sources (15 to 100 characters of plain prose as above, without
digits or ``$``, starting with that letter), chosen by ``pick_lines``, from one source (chosen by the target's
SHA-256) when that source has a line for every letter. No sentence is used twice in the whole file.

MTT (German to English with terminology): the items are original data written for Corral, in
``data/mtt_items.json``; the gold answer is the authored reference translation.

Rebuild: ``python -m scripts.formatbench [--shared ../shared/data] [--out src/corral/suites/formatbench/data]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from corral.jsonl import iter_jsonl
from corral.suites.formatbench import MAX_LINE, MAX_LINES, write_instances
from corral.text import segment


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


SEED = 20240521
PD_TEXT = "pd_text"
SKIPPED_DOCUMENTS = ("moby_dick/etymology", "moby_dick/extracts")

# CapSeg
CAPSEG_MIN_CHARS, CAPSEG_MAX_CHARS = 60, 200
CAPSEG_COUNTS = {"test": 300, "train": 1500}
FUNCTION_WORDS = _word_set("""
a an the and or but nor so yet if as than that which who whom whose what when where while because though
although unless until since whether of to in on at by for with from into onto upon over under about above below
across after before against along among around behind between beyond during except inside near off out outside
through throughout toward towards within without via my your his her its our their this these those such no
every each either neither some any all both i we you he she it they me us him them is are was were be been has
have had do does did will would shall should can could may might must not
""")
_PLAIN = re.compile(r"[A-Za-z0-9 ,.;:!?'\"()$\-—]+")
_DANGLING = re.compile(r"(^|\s)[-—]|[-—](\s|$)")  # a dash standing alone, or a word cut by a dash
_BREAK_AFTER = re.compile(r"[,.;:!?—][\"')]*$")

# AcroW
ACROW_TEST, ACROW_TEST_PAIRS = 160, 20
MIN_WORD_COUNT = 3
MIN_PAIR_COUNT = 5
# Words that are never targets (besides FUNCTION_WORDS): modifiers, quantifiers and archaic forms, and, in a
# two-word target, also numbers and light verbs, so that a pair reads as a phrase ("high seas", "fair wind").
NOT_TARGETS = _word_set("""
also just like only very more most much many even then there here thus hence else onto unto thee thou thy thine
hath doth ought said same other whereas whereby whereof wherein thereof therein herein hitherto cannot
""")
NOT_IN_PAIRS = NOT_TARGETS | _word_set("""
one two three four five six seven eight nine ten few last next own too once still ever never well less least
made make take took come came gone done goes went give gave get got put set see saw seen know knew keep kept
being used use away back down ahead apart aside forth again ago far whole full real sure good best able
laid paid soon feet
""")
LINE_MIN_CHARS, LINE_MAX_CHARS = 15, 100
_TOKEN = re.compile(r"(?<![\w'’-])[A-Za-z]+(?![\w'’-])")
_PAIR = re.compile(r"(?<![\w'’-])([a-z]+) (?=([a-z]+)(?![\w'’-]))")  # overlapping pairs

# MTT
MTT_ITEMS = "mtt_items.json"


def _key(*parts: object) -> str:
    """A stable sort key (SHA-256 of the parts), the same in every process."""
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()


def _instance_id(task: str, split: str, n: int) -> str:
    return f"{task}-{split}-{n:05d}"


# --------------------------------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Sentence:
    corpus: str  # "moby_dick" or "sotu"
    document: str  # the document id, e.g. "moby_dick/chapter_3"
    index: int  # the sentence's place in its document (0-based, corral.text default segmentation)
    text: str

    @property
    def where(self) -> str:
        return f"{self.document}#{self.index}"


def _documents(shared: Path) -> list[tuple[str, str, str]]:
    """(corpus, document id, text) for every document, in file order."""
    folder = shared / PD_TEXT
    out = []
    for row in iter_jsonl(folder / "moby_dick.jsonl"):
        if row["id"] not in SKIPPED_DOCUMENTS:
            out.append(("moby_dick", row["id"], row["text"]))
    for row in iter_jsonl(folder / "sotu.jsonl.gz"):
        out.append(("sotu", row["id"], row["text"]))
    return out


@lru_cache(maxsize=2)
def _sentences_cached(folder: str) -> tuple[Sentence, ...]:
    out = []
    for corpus, document, text in _documents(Path(folder)):
        for index, unit in enumerate(segment(text, "sentence")):
            out.append(Sentence(corpus, document, index, unit.text))
    return tuple(out)


def sentences(shared: Path) -> tuple[Sentence, ...]:
    """Every sentence of the public-domain texts (cached per folder: both builders read them)."""
    return _sentences_cached(str(Path(shared).resolve()))


def plain_prose(text: str, min_chars: int, max_chars: int) -> bool:
    """One line of ordinary prose: the allowed characters only, single spaces, an upper-case start that is not a
    heading (``XI``, ``DEPARTMENT``), a final ``.``/``!``/``?``, balanced double quotes and brackets, no stray
    dash or letter (``t le``), few capitals, and no word longer than a subtitle line."""
    words = text.split(" ")
    head = words[0].strip("\"'(")
    return (min_chars <= len(text) <= max_chars and _PLAIN.fullmatch(text) is not None
            and (len(head) < 2 or not head.isupper())
            and all(len(w) > 1 or w in "aAIO" for w in (w.strip("\"'(),.;:!?") for w in words) if w.isalpha())
            and "  " not in text and text[0].isupper() and text[-1] in ".!?" and text.count('"') % 2 == 0
            and text.count("(") == text.count(")") and "--" not in text and _DANGLING.search(text) is None
            and sum(c.isupper() for c in text) <= 0.3 * sum(c.isalpha() for c in text)
            and max(len(word) for word in words) <= MAX_LINE)


# --------------------------------------------------------------------------------------------------
# CapSeg
# --------------------------------------------------------------------------------------------------

def _break_cost(word: str) -> int:
    if _BREAK_AFTER.search(word):
        return 0
    return 2 if word.strip("\"'()").lower() in FUNCTION_WORDS else 1


def _block_cost(lines: Sequence[str], end_word: str | None) -> tuple[int, int, int, int, int]:
    """The cost of one block (``lines``: its one or two lines), its final break after ``end_word`` (None at the
    end of the sentence): (1 block, its lines, its break cost, its length squared, its lines' lengths squared)."""
    breaks = sum(_break_cost(line.rsplit(" ", 1)[-1]) for line in lines[:-1])
    breaks += _break_cost(end_word) if end_word is not None else 0
    length = sum(len(line) for line in lines)
    return (1, len(lines), breaks, length * length, sum(len(line) ** 2 for line in lines))


def caption_cost(blocks: Sequence[Sequence[str]]) -> tuple[int, ...]:
    """What ``segment_caption`` minimises (compared as a tuple), for any segmentation given as blocks of lines."""
    total = [0, 0, 0, 0, 0]
    for b, block in enumerate(blocks):
        end_word = block[-1].rsplit(" ", 1)[-1] if b < len(blocks) - 1 else None
        total = [a + c for a, c in zip(total, _block_cost(block, end_word), strict=True)]
    return tuple(total)


def segment_caption(text: str) -> list[list[str]]:
    """The subtitle blocks of ``text`` (a list of blocks, each a list of 1 or 2 lines), as the module docstring
    describes: fewest blocks, then fewest lines, then the cheapest breaks, then even blocks and even lines.

    Raises ``ValueError`` when a word is longer than a line (no segmentation exists)."""
    words = text.split()
    if not words:
        raise ValueError("no words to segment")
    if max(len(w) for w in words) > MAX_LINE:
        raise ValueError(f"a word is longer than {MAX_LINE} characters")
    n = len(words)
    ends = [0]
    for word in words:
        ends.append(ends[-1] + len(word))

    def width(a: int, b: int) -> int:  # characters of words[a:b] joined by single spaces
        return ends[b] - ends[a] + (b - a - 1)

    def line(a: int, b: int) -> str:
        return " ".join(words[a:b])

    after = [0] + [_break_cost(word) for word in words]  # after[i]: the cost of a break after the i-th word

    # best[i]: the least cost of words[i:], and choice[i] = (end of its first block, its line split or 0).
    best: list[tuple[int, ...] | None] = [None] * (n + 1)
    choice: list[tuple[int, int]] = [(n, 0)] * (n + 1)
    best[n] = (0, 0, 0, 0, 0)
    longest_block = MAX_LINES * MAX_LINE + (MAX_LINES - 1)
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n + 1):
            if width(i, j) > longest_block:
                break
            rest = best[j]
            assert rest is not None
            end = after[j] if j < n else 0
            options = [(0, (1, 1, end, width(i, j) ** 2, width(i, j) ** 2))] if width(i, j) <= MAX_LINE else []
            for k in range(i + 1, j):
                first, second = width(i, k), width(k, j)
                if first <= MAX_LINE and second <= MAX_LINE:  # the same tuple as _block_cost, from the widths
                    options.append((k, (1, 2, end + after[k], (first + second) ** 2, first ** 2 + second ** 2)))
            for k, own in options:
                total = tuple(a + b for a, b in zip(own, rest, strict=True))
                current = best[i]
                if current is None or total < current:
                    best[i], choice[i] = total, (j, k)
    blocks, i = [], 0
    while i < n:
        j, k = choice[i]
        blocks.append([line(i, j)] if k == 0 else [line(i, k), line(k, j)])
        i = j
    return blocks


def caption_gold(blocks: Sequence[Sequence[str]]) -> str:
    """``line <eol> line <eob> line <eob>``: markers between words, spaces around them, a final ``<eob>``."""
    return " ".join(" <eol> ".join(block) + " <eob>" for block in blocks)


def caption_breaks(blocks: Sequence[Sequence[str]]) -> list[list[Any]]:
    """Each break as [number of words before it, "<eol>" or "<eob>"], the final ``<eob>`` included."""
    out: list[list[Any]] = []
    count = 0
    for block in blocks:
        for n, line in enumerate(block):
            count += len(line.split())
            out.append([count, "<eol>" if n < len(block) - 1 else "<eob>"])
    return out


def _split_of(task: str, document: str) -> str:
    bucket = int(_key(task, document)[:8], 16) % 10
    return "test" if bucket < 2 else "fewshot" if bucket == 2 else "train"


def _pools(task: str, items: Iterable[Sentence]) -> dict[str, list[Sentence]]:
    """Sentences by split (by document), each text once, and no text in two splits."""
    splits_of: dict[str, set[str]] = defaultdict(set)
    pools: dict[str, list[Sentence]] = defaultdict(list)
    seen: set[str] = set()
    items = list(items)
    for s in items:
        splits_of[s.text].add(_split_of(task, s.document))
    for s in items:
        if len(splits_of[s.text]) == 1 and s.text not in seen:
            seen.add(s.text)
            pools[_split_of(task, s.document)].append(s)
    return pools


def _capseg_row(split: str, n: int, s: Sentence, blocks: list[list[str]]) -> dict[str, Any]:
    return {"id": _instance_id("capseg", split, n), "task": "capseg", "split": split, "input": f"Text: {s.text}",
            "gold": caption_gold(blocks), "source": f"pd_text {s.where}", "text": s.text,
            "breaks": caption_breaks(blocks)}


def build_capseg(shared: Path) -> list[dict[str, Any]]:
    """CapSeg rows: test, train and 3 few-shot sentences, each with its computed gold segmentation."""
    eligible = [s for s in sentences(shared) if plain_prose(s.text, CAPSEG_MIN_CHARS, CAPSEG_MAX_CHARS)]
    pools = _pools("capseg", eligible)
    rows: list[dict[str, Any]] = []
    for split, total in CAPSEG_COUNTS.items():
        chosen: list[Sentence] = []
        for c, corpus in enumerate(("moby_dick", "sotu")):
            candidates = [s for s in pools[split] if s.corpus == corpus]
            want = total // 2 + (total % 2 if c == 0 else 0)
            chosen += random.Random(f"{SEED}-capseg-{split}-{corpus}").sample(candidates, want)
        chosen.sort(key=lambda s: _key("capseg-order", split, s.document, s.index))
        rows += [_capseg_row(split, n, s, segment_caption(s.text)) for n, s in enumerate(chosen)]
    fewshot = sorted(pools["fewshot"], key=lambda s: _key("capseg-fewshot", s.document, s.index))
    for n, blocks_wanted in enumerate((1, 2, 3)):
        for s in fewshot:
            blocks = segment_caption(s.text)
            if len(blocks) == blocks_wanted and sum(len(b) for b in blocks) > blocks_wanted:
                rows.append(_capseg_row("fewshot", n, s, blocks))
                fewshot.remove(s)
                break
    return rows


# --------------------------------------------------------------------------------------------------
# AcroW
# --------------------------------------------------------------------------------------------------

def pick_lines(target: str, pool: Mapping[str, Sequence[str]], avoid: Collection[str] = ()) -> list[str] | None:
    """The found poem for ``target``: for each of its letters (spaces skipped), one line of ``pool[letter]`` (the
    lines starting with that letter, by lower-case letter). If some lines contain a word of the target, one of
    them is taken; otherwise the line at a place given by SHA-256 of (target, position) in the pool's order, or
    the next one after it that is free. A line in ``avoid`` or already in the poem is never taken. None when
    some letter has no line left. A pure function of its arguments."""
    words = {w.lower() for w in target.split()}
    chosen: list[str] = []
    for position, letter in enumerate(c for c in target if not c.isspace()):
        lines = pool.get(letter.lower(), ())
        if not lines:
            return None
        at = int(_key("acrow", target, position), 16)
        themed = [line for line in lines if any(w in line.lower() for w in words) and line not in avoid
                  and line not in chosen and words & {t.lower() for t in _TOKEN.findall(line)}]
        if themed:
            chosen.append(themed[at % len(themed)])
            continue
        start = at % len(lines)
        free = next((line for line in (*lines[start:], *lines[:start]) if line not in avoid and line not in chosen),
                    None)
        if free is None:
            return None
        chosen.append(free)
    return chosen


def line_pools(shared: Path) -> tuple[dict[str, dict[str, list[str]]], dict[str, Sentence]]:
    """The lines a found poem may use, by source ("moby_dick", "sotu" and "all") and then by lower-case first
    letter, each sorted; and where each line comes from (its first occurrence)."""
    origin: dict[str, Sentence] = {}
    for s in sentences(shared):
        if (s.text not in origin and plain_prose(s.text, LINE_MIN_CHARS, LINE_MAX_CHARS)
                and not any(c.isdigit() or c == "$" for c in s.text)):
            origin[s.text] = s
    pools: dict[str, dict[str, list[str]]] = {"moby_dick": {}, "sotu": {}, "all": {}}
    for line in sorted(origin):
        for name in (origin[line].corpus, "all"):
            pools[name].setdefault(line[0].lower(), []).append(line)
    return pools, origin


def acrostic_targets(shared: Path) -> tuple[list[str], list[str]]:
    """(single words, two-word targets) that qualify, sorted: see the module docstring."""
    lower: dict[str, Counter[str]] = {"moby_dick": Counter(), "sotu": Counter()}
    every: Counter[str] = Counter()
    pairs: Counter[str] = Counter()
    for corpus, _document, text in _documents(shared):
        for token in _TOKEN.findall(text):
            every[token.lower()] += 1
            if token.islower():
                lower[corpus][token] += 1
        for first, second in _PAIR.findall(text):
            if 3 <= len(first) <= 5 and 3 <= len(second) <= 5:
                pairs[f"{first} {second}"] += 1

    def common(word: str) -> bool:
        return (word not in FUNCTION_WORDS and word not in NOT_TARGETS
                and min(lower["moby_dick"][word], lower["sotu"][word]) >= MIN_WORD_COUNT
                and lower["moby_dick"][word] + lower["sotu"][word] >= 0.9 * every[word])

    words = sorted(w for w in set(lower["moby_dick"]) | set(lower["sotu"]) if 4 <= len(w) <= 8 and common(w))
    two = sorted(p for p, count in pairs.items() if count >= MIN_PAIR_COUNT and 4 <= len(p) - 1 <= 8
                 and all(common(w) and w not in NOT_IN_PAIRS for w in p.split()))
    return words, two


def build_acrow(shared: Path) -> list[dict[str, Any]]:
    """AcroW rows: targets (single words and word pairs) with a found poem of public-domain lines as gold."""
    words, two = acrostic_targets(shared)
    rng = random.Random(f"{SEED}-acrow")
    plan = [("fewshot", t) for t in rng.sample(words, 2) + rng.sample(two, 1)]
    words = [w for w in words if w not in {t for _, t in plan}]
    two = [p for p in two if p not in {t for _, t in plan}]
    singles, doubles = rng.sample(words, len(words)), rng.sample(two, len(two))  # seeded orders to draw from
    pools, origin = line_pools(shared)
    used: set[str] = set()
    rows: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()

    def add(split: str, target: str) -> bool:
        corpus = ("moby_dick", "sotu")[int(_key("acrow-source", target)[:8], 16) % 2]
        lines = pick_lines(target, pools[corpus], used) or pick_lines(target, pools["all"], used)
        if lines is None:
            return False
        used.update(lines)
        rows.append({"id": _instance_id("acrow", split, counts[split]), "task": "acrow", "split": split,
                     "input": f"Word: {target}", "gold": "\n".join(lines), "target": target,
                     "source": "pd_text found poem: " + "; ".join(origin[line].where for line in lines)})
        counts[split] += 1
        return True

    for split, target in plan:
        if not add(split, target):
            raise ValueError(f"no found poem for few-shot target {target!r}")
    for queue, wanted in ((doubles, ACROW_TEST_PAIRS), (singles, ACROW_TEST - ACROW_TEST_PAIRS)):
        made = 0
        for target in queue:
            if made == wanted:
                break
            made += add("test", target)
        if made < wanted:
            raise ValueError(f"only {made} acrostic targets of {wanted} have a found poem")
    return rows


# --------------------------------------------------------------------------------------------------
# MTT
# --------------------------------------------------------------------------------------------------

def mtt_items() -> dict[str, Any]:
    """The authored MTT table (``data/mtt_items.json``)."""
    text = files("corral.suites.formatbench").joinpath("data", MTT_ITEMS).read_text(encoding="utf-8")
    return json.loads(text)


def mtt_input(src: str, terms: Mapping[str, str]) -> str:
    return f"German: {src}\nTerms: " + "; ".join(f"{de} → {en}" for de, en in terms.items())


def build_mtt(shared: Path | None = None) -> list[dict[str, Any]]:
    """MTT rows from the authored items; ``shared`` is not read (the items ship with Corral)."""
    table = mtt_items()
    fewshot = set(table["fewshot"])
    rows: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()
    for item in table["items"]:
        split = "fewshot" if item["id"] in fewshot else "test"
        rows.append({"id": _instance_id("mtt", split, counts[split]), "task": "mtt", "split": split,
                     "input": mtt_input(item["de"], item["terms"]), "gold": item["en"], "src": item["de"],
                     "terms": dict(item["terms"]), "references": [item["en"]], "domain": item["domain"],
                     "source": f"corral authored {MTT_ITEMS} {item['id']}"})
        counts[split] += 1
    return rows


# --------------------------------------------------------------------------------------------------

BUILDERS = {"capseg": build_capseg, "acrow": build_acrow, "mtt": build_mtt}


def main(shared: Path, out: Path) -> list[Path]:
    """Build the three tasks from ``shared`` (the shared data folder) and write them to ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    return [write_instances(task, build(shared), out) for task, build in BUILDERS.items()]


def _default_shared() -> Path:
    env = os.environ.get("CORRAL_SHARED_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[3].parent / "shared" / "data"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=_default_shared(), help="the shared data folder")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "data")
    arguments = parser.parse_args()
    for path in main(arguments.shared, arguments.out):
        print(path)
