"""BenchCLAMP-style parsing (Roy et al., "BenchCLAMP: A Benchmark for Evaluating Language Models on Syntactic and
Semantic Parsing"): constituency parsing on GUM trees and dependency parsing on UD English EWT, with the paper's
low/medium/high-resource splits and BM25 few-shot retrieval."""

from ._coverage import Coverage, coverage
from ._task import clamp_constituency, clamp_dependency

__all__ = ["Coverage", "clamp_constituency", "clamp_dependency", "coverage"]
