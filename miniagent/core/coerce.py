"""Argument coercion: accept "5" where a number is expected, the way pi does.

Models write tool arguments as JSON, and they are sloppy with scalar types: an offset
comes as "5", a flag as "true", a path as the number 1. Rejecting those would cost a
whole turn for nothing, so before a value is checked against its schema type it is
converted when the conversion is unambiguous. pi gets this from AJV's `coerceTypes`
option; these are the same rules, written out:

    expected   value            becomes
    number     "5" / "0.5"      5 / 0.5      (a string that parses as a finite number)
    number     true / null      1 / 0
    integer    "5" / 5.0        5            (not "5.5", which has a fraction)
    string     5 / 0.5 / true   "5" / "0.5" / "true"
    string     null             ""
    boolean    "true" / 1       True         ("false", 0 -> False; null -> False)
    null       "" / 0 / false   None
    array      "[1]"            refused      (arrays and objects are never coerced)

`coerce(value, expected)` answers (ok, value): (True, 5) for ("5", "number"),
(False, ["a"]) for (["a"], "string"). The schema walk that calls it, and the error
text listing every problem, are in tools/__init__.py (`validate_arguments`).

Left out: AJV's stronger `coerceTypes: "array"` mode, which would also wrap a scalar in
a one-element array (`"a"` -> `["a"]`); pi runs the plain mode, as we do.
"""

import math
from typing import Any, Optional, Tuple


def coerce(value: Any, expected: str) -> Tuple[bool, Any]:
    """(ok, value) for the JSON Schema type `expected`, coercing scalars (table above)."""
    is_bool = isinstance(value, bool)  # bool is a subclass of int in Python: test it first
    is_num = isinstance(value, (int, float)) and not is_bool
    if expected == "object":
        return isinstance(value, dict), value
    if expected == "array":
        return isinstance(value, list), value
    if expected == "string":
        if isinstance(value, str):
            return True, value
        if is_bool:
            return True, "true" if value else "false"  # JSON's spelling, not Python's "True"
        if is_num:
            return True, number_text(value)
        return (True, "") if value is None else (False, value)
    if expected in ("number", "integer"):
        number = to_number(value)
        if number is None:
            return False, value
        if expected == "integer":
            return (True, int(number)) if number == int(number) else (False, value)
        return True, number
    if expected == "boolean":
        if is_bool:
            return True, value
        if value in ("true", "false"):
            return True, value == "true"
        if is_num and value in (0, 1):
            return True, bool(value)
        return (True, False) if value is None else (False, value)
    if expected == "null":
        empty = value is None or value == "" or value is False or value == 0
        return (True, None) if empty else (False, value)
    return True, value  # an unknown type keyword is not ours to enforce


def to_number(value: Any) -> Optional[float]:
    """The number a value stands for, or None: "5" -> 5, "0.5" -> 0.5, True -> 1, None -> 0."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    if value is None:
        return 0
    if isinstance(value, str):
        for parse in (int, float):  # int first, so "5" stays 5 and not 5.0
            try:
                number = parse(value)
            except ValueError:
                continue
            # float() accepts "nan" and "inf", which JSON has no spelling for.
            return number if math.isfinite(number) else None
    return None


def number_text(number: float) -> str:
    """JSON's spelling of a number: 5 -> "5", 5.0 -> "5", 0.5 -> "0.5"."""
    if isinstance(number, float) and number.is_integer():
        return str(int(number))
    return str(number)
