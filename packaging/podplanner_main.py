"""The packaged app's entry point: the same ``podplanner`` command as the installed console script.

Started from a desktop (a double-click, a file opened with it), the app has no terminal to print
to: an error before the window exists (a file that cannot be read, a catalog folder that breaks)
would be a silent exit. In that case what the command printed as an error is also written to the
log file and shown in a message box that names it. Command-line use is left as it is: its errors
are the one line on stderr and the exit code scripts rely on.
"""
import multiprocessing
import os
import sys
from contextlib import suppress

from widgets.app.launcher import main


class _Tee:
    """stderr as it was, and a copy kept for the message box."""

    def __init__(self, stream):
        self.stream, self.kept = stream, []

    def write(self, text):
        self.kept.append(text)
        return self.stream.write(text) if self.stream is not None else len(text)

    def flush(self):
        if self.stream is not None:
            self.stream.flush()

    def isatty(self):
        return self.stream is not None and self.stream.isatty()

    def __getattr__(self, name):  # encoding, fileno … as the real stream has them
        return getattr(self.stream, name)


#: The command line's commands: any other first word (a file, even a missing one) opens the window.
COMMANDS = {"gui", "analyze", "validate", "fabric", "train", "new", "catalog", "compare", "export", "sweep", "plan"}


def _opens_window(argv: list[str]) -> bool:
    """Whether this command line opens the window (the command line's default): no command, ``gui``, or a
    file to open, after any ``--catalog DIR`` options."""
    words = list(argv)
    while words and words[0] == "--catalog":
        words = words[2:]
    while words and words[0].startswith("--catalog="):
        words = words[1:]
    if not words:
        return True
    first = words[0]
    return first == "gui" or (not first.startswith("-") and first not in COMMANDS)


def _can_show_a_window() -> bool:
    if os.environ.get("QT_QPA_PLATFORM") == "offscreen":  # a headless check: nobody to click a box
        return False
    try:
        from widgets.app.qt_env import display_problem

        return display_problem() is None
    except Exception:  # noqa: BLE001
        return False


def _tell(text: str) -> None:
    """Why the app could not start, in the log and, with a screen and no terminal, in a box naming the log."""
    # with no Qt or no display the line on stderr is all there is
    with suppress(Exception):
        from PySide6.QtCore import QCoreApplication

        from widgets.app import error_log

        QCoreApplication.setOrganizationName("PodPlanner")
        QCoreApplication.setApplicationName("PodPlanner")
        path = error_log.log_start_failure(text)
        print(f"(written to {path})" if path else "(no log could be written)", file=sys.stderr)
        if sys.stderr is not None and sys.stderr.isatty():  # started from a terminal: the line is enough
            return
        if not _can_show_a_window():
            return
        from PySide6.QtWidgets import QMessageBox

        from widgets.app.application import application

        application()
        where = f"\n\nThe details are in\n{path}" if path else ""
        QMessageBox.critical(None, "PodPlanner", f"PodPlanner could not start:\n\n{text}{where}")


def run(argv: list[str]) -> int:
    if not getattr(sys, "frozen", False) or not _opens_window(argv):
        return main(argv)
    real = sys.stderr
    tee = _Tee(real)
    sys.stderr = tee
    try:
        code = main(argv)
    finally:
        sys.stderr = real
    if code != 0:
        text = "".join(tee.kept).strip()
        from widgets.app import error_log

        if text and error_log.error_count() == 0:  # an error the window's own log has not shown already
            _tell(text)
    return code


if __name__ == "__main__":
    multiprocessing.freeze_support()  # a frozen app on Windows re-enters here in any child process
    sys.exit(run(sys.argv[1:]))
