"""Build the parsing data of the BenchCLAMP-style suite ``corral.suites.clamp`` from the shared data folder.

    python -m scripts.build_clamp_data --shared /work/shared/data [--out src/corral/suites/clamp/data]

The build is deterministic: files and sentences are read in a fixed order (sorted file names, file order within
a file), and each file is written as compact JSON lines gzipped with no name and a zero timestamp, so the same
sources give the same bytes.

``gum_const.jsonl.gz`` (GUM constituency trees of the licence-filtered genres, see DATA_LICENSES.md)
    One row per tree of every ``const/*.ptb`` file, ``{"id", "part", "words", "tree"}``. ``id`` is the document
    name and the tree's 1-based position in it (``GUM_academic_art-12``); ``part`` is the document's split in
    GUM's ``splits.md`` (train, dev or test; a document listed nowhere, or only under ``test2``, stops the build).
    The tree is normalised by FormatBench's ``normalise_tree``: the ``ROOT`` wrapper is dropped, function tags and
    indices are removed from phrase labels (``NP-SBJ-1`` becomes ``NP``; part-of-speech tags are kept whole, so
    ``-LRB-`` and ``PRP$`` stay), and empty elements (``-NONE-`` traces) are removed together with the phrases
    they leave empty. GUM has no empty elements, so in practice nothing is removed. It is written on one line
    (``one_line``); ``words`` are exactly its leaves in order, as GUM writes them (``-LRB-``/``-RRB-`` for
    brackets). A leaf containing a bracket or a space would make the one-line tree ambiguous and stops the build.

``spider_dev.jsonl.gz`` (Spider's development set and the schemas of its 20 databases, CC BY-SA 4.0)
    First one row per database (``kind: schema``: original table and column names, column types, primary and
    foreign keys as indices into ``columns``, Spider's ``*`` entry dropped), then one per question (``kind:
    question``: ``id``, ``db_id``, the English question and the gold SQL as Spider writes it). See
    ``spider_rows``.

``cosql_dev.jsonl.gz`` (CoSQL's development set, CC BY-SA 4.0)
    One row per turn with SQL (``kind: turn``: ``id``, ``dialogue``, ``turn``, ``db_id``, the utterance and the gold
    SQL as CoSQL writes it), over the same 20 databases as Spider's dev set. See ``cosql_rows``.

``benchclamp_sql_grammar.jsonl.gz`` (BenchCLAMP's SQLite SCFG, MIT)
    The six ``sql_grammar/*.scfg`` files as ``{"file", "text"}`` rows (``sql_grammar_rows``).

``benchclamp_calflow_grammar.jsonl.gz`` (BenchCLAMP's CalFlow grammar sources, MIT)
    ``calflow_grammar/*.scfg`` and ``calflow_data/{types,templates,specialTypes}.csv`` as ``{"file", "text"}``
    rows (``calflow_grammar_rows``).

``smcalflow_valid.jsonl.gz`` (SMCalFlow 2.0 validation dialogues from BenchCLAMP's repository, MIT)
    One row per turn, ``{"id", "part", "utterance", "last_user", "last_agent", "lispress", "skip", "splits"}``:
    ``id`` is ``<dialogue id>_<turn index>``, ``part`` is always ``dev`` (the training dialogues are not in the
    shared data), ``last_user``/``last_agent`` the previous turn's utterances ("" on a first turn), ``skip``
    SMCalFlow's own flag for turns left out of evaluation, and ``splits`` the BenchCLAMP id lists that name the
    turn (``dev-100``, ``dev-200``). A listed turn missing from the file stops the build.

``ud_ewt.jsonl.gz`` (UD English EWT, CC BY-SA 4.0)
    One row per sentence of ``en_ewt-ud-{train,dev,test}.conllu`` (plain or ``.gz``), read with the ``conllu``
    package, ``{"id", "part", "words", "heads", "relations"}`` over the syntactic words: multiword-token ranges
    (``1-2``) and empty nodes (``8.1``) are skipped, heads are 1-based word positions with 0 for the root, and
    relations are the DEPREL column as written (subtypes such as ``nsubj:pass`` kept). ``id`` is the sentence's
    ``sent_id``. A sentence without exactly one root, with a head out of range or with non-consecutive word ids
    stops the build.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import conllu

from corral.jsonl import atomic_write
from scripts.formatbench.build_ud import gum_splits, normalise_tree, one_line, read_ptb

OUT = Path(__file__).resolve().parents[1] / "src" / "corral" / "suites" / "clamp" / "data"
GUM_FILE, EWT_FILE = "gum_const.jsonl.gz", "ud_ewt.jsonl.gz"
PARTS = ("train", "dev", "test")


def encode(rows: Iterable[dict[str, Any]]) -> bytes:
    """Compact JSON lines, gzipped reproducibly (no file name, zero timestamp, level 9)."""
    data = "".join(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n" for row in rows)
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as out:
        out.write(data.encode("utf-8"))
    return buffer.getvalue()


# ---------------------------------------------------------------------------------------------------------------
# GUM


def gum_rows(shared: Path) -> list[dict[str, Any]]:
    folder = shared / "gum_const"
    splits = gum_splits(folder / "splits.md")
    rows: list[dict[str, Any]] = []
    for path in sorted((folder / "const").glob("*.ptb")):
        part = splits.get(path.stem)
        if part not in PARTS:
            raise ValueError(f"{path.name}: not in a train/dev/test split of splits.md (found {part!r})")
        for index, raw in enumerate(read_ptb(path), start=1):
            tree = normalise_tree(raw)
            if tree is None:
                raise ValueError(f"{path.name}#{index}: the tree is empty once normalised")
            words = list(tree.leaves())
            if any(not w or re.search(r"[\s()]", w) for w in words):
                raise ValueError(f"{path.name}#{index}: a leaf with a bracket or a space: {words}")
            rows.append({"id": f"{path.stem}-{index}", "part": part, "words": words, "tree": one_line(tree)})
    return rows


# ---------------------------------------------------------------------------------------------------------------
# UD English EWT


def _ewt_file(folder: Path, part: str) -> Path:
    for name in (f"en_ewt-ud-{part}.conllu", f"en_ewt-ud-{part}.conllu.gz"):
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(f"no en_ewt-ud-{part}.conllu(.gz) in {folder}")


def _sentences(path: Path) -> Iterator[conllu.TokenList]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        yield from conllu.parse_incr(f)


def ewt_row(sentence: conllu.TokenList, part: str, label: str) -> dict[str, Any]:
    """The row of one CoNLL-U sentence: its syntactic words (no ranges, no empty nodes), heads and relations."""
    words = [token for token in sentence if isinstance(token["id"], int)]
    sent_id = sentence.metadata.get("sent_id", "")
    if not sent_id:
        raise ValueError(f"{label}: a sentence without a sent_id")
    if [token["id"] for token in words] != list(range(1, len(words) + 1)):
        raise ValueError(f"{label}#{sent_id}: word ids are not 1..n")
    heads = [token["head"] for token in words]
    if any(not isinstance(h, int) or not 0 <= h <= len(words) for h in heads) or heads.count(0) != 1:
        raise ValueError(f"{label}#{sent_id}: heads out of range or not exactly one root: {heads}")
    return {"id": sent_id, "part": part, "words": [token["form"] for token in words], "heads": heads,
            "relations": [token["deprel"] for token in words]}


def ewt_rows(shared: Path) -> list[dict[str, Any]]:
    folder = shared / "ud_english_ewt"
    rows = []
    for part in PARTS:
        path = _ewt_file(folder, part)
        rows.extend(ewt_row(sentence, part, path.name) for sentence in _sentences(path))
    ids = [row["id"] for row in rows]
    if len(set(ids)) != len(ids):
        raise ValueError("EWT sent_ids are not unique across the three files")
    return rows


# ---------------------------------------------------------------------------------------------------------------
# SMCalFlow 2.0 (Lispress)

CALFLOW_FILE = "smcalflow_valid.jsonl.gz"
CALFLOW_SPLITS = {"dev-100": "ids_dev_100_uniform.txt", "dev-200": "ids_dev_200_uniform.txt"}


def calflow_rows(shared: Path) -> list[dict[str, Any]]:
    """One row per turn of the SMCalFlow 2.0 validation dialogues, in file order, with the context BenchCLAMP
    gives a model (the previous turn's user and agent utterances) and the BenchCLAMP id lists it belongs to."""
    folder = shared / "smcalflow_benchclamp"
    member: dict[tuple[str, int], list[str]] = {}
    for split, name in CALFLOW_SPLITS.items():
        for line in (folder / "calflow_data" / name).read_text(encoding="utf-8").split():
            dialogue, turn = line.rsplit(",", 1)
            member.setdefault((dialogue, int(turn)), []).append(split)
    rows = []
    with gzip.open(folder / "valid.dataflow_dialogues_ir.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            dialogue = json.loads(line)
            last_user = last_agent = ""
            for turn in dialogue["turns"]:
                key = (dialogue["dialogue_id"], int(turn["turn_index"]))
                utterance = turn["user_utterance"]["original_text"]
                rows.append({"id": f"{key[0]}_{key[1]}", "part": "dev", "utterance": utterance,
                             "last_user": last_user, "last_agent": last_agent, "lispress": turn["lispress"],
                             "skip": bool(turn["skip"]), "splits": member.pop(key, [])})
                last_user = utterance
                last_agent = (turn.get("agent_utterance") or {}).get("original_text", "")
    if member:
        raise SystemExit(f"{len(member)} listed turns are not in the validation file, e.g. {next(iter(member))}")
    return rows


# ---------------------------------------------------------------------------------------------------------------
# Spider (text to SQL)

SPIDER_FILE = "spider_dev.jsonl.gz"


def spider_rows(shared: Path) -> list[dict[str, Any]]:
    """Spider's development set, one row per database first (its schema) and then one per question, in file
    order: ``{"kind": "schema", "db_id", "tables", "columns", "types", "primary_keys", "foreign_keys"}`` with the
    original (SQLite) names, columns as ``[table index, name]`` without Spider's ``*`` entry and keys indexing
    ``columns``; ``{"kind": "question", "id", "part", "db_id", "question", "query"}`` with ``id`` the question's
    position (``spider-dev-0000``). A question whose database has no schema stops the build."""
    folder = shared / "spider"
    with gzip.open(folder / "dev.json.gz", "rt", encoding="utf-8") as f:
        questions = json.load(f)
    with gzip.open(folder / "tables.json.gz", "rt", encoding="utf-8") as f:
        schemas = {row["db_id"]: row for row in json.load(f)}
    used = sorted({q["db_id"] for q in questions})
    missing = [name for name in used if name not in schemas]
    if missing:
        raise SystemExit(f"no schema for the databases {missing}")
    rows: list[dict[str, Any]] = []
    for name in used:
        schema = schemas[name]
        columns = schema["column_names_original"]
        if columns[0] != [-1, "*"]:
            raise SystemExit(f"{name}: the first column is not Spider's '*' entry")
        rows.append({"kind": "schema", "db_id": name, "tables": schema["table_names_original"],
                     "columns": columns[1:], "types": schema["column_types"][1:],
                     "primary_keys": [k - 1 for k in schema["primary_keys"]],
                     "foreign_keys": [[a - 1, b - 1] for a, b in schema["foreign_keys"]]})
    for k, question in enumerate(questions):
        rows.append({"kind": "question", "id": f"spider-dev-{k:04d}", "part": "dev", "db_id": question["db_id"],
                     "question": question["question"], "query": question["query"]})
    return rows


COSQL_FILE = "cosql_dev.jsonl.gz"


def cosql_rows(shared: Path) -> list[dict[str, Any]]:
    """CoSQL's development set, one row per turn with SQL, dialogues in file order: ``{"kind": "turn", "id",
    "part", "dialogue", "turn", "db_id", "utterance", "query"}`` (``cosql-dev-000-00``: dialogue and turn by
    position). Its databases are Spider's 20 dev databases, whose schemas ``spider_rows`` ships; a turn over another
    database stops the build. CoSQL's file writes its queries tokenised, and 24 of them split an operator (``> =``,
    ``! =``), which SQLite refuses: those are joined (``>=``, ``!=``); nothing else is changed (one gold query with
    an unmatched parenthesis stays as it is)."""
    folder = shared / "cosql"
    with gzip.open(folder / "dev.json.gz", "rt", encoding="utf-8") as f:
        dialogues = json.load(f)
    known = {row["db_id"] for row in spider_rows(shared) if row["kind"] == "schema"}
    rows: list[dict[str, Any]] = []
    for d, dialogue in enumerate(dialogues):
        if dialogue["database_id"] not in known:
            raise SystemExit(f"CoSQL dialogue {d} is over {dialogue['database_id']!r}, not a Spider dev database")
        for t, turn in enumerate(dialogue["interaction"]):
            rows.append({"kind": "turn", "id": f"cosql-dev-{d:03d}-{t:02d}", "part": "dev",
                         "dialogue": f"cosql-dev-{d:03d}", "turn": t, "db_id": dialogue["database_id"],
                         "utterance": turn["utterance"], "query": re.sub(r"([<>!])\s+=", r"\1=", turn["query"])})
    return rows


SQL_GRAMMAR_FILE = "benchclamp_sql_grammar.jsonl.gz"


def sql_grammar_rows(shared: Path) -> list[dict[str, Any]]:
    """BenchCLAMP's SQLite SCFG, one row per ``.scfg`` file in name order, ``{"file", "text"}``, unchanged (the
    MIT notice of the ANTLR grammar it adapts stays in ``lexer.scfg`` and ``parser.scfg``)."""
    folder = shared / "smcalflow_benchclamp" / "sql_grammar"
    return [{"file": path.name, "text": path.read_text(encoding="utf-8")} for path in sorted(folder.glob("*.scfg"))]


CALFLOW_GRAMMAR_FILE = "benchclamp_calflow_grammar.jsonl.gz"


def calflow_grammar_rows(shared: Path) -> list[dict[str, Any]]:
    """BenchCLAMP's CalFlow grammar sources, ``{"file", "text"}`` per file, unchanged: the hand-written
    ``calflow_grammar/*.scfg`` rules and the function signatures and templates (``calflow_data/*.csv``) from which
    BenchCLAMP generates the rest."""
    folder = shared / "smcalflow_benchclamp"
    paths = sorted((folder / "calflow_grammar").glob("*.scfg")) + sorted((folder / "calflow_data").glob("*.csv"))
    return [{"file": f"{path.parent.name}/{path.name}", "text": path.read_text(encoding="utf-8")} for path in paths]


BUILDERS = {GUM_FILE: gum_rows, EWT_FILE: ewt_rows, CALFLOW_FILE: calflow_rows, SPIDER_FILE: spider_rows,
            COSQL_FILE: cosql_rows, SQL_GRAMMAR_FILE: sql_grammar_rows, CALFLOW_GRAMMAR_FILE: calflow_grammar_rows}


def main(shared: Path, out: Path = OUT) -> list[tuple[Path, list[dict[str, Any]]]]:
    """Build both files from ``shared`` (the ``shared/data`` folder) into ``out``; the paths and their rows."""
    written = []
    for name, build in BUILDERS.items():
        rows = build(shared)
        atomic_write(out / name, encode(rows))
        written.append((out / name, rows))
    return written


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=Path("../shared/data"), help="the shared/data folder")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write")
    args = parser.parse_args()
    for path, rows in main(args.shared, args.out):
        counts = {part: sum(row.get("part") == part for row in rows) for part in PARTS}
        print(f"{path} ({path.stat().st_size:,} bytes; {len(rows):,} rows: {counts})")
