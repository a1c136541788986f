"""BenchCLAMP-style parsing (Roy et al., "BenchCLAMP: A Benchmark for Evaluating Language Models on Syntactic and
Semantic Parsing"): constituency parsing on GUM trees and dependency parsing on UD English EWT, with the paper's
low/medium/high-resource splits and BM25 few-shot retrieval; SMCalFlow to Lispress (``clamp-lispress``) with a
grammar induced from example programs; Spider text to SQL (``clamp-spider``) with a SQLite grammar per database
and execution accuracy on generated test suites; BenchCLAMP's ``.scfg`` grammar files read and converted."""

from ._calflow import CALFLOW_SPLITS, CalflowSplit, CalflowTurn, calflow_split, calflow_turns
from ._calflow_grammar import benchclamp_lispress_grammar
from ._coverage import Coverage, benchclamp_lispress_coverage, coverage, lispress_coverage, spider_coverage
from ._lispress import LispressError, canonical_lispress, lispress_match, read_lispress
from ._lispress_grammar import LispressGrammar, induce_lispress_grammar
from ._lispress_task import clamp_lispress
from ._scfg import ScfgError, read_scfg, scfg_to_lark
from ._spider import SpiderQuestion, SpiderSchema, spider_questions, spider_schemas
from ._spider_task import clamp_spider, spider_suite
from ._sql_grammar import sql_grammar
from ._sql_match import exact_set_match
from ._sqlite import QueryResult, run_query
from ._task import clamp_constituency, clamp_dependency

__all__ = [
    "CALFLOW_SPLITS",
    "CalflowSplit",
    "CalflowTurn",
    "Coverage",
    "LispressError",
    "LispressGrammar",
    "QueryResult",
    "ScfgError",
    "SpiderQuestion",
    "SpiderSchema",
    "benchclamp_lispress_coverage",
    "benchclamp_lispress_grammar",
    "calflow_split",
    "calflow_turns",
    "canonical_lispress",
    "clamp_constituency",
    "clamp_dependency",
    "clamp_lispress",
    "clamp_spider",
    "coverage",
    "exact_set_match",
    "induce_lispress_grammar",
    "lispress_coverage",
    "lispress_match",
    "read_lispress",
    "read_scfg",
    "run_query",
    "scfg_to_lark",
    "spider_coverage",
    "spider_questions",
    "spider_schemas",
    "spider_suite",
    "sql_grammar",
]
