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

from widgets.launcher import main


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


def _opens_window(argv: list[str]) -> bool:
    """No command, ``gui``, or a file to open: the window (the command line's default)."""
    return not argv or argv[0] == "gui" or (not argv[0].startswith("-") and os.path.isfile(argv[0]))


def _tell(text: str) -> None:
    """The error in the log and, where a screen can show it, in a message box naming the log."""
    try:
        from PySide6.QtCore import QCoreApplication

        from widgets import error_log

        QCoreApplication.setOrganizationName("PodPlanner")
        QCoreApplication.setApplicationName("PodPlanner")
        app = None
        if os.environ.get("QT_QPA_PLATFORM") != "offscreen":  # a headless check has nobody to click a box
            from widgets.app import application

            app = application()
        error_log.install(app)
        error_log.report_exception(RuntimeError(text))
        error_log.uninstall()
        print(f"(written to {error_log.log_path()})", file=sys.stderr)
    except Exception:  # noqa: BLE001 - with no Qt or no display the line on stderr is all there is
        pass


def run(argv: list[str]) -> int:
    if not getattr(sys, "frozen", False) or not _opens_window(argv):
        return main(argv)
    tee = _Tee(sys.stderr)
    sys.stderr = tee
    try:
        code = main(argv)
    finally:
        sys.stderr = tee.stream
    if code != 0:
        text = "".join(tee.kept).strip()
        from widgets import error_log

        if text and error_log.error_count() == 0:  # an error the window's own log has not shown already
            _tell(text)
    return code


if __name__ == "__main__":
    multiprocessing.freeze_support()  # a frozen app on Windows re-enters here in any child process
    sys.exit(run(sys.argv[1:]))
