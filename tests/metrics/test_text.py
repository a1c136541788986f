"""The shared quality metrics: bounded, symmetric where they should be, and equal to a hand count."""

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from corral.metrics import f1_stats, macro_f1, micro_f1, squad_f1

words = st.text(alphabet="abc ,.", max_size=20)
bags = st.lists(st.sampled_from(["x", "y", "z"]), max_size=6).map(Counter)


@given(words, words)
def test_squad_f1_is_bounded_symmetric_and_one_on_itself(a, b):
    assert 0.0 <= squad_f1(a, b) <= 1.0
    assert squad_f1(a, b) == squad_f1(b, a)
    assert squad_f1(a, a) == 1.0


@given(st.lists(st.tuples(bags, bags), max_size=5))
def test_micro_f1_of_summed_stats_is_a_hand_count_of_matches(pairs):
    summed: Counter = Counter()
    for predicted, gold in pairs:
        summed.update({k.split(":")[1]: v for k, v in f1_stats("m", predicted, gold).items()})
    tp = sum(min(p[w], g[w]) for p, g in pairs for w in "xyz")
    found, wanted = sum(p.total() for p, _ in pairs), sum(g.total() for _, g in pairs)
    expected = 1.0 if found + wanted == 0 else 2 * tp / (found + wanted)
    assert abs(micro_f1(dict(summed)) - expected) < 1e-12
    assert 0.0 <= micro_f1(dict(summed)) <= 1.0


def test_macro_f1_is_the_mean_of_the_labels_f1_on_a_0_1_scale():
    stats = {"tp_yes": 2.0, "fp_yes": 1.0, "fn_yes": 0.0, "tp_no": 0.0, "fp_no": 0.0, "fn_no": 1.0}
    assert macro_f1(stats) == (2 * 2 / (2 * 2 + 1) + 0.0) / 2
