"""``python -m designer``: the domain's own commands (analyze, validate, fabric, train, catalog).

Opening the window and writing exports sit above the domain; they come with the
``podplanner`` console script (:mod:`widgets.app.launcher`). Asked for here, they are
named in one line, exit 2.
"""
import sys

from designer.cli import DOMAIN_COMMANDS, main

_HERE = f"python -m designer runs the domain's commands only ({', '.join(DOMAIN_COMMANDS)})"
ELSEWHERE = {
    "gui": f"the window opens with the podplanner command (podplanner [FILE]); {_HERE}",
    "export": f"exports are written by the podplanner command (podplanner export FILE ...); {_HERE}",
}

if __name__ == "__main__":
    sys.exit(main(default="gui", elsewhere=ELSEWHERE))
