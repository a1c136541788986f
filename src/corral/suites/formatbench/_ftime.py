"""FTime: a reminder's time as ``YYYYMMDDTHHMMSS`` (single trigger) or ``Rn/YYYYMMDDTHHMMSS/PnYnMnDTnHnMnS``
(repeating: n repetitions, -1 for ever; first trigger; the interval with all six fields written out).

``?`` stands for a digit the instruction leaves open; the known digits must still make a real calendar date and
time (no 30 February, no hour 25). The reference checker strptime-parses with ``?`` read as ``0`` (so it fails
``????????T??????``: year 0), only looks for an ``R`` somewhere in the first field (``XR9`` passes), ignores
fields after the third, and accepts any ISO duration (``P1D``).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from corral.verdicts import Violation

from ._core import FormatChecker, reference_first_line

STAMP = re.compile(r"[0-9?]{8}T[0-9?]{6}")
REPEAT = re.compile(r"R(-1|[0-9]+)")  # ASCII digits only (\d takes any script's); -1 is "for ever", no other sign
DURATION = re.compile(r"P([0-9]+)Y([0-9]+)M([0-9]+)DT([0-9]+)H([0-9]+)M([0-9]+)S")
_FIELDS = (("month", 4, 6, 1, 12), ("day", 6, 8, 1, 31), ("hour", 9, 11, 0, 23), ("minute", 11, 13, 0, 59),
           ("second", 13, 15, 0, 59))


def _stamp(text: str, offset: int, what: str) -> list[Violation]:
    span = (offset, offset + len(text))
    if not STAMP.fullmatch(text):
        return [Violation("timestamp", f"The {what} {text!r} is not in the form YYYYMMDDTHHMMSS (8 digits, 'T', "
                                       "6 digits; '?' for an open digit).", span, "YYYYMMDDTHHMMSS", text)]
    found = []
    for name, start, end, low, high in _FIELDS:
        part = text[start:end]
        if "?" not in part and not low <= int(part) <= high:
            found.append(Violation("calendar", f"The {name} of the {what} is {part}; it must be {low:02d} to "
                                               f"{high}.", (offset + start, offset + end), f"{low:02d}-{high}", part))
    year, month, day = text[0:4], text[4:6], text[6:8]
    if not found and "?" not in month + day and int(day) > 28:
        last = calendar.monthrange(int(year) if "?" not in year else 2000, int(month))[1]  # 2000: a leap year
        if int(day) > last:
            found.append(Violation("calendar", f"The {what} gives day {day} of month {month}, which has {last} days"
                                               + ("" if "?" in year else f" in {year}") + ".",
                                   (offset + 6, offset + 8), f"01-{last}", day))
    return found


def strict(instance: Mapping[str, Any], output: str) -> list[Violation]:
    answer = output.strip()
    offset = output.find(answer) if answer else 0
    tag = int(instance["tag"])
    if not answer:
        return [Violation("shape", "The answer is empty; it must be a time string.", (0, 0))]
    if tag in (1, 2):
        if "/" in answer:
            return [Violation("shape", "This reminder triggers once: write YYYYMMDDTHHMMSS, not the repeating "
                                       "form.", (offset, offset + len(answer)), "YYYYMMDDTHHMMSS", answer)]
        return _stamp(answer, offset, "time")
    parts = answer.split("/")
    if len(parts) != 3:
        return [Violation("shape", f"A repeating time has exactly 3 fields separated by '/' "
                                   f"(Rn/YYYYMMDDTHHMMSS/PnYnMnDTnHnMnS); this has {len(parts)}.",
                          (offset, offset + len(answer)), 3, len(parts))]
    starts = [offset, offset + len(parts[0]) + 1, offset + len(parts[0]) + len(parts[1]) + 2]
    found = []
    if not REPEAT.fullmatch(parts[0]):
        found.append(Violation("repeat", f"The first field {parts[0]!r} must be R followed by the number of "
                                         "repetitions (R-1 for ever), e.g. R5.",
                               (starts[0], starts[0] + len(parts[0])), "Rn", parts[0]))
    found += _stamp(parts[1], starts[1], "first trigger")
    if not DURATION.fullmatch(parts[2]):
        found.append(Violation("interval", f"The interval {parts[2]!r} must have all six fields, e.g. "
                                           "P0Y0M7DT0H0M0S.", (starts[2], starts[2] + len(parts[2])),
                               "PnYnMnDTnHnMnS", parts[2]))
    return found


def reference(instance: Mapping[str, Any], output: str) -> bool:
    answer = reference_first_line(output).strip()

    def parses(stamp: str) -> bool:
        if len(stamp) != 15:
            return False
        try:
            datetime.strptime(stamp.replace("?", "0"), "%Y%m%dT%H%M%S")
        except ValueError:
            return False
        return True

    if int(instance["tag"]) in (1, 2):
        return parses(answer)
    parts = answer.split("/")
    if len(parts) < 3 or "R" not in parts[0]:
        return False
    return parses(parts[1]) and re.fullmatch(
        r"P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?", parts[2]) is not None


CHECKER = FormatChecker(
    name="ftime",
    rules={"shape": "the single or repeating form, as the tag asks",
           "timestamp": "YYYYMMDDTHHMMSS with '?' for open digits",
           "calendar": "a real month, day, hour, minute and second",
           "repeat": "R followed by an integer", "interval": "PnYnMnDTnHnMnS with all six fields"},
    needs=("tag",), strict=strict, reference=reference,
    description="FTime: formatted reminder times (single trigger or repeating)",
)
