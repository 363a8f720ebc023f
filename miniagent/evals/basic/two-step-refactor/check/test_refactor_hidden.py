"""The hidden check of two-step-refactor: same output, one helper, no copy left.

The structure is read with ast, so a comment or a docstring that mentions the helper
does not count as using it.
"""

import ast
import unittest

from invoices import invoice_total
from orders import order_line

ORDER = [("tea", 2, 350), ("cake", 1, 420), ("espresso machine", 1, 123450)]


def read_tree(path):
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read(), path)


def calls_to(tree, name):
    """How many calls of `name(...)` or `module.name(...)` the tree holds."""
    return sum(1 for node in ast.walk(tree) if isinstance(node, ast.Call)
               and (getattr(node.func, "id", None) == name
                    or getattr(node.func, "attr", None) == name))


def helper_names(tree):
    """The names format_euros is imported under: `from money import format_euros as f`
    gives "f"; `import money` keeps it "format_euros", called as money.format_euros."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "money":
            names.update(alias.asname or alias.name for alias in node.names
                         if alias.name == "format_euros")
        if isinstance(node, ast.Import) and any(alias.name == "money" for alias in node.names):
            names.add("format_euros")
    return names


class BehaviourTest(unittest.TestCase):
    def test_order_lines(self):
        self.assertEqual(order_line("tea", 2, 350), "2 x tea: 7,00 EUR")
        self.assertEqual(order_line("espresso machine", 1, 123450),
                         "1 x espresso machine: 1.234,50 EUR")

    def test_invoice_totals(self):
        self.assertEqual(invoice_total(ORDER), "Total: 1.245,70 EUR")
        self.assertEqual(invoice_total([]), "Total: 0,00 EUR")

    def test_format_euros(self):
        from money import format_euros
        self.assertEqual(format_euros(5), "0,05 EUR")
        self.assertEqual(format_euros(123450), "1.234,50 EUR")
        self.assertEqual(format_euros(100000000), "1.000.000,00 EUR")


class StructureTest(unittest.TestCase):
    def test_money_defines_format_euros(self):
        names = [node.name for node in read_tree("money.py").body
                 if isinstance(node, ast.FunctionDef)]
        self.assertIn("format_euros", names, "money.py defines no function format_euros")

    def test_both_callers_use_the_helper_and_keep_no_copy(self):
        for path in ("orders.py", "invoices.py"):
            with self.subTest(path=path):
                tree = read_tree(path)
                self.assertTrue(any(calls_to(tree, name) for name in helper_names(tree)),
                                f"{path} does not call money.format_euros")
                self.assertEqual(calls_to(tree, "divmod"), 0,
                                 f"{path} still splits euros and cents itself")
                self.assertEqual(calls_to(tree, "replace"), 0,
                                 f"{path} still puts in the thousands dots itself")


if __name__ == "__main__":
    unittest.main()
