"""What a project file is called, and the one error a file that cannot be used raises."""
from __future__ import annotations

FORMAT = "podplanner-project"
SUFFIX = ".podplan.json"


class ProjectFileError(ValueError):
    """A project file that cannot be used: ``where: what is wrong``."""

    def __init__(self, where: str, reason: str, file: str = ""):
        # a key, a file name or a value may hold a newline or a lone surrogate: the message stays one line
        # that any stream can print
        where, reason, file = _printable(where), _printable(reason), _printable(file)
        self.where, self.reason, self.file = where, reason, file
        text = f"{where}: {reason}" if where else reason
        super().__init__(f"{file}: {text}" if file else text)


def _printable(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
