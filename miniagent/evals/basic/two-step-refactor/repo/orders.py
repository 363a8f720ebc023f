"""One line of an order confirmation."""


def order_line(name, quantity, unit_cents):
    """Example: order_line("tea", 2, 350) -> "2 x tea: 7,00 EUR"."""
    cents = quantity * unit_cents
    euros, rest = divmod(cents, 100)
    whole = f"{euros:,}".replace(",", ".")  # 1234 -> "1.234"
    amount = f"{whole},{rest:02d} EUR"
    return f"{quantity} x {name}: {amount}"
