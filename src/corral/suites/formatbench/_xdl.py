"""XDL: a chemistry procedure written in XDL, the XML language of XDL_description.txt (ac-rad/xdl-generation, MIT).

Strict mode finds the document (``<XDL`` to its matching ``</XDL>``; text around it is ignored), parses it with
defusedxml (no DTD, no entities, no external references; size and nesting depth capped), then checks the skeleton
(``XDL/Synthesis`` with Hardware, Reagents and Procedure), the declarations (Components with ids, Reagents with names
and allowed attributes), and every step, also inside ``Repeat`` and inside Prep, Reaction, Workup and Purification
blocks: a known action with its mandatory properties and only allowed ones, values of the spec's choices and numbers,
and vessels and reagents that are declared. The action table (``data/xdl_actions.json``) was written by hand from the
spec, which names 28 actions but lists properties for only 7: the properties of the other 21 are not checked, except
that their vessel and reagent references must be declared.

Reference mode reproduces the published checker as documented: ``</XDL>`` required, the text cut at the first one,
no skeleton required (``<XDL></XDL>`` passes), only the direct children of Procedure checked (``Repeat`` is not
descended, Prep blocks fail), a Component without ``id`` fails. Unlike the reference, it never expands entities.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping
from importlib.resources import files
from typing import Any
from xml.etree.ElementTree import Element, ParseError, TreeBuilder

from defusedxml import DefusedXmlException, DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
from defusedxml.ElementTree import DefusedXMLParser

from corral.verdicts import Violation

from ._core import FormatChecker

MAX_CHARS = 1_000_000  # larger outputs are not parsed
MAX_DEPTH = 50  # deeper element nesting is not parsed (a procedure needs a handful of levels)

_DATA = json.loads(files("corral.suites.formatbench").joinpath("data/xdl_actions.json").read_text(encoding="utf-8"))
ACTIONS: dict[str, dict[str, Any]] = _DATA["actions"]
BLOCKS: tuple[str, ...] = tuple(_DATA["blocks"])
CONTAINERS: tuple[str, ...] = tuple(_DATA["containers"])
ELEMENTS: dict[str, dict[str, Any]] = _DATA["elements"]
SECTIONS = ("Hardware", "Reagents", "Procedure")
# names the spec types as vessel or reagent somewhere: checked on the actions whose properties it does not list
REFERENCES: dict[str, str] = dict(sorted({name: kind for spec in ACTIONS.values()
                                          for name, kind in spec["mandatory"] + spec["optional"]
                                          if kind in ("vessel", "reagent")}.items()))
_DECLARATION = re.compile(r"<!(DOCTYPE|ENTITY)")
_NUMBER = re.compile(r"\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?(\s*\S.*)?\s*$", re.S)

RULES = {
    "xml": "the answer holds one well-formed <XDL>…</XDL> document (no DTD or entities)",
    "skeleton": "XDL holds Synthesis, which holds Hardware, Reagents and Procedure",
    "hardware": "Hardware holds only Component elements, each with a unique id",
    "reagents": "Reagents holds only Reagent elements, each with a unique name and only allowed attributes",
    "action": "every step is a known XDL action; Prep/Reaction/Workup/Purification blocks stand in Procedure",
    "mandatory": "every step has its action's mandatory properties",
    "property": "every step has only its action's allowed properties",
    "value": "property values are among the spec's choices, and numbers where the spec says float",
    "vessel": "every vessel a step names is a declared Component id",
    "reagent": "every reagent a step names is a declared Reagent name",
}


def _names(pairs: Iterable[list[str]]) -> list[str]:
    return [name for name, _ in pairs]


def _find_element(text: str, tag: str) -> tuple[int, int] | int | None:
    """Offsets of the first ``<tag …>`` to its matching close; the open's offset if never closed; None if absent."""
    pattern = re.compile(rf"<(/?){tag}(?=[\s/>])[^<>]*?(/?)>")
    opened = re.search(rf"<{tag}(?=[\s/>])", text)
    if opened is None:
        return None
    depth = 0
    for match in pattern.finditer(text, opened.start()):
        closing, empty = match.group(1), match.group(2)
        if closing:
            depth -= 1
        elif not empty:
            depth += 1
        if depth <= 0:
            return opened.start(), match.end()
    return opened.start()


class _TooDeep(Exception):
    pass


class _Target:
    """A tree builder that records each element's (line, byte column) and stops past ``MAX_DEPTH``."""

    def __init__(self) -> None:
        self.builder = TreeBuilder()
        self.where: dict[int, tuple[int, int]] = {}
        self.depth = 0
        self.expat: Any = None

    def start(self, tag: str, attrs: dict[str, str]) -> Element:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _TooDeep
        element = self.builder.start(tag, attrs)
        self.where[id(element)] = (self.expat.CurrentLineNumber, self.expat.CurrentColumnNumber)
        return element

    def end(self, tag: str) -> Element:
        self.depth -= 1
        return self.builder.end(tag)

    def data(self, data: str) -> None:
        self.builder.data(data)

    def close(self) -> Element:
        return self.builder.close()


def _parse(doc: str, target: _Target) -> Element:
    parser = DefusedXMLParser(target=target, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    target.expat = parser.parser
    parser.feed(doc)
    return parser.close()


class _Doc:
    """Maps positions in the parsed document (expat lines, byte columns) to offsets and lines of the output."""

    def __init__(self, output: str, start: int, end: int) -> None:
        self.output, self.start, self.text = output, start, output[start:end]
        self.lines = self.text.split("\n")
        self.line_starts = [0]
        for line in self.lines[:-1]:
            self.line_starts.append(self.line_starts[-1] + len(line) + 1)

    def offset(self, line: int, byte_col: int) -> int:
        index = min(max(line - 1, 0), len(self.lines) - 1)
        head = self.lines[index].encode("utf-8", "surrogatepass")[:max(byte_col, 0)].decode("utf-8", "ignore")
        return self.start + self.line_starts[index] + len(head)

    def line_col(self, offset: int) -> tuple[int, int]:
        line = self.output.count("\n", 0, offset) + 1
        return line, offset - (self.output.rfind("\n", 0, offset) + 1) + 1


class _Strict:
    def __init__(self, output: str, doc: _Doc, target: _Target) -> None:
        self.output, self.doc, self.target = output, doc, target
        self.found: list[Violation] = []
        self.steps = 0
        self.vessels: set[str] | None = None
        self.reagents: set[str] | None = None

    def span(self, element: Element) -> tuple[int, int] | None:
        where = self.target.where.get(id(element))
        if where is None:
            return None
        start = self.doc.offset(*where)
        return start, start + 1 + len(element.tag)

    def line(self, element: Element) -> str:
        span = self.span(element)
        return "" if span is None else f"line {self.doc.line_col(span[0])[0]}"

    def at(self, element: Element) -> str:
        line = self.line(element)
        return f" ({line})" if line else ""

    def add(self, rule: str, message: str, element: Element | None = None, expected: Any = None,
            seen: Any = None) -> None:
        self.found.append(Violation(rule, message, None if element is None else self.span(element), expected, seen))

    # ---------------------------------------------------------------------------------------------- skeleton
    def run(self, root: Element) -> list[Violation]:
        if root.tag == "XDL":
            synthesis = self.only(root, "XDL", ("Synthesis",))
            if not synthesis["Synthesis"]:
                self.add("skeleton", f"XDL{self.at(root)} has no Synthesis; it must hold <Synthesis> with "
                                     "Hardware, Reagents and Procedure.", root, "Synthesis")
                return self.found
            root = synthesis["Synthesis"][0]
        sections = self.only(root, "Synthesis", SECTIONS)
        missing = [name for name in SECTIONS if not sections[name]]
        if missing:
            self.add("skeleton", f"Synthesis{self.at(root)} has no {', '.join(missing)} section; it needs "
                                 "Hardware, Reagents and Procedure.", root, list(SECTIONS), missing)
        if sections["Hardware"]:
            self.hardware(sections["Hardware"][0])
        if sections["Reagents"]:
            self.reagent_list(sections["Reagents"][0])
        if sections["Procedure"]:
            self.walk(sections["Procedure"][0], top=True)
        return self.found

    def only(self, parent: Element, name: str, allowed: tuple[str, ...]) -> dict[str, list[Element]]:
        """The children of ``parent`` by tag; reports other tags and repeated sections."""
        out: dict[str, list[Element]] = {tag: [] for tag in allowed}
        for child in parent:
            if child.tag in out:
                out[child.tag].append(child)
                if len(out[child.tag]) == 2:
                    self.add("skeleton", f"{name} has a second {child.tag}{self.at(child)}; it may hold only one.",
                             child)
            else:
                self.add("skeleton", f"{name} holds only {', '.join(allowed)}; <{child.tag}>{self.at(child)} does "
                                     "not belong there.", child, list(allowed), child.tag)
        return out

    # ---------------------------------------------------------------------------------------------- declarations
    def declared(self, section: Element, tag: str, key: str, rule: str) -> set[str]:
        spec = ELEMENTS[tag]
        allowed = _names(spec["mandatory"]) + _names(spec["optional"])
        seen: dict[str, Element] = {}
        for child in section:
            if child.tag != tag:
                self.add(rule, f"{section.tag} holds only {tag} elements; <{child.tag}>{self.at(child)} does not "
                               "belong there.", child, tag, child.tag)
                continue
            value = child.get(key)
            if not value or not value.strip():
                self.add(rule, f"The {tag}{self.at(child)} has no '{key}'; every {tag} needs one.", child, key)
            elif value in seen:
                self.add(rule, f"{tag} {key} {value!r} is declared twice ({self.line(seen[value])} and "
                               f"{self.line(child)}).", child, None, value)
            else:
                seen[value] = child
            if not spec["open"]:
                label = f"{tag} {value!r}" if value else tag
                for attr in sorted(set(child.attrib) - set(allowed)):
                    self.add(rule, f"{label}{self.at(child)} has the attribute '{attr}', which is not allowed; "
                                   f"{tag} allows: {', '.join(allowed)}.", child, allowed, attr)
        return set(seen)

    def hardware(self, section: Element) -> None:
        self.vessels = self.declared(section, "Component", "id", "hardware")

    def reagent_list(self, section: Element) -> None:
        self.reagents = self.declared(section, "Reagent", "name", "reagents")

    # ---------------------------------------------------------------------------------------------- steps
    def walk(self, parent: Element, top: bool) -> None:
        for child in parent:
            if child.tag in BLOCKS:
                if not top:
                    self.add("action", f"The {child.tag} block{self.at(child)} stands inside {parent.tag}; "
                                       "Prep, Reaction, Workup and Purification blocks may only stand directly in "
                                       "Procedure.", child)
                self.walk(child, top=False)
                continue
            self.steps += 1
            label = f"Step {self.steps} ({child.tag}{', ' + self.line(child) if self.line(child) else ''})"
            spec = ACTIONS.get(child.tag)
            if spec is None:
                close = difflib.get_close_matches(child.tag, sorted(ACTIONS), n=1)
                hint = f"; did you mean {close[0]}?" if close else f"; the actions are: {', '.join(ACTIONS)}."
                self.add("action", f"{label} is not an XDL action{hint}", child, None, child.tag)
            else:
                self.properties(child, spec, label)
            if child.tag in CONTAINERS:
                self.walk(child, top=False)
            elif len(child):
                self.add("action", f"{label} holds other elements; only {', '.join(CONTAINERS)} may hold steps.",
                         child)

    def properties(self, step: Element, spec: Mapping[str, Any], label: str) -> None:
        name = step.tag
        mandatory = _names(spec["mandatory"])
        allowed = mandatory + _names(spec["optional"])
        for prop in mandatory:
            if prop not in step.attrib:
                self.add("mandatory", f"{label} has no '{prop}' property; {name} requires: {', '.join(mandatory)}.",
                         step, mandatory, prop)
        if not spec["open"]:
            for prop in sorted(set(step.attrib) - set(allowed)):
                close = difflib.get_close_matches(prop, allowed, n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                self.add("property", f"{label} has the property '{prop}', which {name} does not allow{hint}; "
                                     f"{name} allows: {', '.join(allowed)}.", step, allowed, prop)
        types = dict(spec["mandatory"] + spec["optional"]) if not spec["open"] else REFERENCES
        for prop, value in sorted(step.attrib.items()):
            kind = types.get(prop)
            choices = spec["choices"].get(prop)
            if choices and value not in choices:
                self.add("value", f"{label} has {prop}={value!r}; {prop} must be one of: {', '.join(choices)}.",
                         step, choices, value)
            if kind == "float" and not _NUMBER.match(value):
                self.add("value", f"{label} has {prop}={value!r}; {prop} must be a number, units allowed "
                                  "(e.g. '10 s', '25 °C').", step, "number", value)
            if kind == "vessel" and self.vessels is not None and value not in self.vessels:
                self.add("vessel", f"{label}: {value!r} ({prop}) is not declared in Hardware; declared: "
                                   f"{', '.join(sorted(self.vessels)) or 'none'}.", step, sorted(self.vessels), value)
            if kind == "reagent" and self.reagents is not None and value not in self.reagents:
                self.add("reagent", f"{label}: {value!r} ({prop}) is not declared in Reagents; declared: "
                                    f"{', '.join(sorted(self.reagents)) or 'none'}.", step, sorted(self.reagents),
                         value)


def _parse_violation(exc: BaseException, doc: _Doc, where: tuple[int, int] | None) -> Violation:
    line, col = where or (1, 0)
    if isinstance(exc, ParseError):
        line, col = exc.position
    offset = doc.offset(line, col)
    out_line, out_col = doc.line_col(offset)
    at = f"line {out_line}, column {out_col}"
    if isinstance(exc, DTDForbidden):
        text = f"The XDL has a DOCTYPE (DTD) at {at}; DTDs and entity declarations are not allowed in XDL."
    elif isinstance(exc, EntitiesForbidden):
        text = f"The XDL declares an entity at {at}; entity declarations are not allowed in XDL."
    elif isinstance(exc, ExternalReferenceForbidden):
        text = f"The XDL refers to an external entity at {at}; external references are not allowed in XDL."
    elif isinstance(exc, _TooDeep):
        text = f"The XDL nests elements more than {MAX_DEPTH} deep (at {at}); it was not checked further."
    elif isinstance(exc, ParseError):
        reason = str(exc).split(":")[0]
        text = f"The XDL is not well-formed XML: {reason} at {at}."
    else:  # another defusedxml refusal
        text = f"The XDL could not be parsed safely ({type(exc).__name__}) at {at}."
    return Violation("xml", text, (offset, offset))


def strict(instance: Mapping[str, Any], output: str) -> list[Violation]:
    if not isinstance(output, str) or not output.strip():
        return [Violation("xml", "The answer is empty; it must be an XDL document, <XDL>…</XDL>.", (0, 0))]
    if len(output) > MAX_CHARS:
        return [Violation("xml", f"The answer has {len(output)} characters; XDL outputs over {MAX_CHARS} are not "
                                 "checked.", (0, 0), MAX_CHARS, len(output))]
    declaration = _DECLARATION.search(output)
    if declaration is not None:  # wherever it stands: cutting it off could leave its entities in the document
        line = output.count("\n", 0, declaration.start()) + 1
        return [Violation("xml", f"The answer has a {declaration.group(1)} declaration on line {line}; DTDs and "
                                 "entity declarations are not allowed in XDL (they are not expanded).",
                          declaration.span(), None, declaration.group(0))]
    found: list[Violation] = []
    place = _find_element(output, "XDL")
    if place is None:
        place = _find_element(output, "Synthesis")
        if place is None:
            return [Violation("xml", "No XDL document found; the answer must contain <XDL><Synthesis>…"
                                     "</Synthesis></XDL>.", (0, 0))]
        if isinstance(place, tuple):
            found.append(Violation("skeleton", "There is no <XDL> root; wrap <Synthesis> in <XDL>…</XDL>.",
                                   (place[0], place[0] + len("<Synthesis")), "XDL", "Synthesis"))
    if isinstance(place, int):
        line = output.count("\n", 0, place) + 1
        tag = "XDL" if output.startswith("<XDL", place) else "Synthesis"
        return [*found, Violation("xml", f"The <{tag}> opened on line {line} is never closed with </{tag}>.",
                                  (place, place + 1 + len(tag)), f"</{tag}>")]
    doc, target = _Doc(output, *place), _Target()
    try:
        root = _parse(doc.text, target)
    except (ParseError, DefusedXmlException, _TooDeep) as exc:
        where = (target.expat.CurrentLineNumber, target.expat.CurrentColumnNumber) if target.expat else None
        return [*found, _parse_violation(exc, doc, where)]
    except Exception as exc:  # expat may refuse other inputs; report, never raise
        return [*found, Violation("xml", f"The XDL could not be parsed ({type(exc).__name__}).", (place[0], place[0]))]
    return found + _Strict(output, doc, target).run(root)


def _reference_parse(text: str) -> Element | None:
    try:
        return _parse(text, _Target())
    except Exception:
        return None


def reference(instance: Mapping[str, Any], output: str) -> bool:
    if not isinstance(output, str) or len(output) > MAX_CHARS:
        return False
    end = output.find("</XDL>")
    if end < 0:
        return False
    root = _reference_parse(output[:end + len("</XDL>")])
    if root is None:
        return False
    vessels, names = set(), set()
    for hardware in root.iter("Hardware"):
        for component in hardware:
            if component.tag != "Component" or "id" not in component.attrib:  # a missing id is a KeyError: −1
                return False
            vessels.add(component.attrib["id"])
    reagent_spec = ELEMENTS["Reagent"]
    reagent_allowed = set(_names(reagent_spec["mandatory"]) + _names(reagent_spec["optional"]))
    for reagents in root.iter("Reagents"):
        for reagent in reagents:
            if "name" not in reagent.attrib or not set(reagent.attrib) <= reagent_allowed:
                return False
            names.add(reagent.attrib["name"])
    for procedure in root.iter("Procedure"):
        for step in procedure:  # direct children only: Repeat is not descended, blocks are unknown actions
            spec = ACTIONS.get(step.tag)
            if spec is None or not set(_names(spec["mandatory"])) <= set(step.attrib):
                return False
            allowed = set(_names(spec["mandatory"]) + _names(spec["optional"]))
            if not spec["open"] and not set(step.attrib) <= allowed:
                return False
            types = dict(spec["mandatory"] + spec["optional"]) if not spec["open"] else REFERENCES
            for prop, value in step.attrib.items():
                if types.get(prop) == "vessel" and value not in vessels:
                    return False
                if types.get(prop) == "reagent" and value not in names:
                    return False
    return True


CHECKER = FormatChecker(
    "xdl", RULES, (), strict, reference,
    "XDL: a chemistry procedure as an XDL document (Hardware, Reagents, Procedure of known actions)")
