"""FTime instances generated from templates, with the gold time computed from the reference time (seeded).

As in the paper (A.3), an instruction is a template with a time slot and an event slot, in three categories:
an interval from now (tag 1: "remind me in 20 minutes to ..."), a specific time relative to now (tag 2:
"tomorrow at 8 a.m."), and a repeating time (tag 3: "every Monday at 10 a.m."). The reference time is drawn
at random (seeded); the gold answer is computed from it, never annotated by hand, so it is exact. Meals are
fixed as the reference's prompt fixes them: breakfast 8 a.m., lunch 12 noon, dinner 7 p.m.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MEALS = {"breakfast": 8, "lunch": 12, "dinner": 19}
EVENTS = ("take my medicine", "call my mother", "water the plants", "walk the dog", "check the oven",
          "pick up the kids", "send the report", "pay the rent", "stretch", "start the washing machine",
          "book the dentist", "feed the cat", "back up my laptop", "go for a run", "review the slides",
          "buy milk", "charge my phone", "take out the trash", "join the team call", "read a chapter")
STAMP = "%Y%m%dT%H%M%S"


def _hour_words(hour: int) -> str:
    if hour == 0:
        return "midnight"
    if hour == 12:
        return "12 noon"
    return f"{hour % 12 or 12} {'a.m.' if hour < 12 else 'p.m.'}"


def _duration(days: int = 0, hours: int = 0, minutes: int = 0) -> str:
    return f"P0Y0M{days}DT{hours}H{minutes}M0S"


def _interval(rng: random.Random, ref: datetime, event: str) -> tuple[str, str]:
    unit, amount = rng.choice([("minutes", rng.randint(5, 55)), ("hours", rng.randint(1, 9)),
                               ("days", rng.randint(1, 6))])
    gold = ref + timedelta(**{unit: amount})
    template = rng.choice(["Remind me to {event} in {n} {unit}.", "In {n} {unit}, remind me to {event}.",
                           "Set a reminder to {event} {n} {unit} from now."])
    return template.format(event=event, n=amount, unit=unit), gold.strftime(STAMP)


def _specific(rng: random.Random, ref: datetime, event: str) -> tuple[str, str]:
    kind = rng.choice(["tomorrow", "weekday", "meal", "tonight"])
    if kind == "meal":
        meal = rng.choice(sorted(MEALS))
        day = ref.date() + timedelta(days=1)
        text = f"Remind me to {event} before {meal} tomorrow."
        gold = datetime(day.year, day.month, day.day, MEALS[meal])
    elif kind == "weekday":
        target = rng.randrange(7)
        ahead = (target - ref.weekday()) % 7 or 7  # "next Monday" on a Monday is a week away
        hour = rng.randint(7, 21)
        day = ref.date() + timedelta(days=ahead)
        text = f"On {WEEKDAYS[target]} at {_hour_words(hour)}, remind me to {event}."
        gold = datetime(day.year, day.month, day.day, hour)
    elif kind == "tonight":
        hour = rng.randint(max(ref.hour + 1, 18), 23) if ref.hour < 23 else 23
        day = ref.date() if ref.hour < 23 else ref.date() + timedelta(days=1)
        text = f"Remind me to {event} tonight at {_hour_words(hour)}." if ref.hour < 23 else \
            f"Remind me to {event} tomorrow at {_hour_words(hour)}."
        gold = datetime(day.year, day.month, day.day, hour)
    else:
        hour, minute = rng.randint(6, 22), rng.choice([0, 0, 15, 30, 45])
        day = ref.date() + timedelta(days=1)
        at = _hour_words(hour) if minute == 0 else f"{hour % 12 or 12}:{minute:02d} {'a.m.' if hour < 12 else 'p.m.'}"
        text = f"Tomorrow at {at}, remind me to {event}."
        gold = datetime(day.year, day.month, day.day, hour, minute)
    return text, gold.strftime(STAMP)


def _repeating(rng: random.Random, ref: datetime, event: str) -> tuple[str, str]:
    kind = rng.choice(["weekly", "daily", "hourly", "times"])
    hour = rng.randint(6, 22)
    if kind == "weekly":
        target = rng.randrange(7)
        ahead = (target - ref.weekday()) % 7
        first = datetime(ref.year, ref.month, ref.day, hour) + timedelta(days=ahead)
        if first <= ref:
            first += timedelta(days=7)
        return f"Remind me to {event} at {_hour_words(hour)} every {WEEKDAYS[target]}.", \
            f"R-1/{first.strftime(STAMP)}/{_duration(days=7)}"
    if kind == "hourly":
        every = rng.randint(2, 8)
        first = ref + timedelta(hours=every)
        return f"Remind me to {event} every {every} hours.", f"R-1/{first.strftime(STAMP)}/{_duration(hours=every)}"
    first = datetime(ref.year, ref.month, ref.day, hour)
    if first <= ref:
        first += timedelta(days=1)
    if kind == "times":
        times = rng.randint(2, 10)
        return f"Remind me to {event} at {_hour_words(hour)} every day for the next {times} days.", \
            f"R{times}/{first.strftime(STAMP)}/{_duration(days=1)}"
    return f"Remind me to {event} every day at {_hour_words(hour)}.", \
        f"R-1/{first.strftime(STAMP)}/{_duration(days=1)}"


def ftime_instances(n: int = 300, seed: int = 0) -> Iterator[dict[str, Any]]:
    """``n`` instances, a third per category, the same for the same seed."""
    rng = random.Random(seed)
    makers = {1: _interval, 2: _specific, 3: _repeating}
    for i in range(n):
        tag = i % 3 + 1
        ref = datetime(2000, 1, 1) + timedelta(minutes=rng.randrange(30 * 365 * 24 * 60))
        event = rng.choice(EVENTS)
        instruction, gold = makers[tag](rng, ref, event)
        instruction = instruction.replace(".m..", ".m.")  # "at 10 p.m." ends the sentence too
        yield {"id": f"ftime-{i:04d}", "tag": tag, "reference": f"{ref.strftime(STAMP)}:{WEEKDAYS[ref.weekday()]}",
               "instruction": instruction, "gold": gold}
