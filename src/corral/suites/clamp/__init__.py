"""BenchCLAMP-style parsing (Roy et al., "BenchCLAMP: A Benchmark for Evaluating Language Models on Syntactic and
Semantic Parsing"): constituency parsing on GUM trees and dependency parsing on UD English EWT, with the paper's
low/medium/high-resource splits and BM25 few-shot retrieval; SMCalFlow to Lispress (``clamp-lispress``) with a
grammar induced from example programs; Spider text to SQL (``clamp-spider``) with a SQLite grammar per database
and execution accuracy on generated test suites; BenchCLAMP's ``.scfg`` grammar files read and converted.

The suite holds the data, prompts, grammars and tasks; what it uses is public elsewhere: few-shot retrieval is
``corral.retrieval``, running and judging SQL ``corral.sql``, the ``.scfg`` format ``corral.grammars.scfg``
(``read_scfg``, ``scfg_to_lark``, ``ScfgError``, ``run_query``, ``QueryResult`` and ``exact_set_match`` are
re-exported here, where they were first)."""

from corral.grammars.scfg import ScfgError, read_scfg, scfg_to_lark
from corral.sql import QueryResult, exact_set_match, run_query

from ._calflow import CALFLOW_SPLITS, CalflowSplit, CalflowTurn, calflow_split, calflow_turns
from ._calflow_grammar import benchclamp_lispress_grammar
from ._coverage import Coverage, benchclamp_lispress_coverage, coverage, lispress_coverage, spider_coverage
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
from ._lispress import LispressError, canonical_lispress, lispress_match, read_lispress
from ._lispress_grammar import LispressGrammar, induce_lispress_grammar
from ._lispress_task import clamp_lispress
from ._spider import SpiderQuestion, SpiderSchema, spider_questions, spider_schemas
from ._spider_task import clamp_spider, spider_suite
from ._sql_grammar import sql_grammar
from ._syntax_task import clamp_constituency, clamp_dependency

__all__ = [
    "CALFLOW_SPLITS",
    "DATASETS",
    "SPLITS",
    "CalflowSplit",
    "CalflowTurn",
    "Coverage",
    "LispressError",
    "LispressGrammar",
    "ParseExample",
    "QueryResult",
    "ScfgError",
    "SpiderQuestion",
    "SpiderSchema",
    "Split",
    "benchclamp_lispress_coverage",
    "benchclamp_lispress_grammar",
    "calflow_split",
    "calflow_turns",
    "canonical_lispress",
    "clamp_constituency",
    "clamp_dependency",
    "clamp_lispress",
    "clamp_spider",
    "constituent_labels",
    "coverage",
    "exact_set_match",
    "induce_lispress_grammar",
    "lispress_coverage",
    "lispress_match",
    "load",
    "pos_tags",
    "read_lispress",
    "read_scfg",
    "relations",
    "run_query",
    "scfg_to_lark",
    "spider_coverage",
    "spider_questions",
    "spider_schemas",
    "spider_suite",
    "split",
    "sql_grammar",
    "test_subset",
    "tree_labels",
]
