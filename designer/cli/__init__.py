"""The ``podplanner`` command line of the domain: the top layer of ``designer``, which nothing below imports.

* :mod:`.main` — :func:`main`: the parser, ``analyze``, ``validate``, ``compare`` and ``catalog``, and
  the command modules registered from outside ``designer`` (the window, the exports);
* :mod:`.fabric`, :mod:`.train`, :mod:`.new` — ``podplanner fabric``, ``train`` and ``new``;
* :mod:`.flags` — argparse types for numeric flags; :mod:`.json_output` — JSON on stdout for ``--json``.
"""
from .main import DOMAIN_COMMANDS, USER_ERRORS, CommandModule, UsageError, main

__all__ = ["DOMAIN_COMMANDS", "USER_ERRORS", "CommandModule", "UsageError", "main"]
