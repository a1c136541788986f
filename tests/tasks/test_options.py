"""Task options as data: a task declares its options (``TaskOption``), ``get_task`` validates and converts them, and
what a task was made with is recorded in ``Task.options``."""

from __future__ import annotations

import math

import catalogue
import pytest
from hypothesis import given
from hypothesis import strategies as st

from corral.registry import tasks
from corral.tasks import (
    EXTRACT,
    Task,
    TaskFactory,
    TaskOption,
    TaskOptionError,
    get_task,
    register_task,
    task_options,
)

COLOURS = ("red", "green", "blue")
OPTIONS = (
    TaskOption("count", int, 3, "how many", choices=(1, 2, 3)),
    TaskOption("ratio", float, 0.5, "a share"),
    TaskOption("loud", bool, False, "shout"),
    TaskOption("colours", list, ("red",), "colours to use", choices=COLOURS),
    TaskOption("note", str, None, "an optional note"),
)


def _task(**options) -> Task:
    return Task(name="toy", version="1", instances=lambda: iter(()), check=lambda i, a: None,  # type: ignore[arg-type]
                grammar=lambda i: None, options={"derived": options["count"] * 2})


@pytest.fixture
def toy():
    """A task registered for the test and removed after it (the registry is global)."""
    factory = register_task("toy-options", options=OPTIONS)(_task)
    yield factory
    catalogue._remove(("corral", "tasks", "toy-options"))


# ------------------------------------------------------------------------------------------ one option's values
@pytest.mark.parametrize(("option", "text", "value"), [
    (OPTIONS[0], "2", 2),
    (OPTIONS[0], " 1 ", 1),
    (OPTIONS[1], "0.25", 0.25),
    (OPTIONS[1], "1", 1.0),
    (OPTIONS[2], "true", True),
    (OPTIONS[2], "No", False),
    (OPTIONS[2], "1", True),
    (OPTIONS[3], "red,blue", ("red", "blue")),
    (OPTIONS[3], " green , red ,", ("green", "red")),
    (OPTIONS[3], "", ()),
    (OPTIONS[4], "anything at all", "anything at all"),
])
def test_strings_from_the_command_line_become_the_declared_type(option, text, value):
    parsed = option.parse(text)
    assert parsed == value and type(parsed) is type(value)


@pytest.mark.parametrize(("option", "value", "message"), [
    (OPTIONS[0], "many", "bad option count='many'; expected an integer"),
    (OPTIONS[0], "2.5", "bad option count='2.5'; expected an integer"),
    (OPTIONS[0], "7", "bad option count='7'; expected one of 1, 2, 3"),
    (OPTIONS[0], True, "bad option count=True; expected an integer"),
    (OPTIONS[1], "half", "bad option ratio='half'; expected a number"),
    (OPTIONS[1], "nan", "bad option ratio='nan'; expected a number"),
    (OPTIONS[2], "maybe", "bad option loud='maybe'; expected true or false"),
    (OPTIONS[2], 1, "bad option loud=1; expected true or false"),
    (OPTIONS[3], "red,pink", "bad option colours='red,pink'; expected one of red, green, blue"),
    (OPTIONS[3], [1, 2], "bad option colours=[1, 2]; expected comma-separated values"),
    (OPTIONS[4], 3, "bad option note=3; expected a string"),
    (OPTIONS[0], None, "bad option count=None; expected an integer"),
])
def test_a_bad_value_is_one_line_naming_the_option_the_value_and_what_is_valid(option, value, message):
    with pytest.raises(TaskOptionError) as caught:
        option.parse(value)
    assert str(caught.value) == message and isinstance(caught.value, ValueError)


def test_python_values_are_kept_and_none_only_for_an_optional_option():
    assert OPTIONS[0].parse(2) == 2 and OPTIONS[1].parse(2) == 2.0 and OPTIONS[2].parse(True) is True
    assert OPTIONS[3].parse(["red", "green"]) == ("red", "green") and OPTIONS[4].parse(None) is None


def test_describe_says_type_default_and_choices():
    assert OPTIONS[0].describe() == "int, default 3, one of 1, 2, 3"
    assert OPTIONS[2].describe() == "bool, default false"
    assert OPTIONS[3].describe() == "list, default red, one of red, green, blue"
    assert OPTIONS[4].describe() == "str, default off"


def test_an_option_type_outside_the_five_is_refused():
    with pytest.raises(TypeError, match="type must be one of bool, int, float, str, list"):
        TaskOption("when", dict, None, "no")


# ------------------------------------------------------------------------------------------ the parser, as properties
@given(st.integers())
def test_int_round_trips_through_its_text(number):
    assert OPTIONS[1].parse(str(number)) == float(number)
    assert TaskOption("n", int, 0, "").parse(str(number)) == number


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_round_trips_through_its_text(number):
    assert TaskOption("x", float, 0.0, "").parse(repr(number)) == number


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters=",", blacklist_categories=("Cs",)), min_size=1)
                .map(str.strip).filter(bool)))
def test_a_list_is_its_comma_separated_items_stripped(items):
    assert TaskOption("xs", list, (), "").parse(",".join(items)) == tuple(items)
    assert TaskOption("xs", list, (), "").parse(" , ".join(items)) == tuple(items)


@given(st.booleans(), st.sampled_from([str, str.upper, str.title]))
def test_a_bool_reads_its_words_in_any_case(value, case):
    option = TaskOption("b", bool, False, "")
    assert option.parse(case("true" if value else "false")) is value
    assert option.parse(case("yes" if value else "no")) is value


@given(st.text())
def test_any_text_is_a_value_of_the_type_or_a_one_line_error(text):
    for option in OPTIONS[:3]:
        try:
            value = option.parse(text)
        except TaskOptionError as exc:
            assert "\n" not in str(exc) and str(exc).startswith(f"bad option {option.name}=")
        else:
            assert isinstance(value, option.type) and (option.type is not float or math.isfinite(value))


# ------------------------------------------------------------------------------------------ through get_task
def test_get_task_fills_defaults_converts_strings_and_records_the_values(toy):
    task = get_task("toy-options", count="2", loud="yes", colours="green,blue")
    assert task.options == {"count": 2, "ratio": 0.5, "loud": True, "colours": ("green", "blue"), "derived": 4}
    assert "note" not in task.options  # None (off) is not recorded: earlier runs' identities stay the same
    assert get_task("toy-options", note="hi").options["note"] == "hi"


def test_get_task_errors_name_the_task(toy):
    with pytest.raises(TaskOptionError, match=r"^task 'toy-options' has no option 'size'; its options: count, "
                                              r"ratio, loud, colours, note, extract$"):
        get_task("toy-options", size=3)
    with pytest.raises(TaskOptionError, match=r"^task 'toy-options': bad option count='9'; expected one of 1, 2, 3$"):
        get_task("toy-options", count="9")


def test_every_task_takes_extract(toy):
    assert get_task("toy-options").extract == "whole"
    assert get_task("toy-options", extract="fenced").extract == "fenced"
    assert "extract" not in get_task("toy-options", extract="fenced").options  # the run config records it
    with pytest.raises(TaskOptionError, match="bad option extract='middle'; expected one of fenced, first_block"):
        get_task("toy-options", extract="middle")
    assert [option.name for option in task_options("toy-options")] == [o.name for o in OPTIONS] + [EXTRACT.name]


def test_the_built_in_tasks_declare_their_options():
    assert [option.name for option in task_options("formatbench")] == [
        "checker_mode", "template", "thoughts", "shots", "judge", "judge_base_url", "extract"]
    assert [option.name for option in task_options("concode-val")][:4] == [
        "schema_form", "output_form", "shots", "schemas"]
    assert [option.name for option in task_options("collie")] == ["extract"]
    assert isinstance(tasks.get("collie"), TaskFactory)
    recorded = get_task("concode-gen", n="6", shots="1").options
    assert recorded == {"schema_form": "json", "output_form": "json", "shots": 1, "schemas": "concode", "n": 6,
                        "seed": 0}


def test_a_function_registered_without_register_task_takes_no_options():
    tasks.register("plain-toy", func=lambda: _task(count=1))
    try:
        assert get_task("plain-toy").options == {"derived": 2}
        with pytest.raises(TaskOptionError, match="task 'plain-toy' has no option 'count'; its options: extract"):
            get_task("plain-toy", count=1)
    finally:
        catalogue._remove(("corral", "tasks", "plain-toy"))


def test_an_option_declared_twice_is_refused():
    with pytest.raises(ValueError, match="declares an option twice"):
        register_task("twice", options=(OPTIONS[0], OPTIONS[0]))
