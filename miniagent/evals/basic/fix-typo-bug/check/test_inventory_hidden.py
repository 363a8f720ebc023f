"""The hidden check of fix-typo-bug: low_stock works and total_items still does."""

import unittest

from inventory import low_stock, total_items

SHOP = [{"name": "apples", "count": 12}, {"name": "pears", "count": 2},
        {"name": "plums", "count": 0}, {"name": "figs", "count": 3}]


class LowStockTest(unittest.TestCase):
    def test_items_below_the_default_limit(self):
        self.assertEqual(low_stock(SHOP), ["pears", "plums"])

    def test_a_limit_given(self):
        self.assertEqual(low_stock(SHOP, limit=13), ["apples", "pears", "plums", "figs"])
        self.assertEqual(low_stock(SHOP, limit=0), [])

    def test_an_empty_shop(self):
        self.assertEqual(low_stock([]), [])

    def test_total_items_unchanged(self):
        self.assertEqual(total_items(SHOP), 17)


if __name__ == "__main__":
    unittest.main()
