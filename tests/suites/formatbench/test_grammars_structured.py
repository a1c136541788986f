"""Grammars of the Agent and XDL tasks (``_grammars_structured``): texts drawn from them pass the strict checker
(but for the rules they leave to it), they accept the shipped golds, and they refuse what the checker fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from corral.grammars import NotExpressible, accepts
from corral.suites.formatbench import (
    MAX_COMPONENTS,
    MAX_REAGENTS,
    MAX_REPEATED,
    MAX_STEPS,
    OPEN_PROPERTIES,
    XDL_ACTIONS,
    XDL_CONTAINERS,
    XDL_LEFT,
    XDL_REFERENCES,
    XDL_RULES,
    check_format,
    declared_names,
    format_grammar,
    get_format_task,
    load_instances,
)

from .soundness import assert_sound

EXAMPLES = Path("/work/shared/data/xdl/xdl_examples")


@pytest.fixture(scope="module")
def agent_rows():
    return list(load_instances("agent", "test"))


@pytest.fixture(scope="module")
def xdl_rows():
    return list(load_instances("xdl", "test"))


# ------------------------------------------------------------------------------------------------------ agent

def test_agent_is_exact():
    assert get_format_task("agent").enforcement == "exact"


def test_agent_sound(agent_rows):
    rows = agent_rows[::len(agent_rows) // 24][:24]  # spread over the games
    assert len(rows) >= 20
    assert assert_sound("agent", rows, per_instance=20) == len(rows) * 20


def test_agent_recall_on_gold(agent_rows):
    golds = [row for row in agent_rows if check_format("agent", row, row["gold"]).passed]
    assert len(golds) == len(agent_rows) == 180
    accepted = [row for row in golds if accepts(format_grammar("agent", row).grammar, row["gold"])]
    assert len(accepted) / len(golds) == 1.0


def test_agent_accepts_every_admissible_command_and_nothing_around_it(agent_rows):
    row = agent_rows[0]
    grammar = format_grammar("agent", row).grammar
    assert format_grammar("agent", row).exact
    for command in row["admissible"]:
        assert accepts(grammar, command)
    command = row["admissible"][0]
    for wrong in (command.upper(), command + ".", f"> {command}", f"{command}\n{command}", " " + command,
                  command.replace(" ", "  "), "", "go north"):
        assert not accepts(grammar, wrong), wrong


def test_agent_without_admissible_commands_is_not_expressible():
    with pytest.raises(NotExpressible):
        format_grammar("agent", {"admissible": []})


# ------------------------------------------------------------------------------------------------------ xdl

def _doc(steps: str, hardware: str = '<Component id="flask" type="round-bottom flask"/><Component id="beaker"/>',
         reagents: str = '<Reagent name="water"/><Reagent name="salt" solid="true"/>') -> str:
    return (f"<XDL>\n  <Synthesis>\n    <Hardware>\n      {hardware}\n    </Hardware>\n\n    <Reagents>\n      "
            f"{reagents}\n    </Reagents>\n    <Procedure>\n      {steps}\n    </Procedure>\n  </Synthesis>\n</XDL>")


def _value(action: str, name: str, kind: str) -> str:
    choices = XDL_ACTIONS[action]["choices"].get(name)
    if choices:
        return choices[-1]
    if XDL_REFERENCES.get(name, kind) == "reagent":
        return "water"
    if kind in ("float", "quantity"):
        return "25 °C"
    return "3" if kind == "count" else "flask"


def _full_step(action: str) -> str:
    """The action with every property the grammar allows it, in the grammar's order."""
    spec = XDL_ACTIONS[action]
    properties = (OPEN_PROPERTIES[action] if spec["open"] else
                  [(name, kind, True) for name, kind in spec["mandatory"] + spec["optional"]])
    return f"<{action}" + "".join(f' {name}="{_value(action, name, kind)}"' for name, kind, _ in properties) + "/>"


@pytest.fixture(scope="module")
def xdl_grammar():
    """The grammar with free names: a procedure whose reagents cannot be read (the tests below use any names)."""
    return format_grammar("xdl", {"procedure": "Stir it."})


def test_xdl_enforcement(xdl_grammar, xdl_rows):
    assert xdl_grammar.left_to_checker == XDL_LEFT == ("hardware", "reagents", "vessel", "reagent")
    assert get_format_task("xdl").enforcement == "partial: hardware, reagents, vessel, reagent"  # the task's worst case
    assert set(XDL_LEFT) <= set(XDL_RULES)
    assert format_grammar("xdl", xdl_rows[0]).exact  # its procedure names its reagents


def test_xdl_declares_the_procedures_vessels_and_reagents():
    procedure = "Add 30 g of red cabbage soup into a beaker. Add 10 g of acetic acid into the beaker, then stir."
    assert declared_names(procedure) == (("beaker",), ("red cabbage soup", "acetic acid"))
    vessels, reagents = declared_names("To the amide (1g, 4.06 mmol) in THF (10 mL) in a flask was added LHMDS "
                                       "(4.47 mL).")  # a name before its amounts in brackets
    assert vessels == ("flask",) and reagents == ("amide", "THF", "LHMDS")
    built = format_grammar("xdl", {"procedure": procedure})
    assert built.exact
    document = ('<XDL><Synthesis><Hardware><Component id="beaker"/></Hardware><Reagents>'
                '<Reagent name="red cabbage soup"/><Reagent name="acetic acid"/></Reagents><Procedure>'
                '<Add vessel="beaker" reagent="acetic acid" amount="10 g"/><Stir vessel="beaker" time="10 s"/>'
                '</Procedure></Synthesis></XDL>')
    assert accepts(built.grammar, document) and check_format("xdl", {}, document).passed
    for wrong in (document.replace('reagent="acetic acid"', 'reagent="vinegar"'),  # undeclared
                  document.replace('<Reagent name="acetic acid"/>', ""),  # every name is declared
                  document.replace('vessel="beaker" time', 'vessel="flask" time')):  # undeclared vessel
        assert not accepts(built.grammar, wrong), wrong


def test_xdl_sound(xdl_rows):
    rows = xdl_rows[::10]
    assert len(rows) >= 10
    assert assert_sound("xdl", rows, per_instance=10, max_bytes=8000, stop=0.2, close=0.5) >= 90


def test_xdl_gold(xdl_rows):
    """The shipped XDL instances have no gold documents (the dataset has no references); any that appear and pass
    the checker must be accepted."""
    golds = [row for row in xdl_rows if row.get("gold") and check_format("xdl", row, row["gold"]).passed]
    assert all(accepts(format_grammar("xdl", row).grammar, row["gold"]) for row in golds)


def test_xdl_every_action_with_every_property_passes(xdl_grammar):
    steps = [_full_step(action) for action in XDL_ACTIONS if action not in XDL_CONTAINERS]
    steps.append('<Repeat repeats="2">\n        <Stir vessel="flask" time="5 min"/>\n      </Repeat>')
    for start in range(0, len(steps), MAX_STEPS):
        text = _doc("\n      ".join(steps[start:start + MAX_STEPS]))
        assert accepts(xdl_grammar.grammar, text), text
        assert check_format("xdl", {}, text).passed, check_format("xdl", {}, text).feedback


def test_xdl_accepts_plain_documents(xdl_grammar):
    grammar = xdl_grammar.grammar
    texts = [
        _doc('<Add vessel="flask" reagent="water" volume="50 mL"/>\n      <Stir vessel="flask" time="10 s" />'),
        _doc('<Wait time="1"/>', reagents=""),
        _doc('<HeatChill vessel="flask" temp="-78 °C" time="2.5 h"/><Separate purpose="extract" product_phase="top" '
             'from_vessel="flask" separation_vessel="beaker" to_vessel="flask"/>'),
        "<XDL><Synthesis><Hardware><Component id=\"beaker\"/></Hardware><Reagents></Reagents><Procedure>"
        "<Transfer from_vessel=\"beaker\" to_vessel=\"beaker\" amount=\"10 g\"/></Procedure></Synthesis></XDL>",
    ]
    if EXAMPLES.is_dir():  # the spec's valid example, wrapped in <XDL> as the task asks
        texts.append("<XDL>\n" + (EXAMPLES / "test01.xml").read_text(encoding="utf-8").strip() + "\n</XDL>")
    for text in texts:
        assert check_format("xdl", {}, text).passed, text
        assert accepts(grammar, text), text


def test_xdl_refuses_what_the_checker_fails(xdl_grammar):
    grammar = xdl_grammar.grammar
    bad_steps = [
        '<Add vessel="flask"/>',  # mandatory
        '<Add vessel="flask" reagent="water" temp="5"/>',  # property
        '<Mix vessel="flask"/>',  # action
        '<Stir vessel="flask" time="long"/>',  # value: not a number
        '<Separate purpose="dry" product_phase="top" from_vessel="flask" separation_vessel="flask" '
        'to_vessel="flask"/>',  # value: not a choice
        '<Add vessel="flask" reagent="water" reagent="salt"/>',  # xml: a repeated attribute
        '<Add vessel="flask" reagent="salt & water"/>',  # xml: a bare ampersand
        '<Add vessel="flask" reagent="a<b"/>',  # xml: a bracket in a value
        '<Add vessel="flask" reagent="water"',  # xml: an open tag
        '<Wait time="1"/><Wait time="1"/><Stir vessel="flask"/>',  # mandatory, late
    ]
    for steps in bad_steps:
        text = _doc(steps)
        assert not check_format("xdl", {}, text).passed, steps
        assert not accepts(grammar, text), steps
    bad_docs = [
        _doc('<Wait time="1"/>', hardware='<Component id=" "/>'),  # hardware: a blank id
        _doc('<Wait time="1"/>', hardware='<Component name="flask"/>'),  # hardware: no id
        _doc('<Wait time="1"/>', reagents='<Reagent name="water" purity="99%"/>'),  # reagents: an attribute
        _doc('<Wait time="1"/>').replace("<XDL>", "").replace("</XDL>", ""),  # skeleton: no XDL root
        _doc('<Wait time="1"/>').replace("<Procedure>", "<Steps>").replace("</Procedure>", "</Steps>"),
    ]
    for text in bad_docs:
        assert not check_format("xdl", {}, text).passed, text
        assert not accepts(grammar, text), text


def test_xdl_writes_one_canonical_form(xdl_grammar):
    """Less than the checker passes: one spelling of each thing, no chatter, bounded whitespace."""
    canonical = [
        '<Add vessel="flask" reagent="water" amount="1 &amp; 2 g"/>',  # an entity reference
        '<Wait/>',  # an open action without the properties the grammar requires of it
        "<Add vessel='flask' reagent='water'/>",  # single quotes
        '<Add reagent="water" vessel="flask"/>',  # another property order
        '<Prep><Wait time="1"/></Prep>',  # blocks
        '<Repeat repeats="2"><Repeat repeats="2"><Wait time="1"/></Repeat></Repeat>',  # nested Repeats
        '<Stir vessel="flask" time="10 s"></Stir>',  # open-and-close steps
        '<Filter vessel="flask" speed="fast"/>',  # a property of an open action not in OPEN_PROPERTIES
        '<Wait time="about 10 min"/>',  # a time that is not a number (Wait is open: the checker passes it)
    ]
    for steps in canonical:
        text = _doc(steps)
        assert check_format("xdl", {}, text).passed, steps
        assert not accepts(xdl_grammar.grammar, text), steps
    for text in (_doc('<Wait time="1"/>', hardware=""),  # at least one component is written
                 _doc(""),  # and one step
                 _doc('<Wait time="1"/>') + "\nThat is the procedure.",  # nothing after the document
                 _doc('<Wait time="1"/>').replace("</Reagents>", "</Reagents>\n\n\n"),  # three newlines
                 '<?xml version="1.0"?>' + _doc('<Wait time="1"/>')):  # no declaration
        assert check_format("xdl", {}, text).passed, text
        assert not accepts(xdl_grammar.grammar, text), text


def test_xdl_bounds(xdl_grammar):
    grammar = xdl_grammar.grammar
    component = '<Component id="flask"/>'
    assert accepts(grammar, _doc('<Wait time="1"/>', hardware=component * MAX_COMPONENTS))
    assert not accepts(grammar, _doc('<Wait time="1"/>', hardware=component * (MAX_COMPONENTS + 1)))
    assert accepts(grammar, _doc('<Wait time="1"/>' * MAX_STEPS))
    assert not accepts(grammar, _doc('<Wait time="1"/>' * (MAX_STEPS + 1)))
    repeat = '<Repeat repeats="3">{}</Repeat>'
    assert accepts(grammar, _doc(repeat.format('<Wait time="1"/>' * MAX_REPEATED)))
    assert not accepts(grammar, _doc(repeat.format('<Wait time="1"/>' * (MAX_REPEATED + 1))))
    assert accepts(grammar, _doc(f'<Wait time="1.5 {"x" * 16}"/>'))
    assert not accepts(grammar, _doc(f'<Wait time="1.5 {"x" * 17}"/>'))  # a quantity's unit: 16 characters
    assert not accepts(grammar, _doc(f'<Wait time="{"1" * 7} s"/>'))  # a number: 6 digits
    assert not accepts(grammar, _doc('<Wait time="1"/>', reagents=f'<Reagent name="{"x" * 49}"/>'))


def test_xdl_full_document_fits_the_budget(xdl_grammar):
    """The most components, reagents and steps, with names of about 25 characters: a sentence of the grammar that
    passes, of about 2,000 characters (some 650 tokens at 3 characters a token, under the budget of 768)."""
    hardware = "\n      ".join(f'<Component id="flask{i}" type="round-bottom flask"/>' for i in range(MAX_COMPONENTS))
    names = [f"p-toluenesulfonyl chloride {i}" for i in range(MAX_REAGENTS)]
    reagents = "\n      ".join(f'<Reagent name="{name}"/>' for name in names)
    steps = "\n      ".join(
        f'<Add vessel="flask{i % MAX_COMPONENTS}" reagent="{names[i % len(names)]}" amount="5.13 g"/>' if i % 2 else
        f'<HeatChill vessel="flask{i % MAX_COMPONENTS}" temp="65 °C" time="20 h"/>' for i in range(MAX_STEPS))
    text = _doc(steps, hardware, reagents)
    assert accepts(xdl_grammar.grammar, text)
    assert check_format("xdl", {}, text).passed
    assert len(text) < 768 * 3


def test_xdl_grammars_are_shared_by_instances_with_the_same_names():
    first = format_grammar("xdl", {"procedure": "Add 5 g of salt to a beaker."})
    assert first is format_grammar("xdl", {"procedure": "Put 5 g of salt in the beaker, then add 5 g of salt to it."})
