"""Corpus sources, chunking and filters: streaming, order, skipped lines with their numbers, clear errors."""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corral.corpora import (
    CorpusError,
    Document,
    FilterReport,
    Pipeline,
    SourceStats,
    chunks,
    default_corpus,
    length,
    read_corpus,
)
from corral.registry import RegistryError
from corral.text import segment


def test_folder_of_text_and_jsonl_in_sorted_path_order(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "two.txt").write_text("Second file.")
    (tmp_path / "a.txt").write_text("First file.")
    (tmp_path / "c.jsonl").write_text(json.dumps({"id": 7, "body": "From JSON.", "year": 1851}) + "\n")
    (tmp_path / "skip.bin").write_bytes(b"\x00\x01")
    docs = list(read_corpus(tmp_path, text_field="body"))
    assert [d.text for d in docs] == ["First file.", "Second file.", "From JSON."]
    assert docs[2].id.endswith("c.jsonl:7") and docs[2].meta == {"id": 7, "year": 1851}


def test_malformed_jsonl_lines_are_skipped_and_counted_with_their_line_numbers(tmp_path):
    path = tmp_path / "rows.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write('{"text": "one"}\n{"text": \n\n{"title": "no text"}\n["not", "a", "dict"]\n{"text": "five"}\n')
    stats = SourceStats()
    assert [d.text for d in read_corpus(path, stats=stats)] == ["one", "five"]
    assert stats.documents == 2
    assert [s.split(": ")[0] for s in stats.skipped] == [f"{path}:2:10", f"{path}:4", f"{path}:5"]
    assert "malformed JSON" in stats.skipped[0] and "no string field 'text'" in stats.skipped[1]


def test_bad_paths_are_errors_naming_them(tmp_path):
    with pytest.raises(CorpusError, match="does not exist"):
        list(read_corpus(tmp_path / "missing"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(CorpusError, match=r"has no \.txt"):
        list(read_corpus(tmp_path / "empty"))
    latin = tmp_path / "latin.txt"
    latin.write_bytes("café".encode("latin-1"))
    with pytest.raises(CorpusError, match=r"latin.txt: not UTF-8 text \(byte 3\)"):
        list(read_corpus(latin))
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(gzip.compress(b'{"text": "x"}\n' * 100)[:40])
    with pytest.raises(CorpusError, match=r"cannot read .*broken.jsonl.gz"):
        list(read_corpus(broken))


def test_default_corpus_has_the_three_parts_each_once():
    stats = SourceStats()
    docs = list(default_corpus(stats))
    sources = {d.source for d in docs}
    assert sources == {"public_domain", "collie-v1"}
    assert sum(d.id.startswith("public_domain:moby_dick/") for d in docs) == 138
    assert sum(d.id.startswith("public_domain:sotu/") for d in docs) == 233
    collie = [d for d in docs if d.source == "collie-v1"]
    assert {d.meta["source"] for d in collie} == {"wiki", "ccnews", "guten"}
    assert len({d.text for d in collie}) == len(collie)
    assert stats.documents == len(docs) and not stats.skipped
    assert [d.id for d in docs] == [d.id for d in read_corpus("default")]


paragraph = st.lists(st.sampled_from(["The cat sat.", "It rained all day.", "We left early!", "Why not?"]),
                     min_size=1, max_size=3).map(" ".join)


@given(st.lists(paragraph, min_size=0, max_size=8), st.integers(1, 4), st.sampled_from(["default", "collie-v1"]))
def test_passages_are_runs_of_k_paragraphs_that_segment_back(paragraphs, k, profile):
    document = Document("d", "\n\n".join(paragraphs), "test")
    passages = list(chunks(document, "passage", profile, passage_paragraphs=k))
    assert len(passages) == len(paragraphs) // k
    for i, passage in enumerate(passages):
        back = [u.text for u in segment(passage.text, "paragraph", profile)]
        whole = [u.text for u in segment(document.text, "paragraph", profile) if u.text.strip()]
        expected = whole[i * k:(i + 1) * k]
        assert back == expected and passage.index == i


def test_sentence_chunks_are_the_profiles_sentences():
    document = Document("d", "Dr. Smith arrived. He sat down.\n\nThen he left.", "test")
    assert [c.text for c in chunks(document, "sentence")] == ["Dr. Smith arrived.", "He sat down.", "Then he left."]
    with pytest.raises(ValueError, match="level"):
        list(chunks(document, "chapter"))


@pytest.mark.parametrize(("text", "removed_by"), [
    ("Name | Value | Unit.", "no_pipe"),
    ("See https://example.org for more details today.", "no_url"),
    ("Photo: The harbour at dawn, seen from the hill.", "no_caption"),
    ("Copyright 2020 The Times. All rights reserved.", "no_copyright"),
    ("It was a cold and windy night.\nTHE END OF PART ONE\nThey slept until noon.", "no_all_caps_line"),
    ("A heading without an end", "real_sentence"),
    ("Too short.", "real_sentence"),
    ("[1]", "strip_brackets"),
])
def test_each_collie_filter_removes_its_artefact(text, removed_by):
    report = FilterReport()
    chunk = next(chunks(Document("d", text, "t"), "paragraph"))
    assert list(Pipeline().run([chunk], report)) == []
    assert report.removed == {removed_by: 1} and report.fractions() == {removed_by: 1.0}


def test_post_processors_clean_and_clean_prose_passes():
    text = "## Loomings\nCall me Ishmael [1]. Some years ago, **never mind** how long, I went to sea."
    [chunk] = list(chunks(Document("d", text, "t"), "paragraph"))
    [kept] = list(Pipeline().run([chunk]))
    assert kept.text == "Call me Ishmael. Some years ago, never mind how long, I went to sea."
    report = FilterReport()
    clean = next(chunks(Document("d", "The sea was calm and the sky was grey.", "t"), "paragraph"))
    assert list(Pipeline(extra=[("short", length(max_words=5))]).run([clean], report)) == []
    assert report.removed == {"short": 1} and report.kept == 0


def test_unknown_filter_names_the_registered_ones():
    with pytest.raises(RegistryError, match=r"unknown chunk filter 'no_typos'.*no_url"):
        Pipeline(filters=("no_typos",))


def test_hugging_face_datasets_from_local_files(tmp_path):
    """Parquet (streamed) and save_to_disk folders read as corpora, offline; rows without text are counted."""
    datasets = pytest.importorskip("datasets")
    rows = {"id": ["a", "b", "c"], "body": ["One sentence here. Another one.", None, "Third text."]}
    data = datasets.Dataset.from_dict(rows)
    data.to_parquet(str(tmp_path / "part.parquet"))
    data.save_to_disk(str(tmp_path / "saved"))
    for path in (tmp_path / "part.parquet", tmp_path / "saved"):
        stats = SourceStats()
        docs = list(read_corpus(path, text_field="body", stats=stats))
        assert [d.text for d in docs] == ["One sentence here. Another one.", "Third text."]
        assert docs[0].id == f"{path.name}:a" and stats.skipped == [f"{path}:row 2: no string field 'body'"]
    both = list(read_corpus(tmp_path, text_field="body"))  # a folder holding both: each read once, in order
    assert len(both) == 4
    with pytest.raises(CorpusError, match="no column 'text'; columns: id, body"):
        list(read_corpus(tmp_path / "part.parquet"))
    (tmp_path / "bad.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(CorpusError, match=r"bad\.parquet"):
        list(read_corpus(tmp_path / "bad.parquet", text_field="body"))
