"""``corral clamp``: the parsing suite's grammar coverage (BenchCLAMP's Table 6)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from corral.errors import InputError
from corral.suites.clamp import (
    CALFLOW_SPLITS,
    benchclamp_lispress_coverage,
    cosql_coverage,
    coverage,
    lispress_coverage,
    mtop_coverage,
    overnight_coverage,
    spider_coverage,
    treedst_coverage,
)

from ._console import fail, out
from ._options import MAX_INSTANCES, int_option

app = typer.Typer(help="BenchCLAMP parsing: grammar coverage of the gold outputs.", no_args_is_help=True)


@app.command("coverage")
def clamp_coverage(
    part: Annotated[str, typer.Option(help="train, dev or test.")] = "test",
    limit: Annotated[int | None, int_option(low=1, high=MAX_INSTANCES, help=(
        "At most this many examples per dataset."))] = None,
    overnight: Annotated[Path | None, typer.Option(help=(
        "The folder of Overnight's blocks files (not shipped): adds its test formulas against the grammar induced "
        "from its pool."))] = None,
    mtop: Annotated[Path | None, typer.Option(help=(
        "MTOP's unpacked release (not shipped; the folder holding en/): adds its English trees of --part (dev reads "
        "eval.txt) against BenchCLAMP's MTOP grammar."))] = None,
    treedst: Annotated[Path | None, typer.Option(help=(
        "The folder of TreeDST's Lispress files (not shipped): adds its --part programs against the "
        "grammar induced from its training programs."))] = None,
) -> None:
    """The share of each dataset's gold outputs its grammar accepts: per-sentence grammars for trees and both
    dependency forms (``--part``); for SMCalFlow's dev-100 and dev-200 turns, the Lispress grammar induced from the
    example pool and BenchCLAMP's own (rebuilt from its sources); for Spider's dev questions, the SQLite grammar of
    each question's database, and for CoSQL's turns; with ``--overnight``, Overnight blocks' test formulas; with
    ``--mtop`` and ``--treedst``, those datasets' ``--part``."""
    if part not in ("train", "dev", "test"):
        raise fail(f"unknown part {part!r}; valid: train, dev, test")
    table = Table("dataset", "form", "examples", "covered", "coverage", "not covered")
    found_all = [coverage(dataset, part, form, limit)
                 for dataset, form in (("gum", "tree"), ("ewt", "triples"), ("ewt", "indexed"))]
    found_all += [lispress_coverage(split, limit) for split in CALFLOW_SPLITS]
    found_all += [benchclamp_lispress_coverage(split, limit) for split in CALFLOW_SPLITS]
    found_all.append(spider_coverage(limit))
    found_all.append(cosql_coverage(limit))
    try:
        if overnight is not None:
            found_all.append(overnight_coverage(str(overnight), limit))
        if mtop is not None:
            found_all.append(mtop_coverage(str(mtop), "en", part, limit))
        if treedst is not None:
            found_all.append(treedst_coverage(str(treedst), part, limit))
    except InputError as exc:
        raise fail(str(exc)) from None
    for found in found_all:
        dataset = found.dataset if found.dataset != "smcalflow" else f"smcalflow {found.part}"
        why = ", ".join(f"{reason} {count}" for reason, count in found.reasons) or "—"
        table.add_row(dataset, found.form, str(found.examples), str(found.covered), f"{found.rate:.1%}", why)
    out.print(table)
