"""Loading extensions: each one found, imported and set up, in load order.

extensions.py says what an extension is and holds what they registered; this file
brings them in. resources.py decides what to load (the bundled ones on by default,
the extension folders' files, settings' list, each -e), as a list of sources: a
bundled extension's name ("checkpoints", a module of miniagent/extensions/) or a file.
For each source, in that order:

    1. import it                                  (code from the file runs here)
    2. call its setup(api) with a fresh ExtensionAPI, which only records
    3. hand the records to Extensions.adopt       (a failed setup leaves nothing)

A source that cannot be imported, has no setup, or raises in it (SystemExit included)
is one warning naming it, and the run goes on without it.

Left out: packages of extensions and their dependencies (a file is one module).
"""

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..core.tools import Tool
from .extension_context import ExtensionContext
from .extensions import Command, Execute, Extensions, Hook, ToolChange, describe
from .settings import is_bundled_name


class ExtensionAPI:
    """What one extension's setup(api) may call. It only records; Extensions takes the
    records over once setup has returned, so a failed setup leaves nothing behind."""

    def __init__(self, source: str, cwd: str, extensions: "Extensions"):
        self.source = source
        self.cwd = cwd
        self._extensions = extensions  # add_message may also be called later, from a hook
        self.handlers: List[Tuple[str, Callable]] = []
        self.tools: List[Tool] = []
        self.before: List[Hook] = []
        self.after: List[Hook] = []
        self.commands: List[Command] = []
        self.shortcuts: List[Command] = []
        self.tool_changes: List[ToolChange] = []

    def on(self, event_type: str, handler: Callable[[Dict[str, Any]], None]) -> None:
        self.handlers.append((event_type, handler))

    def register_tool(self, tool: Tool) -> None:
        if not isinstance(tool, Tool):  # fail now, in setup, not at the model's first call
            raise TypeError(f"register_tool needs a miniagent.tools.Tool, "
                            f"got {type(tool).__name__}")
        self.tools.append(tool)

    def before_tool_call(self, fn: Hook) -> None:
        self.before.append(fn)

    def after_tool_call(self, fn: Hook) -> None:
        self.after.append(fn)

    def register_command(self, name: str, fn: Callable[[str], Any], description: str = "") -> None:
        self.commands.append(Command(name.lstrip("/"), fn, description, self.source))

    def register_shortcut(self, key: str, fn: Callable[[], Any], description: str = "") -> None:
        self.shortcuts.append(Command(key.lower(), fn, description, self.source))

    def get_flag(self, name: str) -> Any:
        return self._extensions.flags.get(name)

    def add_message(self, text: str, custom_type: str) -> None:
        self._extensions.add_message(text, custom_type)

    def send_user_message(self, text: str) -> None:
        self._extensions.send_user_message(text)

    # These reach the running session, so they are for handlers and commands, not setup.

    @property
    def ctx(self) -> ExtensionContext:
        return self._extensions.context

    def append_entry(self, custom_type: str, data: Any = None) -> str:
        return self._extensions.append_entry(custom_type, data)

    def get_active_tools(self) -> List[str]:
        return self._extensions.active_tools()

    def set_active_tools(self, names: Sequence[str]) -> None:
        self._extensions.set_active_tools(names)

    def extend_tool(self, name: str, properties: Optional[Dict[str, Any]] = None,
                    wrap: Optional[Callable[[Execute], Execute]] = None) -> None:
        """Recorded in setup, applied whenever the tool `name` is built."""
        self.tool_changes.append(ToolChange(name, dict(properties or {}), wrap))


def load_extensions(cwd: str, sources: Sequence[str]) -> Extensions:
    """Import and set up every source (a bundled name or a file), in order."""
    extensions = Extensions()
    for index, source in enumerate(sources):
        api = ExtensionAPI(source, cwd, extensions)
        try:
            if is_bundled_name(source):
                setup_bundled(source, api)
            else:
                path = Path(source)
                setup_one(path, f"miniagent_extension_{index}_{path.stem}", api)
        # SystemExit too: an extension calling sys.exit() must not end miniagent.
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - skipped, the run goes on
            extensions.warnings.append(f"extension {source} failed to load and was skipped: "
                                       f"{describe(exc)}")
            continue
        extensions.adopt(api)
    return extensions


def setup_bundled(name: str, api: ExtensionAPI) -> None:
    """Import miniagent/extensions/NAME and call its setup(api)."""
    from ..extensions import BUNDLED
    if name not in BUNDLED:
        raise LookupError(f"no bundled extension is named {name!r} (bundled: "
                          f"{', '.join(BUNDLED)}; a file's name needs a / or .py)")
    importlib.import_module(f"miniagent.extensions.{name}").setup(api)


def setup_one(path: Path, module_name: str, api: ExtensionAPI) -> None:
    """Import the file as a module named module_name and call its setup(api)."""
    if not path.is_file():
        raise FileNotFoundError("no such file")
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None:
        raise ImportError("not a Python file (the name must end in .py)")
    module = importlib.util.module_from_spec(spec)
    # Registered like any import, so code that looks its module up (dataclasses,
    # pickle) works; the unique name keeps two files called gate.py apart.
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    setup = getattr(module, "setup", None)
    if not callable(setup):
        raise AttributeError("it defines no setup(api) function")
    setup(api)
