"""Grammar coverage (BenchCLAMP's Table 6): the share of gold outputs that the grammars accept.

The grammars are built from the whole training part's labels, tags and relations, so a test tree with a label
never seen in training, a token the copy grammar refuses (none: every token is copied as it is) or a tree nested
past ``MAX_DEPTH`` is not covered. Each gold output is checked by running it through the grammar's matcher over a
byte vocabulary (``corral.grammars.accepts``), the same engine constrained decoding uses. For SMCalFlow the grammar
is the one induced from the split's example pool (``lispress_coverage``; BenchCLAMP's own is
``_calflow_grammar.benchclamp_lispress_coverage``); for Spider, each question's database's SQLite grammar
(``spider_coverage``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ._calflow import calflow_split
from ._data import load
from ._lispress_task import split_grammar
from ._syntax_task import dependency_grammar, target_text, tree_grammar


@dataclass(frozen=True)
class Coverage:
    dataset: str
    part: str
    form: str
    examples: int
    covered: int
    reasons: tuple[tuple[str, int], ...]
    """Why gold outputs were not covered, most common first (``grammar``: refused; ``build``: no grammar)."""

    @property
    def rate(self) -> float:
        return self.covered / self.examples if self.examples else 0.0


def coverage(dataset: str, part: str = "test", form: str = "triples", limit: int | None = None) -> Coverage:
    """How many of ``part``'s gold outputs the grammars accept (``form``: the dependency form; trees have one)."""
    from corral.grammars import GrammarError, accepts

    examples = load(dataset)[part][:limit]
    covered, reasons = 0, Counter[str]()
    for example in examples:
        try:
            grammar = (tree_grammar(example.words) if dataset == "gum"
                       else dependency_grammar(example.words, form))
        except GrammarError:
            reasons["build"] += 1
            continue
        if accepts(grammar, target_text(example, form)):
            covered += 1
        else:
            reasons["grammar"] += 1
    return Coverage(dataset, part, "tree" if dataset == "gum" else form, len(examples), covered,
                    tuple(reasons.most_common()))


def lispress_coverage(split: str, limit: int | None = None) -> Coverage:
    """How many of ``split``'s gold programs the Lispress grammar induced from its example pool accepts."""
    from corral.grammars import accepts

    turns = calflow_split(split).test[:limit]
    grammar = split_grammar(split)
    covered = sum(accepts(grammar, turn.lispress) for turn in turns)
    missed = len(turns) - covered
    return Coverage("smcalflow", split, "lispress", len(turns), covered, (("grammar", missed),) if missed else ())


def spider_coverage(limit: int | None = None) -> Coverage:
    """How many Spider dev gold queries the SQLite grammar of their own database accepts."""
    from corral.grammars import accepts

    from ._spider import spider_questions, spider_schemas
    from ._sql_grammar import sql_grammar

    questions = spider_questions()[:limit]
    schemas = spider_schemas()
    covered = sum(accepts(sql_grammar(schemas[q.db_id]), q.query) for q in questions)
    missed = len(questions) - covered
    return Coverage("spider", "dev", "sql", len(questions), covered, (("grammar", missed),) if missed else ())


def cosql_coverage(limit: int | None = None) -> Coverage:
    """How many CoSQL dev gold queries the SQLite grammar of their own database accepts."""
    from corral.grammars import accepts

    from ._cosql import cosql_turns
    from ._spider import spider_schemas
    from ._sql_grammar import sql_grammar

    turns = cosql_turns()[:limit]
    schemas = spider_schemas()
    covered = sum(accepts(sql_grammar(schemas[t.db_id]), t.query) for t in turns)
    missed = len(turns) - covered
    return Coverage("cosql", "dev", "sql", len(turns), covered, (("grammar", missed),) if missed else ())


def overnight_coverage(folder: str, limit: int | None = None) -> Coverage:
    """How many Overnight blocks test formulas the grammar induced from the pool accepts."""
    from corral.grammars import accepts

    from ._overnight import overnight_split
    from ._overnight_task import overnight_grammar

    examples = overnight_split(folder, "test").evaluated[:limit]
    grammar = overnight_grammar(folder)
    covered = sum(accepts(grammar, example.formula) for example in examples)
    missed = len(examples) - covered
    return Coverage("overnight-blocks", "test", "lambda-dcs", len(examples), covered,
                    (("grammar", missed),) if missed else ())


def benchclamp_lispress_coverage(split: str, limit: int | None = None, numbers: str = "benchclamp") -> Coverage:
    """How many of ``split``'s gold programs BenchCLAMP's rebuilt grammar (``_calflow_grammar``) accepts (compare
    ``lispress_coverage``, the grammar induced from the split's examples)."""
    from corral.grammars import accepts

    from ._calflow_grammar import benchclamp_lispress_grammar

    turns = calflow_split(split).test[:limit]
    grammar = benchclamp_lispress_grammar(numbers)
    covered = sum(accepts(grammar, turn.lispress) for turn in turns)
    missed = len(turns) - covered
    return Coverage("smcalflow", split, f"lispress/benchclamp-{numbers}", len(turns), covered,
                    (("grammar", missed),) if missed else ())


def mtop_coverage(folder: str, language: str = "en", part: str = "test", limit: int | None = None) -> Coverage:
    """How many of MTOP's ``part`` trees BenchCLAMP's MTOP grammar (induced from ``train.txt``, words copied from
    each utterance) accepts."""
    from corral.grammars import accepts

    from ._mtop import mtop_examples
    from ._mtop_task import mtop_structure

    examples = mtop_examples(folder, language, part)[:limit]
    structure = mtop_structure(folder, language)
    covered = sum(accepts(structure.for_utterance(e.tokens, e.utterance), e.decoupled) for e in examples)
    missed = len(examples) - covered
    return Coverage(f"mtop-{language}", part, "top", len(examples), covered, (("grammar", missed),) if missed else ())


def treedst_coverage(folder: str, part: str = "test", limit: int | None = None) -> Coverage:
    """How many TreeDST ``part`` programs the grammar induced from the training programs accepts."""
    from corral.grammars import accepts

    from ._treedst import treedst_turns
    from ._treedst_task import treedst_grammar

    turns = treedst_turns(folder, part)[:limit]
    grammar = treedst_grammar(folder)
    covered = sum(accepts(grammar, turn.lispress) for turn in turns)
    missed = len(turns) - covered
    return Coverage("treedst", part, "lispress", len(turns), covered, (("grammar", missed),) if missed else ())
