"""A pretend server: it reads settings.json and says how it would serve."""

import json

SETTINGS_FILE = "settings.json"


def load_settings(path=SETTINGS_FILE):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def describe(settings):
    """Example: {"host": "h", "port": 1, "retries": 2, "timeout_seconds": 3}
    -> "serving on h:1, 2 retries, 3 s timeout"."""
    return (f"serving on {settings['host']}:{settings['port']}, "
            f"{settings['retries']} retries, {settings['timeout_seconds']} s timeout")


if __name__ == "__main__":
    print(describe(load_settings()))
