"""Prints a small order and its total."""

from invoices import invoice_total
from orders import order_line

ORDER = [("tea", 2, 350), ("cake", 1, 420), ("espresso machine", 1, 123450)]

if __name__ == "__main__":
    for name, quantity, unit_cents in ORDER:
        print(order_line(name, quantity, unit_cents))
    print(invoice_total(ORDER))
