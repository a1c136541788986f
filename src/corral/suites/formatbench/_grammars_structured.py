"""FormatBench grammars (structured): Agent and XDL; see _grammars.py.

* ``agent``: the instance's admissible commands, each in the spelling the checker compares (``normalise``d:
  lower case, single spaces), one of them and nothing else. Exact: the checker passes exactly the answers whose
  one non-empty line normalises to an admissible command, and every text of the grammar is such a line.
* ``xdl``: one XDL document, ``<XDL><Synthesis>`` holding Hardware (1 to ``MAX_COMPONENTS`` Components with an
  ``id`` and an optional ``type``), Reagents (0 to ``MAX_REAGENTS`` Reagents with a ``name`` and an optional
  ``solid``) and Procedure (1 to ``MAX_STEPS`` steps; a ``Repeat`` holds 1 to ``MAX_REPEATED`` steps and counts as
  one). A step is an XDL action: the seven actions whose properties the spec lists (``data/xdl_actions.json``)
  take their mandatory properties and only their allowed ones, with the spec's choices and a number (units
  allowed) where it says float; the other actions, whose property lists the spec leaves open, take a fixed set of
  their usual XDL properties here (``OPEN_PROPERTIES``). Properties stand in one order, values are quoted, free
  text in a value is one line without ``"``, ``<``, ``>``, ``&`` or control characters (so the document is
  always well-formed XML), elements are self-closing (but Repeat), and whitespace between elements is spaces
  and tabs with at most two newlines.
  Which free-text names were declared cannot be carried through a context-free grammar, so declarations and
  references are made finite per instance: the vessels are the hardware nouns the procedure names (``beaker``,
  ``cup``; ``beaker`` if none), the reagents the names after its quantities (``30 g of red cabbage soup``). The
  Hardware and Reagents sections declare exactly those, once each, in order, and every vessel or reagent a step
  names is one of them, so the grammar is exact. A procedure whose reagents cannot be read that way gets free
  names, and four rules are left to the checker there: every vessel or reagent a step names is declared
  (``vessel``, ``reagent``), and no id or name is declared twice (``hardware``, ``reagents``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from corral.grammars import Grammar, NotExpressible, lit

from . import _agent, _xdl
from ._grammars import FormatGrammar

# ------------------------------------------------------------------------------------------------------ agent


def agent_grammar(instance: Mapping[str, Any]) -> FormatGrammar:
    """One admissible command of the instance's state, written as the checker normalises it."""
    commands = [command for command in dict.fromkeys(_agent._admissible(instance)) if command]
    if not commands:
        raise NotExpressible("no admissible command in this state; decoded freely")
    source = "start: " + "\n    | ".join(lit(command) for command in commands)
    return FormatGrammar(Grammar.lark(source, f"one of {len(commands)} admissible commands"))


# ------------------------------------------------------------------------------------------------------ xdl

MAX_COMPONENTS = 8
MAX_REAGENTS = 12
MAX_STEPS = 12
"""Steps in Procedure at most (a Repeat counts as one). A document with the most components, reagents and steps,
with names of about 25 characters, is about 2,000 characters (some 650 tokens): inside the task's budget of 768."""
MAX_REPEATED = 4
"""Steps in one Repeat at most (Repeats do not nest here)."""
XDL_LEFT = ("hardware", "reagents", "vessel", "reagent")

# The properties this grammar writes for each action whose property list the spec leaves open (``"open": true``
# in the action table): (name, kind, required). Kinds: ``name`` (free text; a vessel or reagent where the
# checker reads the property as one), ``quantity`` (a number, units allowed), ``count`` (1 to 99), ``text``.
# The checker allows any property on these actions; the grammar allows these only, each at most once.
OPEN_PROPERTIES: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "CleanVessel": (("vessel", "name", True), ("solvent", "name", False), ("volume", "text", False),
                    ("temp", "quantity", False), ("repeats", "count", False)),
    "Crystallize": (("vessel", "name", True), ("ramp_temp", "quantity", False), ("ramp_time", "quantity", False)),
    "Dissolve": (("vessel", "name", True), ("solvent", "name", False), ("volume", "text", False),
                 ("temp", "quantity", False), ("time", "quantity", False)),
    "Dry": (("vessel", "name", True), ("time", "quantity", False), ("temp", "quantity", False),
            ("vacuum_pressure", "quantity", False)),
    "EvacuateAndRefill": (("vessel", "name", True), ("gas", "text", False), ("repeats", "count", False)),
    "Evaporate": (("vessel", "name", True), ("pressure", "quantity", False), ("temp", "quantity", False),
                  ("time", "quantity", False), ("rotation_speed", "quantity", False)),
    "Filter": (("vessel", "name", True), ("filtrate_vessel", "name", False)),
    "FilterThrough": (("from_vessel", "name", True), ("to_vessel", "name", True), ("through", "text", False),
                      ("eluting_solvent", "name", False), ("eluting_volume", "text", False),
                      ("eluting_repeats", "count", False)),
    "HeatChillToTemp": (("vessel", "name", True), ("temp", "quantity", True)),
    "Irradiate": (("vessel", "name", True), ("time", "quantity", False), ("color", "text", False)),
    "Precipitate": (("vessel", "name", True), ("reagent", "name", False), ("volume", "text", False),
                    ("temp", "quantity", False), ("time", "quantity", False)),
    "Purge": (("vessel", "name", True), ("gas", "text", False), ("time", "quantity", False),
              ("flow_rate", "quantity", False)),
    "ResetHandling": (("solvent", "name", False), ("volume", "text", False)),
    "RunColumn": (("from_vessel", "name", True), ("to_vessel", "name", True), ("column", "text", False)),
    "StartHeatChill": (("vessel", "name", True), ("temp", "quantity", True)),
    "StartPurge": (("vessel", "name", True), ("gas", "text", False)),
    "StopHeatChill": (("vessel", "name", True),),
    "StopPurge": (("vessel", "name", True),),
    "Wait": (("time", "quantity", True),),
    "WashSolid": (("vessel", "name", True), ("solvent", "name", False), ("volume", "text", False),
                  ("temp", "quantity", False), ("time", "quantity", False), ("repeats", "count", False)),
}

# Terminals. A value is quoted and holds no '"', '<', '>', '&' (no markup, no entity), no control, format,
# unassigned or private-use character (\p{C}: nothing XML forbids, no tab or newline that XML would normalise in
# an attribute) and no separator but the ASCII space (\p{Z}); it starts with a character other than a space, so
# an id or name is never blank. A quantity starts with a number, as the checker's float test reads it, and its unit
# (free text) starts with neither a digit nor a point.
_CHAR = r'[^"<>&\p{C}\p{Z}]'
_TERMINALS = {
    "VALUE": rf'/"{_CHAR}({_CHAR}| ){{0,47}}"/',
    "QUANTITY": rf'/"[-+]?[0-9]{{1,6}}(\.[0-9]{{1,4}})?( ?[^"<>&\p{{C}}\p{{Z}}0-9.]({_CHAR}| ){{0,15}})?"/',
    "COUNT": r'/"[1-9][0-9]?"/',
    "BOOLEAN": r'/"(true|false)"/',
    "END": r"/ ?\/>/",  # a self-closing tag's end
    "SP": r"/[ \t]{1,16}|[ \t]{0,16}\n[ \t]{0,16}(\n[ \t]{0,16})?/",  # between elements: at most two newlines
}
_KINDS = {"name": "VALUE", "text": "VALUE", "str": "VALUE", "vessel": "VALUE", "reagent": "VALUE",
          "float": "QUANTITY", "quantity": "QUANTITY", "count": "COUNT"}


def _attribute(name: str, value: str) -> str:
    return f"{lit(f' {name}=')} {value}"


def _value(action: str, name: str, kind: str) -> str:
    choices = _xdl.ACTIONS[action]["choices"].get(name)
    if choices:
        return "(" + " | ".join(lit(f'"{choice}"') for choice in choices) + ")"
    if name in _xdl.REFERENCES:
        return _xdl.REFERENCES[name].upper()  # VESSEL or REAGENT: declared names, or free text (see xdl_source)
    return _KINDS[kind]


def _action_rule(action: str) -> str:
    """The rule of one self-closing step: its properties in a fixed order, the required ones always."""
    spec = _xdl.ACTIONS[action]
    if spec["open"]:
        properties = OPEN_PROPERTIES[action]
    else:
        properties = (*((name, kind, True) for name, kind in spec["mandatory"]),
                      *((name, kind, False) for name, kind in spec["optional"]))
    parts = [lit(f"<{action}")]
    for name, kind, required in properties:
        attribute = _attribute(name, _value(action, name, kind))
        parts.append(attribute if required else f"({attribute})?")
    return f"{_rule_name(action)}: {' '.join(parts)} END"


def _rule_name(action: str) -> str:
    return "step_" + action.lower()


def _check_tables() -> None:
    """The grammar's own property lists agree with the checker's table (import-time; a data edit breaks here)."""
    open_actions = {name for name, spec in _xdl.ACTIONS.items() if spec["open"]} - set(_xdl.CONTAINERS)
    if open_actions != set(OPEN_PROPERTIES):
        raise RuntimeError(f"OPEN_PROPERTIES does not cover the open XDL actions: {sorted(open_actions)}")
    for action, properties in OPEN_PROPERTIES.items():
        names = [name for name, _, _ in properties]
        if len(set(names)) != len(names):
            raise RuntimeError(f"{action} lists a property twice")
        for name, kind, _ in properties:
            if name in _xdl.REFERENCES and kind != "name":
                raise RuntimeError(f"{action}.{name} is a reference for the checker; its kind must be 'name'")
    if _xdl.ELEMENTS["Reagent"]["open"] or {name for name, _ in _xdl.ELEMENTS["Reagent"]["mandatory"]} != {"name"}:
        raise RuntimeError("the Reagent element table changed")
    if "solid" not in {name for name, _ in _xdl.ELEMENTS["Reagent"]["optional"]}:
        raise RuntimeError("Reagent no longer allows 'solid'")
    if not _xdl.ELEMENTS["Component"]["open"]:
        raise RuntimeError("Component no longer allows other attributes than id (the grammar writes 'type')")
    if set(_xdl.CONTAINERS) != {"Repeat"}:
        raise RuntimeError(f"unexpected XDL containers: {_xdl.CONTAINERS}")


_check_tables()


_HARDWARE = ("beaker", "flask", "cup", "bottle", "vial", "tube", "funnel", "jar", "bowl", "glass", "container",
             "pot", "pan", "dish", "reactor", "vessel", "cylinder", "pipette", "burette", "crucible", "tray", "mug")
_QUANTITY = re.compile(
    r"\b\d+(?:\.\d+)?\s*(?:g|mg|kg|ml|mL|l|L|mol|mmol|drops?|tsp|tbsp|teaspoons?|tablespoons?|cups?|oz|grams?)\b"
    r"(?:\s+more)?(?:\s+of)?\s+([A-Za-z][A-Za-z -]*?)"
    r"(?=\s+(?:into|to|in|and|then|with|mixed|containing|on|from|for|until|while)\b|\s*[,.;:()]|\s*$)")


_ADD = re.compile(r"\b[Aa]dd\s+([a-z][a-z -]*?)\s+(?:until|to|into|in)\b")
_AMOUNT_AFTER = re.compile(r"\(\s*\d+(?:\.\d+)?\s*(?:g|mg|kg|ml|mL|l|L|mmol|mol|µL|uL)\b")
_STOP = frozenset({"of", "the", "a", "an", "to", "in", "and", "was", "were", "is", "are", "added", "with", "solution",
                   "suspension", "mixture", "then", "followed", "by", "at", "into", "from"})
_NAME_CHARS = re.compile(r'[^"<>&\x00-\x1f\x7f]+')  # what a quoted XDL value may hold (see VALUE)


def declared_names(procedure: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The vessels (hardware nouns the procedure names, ``beaker`` if none) and the reagents (names after its
    quantities) an instance's XDL declares, in order of appearance, at most ``MAX_COMPONENTS`` and
    ``MAX_REAGENTS``."""
    words = re.findall(r"[a-z]+", procedure.lower())
    vessels = tuple(dict.fromkeys(word for word in words if word in _HARDWARE))[:MAX_COMPONENTS] or ("beaker",)
    found = [match.group(1) for match in _QUANTITY.finditer(procedure)]
    found += [match.group(1) for match in _ADD.finditer(procedure)]
    for match in _AMOUNT_AFTER.finditer(procedure):  # "the amide (1g, 4.06 mmol)": the words before the bracket
        before = procedure[:match.start()].split()
        words: list[str] = []
        while before and len(words) < 4 and before[-1].lower().strip(",;") not in _STOP and not \
                before[-1].endswith((",", ";", ".")):
            words.insert(0, before.pop())
        found.append(" ".join(words))
    reagents = []
    for name in found:
        name = " ".join(name.split()).strip(" -,;")
        if name and len(name) <= 48 and name.lower() not in _HARDWARE and _NAME_CHARS.fullmatch(name):
            reagents.append(name)
    return vessels, tuple(dict.fromkeys(reagents))[:MAX_REAGENTS]


def _quoted(name: str) -> str:
    return '"' + name + '"'


def xdl_source(vessels: tuple[str, ...] = (), reagents: tuple[str, ...] = ()) -> str:
    """The Lark source of the XDL grammar: with ``vessels`` and ``reagents``, one that declares exactly those and
    names only those; without, free ids and names."""
    actions = [action for action in _xdl.ACTIONS if action not in _xdl.CONTAINERS]
    if vessels and reagents:
        component_type, solid = _attribute("type", "VALUE"), _attribute("solid", "BOOLEAN")
        hardware = " ".join(f"SP? {lit('<Component id=' + _quoted(v))} ({component_type})? END" for v in vessels)
        declared = " ".join(f"SP? {lit('<Reagent name=' + _quoted(r))} ({solid})? END" for r in reagents)
        sections = [f'hardware: "<Hardware>" {hardware} SP? "</Hardware>"',
                    f'reagents: "<Reagents>" {declared} SP? "</Reagents>"',
                    "VESSEL: " + " | ".join(lit(_quoted(v)) for v in vessels),
                    "REAGENT: " + " | ".join(lit(_quoted(r)) for r in reagents)]
    else:
        sections = [f'hardware: "<Hardware>" (SP? component){{1,{MAX_COMPONENTS}}} SP? "</Hardware>"',
                    f"component: {lit('<Component id=')} VALUE ({_attribute('type', 'VALUE')})? END",
                    f'reagents: "<Reagents>" (SP? reagent){{0,{MAX_REAGENTS}}} SP? "</Reagents>"',
                    f"reagent: {lit('<Reagent name=')} VALUE ({_attribute('solid', 'BOOLEAN')})? END",
                    "VESSEL: VALUE", "REAGENT: VALUE"]
    lines = [
        'start: "<XDL>" SP? "<Synthesis>" SP? hardware SP? reagents SP? procedure SP? "</Synthesis>" SP? "</XDL>"',
        *sections,
        f'procedure: "<Procedure>" (SP? step){{1,{MAX_STEPS}}} SP? "</Procedure>"',
        "step: action | repeat",
        f'repeat: {lit("<Repeat repeats=")} COUNT ">" (SP? action){{1,{MAX_REPEATED}}} SP? "</Repeat>"',
        "action: " + "\n    | ".join(_rule_name(action) for action in actions),
        *(_action_rule(action) for action in actions),
        *(f"{name}: {body}" for name, body in _TERMINALS.items()),
    ]
    return "\n".join(lines)


@lru_cache(maxsize=256)
def _xdl_grammar(vessels: tuple[str, ...], reagents: tuple[str, ...]) -> FormatGrammar:
    if vessels and reagents:
        description = f"an XDL document declaring vessels {', '.join(vessels)} and reagents {', '.join(reagents)}"
        return FormatGrammar(Grammar.lark(xdl_source(vessels, reagents), description))
    description = "an XDL document: declared hardware and reagents, a procedure of XDL actions"
    return FormatGrammar(Grammar.lark(xdl_source(), description), XDL_LEFT)


def xdl_grammar(instance: Mapping[str, Any]) -> FormatGrammar:
    """The instance's XDL grammar: exact when its procedure names its reagents (``declared_names``), else with
    free names and the four reference rules left to the checker (``XDL_LEFT`` is the task's worst case)."""
    vessels, reagents = declared_names(str(instance.get("procedure") or ""))
    return _xdl_grammar(vessels, reagents) if reagents else _xdl_grammar((), ())
