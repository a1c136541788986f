"""BenchCLAMP-style parsing (Roy et al., "BenchCLAMP: A Benchmark for Evaluating Language Models on Syntactic and
Semantic Parsing"): constituency parsing on GUM trees and dependency parsing on UD English EWT, with the paper's
low/medium/high-resource splits and BM25 few-shot retrieval; SMCalFlow to Lispress (``clamp-lispress``) with a
grammar induced from example programs; Spider and CoSQL text to SQL (``clamp-spider``, ``clamp-cosql``) with a
SQLite grammar per database and execution accuracy on generated test suites; BenchCLAMP's ``.scfg`` grammar files
read and converted. Three datasets are read from the user's copy, not shipped: Overnight blocks
(``clamp-overnight``, scored by denotation in SEMPRE's blocks world rebuilt here), MTOP (``clamp-mtop``) and
TreeDST (``clamp-treedst``), each with ``-T data=FOLDER``.

The suite holds the data, prompts, grammars and tasks; what it uses is public elsewhere: few-shot retrieval is
``corral.retrieval``, running and judging SQL ``corral.sql``, the ``.scfg`` format ``corral.grammars.scfg``
(``read_scfg``, ``scfg_to_lark``, ``ScfgError``, ``run_query``, ``QueryResult`` and ``exact_set_match`` are
re-exported here, where they were first)."""

from corral.grammars.scfg import ScfgError, read_scfg, scfg_to_lark
from corral.sql import QueryResult, exact_set_match, run_query

from ._calflow import CALFLOW_SPLITS, CalflowSplit, CalflowTurn, calflow_split, calflow_turns
from ._calflow_grammar import (
    benchclamp_lispress_grammar,
    prune_unused,
    read_signatures,
    signature_rules,
    type_nonterminal,
    without_leading_space,
)
from ._cosql import CosqlTurn, cosql_turns
from ._cosql_task import clamp_cosql, cosql_quality
from ._coverage import (
    Coverage,
    benchclamp_lispress_coverage,
    cosql_coverage,
    coverage,
    lispress_coverage,
    mtop_coverage,
    overnight_coverage,
    spider_coverage,
    treedst_coverage,
)
from ._data import (
    DATASETS,
    SPLITS,
    ParseExample,
    Split,
    constituent_labels,
    load,
    pos_tags,
    relations,
    split,
    test_subset,
    tree_labels,
)
from ._lispress import Group, LispressError, canonical_lispress, lispress_match, read_lispress
from ._lispress_grammar import LispressGrammar, induce_lispress_grammar
from ._lispress_task import check_lispress, clamp_lispress, lispress_quality, split_grammar
from ._mtop import (
    MTOP_PARTS,
    MtopExample,
    MtopGrammar,
    TopError,
    TopNode,
    induce_mtop_grammar,
    mtop_examples,
    read_mtop,
    read_top,
)
from ._mtop_task import check_top, clamp_mtop, mtop_grammar, mtop_structure, top_quality
from ._overnight import (
    OVERNIGHT_PARTS,
    OvernightExample,
    OvernightSplit,
    overnight_split,
    read_examples,
    simplify_formula,
)
from ._overnight_task import clamp_overnight, overnight_grammar, overnight_quality
from ._simpleworld import ExecutionError, JavaRandom, NameValue, NumberValue, World, blocks_world, denotation, execute
from ._spider import SpiderQuestion, SpiderSchema, spider_questions, spider_schemas
from ._spider_task import check_sql, clamp_spider, spider_suite, sql_quality, suite_folder
from ._sql_grammar import LIST_LIMITS, name_rule, sql_grammar
from ._syntax_task import (
    check_dependency,
    check_tree,
    clamp_constituency,
    clamp_dependency,
    dependency_grammar,
    target_text,
    tree_grammar,
)
from ._treedst import TREEDST_PARTS, read_dataflow_dialogues, treedst_turns
from ._treedst_task import clamp_treedst, treedst_grammar

__all__ = [
    "CALFLOW_SPLITS",
    "DATASETS",
    "LIST_LIMITS",
    "MTOP_PARTS",
    "OVERNIGHT_PARTS",
    "SPLITS",
    "TREEDST_PARTS",
    "CalflowSplit",
    "CalflowTurn",
    "CosqlTurn",
    "Coverage",
    "ExecutionError",
    "Group",
    "JavaRandom",
    "LispressError",
    "LispressGrammar",
    "MtopExample",
    "MtopGrammar",
    "NameValue",
    "NumberValue",
    "OvernightExample",
    "OvernightSplit",
    "ParseExample",
    "QueryResult",
    "ScfgError",
    "SpiderQuestion",
    "SpiderSchema",
    "Split",
    "TopError",
    "TopNode",
    "World",
    "benchclamp_lispress_coverage",
    "benchclamp_lispress_grammar",
    "blocks_world",
    "calflow_split",
    "calflow_turns",
    "canonical_lispress",
    "check_dependency",
    "check_lispress",
    "check_sql",
    "check_top",
    "check_tree",
    "clamp_constituency",
    "clamp_cosql",
    "clamp_dependency",
    "clamp_lispress",
    "clamp_mtop",
    "clamp_overnight",
    "clamp_spider",
    "clamp_treedst",
    "constituent_labels",
    "cosql_coverage",
    "cosql_quality",
    "cosql_turns",
    "coverage",
    "denotation",
    "dependency_grammar",
    "exact_set_match",
    "execute",
    "induce_lispress_grammar",
    "induce_mtop_grammar",
    "lispress_coverage",
    "lispress_match",
    "lispress_quality",
    "load",
    "mtop_coverage",
    "mtop_examples",
    "mtop_grammar",
    "mtop_structure",
    "name_rule",
    "overnight_coverage",
    "overnight_grammar",
    "overnight_quality",
    "overnight_split",
    "pos_tags",
    "prune_unused",
    "read_dataflow_dialogues",
    "read_examples",
    "read_lispress",
    "read_mtop",
    "read_scfg",
    "read_signatures",
    "read_top",
    "relations",
    "run_query",
    "scfg_to_lark",
    "signature_rules",
    "simplify_formula",
    "spider_coverage",
    "spider_questions",
    "spider_schemas",
    "spider_suite",
    "split",
    "split_grammar",
    "sql_grammar",
    "sql_quality",
    "suite_folder",
    "target_text",
    "test_subset",
    "top_quality",
    "tree_grammar",
    "tree_labels",
    "treedst_coverage",
    "treedst_grammar",
    "treedst_turns",
    "type_nonterminal",
    "without_leading_space",
]
