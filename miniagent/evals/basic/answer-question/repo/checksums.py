"""Three small checksums over bytes, each starting from a seed."""


def simple_sum(data, seed=0):
    """The sum of the bytes, modulo 256."""
    return (seed + sum(data)) % 256


def xor_sum(data, seed=255):
    """Every byte XORed together."""
    value = seed
    for byte in data:
        value ^= byte
    return value


def rolling_sum(data, seed=97):
    """A sum where each byte's position counts, modulo 65521."""
    value = seed
    for byte in data:
        value = (value * 31 + byte) % 65521
    return value
