"""Rectangles: their area and whether they are squares."""


def calc_area(width, height):
    """The area of a width x height rectangle."""
    return width * height


def is_square(width, height):
    return width == height
