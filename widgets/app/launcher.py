"""The ``podplanner`` console script: the domain's commands plus the window and the exports.

``podplanner`` and ``podplanner FILE`` open the window (:mod:`widgets.app.cli`);
``podplanner export`` writes files (:mod:`exporters.cli`); every other command is
the domain's own (:mod:`designer.cli`). Importing this module loads no Qt, so
``podplanner analyze`` never does.
"""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from designer.cli import main as run_command_line
    from exporters import cli as export_command

    from . import cli as gui_command

    return run_command_line(argv, commands=(gui_command, export_command), default=gui_command.NAME)


if __name__ == "__main__":
    sys.exit(main())
