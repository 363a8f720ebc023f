"""The "done" and "needs you" signal: a terminal bell, for the user in another window.

A run can take minutes, and meanwhile the user reads something else. Two moments are
worth calling them back for:

    the agent is done        the run ended by itself (an answer, an error, a limit):
                             the prompt is theirs again. Not after Esc or Ctrl-C:
                             whoever stopped it is looking.
    the agent needs them     a --confirm question or an extension's question waits:
                             nothing runs until they answer

The signal is the terminal's bell (BEL, "\\a"): every terminal has one, tmux and
screen pass it on and mark the window, and most terminals can turn it into a desktop
notification or an urgent window (docs/decisions.md D38: why not OSC 9 or OSC 777).
It is off by default (a sound after every answer is noise to someone who watches) and
on with settings.json's `"notify": true` or MINIAGENT_NOTIFY=1 (=0: off for this run,
whatever the settings say).

It is written only where the live area is drawn, a terminal on stdout that takes
control codes: the REPL's screen rings it after a frame (screen.py), the line mode
(TERM=dumb, where it would show as ^G) does not, and print, json and rpc modes, whose
output may be a pipe or a file, never ring.

Left out: a text with the signal (OSC 9's message), a sound or a command of one's own.
"""

from typing import Any, Mapping, Optional


def wants_notifications(settings: Optional[Any], env: Mapping[str, str]) -> bool:
    """Is the bell on? MINIAGENT_NOTIFY decides when it is set, settings' `notify` else.

    Examples: MINIAGENT_NOTIFY=1 -> True; MINIAGENT_NOTIFY=0 and "notify": true -> False;
              unset and "notify": true -> True; neither -> False.
    """
    given = env.get("MINIAGENT_NOTIFY", "").strip()
    if given:
        return given != "0"
    return settings is not None and settings.notify is True
