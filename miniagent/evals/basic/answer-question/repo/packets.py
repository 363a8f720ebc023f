"""Packets: a length byte, the payload, then two checksum bytes."""

from checksums import rolling_sum as checksum
from checksums import simple_sum


def make_packet(payload):
    """Example: make_packet(b"hi") -> b"\\x02hi" + the payload's checksum in 2 bytes."""
    return bytes([len(payload)]) + payload + checksum(payload).to_bytes(2, "big")


def header_ok(packet):
    """A quick sanity test of the length byte, used before the full check."""
    return simple_sum(packet[:1]) == len(packet) - 3
