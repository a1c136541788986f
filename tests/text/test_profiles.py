"""Profiles as registered values: lookup, matching rules, and the public ``segment`` function."""

from __future__ import annotations

import pytest

from corral.registry import RegistryError
from corral.text import Level, Unit, get_profile, segment


def test_builtin_profiles_are_registered():
    assert get_profile("default").name == "default"
    assert get_profile("collie-v1").name == "collie-v1"
    with pytest.raises(RegistryError, match=r"unknown segmentation profile 'nope'; available: .*collie-v1.*default"):
        get_profile("nope")


@pytest.mark.parametrize(("profile", "value", "case_sensitive", "expected"), [
    ("default", "Math.", False, "math"),
    ("default", "“Straße”", False, "strasse"),
    ("default", "Math.", True, "Math"),
    ("default", "...", False, "..."),  # nothing left: keep the value
    ("collie-v1", "Math.", False, "math"),
    ("collie-v1", "“Math”", False, "“math”"),  # only ASCII punctuation is stripped
    ("collie-v1", "I sit. ", False, "i sit"),
    ("collie-v1", "!!", False, "!!"),
])
def test_normalize(profile, value, case_sensitive, expected):
    assert get_profile(profile).normalize(value, case_sensitive) == expected


def test_segment_returns_units_with_offsets():
    text = "Dr. Smith arrived. He sat down."
    units = segment(text, "sentence")
    assert all(isinstance(u, Unit) for u in units)
    assert [u.text for u in units] == ["Dr. Smith arrived.", "He sat down."]
    assert all(text[u.start:u.end] == u.text for u in units)
    assert [u.text for u in segment(text, Level.SENTENCE, "collie-v1")] == ["Dr", "Smith arrived", "He sat down"]
    with pytest.raises(ValueError, match="unknown level 'line'"):
        segment(text, "line")


def test_level_names_and_order():
    assert Level.parse("character") is Level.CHAR
    assert [level.rank for level in Level] == [0, 1, 2, 3, 4]
    assert Level.CHAR.plural == "characters" and Level.SENTENCE.plural == "sentences"
