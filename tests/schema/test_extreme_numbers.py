"""Numbers a model may write that Python's floats cannot hold: checking gives a verdict, never an exception."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corral.schema import SampleError, check_sample, parse_sample, validate

SCHEMAS = [{"type": "integer"}, {"multipleOf": 0.5}, {"multipleOf": 3}, {"multipleOf": 0.1}, {"maximum": 1.5},
           {"type": "number", "exclusiveMinimum": 0.1}, {"enum": [1.5]}, {"type": "integer", "minimum": 0}]

NUMBER_TEXT = st.one_of(
    st.builds(lambda sign, digits: sign + "1" + "0" * digits, st.sampled_from(["", "-"]), st.integers(0, 6000)),
    st.builds(lambda m, e: f"{m}e{e}", st.sampled_from(["1", "1.5", "-2.0"]), st.integers(-500, 500)),
    st.builds(lambda n: "1." + "5" * n, st.integers(1, 600)),
)


def _as(form: str, number: str) -> str:
    return f'<root type="{"float" if "." in number or "e" in number else "int"}">{number}</root>' \
        if form == "xml" else number


@given(schema=st.sampled_from(SCHEMAS), number=NUMBER_TEXT, form=st.sampled_from(["json", "yaml", "xml"]))
def test_checking_any_number_never_raises(schema, number, form):
    verdict = check_sample(schema, _as(form, number), form)
    assert isinstance(verdict.passed, bool)
    if not verdict.passed:
        assert verdict.feedback and "\n" not in verdict.feedback


def test_large_integers_get_exact_multiple_of_verdicts():
    big = 10**400
    assert validate({"multipleOf": 0.5}, big) == []
    assert validate({"multipleOf": 3}, big + 1) != []
    assert [v.keyword for v in validate({"multipleOf": 0.5}, big + 1)] == []  # every integer is a multiple of 0.5
    assert [v.keyword for v in validate({"multipleOf": 0.3}, big)] == ["multipleOf"]
    assert check_sample({"type": "integer"}, str(big), "json").passed


@pytest.mark.parametrize("form", ["json", "yaml", "xml"])
def test_numbers_past_the_digit_limit_or_float_range_are_not_samples(form):
    with pytest.raises(SampleError, match="more than 4,300 digits"):
        parse_sample(_as(form, "9" * 5000), form)
    if form != "xml":
        with pytest.raises(SampleError, match=r"range|not a JSON number"):
            parse_sample("1.0e+400", form)
