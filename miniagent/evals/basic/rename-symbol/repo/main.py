"""Prints each room of a small flat and the total floor area."""

from report import describe
from shapes import calc_area

ROOMS = [("kitchen", 3, 4), ("bedroom", 4, 4), ("hall", 2, 5)]


def main():
    for name, width, height in ROOMS:
        print(describe(name, width, height))
    total = sum(calc_area(width, height) for _, width, height in ROOMS)
    print(f"total: {total} m2")


if __name__ == "__main__":
    main()
