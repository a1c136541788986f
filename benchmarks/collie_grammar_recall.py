"""How much real English the compiled COLLIE-v1 grammars hold, and whether everything they hold passes.

    python benchmarks/collie_grammar_recall.py [--samples 20] [--structures sent02,para01] [--limit N] [--jobs N]

For every COLLIE-v1 instance: compile its constraint (``corral.grammars.compile_constraint``), then

* **recall**: does the grammar accept the instance's own example, the human-written text the constraint's
  values were extracted from? A grammar that refuses it forces the model into some other kind of text;
* **soundness**: ``--samples`` texts drawn from the grammar (random byte walks guided by the engine's masks)
  must all pass the checker.

Prints expressible %, recall % overall and per structure, soundness, and the causes that block the rest (the
first character or form of the example that the grammar refuses, classified). ``--json PATH`` writes the
rows (one per instance) for closer study.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import sys
import time
from collections import Counter
from functools import lru_cache

from corral.constraints import TEXT, Constraint, Count, Rel, check
from corral.grammars import NotExpressible, accepts, byte_matcher, compile_constraint, random_walk, sample
from corral.suites.collie import instances
from corral.text import Level


@lru_cache(maxsize=4)
def _shape(profile: str):
    """The sentence shape alone: a grammar for "any number of words"."""
    return compile_constraint(Constraint(Count(TEXT, Level.WORD, Rel.GE, 0), Level.SENTENCE, profile))


def _refusal(grammar, text: str) -> tuple[int, str]:
    """Where the grammar stops following ``text``: the offset of the first refused byte (len: the end)."""
    matcher = byte_matcher(grammar)
    data = text.encode()
    taken = matcher.try_consume_tokens(list(data))
    if taken < len(data):
        prefix = data[:taken].decode("utf-8", errors="ignore")
        return len(prefix), "refused"
    return len(text), "incomplete" if not matcher.is_accepting() else "accepted"


_CAUSES = [
    ("apostrophe", re.compile(r"['’‘]")),
    ("quote", re.compile(r"[\"“”]")),
    ("digit", re.compile(r"\d")),
    ("hyphen or dash", re.compile(r"[-–—]")),
    ("parenthesis or bracket", re.compile(r"[()\[\]{}]")),
    ("colon or semicolon", re.compile(r"[:;]")),
    ("! or ?", re.compile(r"[!?]")),
    ("non-ASCII", re.compile(r"[^\x00-\x7f]")),
    ("other symbol", re.compile(r"[^A-Za-z ,.\n]")),
]


def _cause(text: str, at: int, how: str, shape) -> str:
    """Why the grammar stops following ``text`` at offset ``at``: the chunk (space-separated piece) there is a
    form the shape leaves out (classified by its characters), or the chunk is fine and the refusal is about a
    sentence boundary, a count, a position or a limit."""
    if how == "incomplete":
        return "ends too early (a count, a length limit, or the last sentence)"
    start = max(text.rfind(" ", 0, at), text.rfind("\n", 0, at)) + 1
    ends = [i for i in (text.find(" ", at), text.find("\n", at)) if i >= 0]
    chunk = text[start:min(ends) if ends else len(text)]
    probe = f"Ab {chunk}" if re.search(r"[.!?][\"”’)]*$", chunk) else f"Ab {chunk} cd."
    if chunk and not accepts(shape, probe):
        for name, pattern in _CAUSES:
            if pattern.search(chunk):
                return f"a form left out: {name}"
        if re.search(r"[A-Za-z]\.", chunk):
            return "a form left out: a period after a word (Mr., U.S.)"
        return "a form left out: other"
    if at < len(text) and text[at] == "\n":
        return "a line break inside a paragraph"
    if at == 0 or (start == 0 and text[:1].isspace()):
        return "the text starts with a digit, a lowercase letter or a space"
    if text[at:at + 1] == "." and chunk[:-1].rstrip(".").isalpha():
        return "a form left out: a period after a word (Mr., U.S.)"
    if start > 0 and text[:start].rstrip().endswith((".", "!", "?")) and chunk[:1].islower():
        return "a sentence starting in lowercase"
    if text[at:at + 1] == " " and text[at + 1:at + 2] == " ":
        return "two spaces"
    return "a count, position or length limit (more than 100 words a sentence, 12 sentences a paragraph)"


def _measure(job: tuple[int, int]) -> dict:
    """One instance: compiled or why not, the example accepted or why not, and the sampled texts' verdicts."""
    index, samples = job
    inst = _instances()[index]
    constraint = inst.constraint
    row: dict = {"id": inst.id, "structure": inst.structure}
    try:
        grammar = compile_constraint(constraint)
    except NotExpressible as exc:
        return {**row, "compiled": False, "reason": exc.parts[0][1]}
    at, how = _refusal(grammar, inst.example)
    cause = None
    if how != "accepted":
        cause = ("the example fails its own constraint (no sound grammar accepts it)"
                 if not check(constraint, inst.example).passed
                 else _cause(inst.example, at, how, _shape(constraint.profile)))
    drawn, unsound = 0, []
    for seed in range(samples):
        text = sample(grammar, random_walk(seed, stop=0.15), max_bytes=3000)
        if text is None:
            continue
        drawn += 1
        if not check(constraint, text).passed:
            unsound.append(f"{inst.id}: {text!r:.160}")
    return {**row, "compiled": True, "accepted": how == "accepted", "refused_at": at, "how": how, "cause": cause,
            "drawn": drawn, "unsound": unsound}


@lru_cache(maxsize=1)
def _instances() -> list:
    return list(instances())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=20, help="texts drawn per grammar for soundness")
    parser.add_argument("--structures", default="", help="comma-separated structure names (default: all)")
    parser.add_argument("--limit", type=int, default=0, help="instances per structure (0: all)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--json", default="", help="write one row per instance here")
    parser.add_argument("--redo", default="", help="only the instances a previous --json run did not compile "
                                                   "or whose example it refused (to try a change quickly)")
    args = parser.parse_args()
    wanted = {s for s in args.structures.split(",") if s}
    redo: set[str] | None = None
    if args.redo:
        with open(args.redo) as previous:
            rows_before = [json.loads(line) for line in previous if line.strip()]
        redo = {r["id"] for r in rows_before if not (r["compiled"] and r["accepted"])}
    seen: Counter[str] = Counter()
    chosen = []
    for index, inst in enumerate(_instances()):
        if (wanted and inst.structure not in wanted) or (args.limit and seen[inst.structure] >= args.limit) \
                or (redo is not None and inst.id not in redo):
            continue
        seen[inst.structure] += 1
        chosen.append((index, args.samples))
    total: Counter[str] = Counter()
    compiled: Counter[str] = Counter()
    accepted: Counter[str] = Counter()
    blocked: Counter[str] = Counter()
    inexpressible: Counter[str] = Counter()
    drawn = unsound = 0
    unsound_examples: list[str] = []
    rows = []
    started = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        for done, row in enumerate(pool.imap(_measure, chosen, chunksize=4), 1):
            rows.append(row)
            name = row["structure"]
            total[name] += 1
            if not row["compiled"]:
                inexpressible[re.sub(r"'[^']*'|\"[^\"]*\"", "…", row["reason"])[:90]] += 1
            else:
                compiled[name] += 1
                accepted[name] += row["accepted"]
                if row["cause"]:
                    blocked[row["cause"]] += 1
                drawn += row["drawn"]
                unsound += len(row["unsound"])
                unsound_examples += row["unsound"][:10 - len(unsound_examples)]
            if done % 100 == 0:
                print(f"  {done}/{len(chosen)} instances, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    seconds = time.perf_counter() - started
    n, c, a = sum(total.values()), sum(compiled.values()), sum(accepted.values())
    print(f"instances {n}; expressible {c} ({c / max(n, 1):.1%}); recall {a}/{c} ({a / max(c, 1):.1%} of "
          f"the compiled, {a / max(n, 1):.1%} of all); soundness {drawn - unsound}/{drawn} sampled texts pass "
          f"({args.samples} walks per grammar); {seconds:.0f} s with {args.jobs} workers")
    print("\n| structure | instances | compiled | example accepted | recall |\n|---|---|---|---|---|")
    for name in total:
        print(f"| {name} | {total[name]} | {compiled[name]} | {accepted[name]} | "
              f"{accepted[name] / max(compiled[name], 1):.1%} |")
    print("\nwhat refuses the rest (the first refused form in the example):")
    for cause, k in blocked.most_common():
        print(f"  {k:5d}  {cause}")
    if inexpressible:
        print("\nwhy the others do not compile:")
        for reason, k in inexpressible.most_common(12):
            print(f"  {k:5d}  {reason}")
    if unsound_examples:
        print("\nUNSOUND: sampled texts that fail the checker:")
        print("\n".join(f"  {line}" for line in unsound_examples))
    if args.json:
        with open(args.json, "w") as out:
            out.write("\n".join(json.dumps(r) for r in rows) + "\n")
    sys.exit(1 if unsound else 0)


if __name__ == "__main__":
    main()
