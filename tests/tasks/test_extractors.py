"""Answer-extraction policies: what part of a model's output is checked."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corral.registry import answer_extractors


def extract(policy: str, output: str) -> str:
    return answer_extractors.get(policy)(output)


@pytest.mark.parametrize(("policy", "output", "answer"), [
    ("whole", "  NN\n", "NN"),
    ("raw", "  NN\n", "  NN\n"),
    ("first_line", "\n\nNN\nbecause", "NN"),
    ("first_block", "NN\nbecause\n\nmore", "NN"),
    ("first_block", "\nNN", ""),  # the reference's rule: a leading newline means an empty first line
    ("first_block", "Translation:\nThe house", "Translation:"),
    ("fenced", "Here:\n```json\n{\"a\": 1}\n```\nDone.", "{\"a\": 1}"),
    ("fenced", "```\nx\n", "x"),
    ("fenced", "no fence", "no fence"),
])
def test_policies(policy, output, answer):
    assert extract(policy, output) == answer


@given(st.text(max_size=200))
def test_policies_never_raise_and_return_part_of_the_output(output):
    for policy in ("whole", "first_line", "first_block", "fenced", "raw"):
        answer = extract(policy, output)
        assert answer in output
