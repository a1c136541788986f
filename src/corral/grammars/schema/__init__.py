"""JSON Schemas compiled to grammars for JSON, YAML or XML output, with what decoding enforces.

Soundness is the rule: every text a grammar accepts parses (``corral.schema``'s sample parsers) to a value valid
against the schema, unless ``enforcement(...).after`` lists a constraint decoding leaves unchecked. To get there
a grammar may *narrow* (write fewer values than the schema allows), never widen. A schema no grammar can express
raises ``NotExpressible`` naming the schema path and keyword.

The modules, from the entry points down: ``_compile`` (``compile_schema``, ``enforcement``); JSON output through
llguidance (``_llguidance``, with ``_plan`` and ``_narrow``); YAML and XML output through Corral's own lowering
(``_lower`` with ``_lower_objects``, ``_lower_arrays``, ``_exclude``) to the value language (``_model``), written
by ``_yaml`` and ``_xml`` on ``_emit`` (Lark text: ``_lark``, ``_encoding``, numbers: ``_numbers``); patterns and
formats as languages (``_rx``, ``_formats``); plain JSON values (``_values``); reports and refusals
(``_enforcement``).
"""

from ._compile import compile_schema, enforcement
from ._enforcement import Enforcement

__all__ = ["Enforcement", "compile_schema", "enforcement"]
