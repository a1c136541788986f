"""BenchCLAMP-style parsing (Roy et al., "BenchCLAMP: A Benchmark for Evaluating Language Models on Syntactic and
Semantic Parsing"): constituency parsing on GUM trees and dependency parsing on UD English EWT, with the paper's
low/medium/high-resource splits and BM25 few-shot retrieval; SMCalFlow to Lispress (``clamp-lispress``) with a
grammar induced from example programs; a read-only runner for predicted SQL (the Spider task is to come)."""

from ._calflow import CALFLOW_SPLITS, CalflowSplit, CalflowTurn, calflow_split, calflow_turns
from ._coverage import Coverage, coverage, lispress_coverage
from ._lispress import LispressError, canonical_lispress, lispress_match, read_lispress
from ._lispress_grammar import LispressGrammar, induce_lispress_grammar
from ._lispress_task import clamp_lispress
from ._sqlite import QueryResult, run_query
from ._task import clamp_constituency, clamp_dependency

__all__ = ["CALFLOW_SPLITS", "CalflowSplit", "CalflowTurn", "Coverage", "LispressError", "LispressGrammar",
           "QueryResult", "calflow_split", "calflow_turns", "canonical_lispress", "clamp_constituency",
           "clamp_dependency", "clamp_lispress", "coverage", "induce_lispress_grammar", "lispress_coverage",
           "lispress_match", "read_lispress", "run_query"]
