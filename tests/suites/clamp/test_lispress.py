"""Lispress reading and canonical printing (``corral.suites.clamp._lispress``): BenchCLAMP's Lispress match."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.errors import InputError
from corral.suites.clamp import Group, LispressError, canonical_lispress, lispress_match, read_lispress

SHARED = Path(os.environ.get("CORRAL_SHARED_DATA", Path(__file__).parents[3].parent / "shared" / "data"))
VALID = SHARED / "smcalflow_benchclamp" / "valid.dataflow_dialogues_ir.jsonl.gz"

NAMES = st.sampled_from(["Yield", ":output", "Constraint[Event]", "?=", "List[Path]", "2L", "^Event", "x0", "let"])
STRINGS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6).map(
    lambda s: json.dumps(s, ensure_ascii=False))
programs = st.recursive(
    st.one_of(NAMES, STRINGS),
    lambda inner: st.builds(Group, st.sampled_from(["(", "#(", "^(", "["]), st.lists(inner, max_size=4).map(tuple)),
    max_leaves=12).filter(lambda node: isinstance(node, Group))


@settings(max_examples=300, deadline=None)
@given(program=programs, spaces=st.lists(st.sampled_from([" ", "  ", "\n", "\t "]), min_size=1, max_size=5))
def test_a_printed_program_reads_back_the_same_and_spacing_does_not_count(program, spaces):
    text = canonical_lispress(program)
    assert read_lispress(text) == program
    assert canonical_lispress(text) == text
    spaced = text.replace(" ", spaces[0]).replace("(", "(" + spaces[-1])
    # (a space after an opener is spacing too, except inside a string, where the replace above may land)
    if '"' not in text:
        assert canonical_lispress(spaced) == text and lispress_match(spaced, text)


def test_type_brackets_belong_to_the_name_and_a_spaced_bracket_opens_a_list():
    tree = read_lispress('(f #(List[Path] []) [a "b c"] Constraint[List[Event]])')
    assert tree == Group("(", ("f", Group("#(", ("List[Path]", Group("[", ()))),
                               Group("[", ("a", '"b c"')), "Constraint[List[Event]]"))


def test_strings_compare_by_value_not_by_escape():
    assert lispress_match('(f "A\\"b")', '(f "\\u0041\\"b")')
    assert not lispress_match('(f #(String "a  b"))', '(f #(String "a b"))')
    assert not lispress_match("(f :a 1 :b 2)", "(f :b 2 :a 1)")  # argument order counts


@pytest.mark.parametrize(("text", "where"), [
    ("(a", "unclosed '(' opened at offset 0"), ("(a))", "unexpected ')' at offset 3"),
    ('(f "x)', "unterminated string opened at offset 3"), ("(a) b", "text after the program at offset 4"),
    ("", "empty"), ("(f [1 2) ]", "unexpected ')' at offset 7"), ("(" * 300, "nested deeper than 200"),
])
def test_a_text_that_is_not_one_program_is_refused_with_its_offset(text, where):
    with pytest.raises(LispressError, match=where.replace("(", r"\(").replace(")", r"\)")) as caught:
        read_lispress(text)
    assert isinstance(caught.value, InputError)
    assert not lispress_match(text, "(a)")


@pytest.mark.skipif(not VALID.exists(), reason="the shared SMCalFlow validation file is not here")
def test_every_smcalflow_validation_program_is_already_canonical():
    with gzip.open(VALID, "rt", encoding="utf-8") as f:
        programs = [t["lispress"] for line in f for t in json.loads(line)["turns"]]
    assert len(programs) == 14757
    assert all(canonical_lispress(p) == p for p in programs)
