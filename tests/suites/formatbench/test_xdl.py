"""The xdl checker: a valid procedure passes; each rule, broken, fails with its message; the spec's example files
fail only with their real errors; the reference's documented mistakes are shown beside strict verdicts; hostile
XML is refused quickly; no output makes it raise; its messages do not depend on PYTHONHASHSEED."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.suites.formatbench import (
    XDL_ACTIONS,
    XDL_MAX_CHARS,
    XDL_MAX_DEPTH,
    XDL_REFERENCES,
    check_format,
    get_checker,
)

EXAMPLES = Path("/work/shared/data/xdl/xdl_examples")

VALID = """<XDL>
  <Synthesis>
    <Hardware>
      <Component id="flask" type="round-bottom flask"/>
      <Component id="separator"/>
      <Component id="beaker"/>
    </Hardware>
    <Reagents>
      <Reagent name="water"/>
      <Reagent name="salt" solid="true"/>
      <Reagent name="ether"/>
    </Reagents>
    <Procedure>
      <Prep>
        <Add vessel="flask" reagent="water" volume="50 mL"/>
        <Add vessel="flask" reagent="salt" amount="5 g"/>
      </Prep>
      <Reaction>
        <StartStir vessel="flask"/>
        <HeatChill vessel="flask" temp="60 °C" time="30 min"/>
        <StopStir vessel="flask"/>
        <Repeat repeats="2">
          <Stir vessel="flask" time="5 min"/>
        </Repeat>
      </Reaction>
      <Workup>
        <Add vessel="flask" reagent="ether" volume="20 mL"/>
        <Separate purpose="extract" product_phase="top" from_vessel="flask" separation_vessel="separator"
                  to_vessel="beaker"/>
        <Transfer from_vessel="beaker" to_vessel="flask" volume="10 mL"/>
      </Workup>
      <Wait time="10 min"/>
    </Procedure>
  </Synthesis>
</XDL>"""

# a plain document (no blocks), the reference's view of a valid one
PLAIN = """<XDL><Synthesis>
<Hardware><Component id="beaker"/><Component id="beaker2"/></Hardware>
<Reagents><Reagent name="water"/><Reagent name="sugar"/></Reagents>
<Procedure>
{steps}
</Procedure>
</Synthesis></XDL>"""
GOOD_STEPS = '<Add vessel="beaker" reagent="water" amount="10 mL"/>\n<Stir vessel="beaker" time="10 s"/>'


def plain(steps: str = GOOD_STEPS) -> str:
    return PLAIN.format(steps=steps)


def strict(output: str):
    return check_format("xdl", {}, output)


def reference(output: str) -> bool:
    return check_format("xdl", {}, output, "reference").passed


def feedback(output: str) -> str:
    verdict = strict(output)
    assert not verdict.passed and 0.0 <= verdict.score < 1.0
    return verdict.feedback


# ------------------------------------------------------------------------------------------------------ passing
def test_registered_and_needs_nothing():
    checker = get_checker("xdl")
    assert checker.needs == ()
    assert set(checker.rules) == {"xml", "skeleton", "hardware", "reagents", "action", "mandatory", "property",
                                  "value", "vessel", "reagent"}


@pytest.mark.parametrize("output", [VALID, f"Here is the XDL:\n\n{VALID}\n\nI hope this helps.", plain(),
                                    '<?xml version="1.0" encoding="UTF-8"?>\n' + VALID])
def test_valid_procedures_pass(output):
    assert strict(output).passed, strict(output).feedback


def test_action_table_is_the_specs():
    assert len(XDL_ACTIONS) == 28
    assert [n for n, _ in XDL_ACTIONS["Stir"]["mandatory"]] == ["vessel", "time"]
    assert sum(not spec["open"] for spec in XDL_ACTIONS.values()) == 7
    assert set(XDL_REFERENCES) == {"vessel", "from_vessel", "to_vessel", "separation_vessel", "reagent"}


# ------------------------------------------------------------------------------------------------------ examples
SYNTH = "There is no <XDL> root; wrap <Synthesis> in <XDL>…</XDL>."
EXAMPLE_ERRORS = {  # every message checked by hand against the file
    "test01.xml": [SYNTH],
    "test08.xml": [SYNTH],
    "test02.xml": ["The <Synthesis> opened on line 1 is never closed with </Synthesis>."],  # ends "</Synthesis"
    "test03.xml": [SYNTH, "Step 2 (Mix, line 14) is not an XDL action; the actions are: "
                          + ", ".join(XDL_ACTIONS) + "."],
    "test04.xml": [SYNTH, "Step 1 (Add, line 13) has no 'vessel' property; Add requires: vessel, reagent.",
                   "Step 1 (Add, line 13) has the property 'vesel', which Add does not allow (did you mean "
                   "'vessel'?); Add allows: vessel, reagent, volume, amount."],
    "test05.xml": [SYNTH, "Step 4 (Transfer, line 15): 'beaker2' (to_vessel) is not declared in Hardware; "
                          "declared: beaker."],
    "test06.xml": [SYNTH, "Step 2 (Add, line 13): 'sugar' (reagent) is not declared in Reagents; declared: water."],
    "test07.xml": [SYNTH, "Step 1 (Add, line 12) has no 'vessel' property; Add requires: vessel, reagent.",
                   "Step 1 (Add, line 12) has the property 'vesel', which Add does not allow (did you mean "
                   "'vessel'?); Add allows: vessel, reagent, volume, amount.",
                   "Step 2 (Add, line 13): 'sugar' (reagent) is not declared in Reagents; declared: water."],
    "test09.xml": ["Reagent (line 10) has the attribute 'inchi', which is not allowed; Reagent allows: name, solid.",
                   "The Reagent (line 10) has no 'name'; every Reagent needs one."],
    "test.xdl": [SYNTH, "Step 2 (Transfer, line 14) has no 'from_vessel' property; Transfer requires: from_vessel, "
                        "to_vessel.",
                 "Step 2 (Transfer, line 14) has no 'to_vessel' property; Transfer requires: from_vessel, to_vessel.",
                 "Step 2 (Transfer, line 14) has the property 'duration', which Transfer does not allow; Transfer "
                 "allows: from_vessel, to_vessel, volume, amount.",
                 "Step 2 (Transfer, line 14) has the property 'vessel', which Transfer does not allow (did you mean "
                 "'to_vessel'?); Transfer allows: from_vessel, to_vessel, volume, amount."],
}


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="shared XDL examples not present")
def test_examples_fail_only_with_their_real_errors():
    names = sorted(p.name for p in EXAMPLES.iterdir() if p.suffix in (".xml", ".xdl"))
    assert names == sorted(EXAMPLE_ERRORS)
    for name in names:
        text = (EXAMPLES / name).read_text(encoding="utf-8")
        assert strict(text).feedback.split("\n") == EXAMPLE_ERRORS[name], name
        assert not reference(text)  # no </XDL> in the first nine; test09 has a Reagent without a name


def test_example_fixed_passes():
    text = (EXAMPLES / "test01.xml").read_text(encoding="utf-8") if EXAMPLES.is_dir() else plain()
    wrapped = f"<XDL>\n{text}\n</XDL>"
    assert strict(wrapped).passed and reference(wrapped)


# ------------------------------------------------------------------------------------------------------ rules
@pytest.mark.parametrize(("output", "rule", "message"), [
    ("", "xml", "The answer is empty"),
    ("Sorry, I cannot help.", "xml", "No XDL document found; the answer must contain <XDL><Synthesis>"),
    ("<XDL>\n<Synthesis>", "xml", "The <XDL> opened on line 1 is never closed with </XDL>."),
    ("intro\n<XDL><Synthesis>\n<Hardware></Synthesis></XDL>", "xml",
     "The XDL is not well-formed XML: mismatched tag at line 3, column 13."),
    ("<XDL><Synthesis a='1' a='2'/></XDL>", "xml", "duplicate attribute at line 1, column 23"),
    ("<XDL></XDL>", "skeleton", "XDL (line 1) has no Synthesis; it must hold <Synthesis> with Hardware, Reagents and "
                                "Procedure."),
    ("<XDL><Synthesis><Hardware/></Synthesis></XDL>", "skeleton",
     "Synthesis (line 1) has no Reagents, Procedure section; it needs Hardware, Reagents and Procedure."),
    (plain().replace("<Procedure>", "<Notes/><Procedure>"), "skeleton",
     "Synthesis holds only Hardware, Reagents, Procedure; <Notes> (line 4) does not belong there."),
    (plain().replace("</Synthesis>", "<Hardware/></Synthesis>"), "skeleton",
     "Synthesis has a second Hardware (line 8); it may hold only one."),
    (plain().replace('<Component id="beaker2"/>', '<Vessel id="beaker2"/>'), "hardware",
     "Hardware holds only Component elements; <Vessel> (line 2) does not belong there."),
    (plain().replace('<Component id="beaker2"/>', '<Component type="flask"/>'), "hardware",
     "The Component (line 2) has no 'id'; every Component needs one."),
    (plain().replace('id="beaker2"', 'id="beaker"'), "hardware",
     "Component id 'beaker' is declared twice (line 2 and line 2)."),
    (plain().replace('<Reagent name="sugar"/>', '<Reagent name="sugar" mass="5 g"/>'), "reagents",
     "Reagent 'sugar' (line 3) has the attribute 'mass', which is not allowed; Reagent allows: name, solid."),
    (plain().replace('<Reagent name="sugar"/>', '<Reagent solid="true"/>'), "reagents",
     "The Reagent (line 3) has no 'name'; every Reagent needs one."),
    (plain().replace('<Reagent name="sugar"/>', '<Solvent name="sugar"/>'), "reagents",
     "Reagents holds only Reagent elements; <Solvent> (line 3) does not belong there."),
    (plain('<Shake vessel="beaker" time="1 min"/>'), "action", "Step 1 (Shake, line 5) is not an XDL action; the "
                                                              "actions are: Add, CleanVessel,"),
    (plain('<Repeat repeats="2"><Stirr vessel="beaker"/></Repeat>'), "action",
     "Step 2 (Stirr, line 5) is not an XDL action; did you mean Stir?"),
    (plain('<Workup><Prep><StartStir vessel="beaker"/></Prep></Workup>'), "action",
     "The Prep block (line 5) stands inside Workup; Prep, Reaction, Workup and Purification blocks may only stand"),
    (plain('<Add vessel="beaker" reagent="water"><Stir vessel="beaker" time="1 s"/></Add>'), "action",
     "Step 1 (Add, line 5) holds other elements; only Repeat may hold steps."),
    ("<XDL><Synthesis><Hardware><Component id='b'/></Hardware><Reagents/><Procedure>\n<Add vessel='b' reagent=''/>\n"
     "<StopStir vessel='b'/><Stir vessel='b'/></Procedure></Synthesis></XDL>", "mandatory",
     "Step 3 (Stir, line 3) has no 'time' property; Stir requires: vessel, time."),
    (plain('<Prep><Add vessel="beaker" reagent="water" colour="red"/></Prep>'), "property",
     "Step 1 (Add, line 5) has the property 'colour', which Add does not allow; Add allows: vessel, reagent, volume, "
     "amount."),
    (plain('<Stir vessel="beaker" time="a while"/>'), "value",
     "Step 1 (Stir, line 5) has time='a while'; time must be a number, units allowed (e.g. '10 s', '25 °C')."),
    (plain('<Separate purpose="clean" product_phase="top" from_vessel="beaker" separation_vessel="beaker" '
           'to_vessel="beaker2"/>'), "value",
     "Step 1 (Separate, line 5) has purpose='clean'; purpose must be one of: extract, wash."),
    (plain('<Transfer from_vessel="beaker" to_vessel="flask"/>'), "vessel",
     "Step 1 (Transfer, line 5): 'flask' (to_vessel) is not declared in Hardware; declared: beaker, beaker2."),
    (plain('<Repeat repeats="3"><Dissolve vessel="pot" solvent="water"/></Repeat>'), "vessel",
     "Step 2 (Dissolve, line 5): 'pot' (vessel) is not declared in Hardware; declared: beaker, beaker2."),
    (plain('<Reaction><Add vessel="beaker" reagent="ethanol"/></Reaction>'), "reagent",
     "Step 1 (Add, line 5): 'ethanol' (reagent) is not declared in Reagents; declared: sugar, water."),
])
def test_rules(output, rule, message):
    verdict = strict(output)
    assert not verdict.passed
    assert any(v.rule == rule and message in v.message for v in verdict.violations), verdict.feedback


def test_violations_have_spans_and_expected_values():
    verdict = strict("chat\n" + plain('<Stir vessel="beaker"/>'))
    (violation,) = verdict.violations
    start, end = violation.span
    assert verdict.to_json()["violations"][0]["span"] == [start, end]
    assert ("chat\n" + plain('<Stir vessel="beaker"/>'))[start:end] == "<Stir"
    assert violation.expected == ["vessel", "time"] and violation.seen == "time"


def test_missing_sections_do_not_flood_references():
    out = "<XDL><Synthesis><Procedure><Add vessel='x' reagent='y'/></Procedure></Synthesis></XDL>"
    assert feedback(out) == ("Synthesis (line 1) has no Hardware, Reagents section; it needs Hardware, Reagents and "
                             "Procedure.")


# ------------------------------------------------------------------------------------------------------ reference
@pytest.mark.parametrize(("output", "ref", "strict_passes"), [
    (plain(), True, True),
    ("<XDL></XDL>", True, False),  # reference false positive: no skeleton required
    (plain('<Repeat repeats="2"><Shake vessel="nowhere"/></Repeat>'), True, False),  # Repeat is not descended
    (plain('<Prep><Add vessel="beaker" reagent="water"/></Prep>'), False, True),  # false negative: Prep blocks
    (VALID, False, True),  # blocks again
    ("Answer:\n" + plain(), False, True),  # a preamble breaks its parse
    (plain() + "\nThat is all. </XDL> <broken", True, True),  # cut at the first </XDL>
    (plain().replace("</XDL>", ""), False, False),
    (plain().replace('<Component id="beaker2"/>', '<Component/>'), False, False),  # KeyError in the reference
    (plain('<Stir vessel="beaker"/>'), False, False),
    (plain('<Add vessel="beaker" reagent="water" colour="red"/>'), False, False),
    (plain('<Add vessel="beaker" reagent="ethanol"/>'), False, False),
    (plain('<Add vessel="pot" reagent="water"/>'), False, False),
    (plain().replace('<Reagent name="sugar"/>', '<Reagent name="sugar" mass="1 g"/>'), False, False),
    (plain().replace('<Component id="beaker2"/>', '<Vessel id="beaker2"/>'), False, False),
])
def test_reference_beside_strict(output, ref, strict_passes):
    assert reference(output) is ref
    assert strict(output).passed is strict_passes


# ------------------------------------------------------------------------------------------------------ hostile
LAUGHS = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
          + "".join(f' <!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10 if i > 1 else "&lol;" * 10}">\n'
                    for i in range(1, 10))
          + "]>\n<XDL><Synthesis><Hardware/><Reagents/><Procedure>&lol9;</Procedure></Synthesis></XDL>")
EXTERNAL = ('<?xml version="1.0"?>\n<!DOCTYPE XDL [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
            '<XDL><Synthesis><Hardware><Component id="&xxe;"/></Hardware></Synthesis></XDL>')


@pytest.mark.parametrize("output", [LAUGHS, EXTERNAL, "<XDL>" + LAUGHS.split("<XDL>")[0] + "</XDL>",
                                    '<XDL><!ENTITY e SYSTEM "http://example.com/x"></XDL>'])
def test_dtd_and_entities_are_refused_quickly(output):
    started = time.perf_counter()
    verdict = strict(output)
    assert [v.rule for v in verdict.violations] == ["xml"]
    assert "declaration" in verdict.feedback and "not allowed in XDL" in verdict.feedback
    assert not reference(output)
    assert time.perf_counter() - started < 30  # a hang guard (an entity bomb would not finish)


def test_undeclared_entity_is_a_parse_error():
    assert "undefined entity at line 1, column 6" in feedback("<XDL>&lol9;</XDL>")


@pytest.mark.parametrize(("output", "message"), [
    ("<XDL>" + "x" * XDL_MAX_CHARS + "</XDL>", f"XDL outputs over {XDL_MAX_CHARS} are not checked"),
    ("<XDL>" + "<a>" * 5000 + "</a>" * 5000 + "</XDL>", f"nests elements more than {XDL_MAX_DEPTH} deep"),
    ("<XDL " * 190_000, "never closed with </XDL>"),
    ("<XDL>" + "<a " * 190_000 + "</XDL>", "not well-formed XML"),
])
def test_size_and_depth_caps(output, message):
    started = time.perf_counter()
    assert message in feedback(output)
    reference(output)
    assert time.perf_counter() - started < 60  # a hang guard, generous for a loaded machine


# ------------------------------------------------------------------------------------------------------ robustness
XMLISH = st.lists(st.sampled_from([
    "<XDL>", "</XDL>", "<Synthesis>", "</Synthesis>", "<Hardware>", "</Hardware>", "<Reagents>", "</Reagents>",
    "<Procedure>", "</Procedure>", "<Prep>", "</Prep>", "<Repeat>", "</Repeat>", '<Component id="b"/>',
    "<Component/>", '<Reagent name="w"/>', '<Reagent mass="1"/>', '<Add vessel="b" reagent="w"/>',
    '<Stir vessel="q"/>', "<Shake/>", "<!DOCTYPE x>", "&lol;", "<![CDATA[<XDL>]]>", "<!-- c -->", "<?pi x?>",
    "\n", " ", "text", "<", ">", "&", '"', "é", "\ud800", "\x00", "<XDL/>", "<a:b xmlns:a='u'/>",
]), max_size=30).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=200), XMLISH))
def test_never_raises(output):
    for mode in ("strict", "reference"):
        verdict = check_format("xdl", {}, output, mode)
        assert all(v.rule != "internal" for v in verdict.violations), verdict.feedback
        if mode == "strict" and not verdict.passed:
            assert all(v.message for v in verdict.violations)


SEED_SCRIPT = """
import json
from corral.suites.formatbench import check_format
outputs = json.loads({outputs!r})
print(json.dumps([check_format("xdl", {{}}, o).to_json() for o in outputs], sort_keys=True))
"""


def test_messages_do_not_depend_on_hash_seed():
    outputs = [plain('<Add vessel="pot" reagent="gin" colour="red" shade="dark" hue="x" vesel="b"/>'
                     '<Separate a="1" b="2" c="3" purpose="x" product_phase="y"/>'),
               plain().replace('<Reagent name="sugar"/>',
                               '<Reagent name="sugar" mass="1" cas="2" inchi="3" role="4"/>'),
               "<XDL><Synthesis><Foo/><Bar/></Synthesis></XDL>"]
    script = SEED_SCRIPT.format(outputs=json.dumps(outputs))
    runs = []
    for seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        runs.append(subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                                   check=True, timeout=60).stdout)
    assert runs[0] == runs[1]
    assert "colour" in runs[0] and "inchi" in runs[0]
