"""FormatBench (ReFF): format checkers that return violations with rule, message, span, expected and seen; the
shipped instances of its ten tasks; prompts; quality metrics; and the ``formatbench`` task. Each task's parts are
put together once, as a ``FormatTask`` (``_formats``)."""

from . import _formats  # noqa: F401  (registers the ten tasks)
from ._agent import CHECKER as AGENT_CHECKER
from ._agent import MAX_SUGGESTIONS as AGENT_SUGGESTIONS
from ._agent import agent_quality, normalise
from ._agent import nearest as nearest_commands
from ._core import (
           MODES,
           FormatChecker,
           FormatTask,
           InstanceError,
           check_format,
           format_grammar,
           get_checker,
           get_format_task,
           look,
           register_format_task,
           tick,
)
from ._formats import FORMAT_TASKS, TASKS
from ._grammars import FormatGrammar
from ._grammars_copy import line_starts
from ._grammars_structured import (
           MAX_COMPONENTS,
           MAX_REAGENTS,
           MAX_REPEATED,
           MAX_STEPS,
           OPEN_PROPERTIES,
           XDL_LEFT,
           declared_names,
)
from ._instances import (
           data_file,
           encode_rows,
           load_instances,
           read_instances_file,
           shipped_tasks,
           validate_row,
           write_instances,
)
from ._judge import parse_rating
from ._mtt import MTT_WORD, find_term
from ._parse import CLAUSE, PHRASE, WORD
from ._quality import (
           acrow_quality,
           breaks,
           capseg_quality,
           eqa_quality,
           labelled_brackets,
           mcq_quality,
           mtt_quality,
           ner_quality,
           parse_quality,
           tagged_entities,
)
from ._tagged import MAX_LINE, MAX_LINES
from ._task import formatbench
from ._xdl import ACTIONS as XDL_ACTIONS
from ._xdl import CONTAINERS as XDL_CONTAINERS
from ._xdl import MAX_CHARS as XDL_MAX_CHARS
from ._xdl import MAX_DEPTH as XDL_MAX_DEPTH
from ._xdl import REFERENCES as XDL_REFERENCES
from ._xdl import RULES as XDL_RULES

__all__ = [
           "AGENT_CHECKER",
           "AGENT_SUGGESTIONS",
           "CLAUSE",
           "FORMAT_TASKS",
           "MAX_COMPONENTS",
           "MAX_LINE",
           "MAX_LINES",
           "MAX_REAGENTS",
           "MAX_REPEATED",
           "MAX_STEPS",
           "MODES",
           "MTT_WORD",
           "OPEN_PROPERTIES",
           "PHRASE",
           "TASKS",
           "WORD",
           "XDL_ACTIONS",
           "XDL_CONTAINERS",
           "XDL_LEFT",
           "XDL_MAX_CHARS",
           "XDL_MAX_DEPTH",
           "XDL_REFERENCES",
           "XDL_RULES",
           "FormatChecker",
           "FormatGrammar",
           "FormatTask",
           "InstanceError",
           "acrow_quality",
           "agent_quality",
           "breaks",
           "capseg_quality",
           "check_format",
           "data_file",
           "declared_names",
           "encode_rows",
           "eqa_quality",
           "find_term",
           "format_grammar",
           "formatbench",
           "get_checker",
           "get_format_task",
           "labelled_brackets",
           "line_starts",
           "load_instances",
    "look",
           "mcq_quality",
           "mtt_quality",
           "nearest_commands",
           "ner_quality",
           "normalise",
           "parse_quality",
           "parse_rating",
           "read_instances_file",
           "register_format_task",
           "shipped_tasks",
           "tagged_entities",
    "tick",
           "validate_row",
           "write_instances",
]
