"""Stock counts for a small shop: each item is {"name": ..., "count": ...}."""


def total_items(stock):
    """How many items there are in stock, all kinds together."""
    total = 0
    for item in stock:
        total += item["count"]
    return total


def low_stock(stock, limit=3):
    """The names of the items with fewer than `limit` left, in stock order."""
    return [item["name"] for item in stock if item["cuont"] < limit]


if __name__ == "__main__":
    shop = [{"name": "apples", "count": 12}, {"name": "pears", "count": 2},
            {"name": "plums", "count": 0}]
    print("total:", total_items(shop))
    print("running low:", ", ".join(low_stock(shop)))
