"""A line of text about one room."""

from shapes import calc_area, is_square


def describe(name, width, height):
    """Example: describe("hall", 2, 5) -> "hall: 10 m2"."""
    shape = " (square)" if is_square(width, height) else ""
    return f"{name}: {calc_area(width, height)} m2{shape}"
