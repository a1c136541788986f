"""The one verdict type: every checker returns it, it survives JSON, and rules are counted across verdicts."""

import json

from hypothesis import given
from hypothesis import strategies as st

from corral import Verdict, Violation, parse
from corral.constraints import check
from corral.schema import check_sample
from corral.suites.formatbench import check_format
from corral.verdicts import most_violated

values = st.one_of(st.none(), st.integers(), st.text(max_size=8), st.lists(st.integers(), max_size=3))
violations = st.builds(Violation, rule=st.sampled_from(["count:word", "type", "parse", "internal"]),
                       message=st.text(max_size=30), path=st.one_of(st.none(), st.text(max_size=8)),
                       span=st.one_of(st.none(), st.tuples(st.integers(0, 9), st.integers(10, 20))),
                       expected=values, seen=values)


@given(st.lists(violations, max_size=4), st.lists(st.sampled_from(["count:word", "type", "format"]), max_size=3,
                                                   unique=True))
def test_json_round_trip_keeps_everything_a_record_stores(found, rules):
    verdict = Verdict.of(found, rules=rules)
    again = Verdict.from_json(json.loads(json.dumps(verdict.to_json())))
    assert again.passed == verdict.passed == (not found)
    assert again.score == verdict.score and 0.0 <= verdict.score <= 1.0
    assert again.feedback == verdict.feedback
    assert [v.to_json() for v in again.violations] == [v.to_json() for v in verdict.violations]


def test_score_is_the_share_of_rules_no_violation_breaks():
    verdict = Verdict.of([Violation("a", "A broke."), Violation("a", "A again.")], rules=["a", "b", "c", "d"])
    assert not verdict.passed and verdict.score == 0.75 and verdict.violated_rules == ["a"]
    assert verdict.feedback == "A broke.\nA again."


def test_a_lazy_explanation_runs_only_when_read_and_only_for_a_failure():
    calls = []

    def explain():
        calls.append(1)
        from corral.verdicts import Explanation
        return Explanation((Violation("r", "m"),), "m")

    passed = Verdict.lazy(True, 1.0, explain)
    assert passed.violations == () and passed.feedback == "" and not calls
    failed = Verdict.lazy(False, 0.0, explain)
    assert not calls
    assert failed.feedback == "m" and failed.violations[0].rule == "r" and failed.feedback == "m"
    assert calls == [1]


def test_every_suite_checker_returns_the_one_verdict_type():
    constraint = parse("sentence: count(text, word, sentence) == 3")
    collie = check(constraint, "One two.")
    schema = check_sample({"type": "object", "properties": {"age": {"type": "integer", "minimum": 18}}},
                          '{"age": 12}', "json")
    not_a_sample = check_sample({"type": "object"}, "no braces here", "json")
    fmt = check_format("mcq", {"id": "x", "labels": ["A", "B", "C", "D"]}, "E")
    for verdict in (collie, schema, not_a_sample, fmt):
        assert isinstance(verdict, Verdict) and not verdict.passed and verdict.violations and verdict.feedback
    assert collie.violations[0].rule == "count:word" and collie.violations[0].seen == 2
    assert collie.violations[0].expected == "exactly 3" and collie.violations[0].span == (0, 8)
    assert schema.violations[0].rule == "minimum" and schema.violations[0].path == "/age"
    assert schema.violations[0].seen == 12 and schema.detail.parsed
    assert not_a_sample.violations[0].rule == "parse" and not not_a_sample.detail.parsed


def test_most_violated_counts_an_output_once_per_rule():
    verdicts = [Verdict.of([Violation("a", ""), Violation("a", "")]), Verdict.of([Violation("b", "")]),
                Verdict.of([Violation("a", "")]).to_json(), Verdict.of([])]
    assert most_violated(verdicts) == [("a", 2), ("b", 1)]
