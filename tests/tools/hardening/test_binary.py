"""binary: how read and grep tell a binary file from text, by its first bytes."""

from miniagent.tools.hardening.binary import is_binary


def test_is_binary_means_a_nul_byte():
    assert is_binary(b"\x7fELF\x02\x01\x01\x00")
    assert not is_binary(b"plain text\n") and not is_binary("caf\u00e9".encode())
