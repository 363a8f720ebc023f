"""Best-effort parsing of incomplete JSON, for showing tool arguments while they stream.

A model streams a tool call's arguments as fragments of one JSON text. While they
arrive, the front end wants to show something useful ("writing src/ma..."), but the
text is not valid JSON yet. `parse_partial` reads as much as it can and closes what is
still open, from the inside out:

    '{"path": "src/ma'          -> {"path": "src/ma"}         open string closed
    '{"a": 1, "b": [1, 2'       -> {"a": 1, "b": [1, 2]}      open array and object closed
    '{"a": 12'                  -> {"a": 12}                   a number may still grow
    '{"a": tr'  /  '{"a": nu'   -> {"a": True} / {"a": None}  a started literal is completed
    '{"a": 1, "b'               -> {"a": 1}                    a key without a value is dropped
    '{"pa'                      -> {}
    '{"a": 1.'  /  '{"a": -'    -> {}                          an unreadable number: key dropped
    '{"cmd": "echo \\"hi'       -> {"cmd": 'echo "hi'}        escapes are decoded
    '[1,2'                      -> [1, 2]
    '"abc'                      -> "abc"
    'not json'                  -> {}                          nothing readable at all

The rule behind every line: parse normally until the text runs out (or stops making
sense); at that point each value still open is closed if it can stand on its own (a
string keeps what it has, a literal is completed, a number is kept only if it already
reads as a number) and otherwise dropped together with its key.

`parse_partial` never raises; it returns `{}` when nothing is readable. It is for
display only and may be called lazily or throttled. The arguments of a finished tool
call go through `parse_arguments` once, at the end of the block (so assembling a
stream stays linear in its size), and that one repairs nothing: a tool must never run
on a guess (`'{"command": "rm -rf /tmp/x'` may have gone on). The two share one
shape: `parse_partial` is `parse_arguments` first, and the repairing reader only for
a text that is not valid JSON yet.

What the builder (core/assembly.py) does with a text `parse_arguments` rejects:
the call gets no arguments (`{}`) and keeps the text in its `invalidArguments`; the
loop then does not run the tool but answers the call with an error quoting that text,
so the model sends the call again with complete JSON.

One leniency: raw control characters inside strings (a literal newline, which JSON
forbids but some models send) are accepted, here and in `parse_arguments`.

Left out: JSON5 and other repairs (single quotes, trailing commas, comments); a text
that is complete but wrong is simply read up to where it goes wrong.
"""

import json
import re
from typing import Any, Tuple

# The inside of a string up to its closing quote or the end of the text: any run of
# ordinary characters and complete escapes. An escape cut short (a lone "\" or "\u12"
# at the end) is left unmatched, so it is dropped rather than mis-decoded.
_STRING_BODY = re.compile(r'(?:[^"\\]+|\\u[0-9a-fA-F]{4}|\\[^u])*')
_CUT_ESCAPE = re.compile(r"(?:\\(?:u[0-9a-fA-F]{0,3})?)?")
_NUMBER = re.compile(r"[-+0-9.eE]+")
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_LITERALS = {"true": True, "false": False, "null": None}

_NOTHING = object()  # "the text ended before anything usable": drop this value


class _Cut(Exception):
    """The text ran out (or went wrong) inside a value. `value` is that value closed
    as well as possible, or _NOTHING."""

    def __init__(self, value: Any):
        super().__init__()
        self.value = value


def parse_arguments(text: str) -> Any:
    """Parse the complete argument text of a finished tool call: its JSON value, or
    None when the text is not valid JSON (cut off by the output token limit, garbled).
    The caller decides what None means (the builder: see the module docstring). An
    empty text means no arguments (`""` -> `{}`, as servers send for parameterless
    tools).

    Examples: '{"path": "a.py"}' -> {"path": "a.py"};  "" -> {};
              '{"path": "a.py", "con' -> None;  '{"cmd": "rm -rf /tmp/x' -> None
    """
    if not text or not text.strip():
        return {}
    try:
        return json.loads(text, strict=False)
    except (ValueError, RecursionError):
        return None


def parse_partial(text: str) -> Any:
    """Parse a possibly incomplete JSON text as far as it goes (examples above)."""
    complete = parse_arguments(text)
    if complete is not None:  # valid JSON (or empty): nothing to repair
        return complete
    try:
        value, _ = _PartialParser(text).value(0)
    except _Cut as cut:
        value = cut.value
    except RecursionError:  # absurdly deep nesting: not worth showing
        value = _NOTHING
    return {} if value is _NOTHING else value


class _PartialParser:
    """A small recursive-descent JSON reader. Each method reads one value starting
    at index i and returns (value, index after it), or raises _Cut."""

    def __init__(self, text: str):
        self.text = text

    def skip_whitespace(self, i: int) -> int:
        return _WHITESPACE.match(self.text, i).end()

    def value(self, i: int) -> Tuple[Any, int]:
        i = self.skip_whitespace(i)
        char = self.text[i : i + 1]
        if char == "{":
            return self.object(i + 1)
        if char == "[":
            return self.array(i + 1)
        if char == '"':
            return self.string(i + 1)
        if char and char in "-0123456789":
            return self.number(i)
        return self.literal(i)

    def object(self, i: int) -> Tuple[dict, int]:
        result: dict = {}
        while True:
            i = self.skip_whitespace(i)
            if self.text.startswith("}", i):
                return result, i + 1
            if not self.text.startswith('"', i):
                raise _Cut(result)  # the text ended, or no key where one belongs
            try:
                key, i = self.string(i + 1)
            except _Cut:
                raise _Cut(result) from None  # a half-written key is dropped
            i = self.skip_whitespace(i)
            if not self.text.startswith(":", i):
                raise _Cut(result)
            try:
                result[key], i = self.value(i + 1)
            except _Cut as cut:
                if cut.value is not _NOTHING:
                    result[key] = cut.value
                raise _Cut(result) from None
            i = self.skip_after_item(i, "}", result)

    def array(self, i: int) -> Tuple[list, int]:
        result: list = []
        while True:
            i = self.skip_whitespace(i)
            if self.text.startswith("]", i):
                return result, i + 1
            try:
                item, i = self.value(i)
            except _Cut as cut:
                if cut.value is not _NOTHING:
                    result.append(cut.value)
                raise _Cut(result) from None
            result.append(item)
            i = self.skip_after_item(i, "]", result)

    def skip_after_item(self, i: int, closer: str, container: Any) -> int:
        """After a member: a comma means another follows; the closer is left for the
        caller; anything else (including the end of the text) closes the container."""
        i = self.skip_whitespace(i)
        if self.text.startswith(",", i):
            return i + 1
        if self.text.startswith(closer, i):
            return i
        raise _Cut(container)

    def string(self, i: int) -> Tuple[str, int]:
        """i is just after the opening quote."""
        end = _STRING_BODY.match(self.text, i).end()
        body = self.text[i:end]
        closed = self.text.startswith('"', end)
        if not closed and not _CUT_ESCAPE.fullmatch(self.text, end):
            raise _Cut(_NOTHING)  # a broken escape such as "\\u12" mid-string
        try:
            decoded = json.loads('"' + body + '"', strict=False)
        except ValueError:  # an unknown escape such as "\\q"
            raise _Cut(_NOTHING) from None
        if not closed:
            raise _Cut(decoded)  # the text ended inside the string
        return decoded, end + 1

    def number(self, i: int) -> Tuple[Any, int]:
        end = _NUMBER.match(self.text, i).end()
        try:
            return json.loads(self.text[i:end]), end
        except ValueError:
            raise _Cut(_NOTHING) from None  # "1." or "-": not a number yet

    def literal(self, i: int) -> Tuple[Any, int]:
        for word, value in _LITERALS.items():
            if self.text.startswith(word, i):
                return value, i + len(word)
            rest = self.text[i : i + len(word)]
            if rest and word.startswith(rest) and i + len(rest) == len(self.text):
                raise _Cut(value)  # "tr" at the very end of the text: true
        raise _Cut(_NOTHING)
