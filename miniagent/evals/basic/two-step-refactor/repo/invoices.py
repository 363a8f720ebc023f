"""The last line of an invoice."""


def invoice_total(lines):
    """lines are (name, quantity, unit_cents) tuples.

    Example: invoice_total([("tea", 2, 350), ("cake", 1, 420)]) -> "Total: 11,20 EUR"
    """
    cents = sum(quantity * unit_cents for _, quantity, unit_cents in lines)
    euros, rest = divmod(cents, 100)
    whole = f"{euros:,}".replace(",", ".")  # 1234 -> "1.234"
    amount = f"{whole},{rest:02d} EUR"
    return f"Total: {amount}"
