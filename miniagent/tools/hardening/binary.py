"""Binary sniffing: is this file text the model can read, or bytes it cannot?

read and grep look at the first 8 KB of a file before they show any of it, and decide by
its bytes, never by its name (a `.txt` can be a zip; a script can have no extension):

    is_binary(b"\\x7fELF\\x02\\x01\\x01\\x00")  -> True    (an executable)
    is_binary(b"plain text\\n")              -> False
    is_binary("caf\\u00e9".encode())          -> False   (UTF-8 is text)

A binary file is described, not dumped: read says what it is and suggests `file` or
`xxd` in bash; grep skips it. (read first asks whether the bytes are an image it can send
to the model; that test, by magic numbers, is read.image_mime.)

Left out: telling text encodings apart (UTF-16, Latin-1); a UTF-16 file is full of NUL
bytes and counts as binary here.
"""

SNIFF_BYTES = 8192
"""How much of the start of a file read and grep look at to decide what kind it is."""


def is_binary(head: bytes) -> bool:
    """Whether a file whose first bytes are `head` is binary: it holds a NUL byte.

    Text files practically never contain a NUL byte, while executables, archives and
    most other binary formats have one near the start; git decides the same way.
    """
    return b"\0" in head
