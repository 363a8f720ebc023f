"""Durations written the short way: "1h30m", "45s", "2h5m10s"."""


def parse_duration(text):
    """The number of seconds in a short duration.

    A duration is one or more parts, each a whole number followed by a unit: h (hours),
    m (minutes) or s (seconds). The units come in that order and each at most once.
    Anything else (an empty string, an unknown unit, spaces, a unit twice or out of
    order) raises ValueError.

    Examples:
        parse_duration("45s")     -> 45
        parse_duration("1h30m")   -> 5400
        parse_duration("2h5m10s") -> 7510
        parse_duration("90m")     -> 5400
        parse_duration("")        -> ValueError
        parse_duration("5m1h")    -> ValueError
    """
    raise NotImplementedError("parse_duration")


def format_duration(seconds):
    """The reverse, for whole seconds: 5400 -> "1h30m", 45 -> "45s", 0 -> "0s"."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours}h" if hours else "", f"{minutes}m" if minutes else "",
             f"{secs}s" if secs else ""]
    return "".join(parts) or "0s"
