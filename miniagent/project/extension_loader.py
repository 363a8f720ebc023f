"""Loading extensions: the files found in trust order, each imported and set up.

extensions.py says what an extension is and holds what they registered; this file
brings them in. For each file, in the order of extensions.py's table (the home's
folder, a trusted project's, then each -e FILE):

    1. import it as a module of its own name      (code from the file runs here)
    2. call its setup(api) with a fresh ExtensionAPI, which only records
    3. hand the records to Extensions.adopt         (a failed setup leaves nothing)

A file that cannot be imported, has no setup, or raises in it (SystemExit included)
is one warning naming the file, and the run goes on without it.

Left out: packages of extensions and their dependencies (a file is one module).
"""

import importlib.util
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..core.tools import Tool
from .extension_context import ExtensionContext
from .extensions import Command, Execute, Extensions, Hook, ToolChange, describe
from .settings import config_files


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


def load_extensions(home: Path, cwd: str, trusted: bool, extra_files: Sequence[str] = (),
                    enabled: bool = True) -> Extensions:
    """Import and set up every extension, in load order. `enabled=False` (--no-extensions)
    skips the two folders; files named with -e (extra_files) still load."""
    extensions = Extensions()
    files = extension_files(home, cwd, trusted, enabled) + [Path(f) for f in extra_files]
    for index, path in enumerate(files):
        api = ExtensionAPI(str(path), cwd, extensions)
        try:
            setup_one(path, f"miniagent_extension_{index}_{path.stem}", api)
        # SystemExit too: an extension calling sys.exit() must not end miniagent.
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - skipped, the run goes on
            extensions.warnings.append(f"extension {path} failed to load and was skipped: "
                                       f"{describe(exc)}")
            continue
        extensions.adopt(api)
    return extensions


def extension_files(home: Path, cwd: str, trusted: bool, enabled: bool) -> List[Path]:
    """The .py files of the global folder, then (when trusted) the project's, by name."""
    if not enabled:
        return []
    folders = config_files("extensions", home, cwd, trusted)
    return [path for folder in folders if folder.is_dir()
            for path in sorted(folder.glob("*.py")) if path.is_file()]


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
