"""Builders of the shipped ``ner``, ``parse``, ``mcq`` and ``eqa`` instances, from treebanks under ``shared/data``.

Every builder is deterministic: sentences are read in file order, choices come from ``random.Random`` with a
fixed seed over lists in that order (never from set or dict order), and ids are given in source order. Run
``python -m scripts.formatbench --shared ../shared/data --out src/corral/suites/formatbench/data`` to rebuild the four
files; the same sources give the same bytes.

ner (UNER English EWT, CC BY-SA 4.0)
    IOB2 sentences of at most 60 tokens. test: 500 sentences of the UNER test file, 65 % with at least one entity
    and 35 % without (a third of the file's sentences have an entity; the test set is enriched so that the entity
    rules are exercised). train: every other dev sentence (the dev file is our training data), at its natural
    share of sentences without entities. fewshot: three plain dev sentences of 6 to 14 tokens whose first entity
    is a person, an organisation and a location, left out of train. The gold answer is the tokens joined by
    single spaces with each entity wrapped as ``<PER>John Smith</PER>``; ``entities`` lists ``[label, text]`` for
    the quality metric; ``tags`` is the label set found in the two files (PER, ORG, LOC; any other label would
    be added after them, so the checker would accept it).

parse (GUM constituency trees: CC BY 4.0 annotation over CC BY / CC BY-SA texts)
    Sentences of 5 to 25 tokens. test: every such sentence of the GUM test-split documents present (at most
    300); train: 1,000 drawn from the train-split documents; fewshot: three clauses (``S``) of 5 to 10 tokens from
    train-split documents, left out of train. The gold tree is normalised (``normalise_tree``): the ``ROOT``
    wrapper is dropped, function tags and indices are removed (``NP-SBJ-1`` becomes ``NP``, as in EVALB-style
    scoring), empty elements (``-NONE-``) and the phrases they leave empty are removed (GUM has none), and the tree
    is written on one line. Leaves are kept as GUM writes them, so ``tokens`` and the tree agree on escapes
    (``-LRB-``, ``-RRB-``, and ``[`` / ``]`` under ``-LRB-`` / ``-RRB-``).

mcq (UD English EWT, XPOS column)
    The Penn Treebank tag of one marked word: ``Sentence: <words>\\nWord: [[w]] (word i)``, the words being the
    syntactic words joined by spaces and ``i`` the 1-based position. The labels are the sorted set of XPOS tags in
    the three EWT files (49). One word per sentence of 3 to 60 words is drawn with weight
    ``1 / sqrt(tag frequency)`` (punctuation at a fifth of that), and a tag already at 12 % of the split's target is
    not drawn again, so no tag dominates. test: 400 from the test file; train: 2,000 from train.gz; fewshot: four
    from dev.

eqa (UD English EWT, dependency trees)
    Extractive questions whose gold span comes from the dependency tree. A sentence qualifies when it has no
    ``?``, its root is a VERB with one ``nsubj`` or ``nsubj:pass`` before it, and the subject's subtree is
    contiguous, at most 8 words, has no punctuation or wh-word, is headed by a noun (not a pronoun) and is either
    a proper noun or at least 2 words. Subject question: "Who or what" and the rest of the clause, from the first
    word after the subject up to (not including) the first later conjunct, parataxis, punctuation or the like
    that depends on the root, final punctuation trimmed, 2 to 20 words, copied from the ``# text`` line; words
    before the subject (adverbials, discourse markers) are dropped, and a clause with an auxiliary, copula or
    object before the subject is skipped, as are clauses with quotes, emoticons or addresses. The answer is the
    subject's text. Object question (for about half of the sentences that allow one): when the root is a simple
    past or present verb (VBD, VBZ, VBP) with no auxiliary, particle or clausal complement, its subject comes
    right before it and its object (a noun phrase with no punctuation, at most 8 words) right after it, the
    question is "What did/does/do <subject> <lemma> <rest>?" and the answer is the object's text. The passage is
    the sentence's paragraph when that has 2 to 6 sentences and at most 900 characters, otherwise 2 to 4
    consecutive sentences of the same document around it; the sentences' ``# text`` lines are joined with single
    spaces. Word offsets come from aligning the surface tokens (multiword tokens whole) with the ``# text`` line
    (``align``), so every answer is a real substring of the passage, recorded with its offset in
    ``answer_start``; ``answers`` adds the answer without a leading article. test: from the test and dev files
    (at most 6 a document); train: from train.gz (at most 12 a document); fewshot: two subject questions and one
    object question from other train.gz documents, with short passages.
"""

from __future__ import annotations

import argparse
import gzip
import math
import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from nltk import Tree

from corral.suites.formatbench import check_format

UNER = "uner_english_ewt"
UD = "ud_english_ewt"
GUM = "gum_const"
UNER_TEST, UNER_DEV = "en_ewt-ud-test.iob2", "en_ewt-ud-dev.iob2"
UD_TEST, UD_DEV, UD_TRAIN = "en_ewt-ud-test.conllu", "en_ewt-ud-dev.conllu", "en_ewt-ud-train.conllu.gz"
TAG_ORDER = ("PER", "ORG", "LOC")
MAX_NER_TOKENS = 60


# ---------------------------------------------------------------------------------------------------------------
# Reading the sources


@dataclass(frozen=True)
class Word:
    """One syntactic word of a CoNLL-U sentence; ``start``/``end`` are the character offsets, in the sentence's
    ``# text``, of the surface token it belongs to (a multiword token's words share its offsets)."""

    id: int
    form: str
    lemma: str
    upos: str
    xpos: str
    head: int
    deprel: str
    start: int = -1
    end: int = -1
    token_first: int = 0  # the first and last word ids of its surface token
    token_last: int = 0


@dataclass(frozen=True)
class Sentence:
    file: str
    sent_id: str
    doc: str
    par: str
    text: str
    words: tuple[Word, ...]

    @property
    def source(self) -> str:
        return f"{self.file}#{self.sent_id}"


def _open_text(path: Path) -> Iterator[str]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        yield from f


def align(text: str, forms: Sequence[str]) -> list[tuple[int, int]] | None:
    """The character span of each of ``forms`` in ``text``, matched in order with only whitespace between them;
    None when the forms do not spell the text."""
    spans, at = [], 0
    for form in forms:
        while at < len(text) and text[at].isspace():
            at += 1
        if not form or not text.startswith(form, at):
            return None
        spans.append((at, at + len(form)))
        at += len(form)
    if text[at:].strip():
        return None
    return spans


def _sentence(file: str, comments: dict[str, str], doc: str, par: str, rows: list[list[str]]) -> Sentence | None:
    words: list[list[str]] = []
    surfaces: list[tuple[str, int, int]] = []  # form, first word id, last word id
    covered = 0
    for cols in rows:
        ident = cols[0]
        if "." in ident:
            continue  # an empty node
        if "-" in ident:
            first, last = (int(x) for x in ident.split("-"))
            surfaces.append((cols[1], first, last))
            covered = last
            continue
        words.append(cols)
        if int(ident) > covered:
            surfaces.append((cols[1], int(ident), int(ident)))
    text = comments.get("text", "")
    spans = align(text, [s[0] for s in surfaces])
    offsets: dict[int, tuple[int, int, int, int]] = {}
    if spans is not None:
        for (_, first, last), (start, end) in zip(surfaces, spans, strict=True):
            for i in range(first, last + 1):
                offsets[i] = (start, end, first, last)
    built = []
    for cols in words:
        i = int(cols[0])
        start, end, first, last = offsets.get(i, (-1, -1, i, i))
        built.append(Word(i, cols[1], cols[2], cols[3], cols[4], int(cols[6]) if cols[6].isdigit() else 0,
                          cols[7], start, end, first, last))
    return Sentence(file, comments.get("sent_id", ""), doc, par, text, tuple(built))


def read_conllu(path: Path) -> list[Sentence]:
    """The sentences of a CoNLL-U file (plain or gzipped), with their document and paragraph ids."""
    out: list[Sentence] = []
    comments: dict[str, str] = {}
    rows: list[list[str]] = []
    doc = par = ""
    npar = 0
    for raw in _open_text(path):
        line = raw.rstrip("\n")
        if not line.strip():
            if rows:
                sentence = _sentence(path.name, comments, doc, par, rows)
                if sentence is not None:
                    out.append(sentence)
            comments, rows = {}, []
            continue
        if line.startswith("#"):
            key, _, value = line[1:].partition("=")
            key, value = key.strip(), value.strip()
            if key.startswith("newdoc"):
                doc = value or f"{path.name}:doc{len(out)}"
                npar += 1
                par = f"{doc}:p{npar}"
            elif key.startswith("newpar"):
                npar += 1
                par = value or f"{doc}:p{npar}"
            elif key in ("sent_id", "text"):
                comments[key] = value if key == "sent_id" else line.split("=", 1)[1][1:]
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            raise ValueError(f"{path.name}: a token line has {len(cols)} columns: {line!r}")
        rows.append(cols)
    if rows:
        sentence = _sentence(path.name, comments, doc, par, rows)
        if sentence is not None:
            out.append(sentence)
    return out


@dataclass(frozen=True)
class NerSentence:
    file: str
    sent_id: str
    tokens: tuple[str, ...]
    tags: tuple[str, ...]  # IOB2

    @property
    def source(self) -> str:
        return f"{self.file}#{self.sent_id}"


def read_iob2(path: Path) -> list[NerSentence]:
    """UNER's IOB2 files: ``# sent_id`` and ``# text`` comments, then ``idx TAB token TAB tag TAB - TAB annotator``."""
    out: list[NerSentence] = []
    sent_id, tokens, tags = "", [], []
    for raw in [*_open_text(path), "\n"]:
        line = raw.rstrip("\n")
        if not line.strip():
            if tokens:
                out.append(NerSentence(path.name, sent_id, tuple(tokens), tuple(tags)))
            sent_id, tokens, tags = "", [], []
            continue
        if line.startswith("#"):
            key, _, value = line[1:].partition("=")
            if key.strip() == "sent_id":
                sent_id = value.strip()
            continue
        cols = line.split("\t")
        if len(cols) < 3:
            raise ValueError(f"{path.name}: a token line has {len(cols)} columns: {line!r}")
        tokens.append(cols[1])
        tags.append(cols[2])
    return out


def entity_spans(tags: Sequence[str]) -> list[tuple[str, int, int]]:
    """``(label, first, end)`` token ranges of IOB2 tags; an ``I-`` that continues nothing starts an entity."""
    spans: list[tuple[str, int, int]] = []
    current: list[Any] | None = None
    for i, tag in enumerate(tags):
        kind, _, label = tag.partition("-")
        if kind == "I" and current is not None and current[0] == label:
            current[2] = i + 1
            continue
        if current is not None:
            spans.append((current[0], current[1], current[2]))
            current = None
        if kind in ("B", "I") and label:
            current = [label, i, i + 1]
        elif tag != "O":
            raise ValueError(f"not an IOB2 tag: {tag!r}")
    if current is not None:
        spans.append((current[0], current[1], current[2]))
    return spans


def tag_tokens(tokens: Sequence[str], spans: Iterable[tuple[str, int, int]]) -> str:
    """The tokens joined by single spaces, each entity wrapped as ``<LABEL>its tokens</LABEL>``."""
    pieces = list(tokens)
    for label, first, end in spans:
        pieces[first] = f"<{label}>{pieces[first]}"
        pieces[end - 1] = f"{pieces[end - 1]}</{label}>"
    return " ".join(pieces)


def _ids(task: str, split: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for n, row in enumerate(rows):
        row["id"] = f"{task}-{split}-{n:05d}"
        row["task"] = task
        row["split"] = split
    return rows


def _checked(task: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for row in rows:
        verdict = check_format(task, row, row["gold"])
        if not verdict.passed:
            raise AssertionError(f"{row['id']}: the gold fails the {task} checker: {verdict.feedback}")
    return rows


# ---------------------------------------------------------------------------------------------------------------
# ner


def _label_set(sentences: Iterable[NerSentence]) -> list[str]:
    found = sorted({tag.partition("-")[2] for s in sentences for tag in s.tags if tag != "O"})
    return [t for t in TAG_ORDER if t in found] + [t for t in found if t not in TAG_ORDER]


def _ner_row(sentence: NerSentence, tags: list[str]) -> dict[str, Any]:
    spans = entity_spans(sentence.tags)
    text = " ".join(sentence.tokens)
    return {"input": f"Sentence: {text}", "text": text, "tokens": list(sentence.tokens), "tags": tags,
            "gold": tag_tokens(sentence.tokens, spans), "source": sentence.source,
            "entities": [[label, " ".join(sentence.tokens[a:b])] for label, a, b in spans]}


def _plain_sentence(tokens: Sequence[str]) -> bool:
    """A sentence fit to show in a prompt: it starts with a capital, ends with ``.`` or ``!``, and has no markup,
    address or all-capital word."""
    text = " ".join(tokens)
    return (tokens[0][:1].isupper() and tokens[-1] in (".", "!") and not re.search(r"[<>@/\\|_#*]|http|www", text)
            and not any((len(t) > 1 and t.isupper()) or (len(t) == 1 and t.islower() and t != "a") for t in tokens))


def build_ner(shared: Path) -> list[dict[str, Any]]:
    folder = shared / UNER
    test_all, dev_all = read_iob2(folder / UNER_TEST), read_iob2(folder / UNER_DEV)
    tags = _label_set(test_all + dev_all)
    usable_test = [s for s in test_all if len(s.tokens) <= MAX_NER_TOKENS]
    usable_dev = [s for s in dev_all if len(s.tokens) <= MAX_NER_TOKENS]
    rng = random.Random(0)
    with_entity = [s for s in usable_test if entity_spans(s.tags)]
    without = [s for s in usable_test if not entity_spans(s.tags)]
    chosen = set(id(s) for s in rng.sample(with_entity, 325) + rng.sample(without, 175))
    test = [s for s in usable_test if id(s) in chosen]
    # fewshot: one short dev sentence for each of PER, ORG and LOC (the first label it has, in that order)
    fewshot: list[NerSentence] = []
    short = [s for s in usable_dev if 6 <= len(s.tokens) <= 14 and entity_spans(s.tags) and _plain_sentence(s.tokens)
             and not any(a[2] == b[1] for a, b in pairwise(entity_spans(s.tags)))]
    rng.shuffle(short)
    for label in TAG_ORDER:
        fewshot.append(next(s for s in short if s not in fewshot and entity_spans(s.tags)[0][0] == label))
    fewshot.sort(key=usable_dev.index)
    train = [s for s in usable_dev if s not in fewshot]
    rows = (_ids("ner", "test", [_ner_row(s, tags) for s in test])
            + _ids("ner", "train", [_ner_row(s, tags) for s in train])
            + _ids("ner", "fewshot", [_ner_row(s, tags) for s in fewshot]))
    return _checked("ner", rows)


# ---------------------------------------------------------------------------------------------------------------
# parse


def _plain_label(label: str) -> str:
    """``NP-SBJ-1`` and ``NP=2`` → ``NP``; labels that start with ``-`` (``-LRB-``, ``-NONE-``) stay whole."""
    if label.startswith("-") or not label:
        return label
    return re.split(r"[-=]", label, maxsplit=1)[0] or label


def normalise_tree(tree: Tree) -> Tree | None:
    """The tree without a ``ROOT``/``TOP``/unlabelled wrapper, function tags, indices and empty elements (and the
    phrases left empty); None when nothing is left."""

    def clean(node: Tree) -> Tree | None:
        if node.label() == "-NONE-":
            return None
        children: list[Any] = []
        for child in node:
            if isinstance(child, Tree):
                kept = clean(child)
                if kept is not None:
                    children.append(kept)
            else:
                children.append(child)
        if not children:
            return None
        is_preterminal = len(children) == 1 and isinstance(children[0], str)
        return Tree(node.label() if is_preterminal else _plain_label(node.label()), children)

    while tree.label() in ("", "ROOT", "TOP") and len(tree) == 1 and isinstance(tree[0], Tree):
        tree = tree[0]
    return clean(tree)


def one_line(tree: Tree) -> str:
    """The tree as a one-line bracketing: ``(S (NP (DT The) (NN cat)) (VP (VBD sat)))``."""
    if len(tree) == 1 and isinstance(tree[0], str):
        return f"({tree.label()} {tree[0]})"
    return "(" + tree.label() + " " + " ".join(one_line(c) if isinstance(c, Tree) else c for c in tree) + ")"


def read_ptb(path: Path) -> list[Tree]:
    """The trees of a GUM ``.ptb`` file (pretty-printed trees separated by blank lines)."""
    text = path.read_text(encoding="utf-8")
    return [Tree.fromstring(chunk) for chunk in re.split(r"\n\s*\n", text) if chunk.strip()]


def gum_splits(path: Path) -> dict[str, str]:
    """Document name → split, from GUM's ``splits.md``."""
    split, out = "", {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            split = line[3:].strip()
        elif line.strip().startswith("* ") and split:
            out[line.strip()[2:].strip()] = split
    return out


def _parse_row(name: str, index: int, tree: Tree) -> dict[str, Any]:
    tokens = tree.leaves()
    sentence = " ".join(tokens)
    return {"input": f"Sentence: {sentence}", "sentence": sentence, "tokens": tokens, "gold": one_line(tree),
            "source": f"{name}#{index}"}


def build_parse(shared: Path) -> list[dict[str, Any]]:
    folder = shared / GUM
    splits = gum_splits(folder / "splits.md")
    pool: dict[str, list[tuple[str, int, Tree]]] = {"test": [], "train": []}
    for path in sorted((folder / "const").glob("*.ptb")):
        split = splits.get(path.stem)
        if split not in pool:
            continue
        for index, raw in enumerate(read_ptb(path), start=1):
            tree = normalise_tree(raw)
            if tree is not None and 5 <= len(tree.leaves()) <= 25:
                pool[split].append((path.name, index, tree))
    rng = random.Random(0)
    test = pool["test"]
    if len(test) > 300:
        picked = set(rng.sample(range(len(test)), 300))
        test = [item for i, item in enumerate(test) if i in picked]
    short = [i for i, (_, _, tree) in enumerate(pool["train"]) if len(tree.leaves()) <= 10 and tree.label() == "S"
             and not any("-LRB-" in leaf or "-RRB-" in leaf for leaf in tree.leaves())]
    few_at = sorted(rng.sample(short, 3))
    rest = [i for i in range(len(pool["train"])) if i not in few_at]
    train_at = sorted(rng.sample(rest, min(1000, len(rest))))
    rows = (_ids("parse", "test", [_parse_row(*item) for item in test])
            + _ids("parse", "train", [_parse_row(*pool["train"][i]) for i in train_at])
            + _ids("parse", "fewshot", [_parse_row(*pool["train"][i]) for i in few_at]))
    return _checked("parse", rows)


# ---------------------------------------------------------------------------------------------------------------
# mcq


PUNCT_TAGS = frozenset({".", ",", ":", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP"})


def mcq_input(words: Sequence[str], at: int) -> str:
    """``Sentence: ...`` and the marked word with its 1-based position (``at`` is 0-based)."""
    return f"Sentence: {' '.join(words)}\nWord: [[{words[at]}]] (word {at + 1})"


def _mcq_rows(sentences: list[Sentence], count: int, labels: list[str], freq: Counter[str],
              rng: random.Random) -> list[dict[str, Any]]:
    cap = max(1, int(0.12 * count))
    taken: Counter[str] = Counter()
    order = list(range(len(sentences)))
    rng.shuffle(order)
    picked: list[tuple[int, int]] = []
    for n in order:
        words = sentences[n].words
        if not 3 <= len(words) <= 60:
            continue
        weights = []
        for w in words:
            weight = 0.0 if taken[w.xpos] >= cap or w.xpos not in labels else 1 / math.sqrt(freq[w.xpos])
            weights.append(weight * (0.2 if w.xpos in PUNCT_TAGS else 1.0))
        if not any(weights):
            continue
        at = rng.choices(range(len(words)), weights=weights)[0]
        taken[words[at].xpos] += 1
        picked.append((n, at))
        if len(picked) == count:
            break
    rows = []
    for n, at in sorted(picked):
        s = sentences[n]
        forms = [w.form for w in s.words]
        rows.append({"input": mcq_input(forms, at), "labels": labels, "gold": s.words[at].xpos,
                     "source": f"{s.source}#word{s.words[at].id}"})
    return rows


def build_mcq(shared: Path) -> list[dict[str, Any]]:
    folder = shared / UD
    test, dev, train = (read_conllu(folder / name) for name in (UD_TEST, UD_DEV, UD_TRAIN))
    freq = Counter(w.xpos for s in test + dev + train for w in s.words)
    labels = sorted(freq)
    rows = (_ids("mcq", "test", _mcq_rows(test, 400, labels, freq, random.Random(0)))
            + _ids("mcq", "train", _mcq_rows(train, 2000, labels, freq, random.Random(1)))
            + _ids("mcq", "fewshot", _mcq_rows(dev, 4, labels, freq, random.Random(2))))
    return _checked("mcq", rows)


# ---------------------------------------------------------------------------------------------------------------
# eqa


SUBJECTS = ("nsubj", "nsubj:pass")
LEADING = frozenset({"advmod", "obl", "obl:tmod", "obl:npmod", "obl:unmarked", "advcl", "discourse", "punct", "cc",
                     "vocative", "nmod:tmod", "nmod:unmarked"})
CUT = frozenset({"parataxis", "conj", "cc", "punct", "discourse", "vocative", "list", "dep", "reparandum",
                 "orphan", "appos"})
ARTICLES = ("the", "a", "an")
ODD = frozenset({"NFP", "ADD", "GW", "LS", "AFX", "SYM", "``", "''"})  # emoticons, addresses, quotes, ...
WH = frozenset({"WDT", "WP", "WP$", "WRB"})
MAX_CONTEXT = 900


def subtree(words: Sequence[Word], head: int) -> list[int]:
    """The ids (sorted) of ``head`` and the words below it."""
    below: dict[int, list[int]] = {}
    for w in words:
        below.setdefault(w.head, []).append(w.id)
    out, todo = [], [head]
    while todo:
        node = todo.pop()
        out.append(node)
        todo.extend(below.get(node, []))
    return sorted(out)


def text_span(sentence: Sentence, first: int, last: int) -> tuple[int, int] | None:
    """Character offsets in ``sentence.text`` of words ``first``..``last`` (1-based ids), or None when a bound
    falls inside a multiword token or the words are not aligned with the text."""
    a, b = sentence.words[first - 1], sentence.words[last - 1]
    if a.start < 0 or b.end < 0 or a.token_first != a.id or b.token_last != b.id:
        return None
    return a.start, b.end


def _top(words: Sequence[Word], i: int, root: int) -> Word:
    """The dependent of ``root`` whose subtree holds word ``i``."""
    w = words[i - 1]
    for _ in range(len(words)):
        if w.head == root:
            return w
        w = words[w.head - 1]
    raise ValueError("cycle in dependency tree")


def _capital(word: Word, text: str) -> str:
    """``text`` (starting with ``word``) with its first letter lowered, unless the word is a name, "I" or written
    in capitals."""
    keep = word.upos == "PROPN" or word.form == "I" or (len(word.form) > 1 and word.form.isupper())
    return text if keep else text[:1].lower() + text[1:]


def questions(sentence: Sentence) -> list[tuple[str, str, str, tuple[int, int]]]:
    """``(kind, question, answer, answer span in sentence.text)`` for the sentence; empty when it does not
    qualify (see the module's docstring)."""
    words = sentence.words
    roots = [w for w in words if w.head == 0]
    if len(roots) != 1 or roots[0].upos != "VERB" or not sentence.text.strip() or "?" in sentence.text:
        return []
    verb = roots[0]
    subjects = [w for w in words if w.head == verb.id and w.deprel in SUBJECTS]
    if len(subjects) != 1 or subjects[0].id > verb.id:
        return []
    subj = subjects[0]
    span = subtree(words, subj.id)
    if span != list(range(span[0], span[-1] + 1)) or len(span) > 8 or span[-1] >= verb.id:
        return []
    if subj.upos not in ("NOUN", "PROPN") or (len(span) < 2 and subj.upos != "PROPN"):
        return []
    if any(words[i - 1].upos in ("PUNCT", "SYM") or words[i - 1].form in ("<", ">") for i in span):
        return []
    for i in range(1, span[0]):
        if _top(words, i, verb.id).deprel not in LEADING:
            return []
    between = range(span[-1] + 1, verb.id)
    if any(words[i - 1].upos == "PUNCT" for i in between):
        return []
    # the clause after the subject, up to the first conjunct, parataxis or punctuation of the root after the verb
    cut = len(words) + 1
    for w in words:
        if w.head == verb.id and w.id > verb.id and w.deprel in CUT:
            cut = min(cut, subtree(words, w.id)[0])
    last = cut - 1
    while last > verb.id and words[last - 1].upos == "PUNCT":
        last -= 1
    answer_at = text_span(sentence, span[0], span[-1])
    rest_at = text_span(sentence, span[-1] + 1, last)
    if answer_at is None or rest_at is None or last - span[-1] < 2 or last - span[-1] > 20:
        return []
    rest = sentence.text[rest_at[0]:rest_at[1]]
    answer = sentence.text[answer_at[0]:answer_at[1]]
    if re.search(r"[\"“”()\[\]<>]", rest) or not re.match(r"[a-z]", rest):
        return []
    if any(words[i - 1].xpos in ODD for i in range(span[0], last + 1)) or any(words[i - 1].xpos in WH for i in span):
        return []
    found = [("subject", f"Who or what {rest}?", answer, answer_at)]
    found.extend(_object_question(sentence, verb, span, last))
    return found


def _object_question(sentence: Sentence, verb: Word, span: list[int],
                     last: int) -> list[tuple[str, str, str, tuple[int, int]]]:
    words = sentence.words
    do = {"VBD": "did", "VBZ": "does", "VBP": "do"}.get(verb.xpos)
    if do is None or span[-1] != verb.id - 1 or not verb.lemma.isalpha() or not verb.lemma.islower():
        return []
    deps = [w for w in words if w.head == verb.id]
    if any(w.deprel in ("aux", "aux:pass", "cop", "compound:prt", "iobj", "xcomp", "ccomp", "expl") for w in deps):
        return []
    objects = [w for w in deps if w.deprel == "obj"]
    if len(objects) != 1 or objects[0].upos not in ("NOUN", "PROPN"):
        return []
    obj = subtree(words, objects[0].id)
    if obj != list(range(obj[0], obj[-1] + 1)) or obj[0] != verb.id + 1 or obj[-1] > last or len(obj) > 8:
        return []
    if any(words[i - 1].upos in ("PUNCT", "SYM") for i in obj):
        return []
    answer_at = text_span(sentence, obj[0], obj[-1])
    subject_at = text_span(sentence, span[0], span[-1])
    if answer_at is None or subject_at is None:
        return []
    subject = _capital(words[span[0] - 1], sentence.text[subject_at[0]:subject_at[1]])
    tail = ""
    if last > obj[-1]:
        tail_at = text_span(sentence, obj[-1] + 1, last)
        if tail_at is None:
            return []
        tail = " " + sentence.text[tail_at[0]:tail_at[1]]
        if re.search(r"[\"“”()\[\]<>]", tail):
            return []
    question = f"What {do} {subject} {verb.lemma}{tail}?"
    return [("object", question, sentence.text[answer_at[0]:answer_at[1]], answer_at)]


def _context(doc: list[Sentence], t: int) -> tuple[list[Sentence], int] | None:
    """The passage around ``doc[t]``: its paragraph (2 to 6 sentences, at most 900 characters) or 2 to 4 sentences
    of the document around it; with the index of ``doc[t]`` in it."""
    par = [i for i, s in enumerate(doc) if s.par == doc[t].par]
    windows = [(par[0], par[-1] + 1)] if 2 <= len(par) <= 6 else []
    windows += [(t - 1, t + 3), (t - 1, t + 2), (t, t + 2), (t - 1, t + 1), (t, t + 3), (t - 2, t + 1)]
    for a, b in windows:
        a, b = max(0, a), min(len(doc), b)
        chosen = doc[a:b]
        if 2 <= len(chosen) <= 6 and len(" ".join(s.text for s in chosen)) <= MAX_CONTEXT:
            return chosen, t - a
    return None


def _eqa_candidates(sentences: list[Sentence], rng: random.Random) -> list[dict[str, Any]]:
    """Every qualifying sentence's row (one question each: the object question for about half of those that allow
    one), in source order."""
    docs: dict[str, list[Sentence]] = {}
    for s in sentences:
        docs.setdefault(s.doc, []).append(s)
    rows = []
    for s in sentences:
        found = questions(s)
        if not found:
            continue
        doc = docs[s.doc]
        around = _context(doc, doc.index(s))
        if around is None:
            continue
        chosen, at = around
        kind, question, answer, (start, _) = found[-1] if len(found) > 1 and rng.random() < 0.5 else found[0]
        offset = sum(len(c.text) + 1 for c in chosen[:at])
        context = " ".join(c.text for c in chosen)
        if context[offset + start:offset + start + len(answer)] != answer:
            raise AssertionError(f"{s.source}: the answer is not at its offset")
        answers = [answer]
        first, _, after = answer.partition(" ")
        if first.lower() in ARTICLES and after:
            answers.append(after)
        rows.append({"input": f"Passage: {context}\nQuestion: {question}", "context": context, "question": question,
                     "gold": answer, "answers": answers, "answer_start": offset + start, "kind": kind,
                     "source": s.source, "doc": s.doc})
    return rows


def _sample(rows: list[dict[str, Any]], count: int, rng: random.Random, per_doc: int) -> list[dict[str, Any]]:
    """Up to ``count`` rows, at most ``per_doc`` from a document, drawn at random and returned in source order."""
    order = list(range(len(rows)))
    rng.shuffle(order)
    used: Counter[str] = Counter()
    picked = []
    for i in order:
        if used[rows[i]["doc"]] < per_doc:
            used[rows[i]["doc"]] += 1
            picked.append(i)
            if len(picked) == count:
                break
    return [rows[i] for i in sorted(picked)]


def build_eqa(shared: Path) -> list[dict[str, Any]]:
    folder = shared / UD
    rng = random.Random(0)
    test_pool = _eqa_candidates(read_conllu(folder / UD_TEST) + read_conllu(folder / UD_DEV), rng)
    train_pool = _eqa_candidates(read_conllu(folder / UD_TRAIN), rng)
    test = _sample(test_pool, 400, rng, 6)
    # fewshot first (two subject questions and one object question, short passages, three documents), then train
    # from the other documents
    short = [row for row in train_pool if len(row["context"]) <= 400 and "," not in row["question"]]
    fewshot = _sample([row for row in short if row["kind"] == "subject"], 2, rng, 1)
    used = {row["doc"] for row in fewshot}
    fewshot += _sample([row for row in short if row["kind"] == "object" and row["doc"] not in used], 1, rng, 1)
    fewshot.sort(key=train_pool.index)
    used = {row["doc"] for row in fewshot}
    train = _sample([row for row in train_pool if row["doc"] not in used], 1000, rng, 12)
    rows = _ids("eqa", "test", test) + _ids("eqa", "train", train) + _ids("eqa", "fewshot", fewshot)
    for row in rows:
        del row["doc"]
    return _checked("eqa", rows)


# ---------------------------------------------------------------------------------------------------------------

BUILDERS = {"ner": build_ner, "parse": build_parse, "mcq": build_mcq, "eqa": build_eqa}


def main(shared: Path, out: Path) -> list[Path]:
    """Build the four tasks from ``shared`` (the ``shared/data`` folder) and write them to ``out``."""
    from corral.suites.formatbench import write_instances

    return [write_instances(task, build(shared), out) for task, build in BUILDERS.items()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=Path("../shared/data"), help="the shared/data folder")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "data", help="where to write")
    args = parser.parse_args()
    for path in main(args.shared, args.out):
        print(f"{path} ({path.stat().st_size:,} bytes)")
