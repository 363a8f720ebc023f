"""Argument coercion: accept "5" where a number is expected, the way pi does.

Models write an offset as "5" or a flag as "true"; rejecting that would cost a turn for
nothing. So before a value is checked against its schema type, it is converted when the
conversion is unambiguous (pi's AJV `coerceTypes`, written out):

    expected   value            becomes
    number     "5" / "0.5"      5 / 0.5      (a string that parses as a finite number)
    number     true / null      1 / 0
    integer    "5" / 5.0        5            (not "5.5", which has a fraction)
    string     5 / 0.5 / true   "5" / "0.5" / "true"
    string     null             ""
    boolean    "true" / 1       True         ("false", 0 -> False; null -> False)
    null       "" / 0 / false   None
    array      "[1]"            refused      (arrays and objects are never coerced)

Left out: AJV's `coerceTypes: "array"`, which would also wrap a scalar: "a" -> ["a"].
"""

import math
from typing import Any, Optional, Tuple


def coerce(value: Any, expected: str) -> Tuple[bool, Any]:
    """(ok, value) for the JSON Schema type `expected`: (True, 5) for ("5", "number")."""
    is_bool = isinstance(value, bool)  # bool is a subclass of int in Python: test it first
    is_number = isinstance(value, (int, float)) and not is_bool
    if expected in ("object", "array"):  # never coerced
        return isinstance(value, dict if expected == "object" else list), value
    if expected == "string":
        if isinstance(value, str):
            return True, value
        if is_bool:
            return True, "true" if value else "false"  # JSON's spelling, not Python's "True"
        if isinstance(value, float) and value.is_integer():
            return True, str(int(value))  # JSON's spelling too: 5.0 -> "5"
        if is_number:
            return True, str(value)
        return (True, "") if value is None else (False, value)
    if expected in ("number", "integer"):
        number = to_number(value)
        if number is None or (expected == "integer" and number != int(number)):
            return False, value  # no number, or "5.5" for an integer
        return True, int(number) if expected == "integer" else number
    if expected == "boolean":
        if is_bool or value is None or (is_number and value in (0, 1)):
            return True, bool(value)
        if value in ("true", "false"):
            return True, value == "true"
        return False, value
    if expected == "null":
        empty = value is None or value == "" or value is False or value == 0
        return (True, None) if empty else (False, value)
    return True, value  # an unknown type keyword is not ours to enforce


def to_number(value: Any) -> Optional[float]:
    """The number a value stands for, or None: "5" -> 5, "0.5" -> 0.5, True -> 1, None -> 0."""
    if value is None or isinstance(value, bool):
        return int(bool(value))
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        for parse in (int, float):  # int first, so "5" stays 5 and not 5.0
            try:
                number = parse(value)
            except ValueError:
                continue
            return number if math.isfinite(number) else None  # float() takes "nan", "inf"
    return None
