"""Value types and actions for `grid-planner`'s options: argparse refuses a bad value with one
line naming the option."""

from __future__ import annotations

import argparse
import math

from grid_planner.grid.planning_grid import occupied_threshold_refusal
from grid_planner.search import DEPTH_LIMIT_BOUND, DEPTH_LIMIT_WORDS


class StoreValues(argparse.Action):
    """Stores a list of `low`..`high` values; `display` is how usage and help show them."""

    def __init__(self, *args, display: str, low: int = 1, high: int | None = None, **kwargs):
        kwargs.setdefault("nargs", "+")
        super().__init__(*args, **kwargs)
        self.display = display
        self.low, self.high = low, high

    def __call__(self, parser, namespace, values, option_string=None):
        values = list(values)
        if len(values) < self.low or (self.high is not None and len(values) > self.high):
            parser.error(f"argument {option_string or self.dest}: expected {self.display}")
        setattr(namespace, self.dest, values)


def finite(text: str) -> float:
    """A finite number (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def non_negative(text: str) -> float:
    """A finite number >= 0 (argparse type)."""
    value = finite(text)
    if value < 0.0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return value


def at_most(high: float):
    """An argparse type: a finite number in [0, `high`]."""

    def number(text: str) -> float:
        value = non_negative(text)
        if value > high:
            raise argparse.ArgumentTypeError(f"{text!r} must be at most {high:g}")
        return value

    number.__name__ = f"number in [0, {high:g}]"
    return number


def positive(text: str) -> float:
    """A finite number > 0 (argparse type)."""
    value = finite(text)
    if value <= 0.0:
        raise argparse.ArgumentTypeError(f"{text!r} must be > 0")
    return value


def whole_number(text: str) -> int:
    """An integer of any sign; accepts "2e6" and "2_000_000" too (argparse type)."""
    try:
        return int(text)
    except ValueError:
        number = finite(text)
        if not number.is_integer():
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        return int(number)


def count(text: str) -> int:
    """An integer >= 0 (argparse type)."""
    value = whole_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return value


def depth(text: str) -> int:
    """A depth limit: a whole number >= 0 below DEPTH_LIMIT_BOUND (argparse type)."""
    value = count(text)
    if value >= DEPTH_LIMIT_BOUND:
        raise argparse.ArgumentTypeError(f"{text!r} must be below {DEPTH_LIMIT_WORDS}")
    return value


def positive_count(text: str) -> int:
    """A whole number >= 1 (argparse type)."""
    value = whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 1")
    return value


def threshold(text: str) -> int:
    """An occupancy threshold, a whole number in 1..100 (argparse type)."""
    value = count(text)
    refusal = occupied_threshold_refusal(value)
    if refusal:
        raise argparse.ArgumentTypeError(f"{text!r} {refusal}")
    return value


def file_name(text: str) -> str:
    """A file name that is not empty (argparse type): '' would name the current directory."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a file name, got ''")
    return text


def name_list(text: str) -> list[str]:
    """A comma-separated list of names, blanks dropped (argparse type)."""
    return [name.strip() for name in text.split(",") if name.strip()]
