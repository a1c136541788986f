"""Execution accuracy for Spider without its databases: distilled test suites of small generated databases.

Spider's database files are not open data, and one database per schema judges execution poorly anyway: a wrong
query often returns the gold's rows by chance. Zhong, Yu and Klein (EMNLP 2020, "Semantic Evaluation for
Text-to-SQL with Distilled Test Suites") judge a prediction on a *test suite* instead: a few databases, chosen so
that the queries a model is likely to confuse with the gold give different results on at least one of them. A
prediction is correct if it returns the gold query's result on every database of the suite.

``generate_database`` writes one random instance of a schema: its tables with SQLite types (``number`` is
``INTEGER``, or ``REAL`` where a gold query compares it with a fraction; ``boolean`` is ``INTEGER``; the rest
``TEXT``; a foreign key takes its referenced column's type), primary keys (``table_keys``: Spider lists one column of
a composite key) and foreign keys declared, and 2 to 12 rows a table. Keys are unique and never ``NULL``; a foreign
key takes values of the column it references (whatever the order of the tables; a cycle of references leaves one
column ``NULL``). The other columns draw from the values the database's gold queries mention (``ValueHints``: each
literal; a ``LIKE`` pattern without its ``%``; a number's neighbours one below and one above) or from a few random
values around them, with duplicates on purpose (rows that repeat earlier rows, so ``GROUP BY``, ``count`` and
``DISTINCT`` have something to do) and now and then a ``NULL``. Columns that gold queries join without a declared
foreign key draw from the same values, so the join finds partners. How many rows, how often a literal is drawn,
how few random values, how many ``NULL`` values and repeated rows: each database draws its own, so candidates differ in
kind as well as in values.

``distinguishing_set`` generates candidate databases for a schema (most of them drawing on the literals of only a
share of its gold queries, which makes those queries' conditions far likelier to hold together), runs every gold
query and every near variant of it (``_variants.near_variants``) on each, and greedily keeps a few that
together *distinguish* the most (gold, variant) pairs: a pair is distinguished on a database where
``results_equal`` says their results differ there. A gold query that returns something (a row holding a value other
than ``NULL`` or 0) on a database for the first time counts as well. A variant that fails to run is no near miss and
is left out. Everything follows from the seed. ``execution_match`` then judges a prediction on the kept databases:
every query runs through ``run_query`` (read-only, refused if it would write or attach, time-limited), and a
prediction that is refused or fails is wrong.
"""

from __future__ import annotations

import math
import os
import random
import sqlite3
import string
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ._sandbox import QueryResult, run_query
from ._schema import SpiderSchema
from ._variants import ValueHints, has_top_level_order, near_variants, value_hints

__all__ = ["DatabaseSet", "GoldCoverage", "Match", "distinguishing_set", "execution_match", "generate_database",
           "informative", "results_equal", "sqlite_types", "table_keys"]

CANDIDATES = 60
"""Candidate databases generated per schema by default."""
KEEP = 5
"""Databases kept per schema by default."""
MIN_ROWS, MAX_ROWS = 2, 12
"""Rows a generated table holds (fewer where a key must take distinct values of a smaller table)."""
_INFORMATIVE_WEIGHT = 2
"""What a gold query that returns something for the first time is worth, in distinguished pairs."""


# --- generating a database -------------------------------------------------------------------------------------

def sqlite_types(schema: SpiderSchema, hints: ValueHints | None = None) -> tuple[str, ...]:
    """Each column's SQLite type: a foreign key takes the type of the column it references."""
    real = hints.real if hints is not None else frozenset()
    own = tuple("REAL" if kind == "number" and k in real else "INTEGER" if kind in ("number", "boolean") else "TEXT"
                for k, kind in enumerate(schema.types))
    references = _references(schema)
    return tuple(own[_root(k, references)] for k in range(len(own)))


def _references(schema: SpiderSchema) -> dict[int, int]:
    """Each foreign-key column's referenced column (the first, where the schema repeats or gives several)."""
    found: dict[int, int] = {}
    for child, parent in schema.foreign_keys:
        if child != parent:
            found.setdefault(child, parent)
    return found


def _root(column: int, references: Mapping[int, int]) -> int:
    seen = {column}
    while (column := references.get(column, column)) not in seen:
        seen.add(column)
    return column


def _tables(schema: SpiderSchema) -> list[int]:
    """The tables to create: SQLite reserves ``sqlite_`` names (Spider lists world_1's ``sqlite_sequence``)."""
    return [k for k, name in enumerate(schema.tables) if not name.lower().startswith("sqlite_")]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class _Plan:
    """A schema's layout for generation, the same for every seed."""

    types: tuple[str, ...]
    keys: Mapping[int, tuple[int, ...]]
    """Each table's primary-key columns."""
    unique: frozenset[int]
    """Columns whose values must be distinct: a table's whole primary key, or a referenced column."""
    references: Mapping[int, int]
    """Foreign-key column → referenced column (values come from it; a declared constraint)."""
    soft: Mapping[int, int]
    """Column → key column that gold queries join it to without a foreign key (values mostly come from it)."""
    groups: tuple[int, ...]
    """Each column's group: columns equated by the gold queries or by foreign keys share values."""
    literals: Mapping[int, tuple[object, ...]]
    """Each group's literal values (as the gold queries write them)."""
    order: tuple[int, ...]
    """Columns that take values from another column, each after the one it takes them from."""
    numeric: frozenset[int]
    """Columns the gold queries treat as numbers."""


def table_keys(schema: SpiderSchema, hints: ValueHints | None = None) -> dict[int, tuple[int, ...]]:
    """Each table's primary-key columns, as generated databases declare them.

    Spider's schemas list only the first column of a composite key (concert_singer's ``singer_in_concert`` lists
    ``concert_ID`` for ``(concert_ID, Singer_ID)``, world_1's ``countrylanguage`` ``CountryCode`` for
    ``(CountryCode, Language)``), and a table holding one row per other row would judge many gold queries badly
    (a country with one language). So a key listed as one column that *borrows* another table's key (a foreign
    key, or a column that gold queries join to another table's key when its own table declares foreign keys,
    as flight_2's ``flights.Airline``) is read with the column after it (or, last in its table, before it). Of the
    10 such tables in the dev set, 7 get the real databases' key this way; course_teach's ``course_arrange`` also
    has ``Grade`` in its real key, and the real keys of car_1's ``cars_data`` and employee_hire_evaluation's
    ``hiring`` are the one column (their generated instances may repeat it)."""
    keys: dict[int, tuple[int, ...]] = {}
    for column in schema.primary_keys:
        keys[schema.columns[column][0]] = (*keys.get(schema.columns[column][0], ()), column)
    children = {child for child, parent in schema.foreign_keys if child != parent}
    owners_with_references = {schema.columns[child][0] for child in children}
    single = {columns[0] for columns in keys.values() if len(columns) == 1}
    for a, b in sorted(hints.links if hints is not None else ()):
        for child, parent in ((a, b), (b, a)):
            if (child in single and parent in single and schema.columns[child][0] in owners_with_references
                    and schema.columns[parent][0] not in owners_with_references):
                children.add(child)
    for table, columns in keys.items():
        if len(columns) == 1 and columns[0] in children:
            own = [k for k, (owner, _) in enumerate(schema.columns) if owner == table]
            if len(own) > 1:
                position = own.index(columns[0])
                partner = own[position + 1] if position + 1 < len(own) else own[position - 1]
                keys[table] = (columns[0], partner)
    return keys


def _plan(schema: SpiderSchema, hints: ValueHints) -> _Plan:
    tables = set(_tables(schema))
    keys = table_keys(schema, hints)
    references = {child: parent for child, parent in _references(schema).items()
                  if schema.columns[child][0] in tables and schema.columns[parent][0] in tables}
    unique = {columns[0] for columns in keys.values() if len(columns) == 1} | set(references.values())
    soft: dict[int, int] = {}
    for a, b in sorted(hints.links):
        for child, parent in ((a, b), (b, a)):
            if parent in unique and child not in unique and child not in references and child not in soft:
                soft[child] = parent
    parent_of = list(range(len(schema.columns)))

    def find(k: int) -> int:
        while parent_of[k] != k:
            parent_of[k] = parent_of[parent_of[k]]
            k = parent_of[k]
        return k

    for a, b in [*sorted(hints.links), *references.items()]:
        parent_of[find(a)] = find(b)
    groups = tuple(find(k) for k in range(len(schema.columns)))
    literals: dict[int, dict[object, None]] = {}
    for column, values in sorted(hints.literals.items()):
        literals.setdefault(groups[column], {}).update(dict.fromkeys(values))
    dependent = {**soft, **references}
    order: list[int] = []
    placed: set[int] = set()
    pending = sorted(dependent)
    while pending:
        ready = [c for c in pending if dependent[c] not in dependent or dependent[c] in placed]
        if not ready:  # a cycle of references: the first column waits for nothing (its values may be NULL)
            ready = pending[:1]
        order += ready
        placed.update(ready)
        pending = [c for c in pending if c not in placed]
    return _Plan(sqlite_types(schema, hints), keys, frozenset(unique), references, soft, groups,
                 {group: tuple(values) for group, values in literals.items()}, tuple(order), hints.numeric)


@dataclass(frozen=True)
class _Profile:
    """What kind of database a seed makes."""

    min_rows: int
    max_rows: int
    literal_rate: float
    """How often a column with literals draws one."""
    spread: int
    """How many random values a column draws from (few: many duplicates)."""
    null_rate: float
    copy_rate: float
    """How often a row repeats an earlier row's values outside its keys."""

    @classmethod
    def draw(cls, rng: random.Random) -> _Profile:
        return cls(MIN_ROWS, rng.choice((3, 4, 6, 8, 10, MAX_ROWS)), rng.choice((0.3, 0.5, 0.7, 0.9)),
                   rng.choice((1, 2, 3, 5, 8)), rng.choice((0.0, 0.0, 0.1, 0.2)), rng.choice((0.0, 0.2, 0.4)))


def _number(value: object) -> object:
    """A literal as a column of type ``number`` holds it: numeric strings become numbers."""
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            try:
                return float(value)
            except ValueError:
                return value
    return value


def _literal_pool(values: Sequence[object], sqlite_type: str) -> tuple[list[object], list[object]]:
    """The values a column draws its literals from: the literals themselves, and what they suggest (a ``LIKE``
    pattern without its wildcards, numbers one below and one above)."""
    own: dict[object, None] = {}
    near: dict[object, None] = {}
    for value in values:
        value = _number(value) if sqlite_type != "TEXT" else value
        own[value] = None
        if isinstance(value, str) and "%" in value:
            near[value.replace("%", "")] = None
        number = _number(value)
        if isinstance(number, (int, float)) and not isinstance(number, bool):
            for step in (-1, 1):
                shifted = number + step
                near[shifted if sqlite_type != "TEXT" or not isinstance(value, str) else str(shifted)] = None
    return list(own), [value for value in near if value not in own]


def _span(literals: Sequence[object]) -> tuple[float, float]:
    """Where a column's random numbers lie: around its numeric literals (either side of them, so that both
    ``< 1945`` and ``> 1955`` hold for some), else small numbers, like the keys."""
    numbers = [v for v in map(_number, literals) if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not numbers:
        return 1, 12
    low, high = min(numbers), max(numbers)
    margin = max(2.0, (high - low) / 2, abs(high) * 0.05)
    return low - margin, high + margin


def _random_value(rng: random.Random, kind: str, sqlite_type: str, span: tuple[float, float] = (1, 12)) -> object:
    low, high = math.floor(span[0]), math.ceil(span[1])
    if kind == "numeric text":  # a text column that gold queries treat as a number: digits
        return str(rng.randint(low, high))
    if sqlite_type == "INTEGER":
        return rng.randint(0, 1) if kind == "boolean" else rng.randint(low, high)
    if sqlite_type == "REAL":
        return round(rng.uniform(span[0], span[1]), 1)
    if kind == "time":
        return f"{rng.randint(1990, 2020)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    return "".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 7))).capitalize()


def _distinct_values(rng: random.Random, count: int, literals: list[object], kind: str,
                     sqlite_type: str) -> list[object]:
    """``count`` distinct key values: literals some of the time, small numbers or random words otherwise."""
    chosen: dict[object, None] = {}
    for value in literals:
        if len(chosen) < count and rng.random() < 0.5:
            chosen[value] = None
    if sqlite_type == "INTEGER":
        fresh = [v for v in range(1, 2 * count + 3) if v not in chosen]
        chosen.update(dict.fromkeys(rng.sample(fresh, count - len(chosen))))
    while len(chosen) < count:
        chosen[_random_value(rng, kind, sqlite_type)] = None
    values = list(chosen)
    rng.shuffle(values)
    return values


def _fill(schema: SpiderSchema, plan: _Plan, rng: random.Random) -> dict[int, list[list[object]]]:
    """Every table's rows (lists of values in column order)."""
    profile = _Profile.draw(rng)
    tables = _tables(schema)
    columns_of = {table: [k for k, (owner, _) in enumerate(schema.columns) if owner == table] for table in tables}
    sizes = {table: rng.randint(profile.min_rows, profile.max_rows) for table in tables}
    for child in plan.order:  # a key that copies another table's distinct values has at most as many rows
        parent = plan.references.get(child)
        if parent is not None and child in plan.unique:
            table = schema.columns[child][0]
            sizes[table] = min(sizes[table], sizes[schema.columns[parent][0]])
    pools = {group: rng.sample(values, len(values)) for group, values in plan.literals.items()}
    randoms: dict[int, list[object]] = {}
    values: dict[int, list[object]] = {}
    for table in tables:
        for column in columns_of[table]:
            group, kind, sqlite_type = plan.groups[column], schema.types[column], plan.types[column]
            if sqlite_type == "TEXT" and column in plan.numeric:
                kind = "numeric text"
            own, near = _literal_pool(pools.get(group, ()), sqlite_type)
            if group not in randoms:
                span = _span(own)
                randoms[group] = [_random_value(rng, kind, sqlite_type, span) for _ in range(profile.spread)]
            count = sizes[table]
            if column in plan.unique:
                values[column] = _distinct_values(rng, count, own + near, kind, sqlite_type)
                continue
            drawn: list[object] = []
            for _ in range(count):
                if column not in plan.keys.get(table, ()) and rng.random() < profile.null_rate:
                    drawn.append(None)
                elif (own or near) and rng.random() < profile.literal_rate:
                    drawn.append(rng.choice(own if own and (not near or rng.random() < 0.6) else near))
                else:
                    drawn.append(rng.choice(randoms[group]))
            values[column] = drawn
    for child in plan.order:
        parent = plan.references.get(child, plan.soft.get(child))
        assert parent is not None
        available = list(dict.fromkeys(v for v in values[parent] if v is not None)) if parent != child else []
        count = sizes[schema.columns[child][0]]
        if child in plan.unique:
            values[child] = rng.sample(available, count) if len(available) >= count else available + [None] * (
                count - len(available))
        elif child in plan.references:
            values[child] = [rng.choice(available) if available else None for _ in range(count)]
        else:  # a join the schema does not declare: mostly partners, sometimes none
            values[child] = [rng.choice(available) if available and rng.random() < 0.85 else v
                             for v in values[child]]
    rows: dict[int, list[list[object]]] = {}
    for table in tables:
        table_rows = [[values[column][r] for column in columns_of[table]] for r in range(sizes[table])]
        key = [columns_of[table].index(column) for column in plan.keys.get(table, ())]
        free = [i for i, column in enumerate(columns_of[table]) if column not in plan.unique]
        for r in range(1, len(table_rows)):
            if rng.random() < profile.copy_rate:  # the same values again (DISTINCT and GROUP BY see it)
                earlier = table_rows[rng.randrange(r)]
                for i in free:
                    table_rows[r][i] = earlier[i]
        seen: set[tuple[object, ...]] = set()  # rows whose key is missing or repeated go
        table_rows = [row for row in table_rows if None not in (k := tuple(row[i] for i in key)) and
                      (len(key) < 2 or (k not in seen and not seen.add(k)))]
        rows[table] = table_rows
    return rows


def _ddl(schema: SpiderSchema, plan: _Plan, table: int) -> str:
    columns = [k for k, (owner, _) in enumerate(schema.columns) if owner == table]
    parts = [f"{_quote(schema.columns[k][1])} {plan.types[k]}" for k in columns]
    if key := plan.keys.get(table):
        parts.append(f"PRIMARY KEY ({', '.join(_quote(schema.columns[k][1]) for k in key)})")
    parts += [f"UNIQUE ({_quote(schema.columns[k][1])})" for k in columns
              if k in plan.unique and plan.keys.get(table) != (k,)]
    for child in columns:
        if (parent := plan.references.get(child)) is not None:
            parts.append(f"FOREIGN KEY ({_quote(schema.columns[child][1])}) REFERENCES "
                         f"{_quote(schema.tables[schema.columns[parent][0]])} ({_quote(schema.columns[parent][1])})")
    return f"CREATE TABLE {_quote(schema.tables[table])} ({', '.join(parts)})"


def generate_database(schema: SpiderSchema, path: str | Path, *, seed: int, values: ValueHints | None = None) -> None:
    """Write a random instance of ``schema`` to the SQLite file ``path`` (replacing it), drawing on ``values``
    (``value_hints`` of the database's gold queries); the same seed writes the same bytes (see the module doc)."""
    hints = values if values is not None else ValueHints({})
    plan = _plan(schema, hints)
    rows = _fill(schema, plan, random.Random(f"{schema.db_id}/{seed}"))
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    partial.unlink(missing_ok=True)
    connection = sqlite3.connect(partial, isolation_level=None)
    try:
        connection.execute("BEGIN")
        for table, table_rows in rows.items():
            connection.execute(_ddl(schema, plan, table))
            if table_rows:
                marks = ", ".join("?" * len(table_rows[0]))
                connection.executemany(f"INSERT INTO {_quote(schema.tables[table])} VALUES ({marks})", table_rows)
        connection.execute("COMMIT")
    finally:
        connection.close()
    os.replace(partial, path)


# --- comparing results -----------------------------------------------------------------------------------------

def _value(value: object) -> object:
    """A result value as compared: ``True`` is 1, an integral float is its integer, other floats keep 12 significant
    digits (``avg`` and ``sum``/``count`` may differ in the last bits)."""
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        return float(f"{value:.12g}")
    if isinstance(value, bool):
        return int(value)
    return value


_MAX_PERMUTATIONS = 10_000


def results_equal(gold_rows: Sequence[Sequence[object]], predicted_rows: Sequence[Sequence[object]],
                  ordered: bool) -> bool:
    """The test-suite comparison: the same rows as a bag (as a list when ``ordered``: the gold query has a
    top-level ``ORDER BY``), allowing the predicted columns in another order; 1 and 1.0 are equal."""
    gold = [tuple(map(_value, row)) for row in gold_rows]
    predicted = [tuple(map(_value, row)) for row in predicted_rows]
    if len(gold) != len(predicted):
        return False
    if not gold:
        return True
    width = len(gold[0])
    if any(len(row) != width for row in (*gold, *predicted)):
        return False
    if gold == predicted or (not ordered and Counter(gold) == Counter(predicted)):
        return True
    gold_columns = [Counter(row[i] for row in gold) for i in range(width)]
    predicted_vectors = [tuple(row[j] for row in predicted) for j in range(width)]
    predicted_columns = [Counter(vector) for vector in predicted_vectors]
    options = [[j for j in range(width) if predicted_columns[j] == gold_columns[i]] for i in range(width)]
    if not all(options):
        return False
    target = gold if ordered else Counter(gold)
    tried = 0

    def search(i: int, chosen: list[int]) -> bool:
        nonlocal tried
        if i == width:
            tried += 1
            permuted = [tuple(row[j] for j in chosen) for row in predicted]
            return permuted == target if ordered else Counter(permuted) == target
        seen_vectors: set[tuple[object, ...]] = set()
        for j in options[i]:
            if j in chosen or predicted_vectors[j] in seen_vectors:
                continue  # a column identical to one already tried here gives the same rows
            seen_vectors.add(predicted_vectors[j])
            chosen.append(j)
            if search(i + 1, chosen):
                return True
            chosen.pop()
            if tried >= _MAX_PERMUTATIONS:
                return False
        return False

    return search(0, [])


def informative(rows: Sequence[Sequence[object]]) -> bool:
    """Whether a result says something: a row holding a value other than ``NULL`` or 0 (a count of nothing is
    as empty as no rows)."""
    return any(value is not None and value != 0 for row in rows for value in row)


@dataclass(frozen=True)
class Match:
    """A prediction judged on a test suite: ``correct``, else ``reason`` says why not."""

    correct: bool
    reason: str | None = None


def execution_match(prediction: str, gold: str, databases: Sequence[str | Path], *, seconds: float = 2.0) -> Match:
    """Whether ``prediction`` returns ``gold``'s result on every database (``results_equal``, ordered where the gold
    has a top-level ``ORDER BY``). A prediction that ``run_query`` refuses (writes, attaches, several statements)
    or that fails is wrong; so is one when the gold itself fails."""
    if not databases:
        raise ValueError("no databases to judge on")
    ordered = has_top_level_order(gold)
    for database in databases:
        expected = run_query(database, gold, seconds=seconds)
        if not expected.ok:
            return Match(False, f"the gold query fails on {Path(database).name}: {expected.error}")
        predicted = run_query(database, prediction, seconds=seconds)
        if not predicted.ok:
            return Match(False, predicted.error)
        if predicted.truncated or not results_equal(expected.rows, predicted.rows, ordered):
            return Match(False, f"a different result on {Path(database).name}")
    return Match(True)


# --- the distinguishing set ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GoldCoverage:
    """How well a kept set judges one gold query: its near ``variants``, which of them some kept database
    ``distinguished``, on how many kept databases the gold returns rows (``non_empty``) and something other than
    ``NULL`` or 0 (``informative``), and ``error`` when the gold query fails on every candidate."""

    query: str
    variants: tuple[str, ...]
    distinguished: tuple[bool, ...]
    non_empty: int
    informative: int
    error: str | None = None

    @property
    def missed(self) -> tuple[str, ...]:
        """The variants no kept database tells apart from the gold."""
        return tuple(v for v, hit in zip(self.variants, self.distinguished, strict=True) if not hit)


@dataclass(frozen=True)
class DatabaseSet:
    """The databases kept for one schema (``paths``), and what they do for each gold query (in the order given)."""

    db_id: str
    paths: tuple[Path, ...]
    golds: tuple[GoldCoverage, ...]
    candidates: int
    failed_variants: int = 0
    """Variants left out because they fail to run."""
    seconds: float = field(default=0.0, compare=False)

    @property
    def variants(self) -> int:
        return sum(len(g.variants) for g in self.golds)

    @property
    def distinguished(self) -> int:
        return sum(sum(g.distinguished) for g in self.golds)


_FOCUS = (1.0, 0.5, 0.25, 0.125)
"""The share of gold queries whose literals a candidate draws on, in turn: a few queries' literals make their
conditions (``Continent = 'Asia' AND Language = 'Chinese'``) far likelier to hold together than all of them."""


def _focus(schema: SpiderSchema, golds: Sequence[str], hints: ValueHints, rng: random.Random,
           index: int) -> ValueHints:
    share = _FOCUS[index % len(_FOCUS)]
    if share >= 1:
        return hints
    chosen = rng.sample(list(golds), max(1, round(share * len(golds))))
    return ValueHints(value_hints(schema, chosen).literals, hints.links, hints.real, hints.numeric)


def _candidate_path(folder: Path, seed: int, index: int) -> Path:
    return folder / f"seed{seed}-{index:03d}.sqlite"


@dataclass(frozen=True)
class _Trial:
    """What one candidate database does, as bit sets: the (gold, variant) pairs it distinguishes, the gold queries
    that return rows on it, those that return something (``informative``), and those that fail on it."""

    distinguished: int
    rows: int
    answered: int
    broken: int


class _Pairs:
    """The (gold, variant) pairs of a schema, numbered for bit sets, and the variants found to fail."""

    def __init__(self, golds: Sequence[str], variants: Sequence[Sequence[str]]) -> None:
        self.golds, self.variants = golds, variants
        self.ordered = [has_top_level_order(query) for query in golds]
        self.first_bit = [0]
        for vs in variants:
            self.first_bit.append(self.first_bit[-1] + len(vs))
        self.failed: set[tuple[int, int]] = set()
        self.tried: set[tuple[int, int]] = set()

    def bit(self, g: int, v: int) -> int:
        return 1 << (self.first_bit[g] + v)

    def live(self) -> int:
        """The pairs whose variant runs."""
        return sum(self.bit(g, v) for g, vs in enumerate(self.variants) for v in range(len(vs))
                   if (g, v) not in self.failed)

    def trial(self, path: Path, seconds: float) -> _Trial:
        """Run every gold query and variant on the database at ``path`` (each distinct text once)."""
        results: dict[str, QueryResult] = {}

        def result(query: str) -> QueryResult:
            if query not in results:
                results[query] = run_query(path, query, seconds=seconds)
            return results[query]

        distinguished = rows = answered = broken = 0
        for g, query in enumerate(self.golds):
            expected = result(query)
            if not expected.ok:
                broken |= 1 << g
                continue
            if expected.rows:
                rows |= 1 << g
            if informative(expected.rows):
                answered |= 1 << g
            for v, variant in enumerate(self.variants[g]):
                if (g, v) in self.failed:
                    continue
                got, first = result(variant), (g, v) not in self.tried
                self.tried.add((g, v))
                if first and not got.ok and not (got.error or "").startswith("interrupted"):
                    self.failed.add((g, v))  # it fails where first tried: a broken query, no near miss
                elif not got.ok or got.truncated or not results_equal(expected.rows, got.rows, self.ordered[g]):
                    distinguished |= self.bit(g, v)
        return _Trial(distinguished, rows, answered, broken)


def _choose(trials: Sequence[_Trial], keep: int, live: int) -> list[int]:
    """Greedily, at most ``keep`` candidates that together distinguish the most live pairs (a gold query
    answering for the first time counts ``_INFORMATIVE_WEIGHT`` pairs), leaving out candidates on which a gold query
    fails that runs on another candidate."""
    always_broken = ~0
    for trial in trials:
        always_broken &= trial.broken
    usable = [k for k, trial in enumerate(trials) if not trial.broken & ~always_broken]
    if not usable:  # every candidate fails some gold query: the one failing fewest
        usable = [min(range(len(trials)), key=lambda k: (trials[k].broken & ~always_broken).bit_count())]
    chosen: list[int] = []
    covered = answered = 0
    while len(chosen) < keep:
        gains = [((trials[k].distinguished & live & ~covered).bit_count()
                  + _INFORMATIVE_WEIGHT * (trials[k].answered & ~answered).bit_count(), -k)
                 for k in usable if k not in chosen]
        if not gains or (chosen and max(gains)[0] == 0):
            break
        best = -max(gains)[1]
        chosen.append(best)
        covered |= trials[best].distinguished
        answered |= trials[best].answered
    return sorted(chosen)


def distinguishing_set(schema: SpiderSchema, gold_queries: Sequence[str], *, directory: str | Path,
                       candidates: int = CANDIDATES, keep: int = KEEP, seed: int = 0,
                       seconds: float = 2.0) -> DatabaseSet:
    """Generate ``candidates`` databases of ``schema`` under ``directory/<db_id>``, keep at most ``keep`` that
    together distinguish the most (gold, near variant) pairs, and delete the others (see the module doc)."""
    if candidates < 1 or keep < 1:
        raise ValueError("candidates and keep must be positive")
    started = time.perf_counter()
    golds = list(gold_queries)
    hints = value_hints(schema, golds)
    pairs = _Pairs(golds, [near_variants(query, schema, hints) for query in golds])
    folder = Path(directory) / schema.db_id
    folder.mkdir(parents=True, exist_ok=True)
    trials = []
    for index in range(candidates):
        path = _candidate_path(folder, seed, index)
        focus = _focus(schema, golds, hints, random.Random(f"{schema.db_id}/{seed}/{index}"), index)
        generate_database(schema, path, seed=seed * 100_003 + index, values=focus)
        trials.append(pairs.trial(path, seconds))
    chosen = _choose(trials, keep, pairs.live())
    for index in range(candidates):
        if index not in chosen:
            _candidate_path(folder, seed, index).unlink(missing_ok=True)
    paths = tuple(_candidate_path(folder, seed, index) for index in chosen)
    always_broken = ~0
    for trial in trials:
        always_broken &= trial.broken
    coverage = []
    for g, query in enumerate(golds):
        kept = [v for v in range(len(pairs.variants[g])) if (g, v) not in pairs.failed]
        error = run_query(paths[0], query, seconds=seconds).error if always_broken >> g & 1 else None
        coverage.append(GoldCoverage(
            query, tuple(pairs.variants[g][v] for v in kept),
            tuple(any(trials[c].distinguished & pairs.bit(g, v) for c in chosen) for v in kept),
            sum(trials[c].rows >> g & 1 for c in chosen), sum(trials[c].answered >> g & 1 for c in chosen), error))
    return DatabaseSet(schema.db_id, paths, tuple(coverage), candidates, len(pairs.failed),
                       time.perf_counter() - started)
