"""How much of what the compiled COLLIE-v1 grammars accept reads as English, by tests anyone can rerun.

    python benchmarks/collie_grammar_precision.py [--per-structure 3] [--samples 4] [--seed 0] [--letters 0.8]

For the first ``--per-structure`` instances of each of the 13 structures (``corral.tasks.get_task("collie")``,
``task.grammar(instance)``), ``--samples`` texts are drawn from the grammar without a model (seeded random byte
walks guided by the engine's masks: ``corral.grammars.sample``), twice: a *uniform* walk (every allowed byte alike,
``random_walk``) and a *letter-biased* walk (a lowercase ASCII letter with probability ``--letters`` wherever one is
allowed, else as the uniform walk), which writes word-length runs as a model does. Every drawn text is checked
(``task.check(instance, text).passed``: soundness). Each text is then tested:

* (a) **words**: every letter run is in wordfreq's English list (Zipf > 0). A walk that spells words byte by
  byte almost never makes a real one, so this is reported apart and is no measure of the shape;
* (b) **balanced**: ``( )`` and ``[ ]`` nest and close, ``“ ”`` pair up, ``"`` comes in pairs;
* (c) **punctuation**: every run of two or more symbols (after abbreviation dots, ``U.S.``, are taken out) is a
  normal one: openers (``("``), closers around one mark (``%).``, ``,"``, ``.'"``, ``?)``, ``”,``), an ellipsis,
  a dash after a mark or before a quote (``,--``, ``--"``), emptied brackets (``().``);
* (d) **no stranded character**: no single letter or digit between two symbols (``(a)``, ``/x/``, ``"A"``) or
  right before a closing bracket (``1)``, ``0))``), a number's digits aside (``"0.54``);
* (e) **case**: every run of ASCII letters is lowercase, Capitalised, ALL CAPS, capitalised parts (``McDonald``,
  ``PhD``, ``CDs``) or one lowercase letter before capitals or a capitalised part (``iOS``, ``iPhone``), the
  patterns COLLIE-v1's own examples hold (``hEr``, ``lIkEd`` are not).

*Structural* is (b)-(e) together: the shape's precision headline. *Labels allowed* is the same with list labels
read as English: ``1)``, ``b)``, ``iv)`` at the start of the text or after a space, the enumeration COLLIE-v1's
prompts themselves use ("Please generate a paragraph: 1) with exactly 3 sentences; 2) ..."), which (b) and (d)
count as an unbalanced bracket and a stranded character, and which the model copies into its own free text. The
same tests run over the real outputs (``--records``: constrained and free) and over COLLIE-v1's human examples
(every one of the 2,080: the tests must pass nearly all human text); a constrained output whose instance is among
those compiled here is also fed to today's grammar (still allowed: the whole output, or its start where it was
cut at its token budget), so a shape change shows which junk the model could no longer write. Deterministic: the
instances are the first of each structure, the walks are seeded.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from corral.grammars import EOS, byte_matcher, random_walk, sample
from corral.tasks import get_task

RECORDS = ("docs/results/collie-smollm2-main/constrained/records.jsonl",
           "docs/results/collie-smollm2-main/free/records.jsonl",
           "docs/results/collie-smollm2-smc/smc-t03/records.jsonl",
           "docs/results/collie-smollm2/constrained/records.jsonl")
TESTS = ("words", "balanced", "punctuation", "stranded", "case")
STRUCTURAL = TESTS[1:]

_LETTERS = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ]+")
# abbreviation dots (U.S., a.m., e.g., D.I.Y.) and titles: the period is part of the word, not a mark
_ABBREVIATION = re.compile(r"(?<![A-Za-z])(?:[A-Za-z]\.){2,}|\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Co|Inc|Ltd|No|vs|etc)\.")
_SYMBOLS = re.compile(r"[^\w\s]{2,}")
_CLOSE = r"[)\]\"”’'%]"
_MARK = r"(?:\.\.\.|…|[.,;:!?]|[!?]{2})"
_DASH = r"(?:--|—|–)"
_RUN_OK = re.compile("|".join([
    r"[(\[\"“‘']{1,2}",                                   # openers: (" “‘
    rf"{_CLOSE}{{0,2}}{_MARK}?{_CLOSE}{{0,2}}",           # closers around one mark: %). ," .'" ?) ”,
    rf"{_CLOSE}?{_MARK}?{_DASH}[\"“‘'(]?",                 # a dash after a mark or before a quote: ,-- .-- --"
    rf"\(\){_MARK}?",                                      # emptied brackets: (). (),
    rf"\.[,;:]{_CLOSE}?",                                   # a period that ends an abbreviation: Jr., Ltd.;
    r"\$[(\[]?|[(\[\"“]\$",                                # a sign: ($
]))
# one letter or digit, no letter or digit beside it, between an opener or a slash and a closer, mark or slash
# ("(a)", "/x/", '"A"'), or right before a closing bracket ("1)", "0))"); not a number's digit ("0.54")
_STRANDED = re.compile(r"(?<![\w'’])(?:(?<=[(\[{\"“‘/])\w(?=[)\]}\"”’/,;:!?]|\.(?!\d))|\w(?=[)\]]))(?!\w)")
_CASE_OK = re.compile(r"[a-z]+|[A-Z]*(?:[A-Z][a-z]+){0,3}[A-Z]*|[a-z][A-Z]+|[a-z][A-Z][a-z]{2,}|kHz|kWh|mAh")


@lru_cache(maxsize=1 << 16)
def _known(word: str) -> bool:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") > 0


def words_ok(text: str) -> bool:
    return all(_known(w.lower()) for w in _LETTERS.findall(text))


def balanced(text: str) -> bool:
    stack: list[str] = []
    pairs = {")": "(", "]": "[", "”": "“"}
    for c in text:
        if c in "([“":
            stack.append(c)
        elif c in pairs and (not stack or stack.pop() != pairs[c]):
            return False
    return not stack and text.count('"') % 2 == 0


def punctuation_ok(text: str) -> bool:
    text = _ABBREVIATION.sub(lambda m: m.group().replace(".", "x"), text)
    return all(_RUN_OK.fullmatch(run) for run in _SYMBOLS.findall(text))


def stranded_ok(text: str) -> bool:
    text = _ABBREVIATION.sub(lambda m: m.group().replace(".", "x"), text)
    return not _STRANDED.search(text)


def case_ok(text: str) -> bool:
    return all(_CASE_OK.fullmatch(run) for run in re.findall(r"[A-Za-z]+", text))


# a list label: one or two digits, a letter or a roman numeral, then ")", where a list item starts
_LABEL = re.compile(r"(?:(?<=\s)|^)(\d{1,2}|[A-Za-z]|[ivxIVX]{2,4})\)(?=\s|$)")


def without_labels(text: str) -> str:
    """``text`` with its list labels written ``1.`` instead of ``1)`` (see the module's docstring)."""
    return _LABEL.sub(r"\1.", text)


CHECKS: dict[str, Callable[[str], bool]] = {"words": words_ok, "balanced": balanced, "punctuation": punctuation_ok,
                                            "stranded": stranded_ok, "case": case_ok}


def verdicts(text: str) -> dict[str, bool]:
    found = {name: check(text) for name, check in CHECKS.items()}
    found["structural"] = all(found[name] for name in STRUCTURAL)
    found["all"] = found["structural"] and found["words"]
    unlabelled = without_labels(text)
    found["labels allowed"] = found["structural"] or (
        unlabelled != text and all(CHECKS[name](unlabelled) for name in STRUCTURAL))
    return found


def allowed_prefix(grammar, text: str) -> bool:
    """Whether ``grammar`` still lets a decoder write ``text`` (as the whole text or its start: an output cut at
    its token budget is a prefix)."""
    data = text.encode()
    return byte_matcher(grammar).try_consume_tokens(list(data)) == len(data)


def letter_walk(seed: int, letters: float, stop: float = 0.15) -> Callable[[list[int]], int]:
    """``random_walk`` with a bias: a lowercase ASCII letter with probability ``letters`` wherever one is allowed."""
    rng = random.Random(seed)
    uniform = random_walk(seed, stop=stop)
    lower = set(range(ord("a"), ord("z") + 1))

    def choose(allowed: list[int]) -> int:
        if EOS in allowed and rng.random() < stop:
            return EOS
        ascii_lower = [a for a in allowed if a in lower]
        if ascii_lower and rng.random() < letters:
            return rng.choice(ascii_lower)
        return uniform([a for a in allowed if a != EOS] or allowed)

    return choose


class Tally:
    def __init__(self) -> None:
        self.n = 0
        self.passed: Counter[str] = Counter()
        self.failing: dict[str, list[str]] = defaultdict(list)

    def add(self, text: str) -> None:
        self.n += 1
        for name, ok in verdicts(text).items():
            self.passed[name] += ok
            if not ok and len(self.failing[name]) < 3:
                self.failing[name].append(text)

    def row(self, label: str, extra: str = "") -> str:
        cells = [f"{self.passed[t] / max(self.n, 1):.1%}"
                 for t in (*STRUCTURAL, "structural", "words", "all", "labels allowed")]
        return f"| {label} | {self.n} | {' | '.join(cells)} |{extra}"


HEADER = ("| {0} | texts | (b) balanced | (c) punctuation | (d) stranded | (e) case | **structural (b-e)** | "
          "(a) words | all | structural, labels allowed |{1}\n|---|---|---|---|---|---|---|---|---|---|{2}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-structure", type=int, default=3, help="instances per structure (the first ones)")
    parser.add_argument("--samples", type=int, default=4, help="texts drawn per grammar and walk")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--letters", type=float, default=0.8, help="the letter-biased walk's bias")
    parser.add_argument("--max-bytes", type=int, default=1500)
    parser.add_argument("--records", nargs="*", default=list(RECORDS), help="run records whose outputs to test")
    parser.add_argument("--examples", type=int, default=3, help="failing texts shown per test")
    args = parser.parse_args()
    started = time.perf_counter()
    task = get_task("collie")
    chosen: dict[str, list] = defaultdict(list)
    for inst in task.instances():
        structure = inst.groups["structure"]
        if len(chosen[structure]) < args.per_structure:
            chosen[structure].append(inst)
    walks = {"uniform": lambda seed: random_walk(seed, stop=0.15),
             "letter-biased": lambda seed: letter_walk(seed, args.letters)}
    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    drawn = sound = lost = failed_compile = 0
    unsound: list[str] = []
    compiled: dict[str, object] = {}
    for structure in sorted(chosen):
        for index, inst in enumerate(chosen[structure]):
            try:
                grammar = task.grammar(inst)
            except Exception as exc:  # an instance the compiler refuses: counted, not drawn
                failed_compile += 1
                print(f"  {inst.id}: not compiled ({str(exc)[:80]})", file=sys.stderr)
                continue
            if grammar is None:
                failed_compile += 1
                continue
            compiled[inst.id] = grammar
            for walk_name, make in walks.items():
                for k in range(args.samples):
                    seed = args.seed * 1_000_003 + index * 1_000 + k
                    text = sample(grammar, make(seed), max_bytes=args.max_bytes)
                    if text is None:
                        lost += 1
                        continue
                    drawn += 1
                    if task.check(inst, text).passed:
                        sound += 1
                    elif len(unsound) < 10:
                        unsound.append(f"{inst.id}: {text!r:.160}")
                    tallies[(walk_name, structure)].add(text)
                    tallies[(walk_name, "overall")].add(text)
    print(f"COLLIE-v1 grammars, {args.per_structure} instances per structure, {args.samples} walks per grammar "
          f"and walk kind (seed {args.seed}, letter bias {args.letters}): {drawn} texts drawn ({lost} walks ran "
          f"past {args.max_bytes} bytes or into a dead end, {failed_compile} instances not compiled); "
          f"soundness {sound}/{drawn} pass the checker")
    for walk_name in walks:
        print(f"\n{walk_name} walk:\n")
        print(HEADER.format("structure", "", ""))
        for structure in [*sorted(chosen), "overall"]:
            t = tallies[(walk_name, structure)]
            print(t.row(f"**{structure}**" if structure == "overall" else structure))
    print("\nreal texts:\n")
    print(HEADER.format("source", "", ""))
    human = Tally()
    for inst in task.instances():
        human.add(inst.reference)
    print(human.row("COLLIE-v1 human examples"))
    model: dict[str, Tally] = {}
    still: dict[str, Counter[str]] = {}
    for path in args.records:
        run = f"{Path(path).parent.parent.name}/{Path(path).parent.name}"
        kept = Counter()
        for line in Path(path).read_text().splitlines():
            record = json.loads(line)
            output = record.get("output")
            if not output:
                continue
            tally = model.setdefault(f"{record.get('decoding')} outputs, `{run}`", Tally())
            tally.add(output)
            if record.get("decoding") == "constrained":
                grammar = compiled.get(record.get("instance", ""))
                if grammar is not None:  # does today's grammar still let a decoder write it?
                    junk = not verdicts(output)["structural"]
                    kept["outputs"] += 1
                    kept["junk"] += junk
                    if allowed_prefix(grammar, output):
                        kept["allowed"] += 1
                        kept["junk allowed"] += junk
        if kept:
            still[run] = kept
    for label, tally in model.items():
        print(tally.row(label))
    print("\nconstrained outputs whose instance was compiled here, written again under today's grammars (the whole "
          "output, or its start where it was cut at its budget):\n")
    print("| records | outputs | still allowed | failing (b)-(e) | of those, still allowed |\n|---|---|---|---|---|")
    for run, kept in still.items():
        print(f"| `{run}` | {kept['outputs']} | {kept['allowed']} | {kept['junk']} | {kept['junk allowed']} |")
    if args.examples:
        print("\nfailing texts (first of each test):")
        for name in (*TESTS,):
            for label, t in [("uniform", tallies[("uniform", "overall")]),
                             ("letter-biased", tallies[("letter-biased", "overall")]), ("human", human),
                             *model.items()]:
                for text in t.failing[name][:args.examples]:
                    bad = text if len(text) < 140 else text[:140] + "…"
                    print(f"  ({name}, {label}) {bad!r}")
    if unsound:
        print("\nUNSOUND: drawn texts that fail the checker:")
        print("\n".join(f"  {line}" for line in unsound))
    print(f"\n{time.perf_counter() - started:.0f} s")
    sys.exit(1 if unsound else 0)


if __name__ == "__main__":
    main()
